/** Helpers for tests that drive the real Worker (Hono app + Durable Objects) inside workerd. */
import { runInDurableObject } from 'cloudflare:test'
import { env, exports } from 'cloudflare:workers'
import { createParser } from 'eventsource-parser'
import { sign } from 'hono/jwt'
import { expect } from 'vitest'
import { sessionStub } from '../src/object/address'
import { blobsNamed, expectBlobsExportedOnce, expectNothingLost } from './support/log-checker'

export const SECRET = env.JWT_SECRET!

/** A bearer token for `user`, valid for an hour unless claims say otherwise. */
export async function tokenFor(user: string, claims: Record<string, unknown> = {}, secret = SECRET): Promise<string> {
  const now = Math.floor(Date.now() / 1000)
  return sign({ sub: user, iat: now, exp: now + 3600, ...claims }, secret, 'HS256')
}

export interface Call {
  status: number
  headers: Headers
  body: any
  text: string
}

/**
 * Calls the Worker as `user` (a token is made for it) or with explicit headers. `body` objects are
 * sent as JSON; strings are sent as they are.
 */
export async function call(
  method: string,
  path: string,
  options: { user?: string | null; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Call> {
  const headers = new Headers(options.headers)
  const user = options.user === undefined ? 'alice' : options.user
  if (user !== null && !headers.has('Authorization')) headers.set('Authorization', `Bearer ${await tokenFor(user)}`)
  let body: string | undefined
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body)
    if (!headers.has('Content-Type')) headers.set('Content-Type', 'application/json')
  }
  const response = await exports.default.fetch(new Request(`https://sessions.test${path}`, { method, headers, body }))
  const text = await response.text()
  let parsed: unknown
  try {
    parsed = text === '' ? undefined : JSON.parse(text)
  } catch {
    parsed = undefined
  }
  return { status: response.status, headers: response.headers, body: parsed, text }
}

/** A unique session id per test, so tests sharing a file's storage never collide. */
let counter = 0
const sessionsMade: string[] = []
/** A fresh session id; {@link expectEveryLogWhole} checks every session made with one. */
export const newSessionId = (prefix = 's') => {
  const id = `${prefix}-${Date.now().toString(36)}-${++counter}`
  sessionsMade.push(id)
  return id
}

export const user = (content: string, id?: string) => ({ ...(id ? { id } : {}), message: { role: 'user', content } })
export const assistant = (content: string, id?: string) => ({ ...(id ? { id } : {}), message: { role: 'assistant', content } })
export const system = (content: string, id?: string) => ({ ...(id ? { id } : {}), message: { role: 'system', content } })
/** Two finished turns, U1/A1 and U2/A2: a session with something to compact. */
export const twoTurns = () => [user('U1'), assistant('A1'), user('U2'), assistant('A2')]

/** A session of a system message `S1` and `turns` turns `u1 a1 u2 a2 …` ("question i", "answer i"). */
export async function numberedTurns(turns: number, prefix = 's') {
  const id = newSessionId(prefix)
  await append(id, [system('Be brief.', 'S1')])
  for (let i = 1; i <= turns; i++) await append(id, [user(`question ${i}`, `u${i}`), assistant(`answer ${i}`, `a${i}`)])
  return id
}

/** Appends events (as alice unless `as` says otherwise) and expects success. */
export async function append(sessionId: string, events: unknown[], as = 'alice') {
  const result = await call('POST', `/v1/sessions/${sessionId}/events`, { user: as, body: { events } })
  if (result.status !== 201 && result.status !== 200) throw new Error(`append failed: ${result.status} ${result.text}`)
  return result.body as { version: number; events: { id: string; seq: number }[] }
}

/** Expects the contract's error shape with this status and code. */
export function expectError(result: Call, status: number, code: string) {
  if (result.status !== status || result.body?.error?.code !== code || typeof result.body?.error?.message !== 'string') {
    throw new Error(`expected ${status} ${code}, got ${result.status} ${result.text}`)
  }
  if (Object.keys(result.body).length !== 1 || Object.keys(result.body.error).sort().join() !== 'code,message') {
    throw new Error(`error body has extra fields: ${result.text}`)
  }
}

/** A request the fake upstream recorded, and the usage it answered with (null before it answered, or when none). */
export interface UpstreamRequest {
  model: string
  body: {
    messages: { role: string; content: string | null; tool_calls?: unknown; tool_call_id?: string }[]
    max_tokens: number
    stream: boolean
  }
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | null
}

const upstream = (path: string, init?: RequestInit) => fetch(`${env.OPENAI_BASE_URL!.replace(/\/v1$/, '')}${path}`, init)

/** The fake upstream's record of the requests made with models tagged `#tag`. */
export async function upstreamRequests(tag: string): Promise<UpstreamRequest[]> {
  return (await upstream(`/__requests?tag=${encodeURIComponent(tag)}`)).json()
}

/**
 * Polls `condition` until it holds, a few milliseconds apart: a test waits for what it needs to
 * have happened, never for a time. Fails after about 10 s (counted in polls: tests may fake Date).
 */
export async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let polls = 0; !(await condition()); polls++) {
    if (polls === 1000) throw new Error(`still waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** Waits until the fake upstream has received `count` requests tagged `#tag` (a `hold` one is then held there). */
export async function untilUpstreamReceived(tag: string, count = 1): Promise<void> {
  await until(async () => (await upstreamRequests(tag)).length >= count, `${count} upstream request(s) #${tag}`)
}

/** Lets the fake upstream answer the `hold`/`holdend` requests tagged `#tag` it holds; answers how many it released. */
export async function releaseUpstream(tag: string): Promise<number> {
  const released = (await (await upstream(`/__release?tag=${encodeURIComponent(tag)}`, { method: 'POST' })).json()) as {
    released: number
  }
  return released.released
}

let tags = 0
/** A unique tag for the fake upstream's record. */
export const newTag = () => `t${Date.now().toString(36)}${++tags}`

export type Frame = { event: string; data: any; id?: string }

/** Server-sent events of a response body, parsed by eventsource-parser (as the service reads upstreams). */
export function parseSSE(text: string): Frame[] {
  const events: Frame[] = []
  const parser = createParser({
    onEvent: (message) =>
      events.push({
        event: message.event ?? 'message',
        data: JSON.parse(message.data),
        ...(message.id === undefined ? {} : { id: message.id }),
      }),
  })
  parser.feed(text)
  return events
}

/** The text of a stream's delta frames, joined. */
export const deltas = (frames: Frame[]) =>
  frames
    .filter((f) => f.event === 'delta')
    .map((f) => f.data.text)
    .join('')

/** Reads a streamed response's server-sent events as they arrive, so a test can act in the middle of a stream. */
export function sseReader(response: Response) {
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let text = ''
  const read = async () => {
    const { done, value } = await reader.read()
    if (!done) text += decoder.decode(value, { stream: true })
    return done
  }
  return {
    /** Reads until the frames so far satisfy `condition`; fails if the stream ends first. */
    async until(condition: (frames: Frame[]) => boolean): Promise<Frame[]> {
      while (!condition(parseSSE(text))) if (await read()) throw new Error(`the stream ended first: ${text}`)
      return parseSSE(text)
    },
    /** Reads to the end of the stream: all its frames. */
    async rest(): Promise<Frame[]> {
      while (!(await read()));
      return parseSSE(text)
    },
    cancel: () => reader.cancel(),
  }
}

export const turn = (sessionId: string, body: Record<string, unknown>, as = 'alice') =>
  call('POST', `/v1/sessions/${sessionId}/turns`, { user: as, body })

const ids = (list: { id: string }[]) => list.map((e) => e.id)

/**
 * The blobs a session's object holds, by name (none when it has no blob tables: a session never
 * given one, or wiped); one not whole — a row missing chunks, or chunks without a row — is named
 * with what is wrong, so that no check takes it for a blob held.
 */
export async function heldBlobs(id: string, as = 'alice'): Promise<string[]> {
  return runInDurableObject(sessionStub(env, as, id), (_instance, state) => {
    const sql = state.storage.sql
    const tables = sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'blob%'")
    if (tables.toArray().length === 0) return []
    // A row whose chunks are not all there is not held: a half-written blob, named as such.
    return sql
      .exec<{ hash: string; whole: number }>(
        'SELECT hash, chunks = (SELECT count(*) FROM blob_chunks c WHERE c.hash = blobs.hash) AS whole FROM blobs',
      )
      .toArray()
      .map((row) => (row.whole ? row.hash : `${row.hash} (missing chunks)`))
      .concat(
        sql
          .exec<{ hash: string }>('SELECT DISTINCT hash FROM blob_chunks WHERE hash NOT IN (SELECT hash FROM blobs)')
          .toArray()
          .map((row) => `${row.hash} (chunks without a row)`),
      )
  })
}

/** Nothing of an erased session's blobs is left: no row, no chunk, and the route answers 404 for each `blobs`. */
export async function expectBlobsErased(id: string, blobs: Iterable<string>, as = 'alice') {
  expect(await heldBlobs(id, as), `${id}'s blobs after its erasure`).toEqual([])
  for (const blob of blobs) expect((await call('GET', `/v1/sessions/${id}/blobs/${blob}`, { user: as })).status).toBe(404)
}

/**
 * The session's log is whole: its view is the log's projection, nothing left it without a
 * boundary, and the blobs its object holds are exactly those its events name.
 */
export async function expectWholeLog(id: string) {
  const { project } = await import('../src/core')
  const events = await wholeLog(id)
  expect((await call('GET', `/v1/sessions/${id}/view`)).body.events).toEqual(project(events))
  const checked = expectNothingLost(events, { blobs: await heldBlobs(id) })
  // The route serves each one the log names (another way in than the object's tables), and the
  // jsonl export carries each one's bytes once.
  const named = [...blobsNamed(events).keys()]
  for (const blob of named) expect((await call('GET', `/v1/sessions/${id}/blobs/${blob}`)).status, blob).toBe(200)
  if (named.length > 0) {
    const exported = (await call('GET', `/v1/sessions/${id}/export?format=jsonl`)).text
    await expectBlobsExportedOnce(
      exported
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    )
  }
  expect(ids((await call('GET', `/v1/sessions/${id}/view`)).body.events), 'the view the checker replayed').toEqual(
    ids(checked.view),
  )
  return { events, ...checked }
}

/**
 * Runs {@link expectWholeLog} on every session of alice's that this file's tests made and that
 * still exists — for an `afterAll` of a file whose tests write boundaries of every kind.
 */
export async function expectEveryLogWhole() {
  for (const id of sessionsMade.splice(0)) {
    if ((await call('GET', `/v1/sessions/${id}`)).status === 200) await expectWholeLog(id)
  }
}

/** The whole log of a session, page by page. */
export async function wholeLog(id: string, as = 'alice'): Promise<any[]> {
  const events: unknown[] = []
  let after = 0
  for (;;) {
    const page = await call('GET', `/v1/sessions/${id}/events?after=${after}&limit=1000`, { user: as })
    events.push(...page.body.events)
    if (page.body.nextAfter === null) return events
    after = page.body.nextAfter
  }
}
