/**
 * The agent CLIs the client tests drive (from the test-only package in test/cli, which .ci/run
 * installs), each run as a user would point it at a deployment: a temporary HOME, the service's
 * URL and a token, nothing else of this machine's.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { sign } from 'hono/jwt'
import { expect, inject } from 'vitest'
import { serveWorker } from '../served/global-setup'
import { run } from './helpers'

export const CLAUDE = resolve('test/cli/node_modules/.bin/claude')
export const CODEX = resolve('test/cli/node_modules/.bin/codex')
/** Why the CLI tests are skipped here ('' when both CLIs are installed). */
export const cliMissing =
  existsSync(CLAUDE) && existsSync(CODEX) ? '' : 'the agent CLIs are not installed: run `npm ci --prefix test/cli`'

/**
 * The served Worker the CLIs run against: the fake upstream as its model (the fake Anthropic one
 * for models named claude…), a window of 200k (their prompts run to 12k–17k tokens), and `vars`.
 */
export const serveForCli = (vars: Record<string, string> = {}) =>
  serveWorker({
    OPENAI_BASE_URL: `${inject('upstreamUrl')}/v1`,
    ANTHROPIC_BASE_URL: inject('anthropicUrl'),
    ANTHROPIC_API_KEY: 'test-anthropic-key',
    CHAT_MODEL: 'echo',
    SUMMARY_MODEL: 'echo',
    CHAT_CONTEXT_TOKENS: '200000',
    JWT_SECRET: inject('jwtSecret'),
    ...vars,
  })

const folders: string[] = []
/** A temporary folder, removed by {@link removeFolders}. */
export function folder(prefix: string): string {
  const path = mkdtempSync(join(tmpdir(), prefix))
  folders.push(path)
  return path
}
export const removeFolders = () => {
  for (const path of folders.splice(0)) rmSync(path, { recursive: true, force: true })
}

/** A bearer token for `user`, valid for an hour, signed with the served Workers' secret. */
export const tokenOf = (user: string) =>
  sign({ sub: user, exp: Math.floor(Date.now() / 1000) + 3600 }, inject('jwtSecret'), 'HS256')

export interface ClaudeResult {
  result: string
  session_id: string
  is_error: boolean
}

/**
 * Runs `claude -p <args> --output-format json` against `service` (its origin, no /v1) as the
 * token's user; answers its JSON result. `retries` is CLAUDE_CODE_MAX_RETRIES (0 keeps a failing
 * run short); `env` adds variables (ANTHROPIC_CUSTOM_HEADERS, say).
 */
export async function claude(
  args: string[],
  options: { service: URL | string; token: string; home: string; cwd: string; retries?: number; env?: Record<string, string> },
): Promise<ClaudeResult> {
  const { code, stdout, stderr } = await run(CLAUDE, ['-p', ...args, '--output-format', 'json'], {
    cwd: options.cwd,
    env: {
      PATH: process.env.PATH,
      HOME: options.home,
      ANTHROPIC_BASE_URL: options.service.toString().replace(/\/$/, ''),
      ANTHROPIC_API_KEY: options.token,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      CLAUDE_CODE_MAX_RETRIES: String(options.retries ?? 0),
      ...options.env,
    },
  })
  try {
    return JSON.parse(stdout)
  } catch {
    throw new Error(`claude exited ${code}: ${stdout}\n${stderr}`)
  }
}

/** An inline TOML table of strings. */
const tomlTable = (values: Record<string, string>) =>
  `{ ${Object.entries(values)
    .map(([name, value]) => `${JSON.stringify(name)} = ${JSON.stringify(value)}`)
    .join(', ')} }`

/**
 * A Codex user of its own against `service`: a home with its config.toml (the service as a
 * provider with `wire_api = "responses"` and remote compaction; `headers` sent on every request;
 * `retries` as both request_max_retries and stream_max_retries), a work folder, a token.
 * `exec` runs `codex exec` there and expects it to succeed; `api` reads the service as that user.
 */
export async function codexUser(service: URL | string, options: { headers?: Record<string, string>; retries?: number } = {}) {
  const root = folder('codex-')
  const [home, work] = [join(root, 'home'), join(root, 'work')]
  mkdirSync(join(home, '.codex'), { recursive: true })
  mkdirSync(work)
  const headers = options.headers ?? {}
  const retries = options.retries ?? 0
  writeFileSync(
    join(home, '.codex', 'config.toml'),
    [
      'model = "echo"',
      'model_provider = "durable-sessions"',
      'model_auto_compact_token_limit = 20000',
      '[model_providers.durable-sessions]',
      'name = "durable-sessions"',
      `base_url = "${new URL('/v1', service)}"`,
      'env_key = "DURABLE_SESSIONS_TOKEN"',
      'wire_api = "responses"',
      `request_max_retries = ${retries}`,
      ...(Object.keys(headers).length > 0 ? [`http_headers = ${tomlTable(headers)}`] : []),
      `stream_max_retries = ${retries}`,
      '[model_providers.durable-sessions.capabilities]',
      'remote_compaction = "v2"',
    ].join('\n'),
  )
  const user = `codex-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`
  const token = await tokenOf(user)
  const api = async (path: string) => {
    const response = await fetch(new URL(`/v1${path}`, service), { headers: { Authorization: `Bearer ${token}` } })
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`)
    return (await response.json()) as any
  }
  return {
    user,
    token,
    home,
    work,
    api,
    async exec(args: string[]) {
      const result = await run(CODEX, ['exec', '--skip-git-repo-check', ...args], {
        cwd: work,
        env: { PATH: process.env.PATH, HOME: home, CODEX_HOME: join(home, '.codex'), DURABLE_SESSIONS_TOKEN: token },
      })
      expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0)
      return result.stdout.trim()
    },
    /** The one session Codex made for this user: its whole log. */
    async log(): Promise<any[]> {
      const { sessions } = await api('/sessions')
      expect(sessions).toHaveLength(1)
      return (await api(`/sessions/${sessions[0].id}/events?limit=1000`)).events
    },
    view: async () => {
      const { sessions } = await api('/sessions')
      return (await api(`/sessions/${sessions[0].id}/view`)).events as any[]
    },
  }
}
