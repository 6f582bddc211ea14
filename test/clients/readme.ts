/**
 * The README's walkthrough as a script: its ```sh blocks, as written, cut into steps at the
 * output the README shows after a command (`# → …` lines, `…` standing for what is left out).
 */
import { readFileSync } from 'node:fs'

/** What one step of the walkthrough must print: the README's output lines, each cut at `…`. */
export interface Step {
  /** The commands since the previous step, as the README writes them (for a failure's message). */
  commands: string
  /** The README's output lines, as written. */
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

/** The ```sh blocks of the README section with this heading (up to the next `## ` heading). */
export function shBlocks(readme: string, heading: string): string[] {
  const start = readme.indexOf(`\n${heading}\n`)
  if (start < 0) throw new Error(`README.md has no "${heading}" section`)
  const rest = readme.slice(start + heading.length + 2)
  const end = rest.search(/^## /m)
  const section = end < 0 ? rest : rest.slice(0, end)
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!)
}

/** The walkthrough of a README section: the script to run and what each step must print. */
export function walkthroughOf(readme: string, heading: string): Walkthrough {
  const lines: string[] = []
  const steps: Step[] = []
  let commands: string[] = []
  let shown: string[] | null = null
  for (const block of shBlocks(readme, heading)) {
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

/** The walkthrough of the repository's README: these sections' blocks, one after the other, in one script. */
export function readmeWalkthrough(...headings: string[]): Walkthrough {
  const readme = readFileSync('README.md', 'utf8')
  const parts = headings.map((heading) => walkthroughOf(readme, heading))
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
