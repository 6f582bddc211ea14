/**
 * The walkthrough as a script: the ```sh blocks of the README's walkthrough and of the guides'
 * "with curl" sections, as written, cut into steps at the output the page shows after a command
 * (`# → …` lines, `…` standing for what is left out).
 */
import { readFileSync } from 'node:fs'

/** What one step of the walkthrough must print: the page's output lines, each cut at `…`. */
export interface Step {
  /** The commands since the previous step, as the page writes them (for a failure's message). */
  commands: string
  /** The page's output lines, as written. */
  shown: string[]
  /** The pieces the output must hold, in this order (the shown lines cut at `…`). */
  pieces: string[]
}

export interface Walkthrough {
  /** The blocks, as written, with a line printing a marker before each step's shown output. */
  script: string
  steps: Step[]
}

const OUTPUT = /^# → ?(.*)$/
/** A line printed between two steps' output: nothing the service answers looks like it. */
export const MARKER = '@@walkthrough-step@@'

/** A section the walkthrough runs: a Markdown file and one of its `## ` headings. */
export type Section = readonly [file: string, heading: string]

/** The ```sh blocks of the section of `text` (the file `file`) with this heading (up to the next `## ` heading). */
export function shBlocks(text: string, heading: string, file = 'README.md'): string[] {
  const start = text.indexOf(`\n${heading}\n`)
  if (start < 0) throw new Error(`${file} has no "${heading}" section`)
  const rest = text.slice(start + heading.length + 2)
  const end = rest.search(/^## /m)
  const section = end < 0 ? rest : rest.slice(0, end)
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!)
}

/** The walkthrough of a section: the script to run and what each step must print. */
export function walkthroughOf(text: string, heading: string, file = 'README.md'): Walkthrough {
  const lines: string[] = []
  const steps: Step[] = []
  let commands: string[] = []
  let shown: string[] | null = null
  for (const block of shBlocks(text, heading, file)) {
    for (const line of block.split('\n')) {
      const output = OUTPUT.exec(line)
      if (output) {
        if (shown === null) {
          shown = []
          lines.push(`printf '\\n%s\\n' '${MARKER}'`)
          steps.push({ commands: commands.join('\n').trim(), shown, pieces: [] })
          commands = []
        }
        shown.push(output[1]!)
      } else {
        shown = null
        commands.push(line)
      }
      lines.push(line)
    }
  }
  for (const step of steps) {
    step.pieces = step.shown.flatMap((line) => line.split('…').map((piece) => piece.trim())).filter((piece) => piece !== '')
  }
  return { script: lines.join('\n'), steps }
}

/** These sections' blocks (files relative to the repository's root), one after the other, in one script. */
export function walkthrough(...sections: Section[]): Walkthrough {
  const parts = sections.map(([file, heading]) => walkthroughOf(readFileSync(file, 'utf8'), heading, file))
  return { script: parts.map((part) => part.script).join('\n'), steps: parts.flatMap((part) => part.steps) }
}

/** The first of the pieces that the output does not hold in order, or null when it holds them all. */
export function missingPiece(output: string, pieces: readonly string[]): string | null {
  let from = 0
  for (const piece of pieces) {
    const at = output.indexOf(piece, from)
    if (at < 0) return piece
    from = at + piece.length
  }
  return null
}
