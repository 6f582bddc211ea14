/**
 * The media benchmarks' Worker side (routed from bench/entry.ts under /bench/media), issue 47:
 * a Messages client resending its whole history with the same ~1 MB image on every turn against
 * the same conversation in text; a turn carrying ten new images against a text turn of the same
 * prompt tokens; what the Worker's intake of an image costs. Every request goes through the
 * whole app in workerd (auth, the body read, the door's translation, `MediaIntake`, the RPC with
 * its upload, the object), timed here; rows and the database's size are the session object's
 * (bench/entry.ts's BenchSessionObject).
 */
import { type Context, Hono } from 'hono'
import { sign } from 'hono/jwt'
import { readUpload } from '../src/contract/blob-upload'
import { toOpenAIMessages, withBytes } from '../src/contract/openai-messages'
import { type TurnRequest, TurnRequestSchema } from '../src/contract/schemas'
import { contentOf, defaultEstimator, newMessageEvent, type Part } from '../src/core'
import { decodeBase64, encodeBase64 } from '../src/core/media/base64'
import { sha256Hex } from '../src/core/media/sha256'
import { app } from '../src/http/app'
import { requestJson } from '../src/json-stream'
import { sessionStub } from '../src/object/address'
import { MediaIntake, nativeTurn } from '../src/wire/media'
import type { RowCounts } from '../test/support/row-counts'
import type { BenchSessionObject } from './entry'
import { RESENT_IMAGE, screenshotPng, TEN_IMAGE, TEN_SMALL_NOISE_ROWS, withNote } from './media-images'
import { type Measured, message } from './shared'
import { timedInside } from './timing'

type BenchContext = Context<{ Bindings: Env }>
const query = (c: BenchContext, name: string) => c.req.query(name) ?? ''
const numberOf = (c: BenchContext, name: string) => Number(c.req.query(name) ?? 1)

/** The session object's benchmark methods these routes call (bench/entry.ts's BenchSessionObject). */
interface MeasuredSession {
  takeRows(): RowCounts
  databaseSize(): number
  blobStats(): { blobs: number; chunks: number; bytes: number }
}
const sessionOf = (c: BenchContext, session: string) =>
  sessionStub(c.env, query(c, 'user'), session) as unknown as DurableObjectStub & MeasuredSession

/** A bearer token for the user, made once. */
const tokens = new Map<string, Promise<string>>()
function tokenOf(c: BenchContext): Promise<string> {
  const user = query(c, 'user')
  if (!tokens.has(user))
    tokens.set(user, sign({ sub: user, exp: Math.floor(Date.now() / 1000) + 24 * 3600 }, c.env.JWT_SECRET!, 'HS256'))
  return tokens.get(user)!
}

/**
 * A request to the app as a client sends it: the user's token, the body's length (a body without
 * one is read through the body limit's own buffer).
 */
async function requestOf(c: BenchContext, method: string, path: string, body?: string, headers: Record<string, string> = {}) {
  const length: Record<string, string> =
    body === undefined ? {} : { 'Content-Length': String(new TextEncoder().encode(body).byteLength) }
  return new Request(`http://bench${path}`, {
    method,
    headers: { Authorization: `Bearer ${await tokenOf(c)}`, 'Content-Type': 'application/json', ...length, ...headers },
    body: body ?? null,
  })
}

/** A request through the whole app in workerd; its answer read whole. A failure throws. */
async function answerOf(c: BenchContext, request: Request): Promise<string> {
  const response = await app.fetch(request, c.env, c.executionCtx)
  const text = await response.text()
  if (!response.ok)
    throw new Error(`${request.method} ${new URL(request.url).pathname}: ${response.status} ${text.slice(0, 300)}`)
  return text
}

/** A request made and answered, untimed. */
const viaApp = async (c: BenchContext, method: string, path: string, body?: string) =>
  answerOf(c, await requestOf(c, method, path, body))

/** Runs `work` timed here, with the rows the session object read and wrote meanwhile. */
async function timedWithRows<T>(object: MeasuredSession, work: () => Promise<T>): Promise<[number, RowCounts, T]> {
  await object.takeRows()
  const started = performance.now()
  const result = await work()
  const ms = performance.now() - started
  return [ms, await object.takeRows(), result]
}

// ── a client resending the same image on every turn ───────────────────────────────────────

/** The image every resending conversation of this isolate carries: the same bytes on every turn. */
let resent: Promise<string> | undefined
const resentImage = () => {
  resent ??= screenshotPng(RESENT_IMAGE.width, RESENT_IMAGE.height, RESENT_IMAGE.noiseRows).then(encodeBase64)
  return resent
}

/**
 * The conversations: the image in the first user message (a chat app's photo), or inside a
 * tool_result as Claude Code's Read returns a screenshot; each beside the same conversation
 * with no image (the tool's result a line of text).
 */
export const RESEND_KINDS = ['image', 'text', 'tool image', 'tool text'] as const
type ResendKind = (typeof RESEND_KINDS)[number]

async function firstMessages(kind: ResendKind): Promise<unknown[]> {
  const image = async () => ({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: await resentImage() } })
  if (kind === 'image') return [{ role: 'user', content: [await image(), { type: 'text', text: message(0) }] }]
  if (kind === 'text') return [{ role: 'user', content: [{ type: 'text', text: message(0) }] }]
  const result = kind === 'tool image' ? [await image()] : [{ type: 'text', text: 'screenshot.png: 1280×800, 1 MB' }]
  return [
    { role: 'user', content: message(0) },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'screenshot.png' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: result }] },
  ]
}

/** Each conversation's history as its client holds it, by session. */
const histories = new Map<string, unknown[]>()

/**
 * Turn `turn` of a conversation through the Messages door: the client's whole history and its new
 * message (the first turn: the opening messages), timed in the Worker around the app; the
 * object's rows meanwhile, and its database's size before and after. `tag`: the model's tag, so
 * that the fake upstream keeps what the turn sent it.
 */
async function resendTurn(c: BenchContext, session: string, kind: ResendKind, turn: number, tag: string): Promise<Measured> {
  if (turn === 0) histories.set(session, await firstMessages(kind))
  const history = histories.get(session)
  if (!history) throw new Error(`no history for ${session}: its turns must start at 0 in this isolate`)
  if (turn > 0) history.push({ role: 'user', content: message(turn) })
  const body = JSON.stringify({ model: tag ? `echo#${tag}` : 'echo', max_tokens: 1024, messages: history })
  const object = sessionOf(c, session)
  const before = await object.databaseSize()
  const request = await requestOf(c, 'POST', '/v1/messages', body, { 'X-Session-Id': session, 'anthropic-version': '2023-06-01' })
  const [ms, rows, text] = await timedWithRows(object, () => answerOf(c, request))
  const after = await object.databaseSize()
  history.push({ role: 'assistant', content: (JSON.parse(text) as { content: unknown }).content })
  return {
    samples: [ms],
    rows,
    counts: { grew: after - before, size: after, bodyBytes: body.length, ...(await object.blobStats()) },
  }
}

// ── ten images in one turn, against text of the same tokens ──────────────────────────────

const OPENING = { type: 'text' as const, text: 'Ten screenshots of the rollout dashboard, one per region:' }

/** A user message's estimate, made as the service makes it (see `newMessageEvent`): its text's, its images' by their rule. */
const messageTokens = (parts: Part[]) =>
  newMessageEvent({ id: 'x', timestamp: '', message: { role: 'user', content: contentOf(parts) } }, defaultEstimator).tokens

/** The ten images' message as it is stored and estimated (no `detail`: Anthropic's rule, 1,366 tokens each). */
const TEN_TOKENS = messageTokens([
  OPENING,
  ...Array.from({ length: 10 }, () => ({
    type: 'image' as const,
    mediaType: 'image/png',
    blob: `sha256:${'0'.repeat(64)}`,
    bytes: 200_000,
    width: TEN_IMAGE.width,
    height: TEN_IMAGE.height,
  })),
])

/** The opening and text making a message of `tokens` estimated tokens (the benchmark's sentences, numbered from `from`). */
function textOfTokens(tokens: number, from: number): string {
  const sentences = Array.from({ length: Math.ceil(tokens / 4) }, (_, i) => message(from + i))
  const tokensOf = (text: string) => messageTokens([OPENING, { type: 'text', text }])
  // The fewest sentences reaching the estimate, then words off the end while over it.
  let [low, high] = [0, sentences.length]
  while (low < high) {
    const mid = Math.floor((low + high) / 2)
    if (tokensOf(sentences.slice(0, mid).join(' ')) >= tokens) high = mid
    else low = mid + 1
  }
  let text = sentences.slice(0, low).join(' ')
  while (tokensOf(text) > tokens) text = text.slice(0, text.lastIndexOf(' '))
  return text
}

/** The turns compared: ten screenshots of ~0.2 MB, ten of the same pixels and ~20 KB (flat ones), text of the same tokens. */
type TenMode = 'images' | 'small' | 'text'

/** Ten screenshots of each size, made once in this isolate; each turn's are these with a note of its own (see `withNote`). */
const tens = new Map<TenMode, Promise<Uint8Array[]>>()
function tenImages(mode: TenMode): Promise<Uint8Array[]> {
  const noiseRows = mode === 'small' ? TEN_SMALL_NOISE_ROWS : TEN_IMAGE.noiseRows
  if (!tens.has(mode))
    tens.set(mode, Promise.all(Array.from({ length: 10 }, () => screenshotPng(TEN_IMAGE.width, TEN_IMAGE.height, noiseRows))))
  return tens.get(mode)!
}

/** A new turn's content: the opening and ten new images, or the opening and text of the images' tokens. */
async function tenContent(mode: TenMode, round: number): Promise<unknown[]> {
  if (mode === 'text') return [OPENING, { type: 'text', text: textOfTokens(TEN_TOKENS, round * 1000) }]
  const images = (await tenImages(mode)).map((png, i) => withNote(png, `turn ${round}, image ${i}, ${crypto.randomUUID()}`))
  return [OPENING, ...images.map((png) => ({ type: 'image', mediaType: 'image/png', data: encodeBase64(png) }))]
}

/**
 * `batch` `/turns` turns, each the first turn of a session made for it (one event, untimed), timed
 * together; the sessions deleted after, untimed. `tag`: the model's tag, so that the fake
 * upstream keeps what the turn sent it (see the upstream's share in bench/worker/media.ts).
 */
async function tenTurns(c: BenchContext, mode: TenMode, round: number, batch: number, tag: string): Promise<Measured> {
  const turns = []
  for (let b = 0; b < batch; b++) {
    const session = `ten-${mode}-${query(c, 'run')}-${round}-${b}`
    await viaApp(
      c,
      'POST',
      `/v1/sessions/${session}/events`,
      JSON.stringify({ events: [{ message: { role: 'system', content: 'You are a careful analyst.' } }] }),
    )
    const body = JSON.stringify({ content: await tenContent(mode, round * batch + b), ...(tag ? { model: `echo#${tag}` } : {}) })
    turns.push({ session, body, request: await requestOf(c, 'POST', `/v1/sessions/${session}/turns`, body) })
  }
  const rows: RowCounts = { rowsRead: 0, rowsWritten: 0 }
  const objects = turns.map(({ session }) => sessionOf(c, session))
  for (const object of objects) await object.takeRows()
  const answers: string[] = []
  const started = performance.now()
  for (const { request } of turns) answers.push(await answerOf(c, request))
  const ms = (performance.now() - started) / batch
  for (const object of objects) {
    const taken = await object.takeRows()
    rows.rowsRead += taken.rowsRead / batch
    rows.rowsWritten += taken.rowsWritten / batch
  }
  const { context } = JSON.parse(answers[0]!) as { context: { promptTokens: number } }
  for (const { session } of turns) await viaApp(c, 'DELETE', `/v1/sessions/${session}`)
  return { samples: [ms], rows, counts: { promptTokens: context.promptTokens, bodyBytes: turns[0]!.body.length } }
}

// ── what the Worker's intake of the resent image costs ───────────────────────────────────

/** What is timed of the resent image's intake: all of it, or one of its steps. */
export const INTAKE_STEPS = ['intake', 'decode', 'hash', 'encode'] as const
type IntakeStep = (typeof INTAKE_STEPS)[number]

async function intakeStep(step: IntakeStep, batch: number): Promise<Measured> {
  const base64 = await resentImage()
  const bytes = (decodeBase64(base64) as { bytes: Uint8Array }).bytes
  const work: Record<IntakeStep, () => Promise<unknown> | unknown> = {
    intake: () => new MediaIntake().base64('messages[0].content[0]', 'image', 'image/png', base64),
    decode: () => decodeBase64(base64),
    hash: () => sha256Hex(bytes),
    encode: () => encodeBase64(bytes),
  }
  const started = performance.now()
  for (let i = 0; i < batch; i++) await work[step]()
  return { samples: [(performance.now() - started) / batch], counts: { bytes: bytes.byteLength } }
}

// ── the steps of a ten-image turn, each alone ────────────────────────────────────────────

/** The steps of a ten-image turn timed apart: the Worker's, then the session object's (see `tenStep`). */
export const TEN_STEPS = [
  'read',
  'parse',
  'validate',
  'intake',
  'call',
  'handover',
  'write',
  'sqlite',
  'prompt',
  'encode',
  'stringify',
] as const
type TenStep = (typeof TEN_STEPS)[number]

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })

/**
 * One step of a ten-image turn (the `images` or `small` mode's body, one a sample), done `batch`
 * times and timed here: the body read (bytes, then strict UTF-8), parsed, validated, its images
 * taken in; a call to the object with no upload (`call`, for scale), with the upload read there
 * (`handover`), with the blobs written in one transaction (`write`, answered once durable, as a
 * turn's write is; each in a session of its own), and that write timed inside the object
 * (`sqlite`: SQLite's work, no wait for durability); the prompt made for the model (`prompt`: the
 * images as data URLs; `encode`: their base64 alone) and its JSON as the model call sends it (`stringify`).
 */
async function tenStep(c: BenchContext, mode: TenMode, step: TenStep, batch: number): Promise<Measured> {
  const body = JSON.stringify({ content: await tenContent(mode, 0) })
  const parsed = JSON.parse(body) as TurnRequest
  const media = new MediaIntake()
  const input = await nativeTurn(parsed, media)
  const upload = media.upload()
  const staged = await readUpload(upload)
  const sessions = Array.from({ length: batch }, (_, i) => `steps-${mode}-${query(c, 'run')}-${i}`)
  const objectStep = step === 'write' || step === 'sqlite' || step === 'handover' || step === 'call'
  if (objectStep)
    for (const session of sessions)
      await viaApp(
        c,
        'POST',
        `/v1/sessions/${session}/events`,
        JSON.stringify({ events: [{ message: { role: 'system', content: 'x' } }] }),
      )
  const objects = sessions.map((session) => sessionOf(c, session) as unknown as BenchSessionObject)
  const event = newMessageEvent({ id: 'x', timestamp: '', message: { role: 'user', content: input.content! } }, defaultEstimator)
  const prompt = toOpenAIMessages(
    [event],
    'You are a careful analyst.',
    withBytes((ref) => staged.get(ref)?.data ?? null),
  )
  const work: Record<TenStep, (i: number) => Promise<unknown> | unknown> = {
    read: async () => strictUtf8.decode(await new Request('http://bench', { method: 'POST', body }).arrayBuffer()),
    parse: () => JSON.parse(body),
    validate: () => TurnRequestSchema.safeParseAsync(parsed),
    intake: () => nativeTurn(parsed, new MediaIntake()),
    call: (i) => objects[i]!.uploadRead(null),
    handover: (i) => objects[i]!.uploadRead(upload),
    write: (i) => objects[i]!.blobsWritten(upload),
    sqlite: () => {}, // timed inside the object, below
    prompt: () =>
      toOpenAIMessages(
        [event],
        'You are a careful analyst.',
        withBytes((ref) => staged.get(ref)?.data ?? null),
      ),
    encode: () => [...staged.values()].map((blob) => encodeBase64(blob.data)),
    stringify: () => {
      const json = requestJson({ model: 'echo', messages: prompt, max_tokens: 1024 })
      return typeof json === 'string' ? json : new Response(json.stream()).arrayBuffer()
    },
  }
  // SQLite's work timed in each object, once: a fresh session's write, as a turn's is (writes
  // repeated in one object grow its WAL to a checkpoint, which the first does not reach).
  let inside = 0
  if (step === 'sqlite') for (const object of objects) inside += (await object.blobsWrittenInside(upload, 1)) / batch
  const ms = step === 'sqlite' ? inside : await timedInside(batch, (i) => Promise.resolve(work[step](i)))
  if (objectStep) for (const session of sessions) await viaApp(c, 'DELETE', `/v1/sessions/${session}`)
  return { samples: [ms] }
}

// ── an image turn on each door, on a session of any size ─────────────────────────────────

/** The doors an image turn is measured on: each client's own wire for the image, and `/turns`. */
export const IMAGE_DOORS = ['chat', 'messages', 'responses', 'turns'] as const
type ImageDoor = (typeof IMAGE_DOORS)[number]

/** A user message carrying the resent image (the first) or only text, as each door's client writes it. */
async function imageUserMessage(door: ImageDoor, text: string, withImage: boolean): Promise<unknown> {
  const data = await resentImage()
  const image = {
    chat: { type: 'image_url', image_url: { url: `data:image/png;base64,${data}` } },
    messages: { type: 'image', source: { type: 'base64', media_type: 'image/png', data } },
    responses: { type: 'input_image', image_url: `data:image/png;base64,${data}` },
    turns: { type: 'image', mediaType: 'image/png', data },
  }[door]
  const said = door === 'responses' ? { type: 'input_text', text } : { type: 'text', text }
  const content = withImage ? [said, image] : door === 'responses' ? [said] : text
  return door === 'responses' ? { type: 'message', role: 'user', content } : { role: 'user', content }
}

/** A door's request for the client's whole history (`/turns`: the new message alone, its content the image and text again). */
function imageRequest(door: ImageDoor, session: string, history: unknown[]): [string, string, Record<string, string>] {
  const named = { 'X-Session-Id': session }
  if (door === 'chat') return ['/v1/chat/completions', JSON.stringify({ model: 'echo', messages: history }), named]
  if (door === 'messages')
    return [
      '/v1/messages',
      JSON.stringify({ model: 'echo', max_tokens: 1024, messages: history }),
      { ...named, 'anthropic-version': '2023-06-01' },
    ]
  if (door === 'responses') return ['/v1/responses', JSON.stringify({ model: 'echo', input: history }), named]
  const { content } = history.at(-1) as { content: unknown }
  return [`/v1/sessions/${session}/turns`, JSON.stringify({ content, compaction: false }), {}]
}

/** What the client keeps of a door's answer: the assistant's message (items) as it resends them. */
function repliedOf(door: ImageDoor, text: string): unknown[] {
  const answer = JSON.parse(text) as {
    choices?: { message: { content: string } }[]
    content?: unknown
    output?: unknown[]
  }
  if (door === 'chat') return [{ role: 'assistant', content: answer.choices![0]!.message.content }]
  if (door === 'messages') return [{ role: 'assistant', content: answer.content }]
  if (door === 'responses') return answer.output!
  return []
}

/**
 * An image conversation on a session as it stands (of any size), through the whole app: its first
 * turn carries the ~1 MB image (untimed), then `batch` turns (timed here, each alone), the client
 * resending its whole conversation with the same image each time (`/turns`: the new message
 * carrying the image again), so that what it sends matches what is stored. Rows: the session
 * object's, per timed turn.
 */
async function imageTurnsAtSize(c: BenchContext, session: string, door: ImageDoor, batch: number): Promise<Measured> {
  const object = sessionOf(c, session)
  const history: unknown[] = [await imageUserMessage(door, `${message(0)} (what does this screenshot show?)`, true)]
  const send = async () => {
    const [path, body, headers] = imageRequest(door, session, history)
    return [body.length, await requestOf(c, 'POST', path, body, headers)] as const
  }
  const [, first] = await send()
  history.push(...repliedOf(door, await answerOf(c, first)))
  let total = 0
  let bodyBytes = 0
  const rows: RowCounts = { rowsRead: 0, rowsWritten: 0 }
  for (let turn = 1; turn <= batch; turn++) {
    history.push(await imageUserMessage(door, message(turn), door === 'turns'))
    const [bytes, request] = await send()
    const [ms, taken, text] = await timedWithRows(object, () => answerOf(c, request))
    history.push(...repliedOf(door, text))
    total += ms
    bodyBytes = bytes
    rows.rowsRead += taken.rowsRead / batch
    rows.rowsWritten += taken.rowsWritten / batch
  }
  return { samples: [total / batch], rows, counts: { bodyBytes, ...(await object.blobStats()) } }
}

/** The media routes of the bench Worker. */
export const mediaBench = new Hono<{ Bindings: Env }>()
  .get('/resend', async (c) =>
    c.json(await resendTurn(c, query(c, 'session'), query(c, 'kind') as ResendKind, numberOf(c, 'turn'), query(c, 'tag'))),
  )
  .get('/ten', async (c) =>
    c.json(await tenTurns(c, query(c, 'mode') as TenMode, numberOf(c, 'round'), numberOf(c, 'batch'), query(c, 'tag'))),
  )
  .get('/ten-steps', async (c) =>
    c.json(await tenStep(c, query(c, 'mode') as TenMode, query(c, 'step') as TenStep, numberOf(c, 'batch'))),
  )
  .get('/intake', async (c) => c.json(await intakeStep(query(c, 'step') as IntakeStep, numberOf(c, 'batch'))))
  .get('/at-size', async (c) =>
    c.json(await imageTurnsAtSize(c, query(c, 'session'), query(c, 'door') as ImageDoor, numberOf(c, 'batch'))),
  )
