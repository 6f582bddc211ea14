import { spawn } from 'node:child_process'
import { inject } from 'vitest'

/** Runs a program to its end, stdin closed, answering its exit code and output. */
export function run(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => {
      stdout += chunk
    })
    child.stderr.on('data', (chunk) => {
      stderr += chunk
    })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

let counter = 0
/** A session id of its own per test. */
export const newSessionId = (prefix = 'client') => `${prefix}-${Date.now().toString(36)}-${++counter}`
let tags = 0
/** A unique tag for the fake upstream's record (`model#tag`). */
export const newTag = () => `c${Date.now().toString(36)}${++tags}`

/** The session's whole log, read through the service's own API. */
export async function logOf(
  sessionId: string,
): Promise<{ message: { role: string; content: string | null; toolCalls?: unknown[]; toolResponses?: unknown[] } }[]> {
  const response = await fetch(`${inject('apiBase')}/sessions/${sessionId}/events?limit=1000`, {
    headers: { Authorization: `Bearer ${inject('apiKey')}` },
  })
  if (!response.ok) throw new Error(`log of ${sessionId}: ${response.status} ${await response.text()}`)
  return ((await response.json()) as { events: { type: string }[] }).events.filter((e) => e.type === 'MESSAGE') as never
}

/** The session's view (what the model is shown now), `role:content`. */
export async function viewOf(sessionId: string): Promise<string[]> {
  const response = await fetch(`${inject('apiBase')}/sessions/${sessionId}/view`, {
    headers: { Authorization: `Bearer ${inject('apiKey')}` },
  })
  if (!response.ok) throw new Error(`view of ${sessionId}: ${response.status} ${await response.text()}`)
  const { events } = (await response.json()) as { events: { message: { role: string; content: string | null } }[] }
  return events.map(({ message }) => `${message.role}:${message.content ?? ''}`)
}

/** What the fake upstream was sent for a tag, in order. */
export async function upstreamSent(tag: string): Promise<{ body: { messages: { role: string; content: string | null }[] } }[]> {
  return (await fetch(`${inject('upstreamUrl')}/__requests?tag=${encodeURIComponent(tag)}`)).json() as never
}

/** What the fake Anthropic upstream was sent for a tag (models named claude…), in order. */
export async function anthropicSent(tag: string): Promise<{ body: { messages: { role: string; content: any[] }[] } }[]> {
  return (await fetch(`${inject('anthropicUrl')}/__requests?tag=${encodeURIComponent(tag)}`)).json() as never
}

/** A log in short: `role:content`, tool calls and results by id. */
export const shown = (log: Awaited<ReturnType<typeof logOf>>) =>
  log.map(({ message: m }) => {
    if (m.toolCalls) return `${m.role}:calls ${(m.toolCalls as { id: string }[]).map((c) => c.id).join(',')}`
    if (m.toolResponses)
      return `${m.role}:${(m.toolResponses as { id: string; data: string }[]).map((r) => `${r.id}=${r.data}`).join(',')}`
    return `${m.role}:${m.content ?? ''}`
  })
