/**
 * The walkthrough, run as written: the ```sh blocks of the README's walkthrough and of the guides'
 * "with curl" sections, with bash and curl, against the Worker served by wrangler (as `npm start`
 * serves it), whose model is the tests' fake upstream behind test/clients/walkthrough-model.ts.
 * Each step must print what its page shows after it.
 *
 * The blocks read `PORT` (npm start's, default 8787) and sign their token with `npm run token`,
 * which reads `JWT_SECRET`: the test sets both to the served Worker's, and changes nothing else.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import type { Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { serveWorker } from '../served/global-setup'
import { run } from './helpers'
import { MARKER, missingPiece, type Section, type Step, walkthrough } from './readme'
import { startWalkthroughModel } from './walkthrough-model'

/** The sections run as written, in this order, in one shell (each sets the variables it uses). */
const SECTIONS: Section[] = [
  ['README.md', '## Walkthrough'],
  ['docs/guides/turns.md', '## Try it with curl'],
  ['docs/guides/openai.md', '## Try it with curl'],
  ['docs/guides/branches.md', '## Edit, regenerate and rewind, with curl'],
  ['docs/guides/compaction.md', '## Background passes, previews, undo and pins, with curl'],
  ['docs/guides/images.md', '## Images through each door, with curl'],
  ['docs/guides/memory.md', '## Try it with curl'],
]
const missing = ['bash', 'curl', 'npm'].filter((tool) => spawnSync(tool, ['--version'], { stdio: 'ignore' }).error)
const why = missing.length > 0 ? `the walkthrough needs ${missing.join(' and ')} on PATH` : ''
if (why) console.warn(`skipped: ${why}`)

/** Runs a script with bash (-e: a failing command stops it), answering its output. */
function bash(script: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const folder = mkdtempSync(join(tmpdir(), 'durable-sessions-readme-'))
  const file = join(folder, 'walkthrough.sh')
  writeFileSync(file, script)
  return run('bash', ['-e', '-o', 'pipefail', file], { cwd: process.cwd(), env: { ...process.env, ...env } }).finally(() =>
    rmSync(folder, { recursive: true, force: true }),
  )
}

const clip = (text: string, max = 3000) => (text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text)

/** Why a step's output is not what its page shows, or null. */
function mismatch(step: Step, output: string): string | null {
  const piece = missingPiece(output, step.pieces)
  if (piece !== null) return `it lacks ${JSON.stringify(piece)} (in this order)`
  // An error the page does not show would hide in what it leaves out.
  if (output.includes('{"error":{') && !step.shown.some((line) => line.includes('"error"'))) return 'it answered an error'
  return null
}

describe.skipIf(why !== '')(why ? `the walkthrough (skipped: ${why})` : 'the walkthrough, as written', () => {
  let model: { url: string; server: Server }
  let worker: Awaited<ReturnType<typeof serveWorker>>

  beforeAll(async () => {
    model = await startWalkthroughModel(inject('upstreamUrl'))
    // The model as the README sets it up (the name is the README's: the fake answers any name).
    worker = await serveWorker({ OPENAI_BASE_URL: `${model.url}/v1`, OPENAI_API_KEY: 'ollama', CHAT_MODEL: 'llama3.2' })
  })

  afterAll(async () => {
    await worker?.stop()
    await new Promise<void>((resolve) => (model ? model.server.close(() => resolve()) : resolve()))
  })

  it('each step answers what its page shows after it', { timeout: 120_000 }, async () => {
    const { script, steps } = walkthrough(...SECTIONS)
    expect(steps.length, 'the walkthrough shows output after its commands').toBeGreaterThan(10)
    const port = new URL(worker.url).port
    const run = await bash(script, { PORT: port, JWT_SECRET: inject('jwtSecret') })
    // Before each step's shown output, the script prints the marker: what comes before it is the step's.
    const outputs = run.stdout.split(`\n${MARKER}\n`)
    const problems: string[] = []
    for (const [i, step] of steps.entries()) {
      const output = outputs[i]
      const problem = output === undefined ? 'the script stopped before it' : mismatch(step, output)
      if (problem) {
        problems.push(
          `step ${i + 1}: ${problem}\n--- commands\n${step.commands}\n--- the page shows\n${step.shown.join('\n')}\n--- it printed\n${clip(output ?? '')}`,
        )
      }
    }
    if (run.code !== 0) problems.push(`bash exited with ${run.code}\n--- stderr\n${clip(run.stderr)}`)
    expect(problems.join('\n\n')).toBe('')
  })
})
