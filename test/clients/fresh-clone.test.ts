/**
 * What a newcomer types first, on a fresh clone: `npx wrangler dev` (the inspector is built by
 * wrangler.toml's [build] step, the secret comes from `.dev.vars` copied from the example), and
 * `npm run deploy -- --dry-run` (one bundle, no warning, no locale but English).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { sign } from 'hono/jwt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const root = process.cwd()

/** The tracked files of the repository, copied as a clone has them (no dist/, no .dev.vars, no state). */
function freshClone(): string {
  const dir = mkdtempSync(join(tmpdir(), 'durable-sessions-clone-'))
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
  for (const file of files.split('\n').filter(Boolean)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true })
    try {
      cpSync(join(root, file), join(dir, file))
    } catch {
      // A file deleted in the working tree but not yet in git: a clone would not have it either.
    }
  }
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'))
  return dir
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

/** Runs a command in the clone; answers what it printed, and fails with it when it fails. */
const run = (dir: string, command: string, args: string[]) =>
  execFileSync(command, args, {
    cwd: dir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
  })

let clone: string
beforeAll(() => {
  clone = freshClone()
})
afterAll(() => rmSync(clone, { recursive: true, force: true }))

/** A dev server started in the clone; answers its base URL once it serves, and keeps what it printed. */
async function serve(command: string, args: string[], env: Record<string, string>) {
  const output: string[] = []
  // In a process group of its own: npx and npm start each run wrangler, which runs workerd.
  const child = spawn(command, args, {
    cwd: clone,
    detached: true,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', ...env },
  })
  servers.push(child)
  for (const stream of [child.stdout, child.stderr]) stream?.on('data', (chunk) => output.push(String(chunk)))
  const base = `http://127.0.0.1:${env.PORT ?? args[args.indexOf('--port') + 1]}`
  for (;;) {
    try {
      await (await fetch(`${base}/inspect`)).arrayBuffer()
      return { base, output }
    } catch {
      if (child.exitCode !== null) throw new Error(`${command} exited:\n${output.join('')}`)
      await new Promise((resolve) => setTimeout(resolve, 250)) // polling for the server to listen
    }
  }
}
const servers: ChildProcess[] = []
/** Stops a server and everything it started: its whole process group, killed if it does not stop within 10 s. */
async function stop(server: ChildProcess) {
  if (server.exitCode !== null || server.signalCode !== null) return
  const exited = new Promise((resolve) => server.once('exit', resolve))
  const group = (signal: NodeJS.Signals) => {
    try {
      process.kill(-server.pid!, signal)
    } catch {} // gone already
  }
  group('SIGTERM')
  const timeout = new Promise((resolve) => setTimeout(resolve, 10_000, 'timeout'))
  if ((await Promise.race([exited, timeout])) === 'timeout') group('SIGKILL')
  group('SIGKILL') // anything of the group still running once its leader exited
}
afterAll(() => Promise.all(servers.map(stop)))

/** The inspector page and an API call signed with `secret`, through a served clone. */
async function expectServes(base: string, secret: string) {
  const page = await fetch(`${base}/inspect`)
  expect(page.status).toBe(200)
  expect(await page.text()).toContain('<div id="app">')
  const token = await sign({ sub: 'newcomer', exp: Math.floor(Date.now() / 1000) + 600 }, secret, 'HS256')
  const sessions = await fetch(`${base}/v1/sessions`, { headers: { Authorization: `Bearer ${token}` } })
  expect(sessions.status).toBe(200)
  expect(await sessions.json()).toEqual({ sessions: [], nextCursor: null })
}

describe('a fresh clone', () => {
  it('serves with `npx wrangler dev` once .dev.vars is copied from the example: the API and the inspector', async () => {
    cpSync(join(clone, '.dev.vars.example'), join(clone, '.dev.vars'))
    const port = String(await freePort())
    const { base } = await serve(
      'npx',
      ['wrangler', 'dev', '--port', port, '--ip', '127.0.0.1', '--persist-to', '.state-dev'],
      {},
    )
    const secret = /^JWT_SECRET=(.*)$/m.exec(readFileSync(join(clone, '.dev.vars'), 'utf8'))![1]!
    await expectServes(base, secret)
    rmSync(join(clone, '.dev.vars'))
  }, 180_000)

  it('serves with `npm start`, offline, printing no stack trace, with the Worker’s variables from the environment', async () => {
    const model = { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', CHAT_MODEL: 'a-local-model' }
    const { base, output } = await serve('npm', ['start'], { PORT: String(await freePort()), ...model })
    await expectServes(base, 'local-dev-secret')
    const token = await sign({ sub: 'newcomer', exp: Math.floor(Date.now() / 1000) + 600 }, 'local-dev-secret', 'HS256')
    const models = await fetch(`${base}/v1/models`, { headers: { Authorization: `Bearer ${token}` } })
    expect(((await models.json()) as { data: { id: string }[] }).data.map((m) => m.id)).toEqual(['a-local-model'])
    expect(output.join('')).not.toMatch(/Request\.cf|ENOTFOUND|\n\s+at /)
  }, 180_000)

  it('builds a deploy with `npm run deploy -- --dry-run`: no warning, English only', () => {
    const out = join(clone, '.deploy')
    const printed = run(clone, 'npm', ['run', 'deploy', '--', '--dry-run', '--outdir', out])
    expect(printed).toContain('--dry-run: exiting now.')
    expect(printed).not.toMatch(/WARNING|Multiple environments/)
    const bundle = readFileSync(join(out, 'index.js'), 'utf8')
    expect(bundle).toContain('zod/v4/locales/en.js')
    expect(bundle).not.toMatch(/zod\/v4\/locales\/(?!en\.js)[a-z-]+\.js/)
  }, 180_000)
})
