/**
 * A fake OpenAI-compatible upstream for tests: a real HTTP server on loopback speaking the chat
 * completions wire protocol, plain and streaming (SSE). The requested model name picks the
 * behaviour, `<mode>[-<arg>][#<tag>]`; an unknown mode answers like echo:
 *
 * | mode            | behaviour                                                              |
 * |-----------------|------------------------------------------------------------------------|
 * | `echo`          | answers `Echo: <last user message>` (word by word when streaming)       |
 * | `slow-<ms>`     | like echo, after waiting `ms` (streaming: spread over the words)        |
 * | `hold`          | like echo, once the test releases it: `POST /__release?tag=<tag>`       |
 * | `holdend`       | streaming: the whole echo answer, then the end of the stream (finish,   |
 * |                 | usage, `[DONE]`) once released; plain: like hold                        |
 * | `fail-<status>` | answers that status with an OpenAI error body                          |
 * | `flaky-<n>`     | answers 503 to the first n requests of its tag, then like echo         |
 * | `moved-<status>`| a redirect keeping the method (307, 308) to the same path with         |
 * |                 | `?moved=1`, where it answers like echo                                  |
 * | `limited-<n>`   | answers 429 to the first n requests of its tag, then like echo         |
 * | `blank`         | answers an empty (whitespace) message                                  |
 * | `titled-<words>`| like echo; when the prompt asks for a title (holds `"Title: "`), a last |
 * |                 | line `Title: <words, dashes as spaces>` (a summary model naming a session) |
 * | `null`          | answers a null message content                                          |
 * | `malformed`     | answers 200 with a body that is not the protocol                       |
 * | `cut`           | sends part of the answer, then drops the connection                    |
 * | `hang`          | never answers                                                          |
 * | `context-<n>`   | a context-length 400 when the messages hold more than n characters     |
 * | `noisy`         | like echo, with SSE comments, heartbeats and a usage chunk             |
 * | `leak`          | a 401 whose message echoes the Authorization header it received        |
 * | `usage-<n>`     | like echo, reporting exactly n prompt tokens                           |
 * | `cached-<n>`    | like echo, reporting 100 prompt tokens, n of them read from a cache     |
 * | `prefixcache`   | like echo, reporting as cached the prefix (≥ 1,024 tokens, in 128s) it  |
 * |                 | shares with the previous request under the same `prompt_cache_key`      |
 * | `tools-<ids>`   | calls the request's first tool once per comma-separated id (`_`: no id), |
 * |                 | plain or streamed in the real delta format (arguments in pieces)        |
 * | `toolscut-<ids>`| streams the calls of tools-<ids>, then drops the connection in the     |
 * |                 | middle of the last call's arguments                                    |
 * | `loop-<n>`      | a long agent loop: the request's first tool called with id `step_<k>`,  |
 * |                 | k one past the step whose result ends the messages (1 after a user      |
 * |                 | message: a retried request asks the same step), then `Done after <n> steps` |
 * | `agent-<ids>`   | an agent's loop: like tools-<ids> after a user message; after tool      |
 * |                 | results, answers `Results: <each result's content, joined by " | ">`  |
 * | `recall-<q>`    | when recall_history is offered: calls it with query q, then answers     |
 * |                 | `Recalled: <its result>`; `recallloop-<q>` calls it whenever offered      |
 * |                 | (then `Done after <n> recalls`); `recallmix-<q>` calls it and a client tool; |
 * |                 | `recallall-<q>` calls it with `scope: "all_sessions"`                    |
 * | `recallid-<id>` | when recall_history is offered, calls it with `{"id": id}`, then answers |
 * |                 | `Recalled: <its result>`                                                  |
 * | `memory`        | once the memory tool is offered, runs the script after `MEMORY:` in the |
 * |                 | last user message (`./memory-script`): each round's `memory` calls (on  |
 * |                 | if the tool is withdrawn), then `Memory results: <results, "\n---\n">` |
 * | `notes`         | a model keeping notes in its memory: views `/memories`; to a message    |
 * |                 | `Remember: <fact>` it adds the fact to `/memories/notes.md` (created, or |
 * |                 | inserted at its top) and answers `Noted.`; to anything else it reads    |
 * |                 | the notes and answers `From my notes: <them, joined by "; ">`          |
 * | `reader`        | Claude Code's loop: after a user message holding `READ:<path>`, calls its |
 * |                 | `Read` tool with `{"file_path": path}`; after its result, answers       |
 * |                 | `Read: <the result's text>` (else like echo)                            |
 * | `shell[-<n>]`   | Codex's loop: after a user message holding `RUN:<command>`, calls its    |
 * |                 | `exec_command` tool with `{"cmd": command}`; after its result, answers  |
 * |                 | `Ran: <the result's last line>` (else like echo); reporting n prompt tokens |
 * | `viewer`        | Codex's image loop: after a user message holding `VIEW:<path>`, calls its |
 * |                 | `view_image` tool with `{"path": path}`; after its result, answers      |
 * |                 | `Viewed: <the result's text>` (else like echo)                           |
 * | `mcpcall-<tool>`| an MCP client's model: after a user message, calls the offered tool named |
 * |                 | `<tool>` or `…__<tool>` (an MCP server's, as Codex and Claude Code name |
 * |                 | them), or one the prompt names alone on a line (Claude Code's deferred  |
 * |                 | tools), with `{"query": <the last line of the last user message>}` (what |
 * |                 | a CLI puts before the question, its reminders, left out); after its      |
 * |                 | result, answers `MCP result: <the result's text>` (none: like echo)     |
 *
 * Usage comes from the wire only: prompt tokens are a token per 4 characters of what the prompt
 * carries (message contents, tool calls' names and arguments, the tools' JSON) plus 2 a message
 * for its framing, and 85 an image or file part (OpenAI's low-detail image); completion tokens a
 * token per 4 characters of the answer. A content of parts is read as OpenAI's: its text parts'
 * text, an `image_url` as `[image]`, a `file` as `[file]` (what echo answers). A tool result's
 * images, which this wire carries in the user message right after the tool messages (its text
 * `[images returned by tool call <id>]`, then the call's images), are read as that result's:
 * `[image]` after its text, for each (what `reader`, `viewer`, `agent` and `shell` answer).
 *
 * Every request of a tagged model is recorded on arrival (with the usage it was answered with,
 * once answered); `GET /__requests?tag=<tag>` returns those of a tag.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { callOf, memoryScript, roundOf } from './memory-script'

type WirePart = { type: string; text?: string; image_url?: { url: string }; file?: { file_data: string } }

type WireMessage = {
  role: string
  content: string | WirePart[] | null
  tool_calls?: { id: string; function: { name: string; arguments: string } }[]
  tool_call_id?: string
}

interface ChatBody {
  model: string
  prompt_cache_key?: string
  messages: WireMessage[]
  tools?: { function: { name: string } }[]
  stream?: boolean
  stream_options?: { include_usage?: boolean }
}

interface Usage {
  prompt_tokens: number
  completion_tokens: number
  total_tokens: number
  prompt_tokens_details?: { cached_tokens: number }
}

interface Recorded {
  model: string
  body: ChatBody
  authorization: string | undefined
  /** The usage the answer reported; null until answered, and when it reported none. */
  usage: Usage | null
}

/** One chat completions request, as a mode handler sees it. */
interface ChatRequest {
  req: IncomingMessage
  res: ServerResponse
  body: ChatBody
  arg: string | undefined
  tag: string
  /** How many requests of this mode and tag arrived, this one included. */
  count: number
  record: Recorded
}

const requests: Recorded[] = []
const counters = new Map<string, number>()
/** Requests held by `hold` and `holdend`, by tag: each resolves when the test releases its tag. */
const held = new Map<string, (() => void)[]>()
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
/** Writes `data` and waits until it is handed to the socket: a connection dropped then still delivers it first. */
const written = (res: ServerResponse, data: string) => new Promise<void>((resolve) => res.write(data, () => resolve()))

/** Waits until the test releases this request's tag. */
const untilReleased = (request: ChatRequest) =>
  new Promise<void>((resolve) => held.set(request.tag, [...(held.get(request.tag) ?? []), resolve]))

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

/** A content's text as this fake reads it: a string, or its parts' (`[image]` and `[file]` for the others). */
const textOf = (content: WireMessage['content']): string =>
  typeof content === 'string' || content === null
    ? (content ?? '')
    : content
        .map((part) => (part.type === 'text' ? (part.text ?? '') : part.type === 'image_url' ? '[image]' : '[file]'))
        .join(' ')

const echoOf = (messages: WireMessage[]) => {
  const lastUser = [...messages].reverse().find((m) => m.role === 'user')
  return `Echo: ${textOf(lastUser?.content ?? null).slice(0, 200)}`
}

/** Prompt tokens as this fake counts them (see the header): from the wire, nothing else. */
function promptTokensOf(body: ChatBody): number {
  let characters = body.tools ? JSON.stringify(body.tools).length : 0
  for (const m of body.messages) {
    characters += typeof m.content === 'string' ? m.content.length : 0
    for (const part of Array.isArray(m.content) ? m.content : [])
      characters += part.type === 'text' ? (part.text ?? '').length : 85 * 4
    for (const c of m.tool_calls ?? []) characters += c.function.name.length + c.function.arguments.length
  }
  return Math.ceil(characters / 4) + 2 * body.messages.length
}

/** The usage of an answer, recorded with its request. */
function usageOf(request: ChatRequest, answer: string, promptTokens = promptTokensOf(request.body), cached?: number): Usage {
  const completion = Math.ceil(answer.length / 4)
  request.record.usage = {
    prompt_tokens: promptTokens,
    completion_tokens: completion,
    total_tokens: promptTokens + completion,
    ...(cached === undefined ? {} : { prompt_tokens_details: { cached_tokens: cached } }),
  }
  return request.record.usage
}

function sendJson(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'Content-Type': 'application/json' })
  res.end(JSON.stringify(body))
}

const sendError = (res: ServerResponse, status: number, message: string, fields: Record<string, string> = {}) =>
  sendJson(res, status, { error: { message, ...fields } })

const chunk = (model: string, delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`

/** How an answer goes out, beyond its content. */
interface AnswerOptions {
  /** Waits this long first (streaming: spread over the words). */
  delayMs?: number
  /** Drops the connection after the first pieces. */
  cut?: boolean
  /** SSE comments between the pieces. */
  noisy?: boolean
  /** The prompt tokens to report, instead of this fake's count. */
  promptTokens?: number
  /** Of the prompt tokens, those to report read from a cache. */
  cachedTokens?: number
  /** Streaming: waits for this after the content, before the end of the stream. */
  beforeEnd?: () => Promise<void>
}

/** Answers a message with this content, plain or streamed word by word. */
async function answer(request: ChatRequest, content: string | null, options: AnswerOptions = {}) {
  const { res, body } = request
  const text = content ?? ''
  if (!body.stream) {
    if (options.delayMs) await wait(options.delayMs)
    if (options.cut) {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '500' })
      await written(res, '{"choices": [{"message": {"role": "assist')
      return res.destroy()
    }
    return sendJson(res, 200, {
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: usageOf(request, text, options.promptTokens, options.cachedTokens),
    })
  }
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' })
  res.write(chunk(body.model, { role: 'assistant', content: '' }))
  const words = text.split(/(?<= )/)
  for (const [i, word] of words.entries()) {
    if (options.noisy) res.write(': keep-alive\n\n')
    if (options.delayMs) await wait(options.delayMs / Math.max(1, words.length))
    if (options.cut && i === 1) {
      // The first pieces out, then the connection dropped.
      await written(res, chunk(body.model, { content: word }))
      return res.destroy()
    }
    res.write(chunk(body.model, { content: word }))
  }
  if (options.beforeEnd) await options.beforeEnd()
  if (res.destroyed) return // the client went away meanwhile
  res.write(chunk(body.model, {}, 'stop'))
  if (body.stream_options?.include_usage) {
    const usage = usageOf(request, text, options.promptTokens, options.cachedTokens)
    res.write(`data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', choices: [], usage })}\n\n`)
  }
  res.end('data: [DONE]\n\n')
}

type ToolCall = { id?: string; name: string; arguments: string }

/** Calls the request's first tool once per id (`_`: a call without an id), as the real wire does. */
function callFirstTool(request: ChatRequest, cut = false) {
  const name = request.body.tools?.[0]?.function.name ?? 'missing_tool'
  const ids = (request.arg ?? '').split(',')
  return sendCalls(
    request,
    ids.map((id, i) => ({ ...(id === '_' ? {} : { id }), name, arguments: `{"n":${i}}` })),
    cut,
  )
}

/**
 * Answers with these tool calls (after `text`, when given), plain or streamed in the real delta
 * format (each call named, then its arguments in pieces).
 */
function sendCalls(request: ChatRequest, calls: ToolCall[], cut = false, promptTokens?: number, text: string | null = null) {
  const { res, body } = request
  if (!body.stream) {
    const wire = calls.map(({ id, name, arguments: args }) => ({
      ...(id === undefined ? {} : { id }),
      type: 'function',
      function: { name, arguments: args },
    }))
    return sendJson(res, 200, {
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: text, tool_calls: wire }, finish_reason: 'tool_calls' }],
      usage: usageOf(request, text ?? '', promptTokens),
    })
  }
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' })
  res.write(chunk(body.model, { role: 'assistant', content: null }))
  if (text) res.write(chunk(body.model, { content: text }))
  for (const [index, { id, name, arguments: args }] of calls.entries()) {
    res.write(
      chunk(body.model, { tool_calls: [{ index, ...(id ? { id } : {}), type: 'function', function: { name, arguments: '' } }] }),
    )
    const piece = chunk(body.model, { tool_calls: [{ index, function: { arguments: args.slice(0, 3) } }] })
    if (cut && index === calls.length - 1) {
      // Mid-arguments, once what came before is out: the last call is never whole.
      res.write(piece, () => res.destroy())
      return
    }
    res.write(piece)
    res.write(chunk(body.model, { tool_calls: [{ index, function: { arguments: args.slice(3) } }] }))
  }
  res.write(chunk(body.model, {}, 'tool_calls'))
  if (body.stream_options?.include_usage) {
    const usage = usageOf(request, '', promptTokens)
    res.write(`data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', choices: [], usage })}\n\n`)
  }
  res.end('data: [DONE]\n\n')
}

/** The marker of a tool call's images in the user message after the tool messages. */
const IMAGES_OF_CALL = /^\[images returned by tool call (.+)\]$/

/**
 * The images of each call in a user message that carries tool results' images (each call's
 * marker, then its images), counted by call id; null for any other message.
 */
function toolImagesIn(message: WireMessage | undefined): Map<string, number> | null {
  if (message?.role !== 'user' || !Array.isArray(message.content)) return null
  const first = message.content[0]
  if (first?.type !== 'text' || !IMAGES_OF_CALL.test(first.text ?? '')) return null
  const counts = new Map<string, number>()
  let call = ''
  for (const part of message.content) {
    const marker = part.type === 'text' ? IMAGES_OF_CALL.exec(part.text ?? '') : null
    if (marker) call = marker[1]!
    else counts.set(call, (counts.get(call) ?? 0) + 1)
  }
  return counts
}

/**
 * The contents of the tool messages that end the prompt (what the model was just given), each
 * followed by ` [image]` per image its call returned (in the user message after them, if any).
 */
function trailingToolResults(messages: WireMessage[]): string[] {
  const images = toolImagesIn(messages.at(-1))
  const results: string[] = []
  for (let i = messages.length - (images ? 2 : 1); i >= 0 && messages[i]!.role === 'tool'; i--) {
    const { content, tool_call_id: id = '' } = messages[i]!
    const text = [textOf(content), ...new Array<string>(images?.get(id) ?? 0).fill('[image]')]
    results.unshift(text.filter((piece) => piece !== '').join(' '))
  }
  return results
}

/** The step a `loop` model takes next: one past the step whose result ends the messages, else the first. */
function loopStepOf(messages: WireMessage[]): number {
  const last = messages.at(-1)
  const done = last?.role === 'tool' ? /^step_(\d+)$/.exec(last.tool_call_id ?? '') : null
  return done ? Number(done[1]) + 1 : 1
}

/** `recall`, `recallloop`, `recallmix` and `recallall`: a model that looks up the history when recall_history is offered. */
const recaller =
  (kind: 'recall' | 'recallloop' | 'recallmix' | 'recallall') =>
  (request: ChatRequest): unknown => {
    const { body } = request
    const offered = (body.tools ?? []).some((tool) => tool.function.name === 'recall_history')
    const afterTool = body.messages.at(-1)?.role === 'tool'
    if (offered && (kind === 'recallloop' || !afterTool)) {
      const scope = kind === 'recallall' ? { scope: 'all_sessions' } : {}
      const recall = { name: 'recall_history', arguments: JSON.stringify({ query: request.arg ?? '', ...scope }) }
      const client = body.tools!.find((tool) => tool.function.name !== 'recall_history')
      return sendCalls(
        request,
        kind === 'recallmix' && client ? [recall, { name: client.function.name, arguments: '{}' }] : [recall],
      )
    }
    const recalled = body.messages.filter((m) => m.role === 'tool').length
    return answer(
      request,
      kind === 'recallloop' || !afterTool ? `Done after ${recalled} recalls` : `Recalled: ${body.messages.at(-1)!.content}`,
    )
  }

/** `recallid-<id>`: when recall_history is offered, calls it with `{"id": id}`; given its result, answers `Recalled: <it>`. */
function recallById(request: ChatRequest): unknown {
  const { messages, tools } = request.body
  const offered = (tools ?? []).some((tool) => tool.function.name === 'recall_history')
  const last = messages.at(-1)
  const asked = [...messages].reverse().find((m) => m.role === 'assistant')
  const answered = last?.role === 'tool' && asked?.tool_calls?.some((call) => call.function.name === 'recall_history')
  if (answered) return answer(request, `Recalled: ${textOf(last!.content)}`)
  if (!offered) return echo(request)
  return sendCalls(request, [{ name: 'recall_history', arguments: JSON.stringify({ id: request.arg ?? '' }) }])
}

/**
 * `memory`: a model that runs a script of memory commands once the memory tool is offered (and
 * goes on calling it if the tool is then withdrawn), then answers the results it got.
 */
function memoryModel(request: ChatRequest): unknown {
  const { body } = request
  const offered = (body.tools ?? []).some((tool) => tool.function.name === 'memory')
  const script = memoryScript(body.messages.map((m) => ({ role: m.role, text: textOf(m.content) })))
  if (!script || (!offered && script.done === 0)) return echo(request)
  if (script.done < script.rounds.length) {
    const { text, calls } = roundOf(script.rounds[script.done]!)
    const wire = calls.map((command, i) => {
      const { name, input } = callOf(command)
      return { id: `fake_${script.done}_${i}`, name, arguments: JSON.stringify(input) }
    })
    return sendCalls(request, wire, false, undefined, text)
  }
  const results = body.messages.slice(body.messages.findLastIndex((m) => m.role === 'user')).filter((m) => m.role === 'tool')
  return answer(request, `Memory results: ${results.map((m) => textOf(m.content)).join('\n---\n')}`)
}

const echo = (request: ChatRequest, options?: AnswerOptions) => answer(request, echoOf(request.body.messages), options)

/** The lines of a file as the memory tool's `view` shows them (numbered), without their numbers. */
const viewedLines = (view: string) =>
  view
    .split('\n')
    .slice(1)
    .map((line) => line.replace(/^ *\d+\t/, ''))
    .filter((line) => line !== '')

/** `notes`: a model that follows the memory instruction: it looks first, writes what it is told to remember, reads what it is asked. */
function notesModel(request: ChatRequest): unknown {
  const { messages, tools } = request.body
  if (!(tools ?? []).some((tool) => tool.function.name === 'memory')) return echo(request)
  const at = messages.findLastIndex((m) => m.role === 'user')
  const asked = textOf(messages[at]?.content ?? null)
  const results = messages
    .slice(at + 1)
    .filter((m) => m.role === 'tool')
    .map((m) => textOf(m.content))
  const memory = (command: Record<string, unknown>) =>
    sendCalls(request, [{ id: `notes_${results.length}`, name: 'memory', arguments: JSON.stringify(command) }])
  if (results.length === 0) return memory({ command: 'view', path: '/memories' })
  const hasNotes = results[0]!.includes('\t/memories/notes.md')
  const fact = /^Remember:\s*(.+)$/s.exec(asked)?.[1]
  if (results.length === 1 && fact)
    return memory(
      hasNotes
        ? { command: 'insert', path: '/memories/notes.md', insert_line: 0, insert_text: fact }
        : { command: 'create', path: '/memories/notes.md', file_text: `${fact}\n` },
    )
  if (results.length === 1 && hasNotes) return memory({ command: 'view', path: '/memories/notes.md' })
  if (fact) return answer(request, 'Noted.')
  return answer(request, hasNotes ? `From my notes: ${viewedLines(results[1]!).join('; ')}` : 'I have no notes yet.')
}

/** The prompt last sent under each cache key (`prefixcache`). */
const cachedPrompts = new Map<string, string>()

/**
 * A provider's prompt cache as OpenAI describes its own: a request under a `prompt_cache_key`
 * reads from the cache the prefix it shares with the previous request under that key, counted in
 * whole blocks of 128 tokens from 1,024 on (4 characters a token here); one without a key, none.
 */
function prefixCache(body: ChatBody): { promptTokens: number; cachedTokens: number } {
  const prompt = JSON.stringify(body.messages)
  const promptTokens = promptTokensOf(body)
  const key = body.prompt_cache_key
  if (!key) return { promptTokens, cachedTokens: 0 }
  const previous = cachedPrompts.get(key) ?? ''
  cachedPrompts.set(key, prompt)
  let shared = 0
  while (shared < prompt.length && shared < previous.length && prompt.charCodeAt(shared) === previous.charCodeAt(shared)) shared++
  const tokens = Math.floor(shared / 4)
  return { promptTokens, cachedTokens: tokens < 1024 ? 0 : Math.min(promptTokens, Math.floor(tokens / 128) * 128) }
}

/** Each mode's behaviour (see the table at the top). */
const MODES: Record<string, (request: ChatRequest) => unknown> = {
  echo: (r) => echo(r),
  slow: (r) => echo(r, { delayMs: Number(r.arg) }),
  hold: async (r) => {
    await untilReleased(r)
    return echo(r)
  },
  holdend: async (r) => {
    if (!r.body.stream) await untilReleased(r)
    return echo(r, r.body.stream ? { beforeEnd: () => untilReleased(r) } : {})
  },
  fail: (r) => sendError(r.res, Number(r.arg), `fake failure ${r.arg}`, { type: 'server_error' }),
  flaky: (r) => (r.count <= Number(r.arg) ? sendError(r.res, 503, 'temporarily unavailable') : echo(r)),
  moved: (r) => {
    if (r.req.url?.includes('moved=1')) return echo(r)
    r.res.writeHead(Number(r.arg ?? 307), { Location: `${r.req.url}?moved=1` })
    r.res.end()
  },
  limited: (r) => (r.count <= Number(r.arg) ? sendError(r.res, 429, 'rate limited', { type: 'rate_limit_error' }) : echo(r)),
  blank: (r) => answer(r, '  \n '),
  titled: (r) => {
    const asked = r.body.messages.some((message) => typeof message.content === 'string' && message.content.includes('"Title: "'))
    const title = asked ? `\nTitle: ${(r.arg ?? '').replaceAll('-', ' ')}` : ''
    return answer(r, `${echoOf(r.body.messages)}${title}`)
  },
  null: (r) => answer(r, null),
  malformed: ({ res, body }) => {
    res.writeHead(200, { 'Content-Type': body.stream ? 'text/event-stream' : 'application/json' })
    res.end(body.stream ? 'data: {"choices": [{"delta": {"content": "Hel\n\n' : '<html>not json</html>')
  },
  cut: (r) => echo(r, { cut: true }),
  hang: () => {}, // never answers; the client's timeout ends it
  context: (r) => {
    const size = r.body.messages.reduce((n, m) => n + textOf(m.content).length, 0)
    if (size <= Number(r.arg)) return echo(r)
    return sendError(r.res, 400, `This model's maximum context length is ${r.arg} characters; the messages hold ${size}.`, {
      code: 'context_length_exceeded',
    })
  },
  noisy: (r) => echo(r, { noisy: true }),
  leak: ({ req, res }) => {
    const authorization = req.headers.authorization
    sendError(res, 401, `Incorrect API key provided: ${authorization}; key ${authorization?.slice(7)}`)
  },
  usage: (r) => echo(r, { promptTokens: Number(r.arg) }),
  cached: (r) => echo(r, { promptTokens: 100, cachedTokens: Number(r.arg) }),
  prefixcache: (r) => echo(r, prefixCache(r.body)),
  tools: (r) => callFirstTool(r),
  toolscut: (r) => callFirstTool(r, true),
  loop: (r) => {
    const step = loopStepOf(r.body.messages)
    if (step > Number(r.arg)) return answer(r, `Done after ${r.arg} steps`)
    const name = r.body.tools?.[0]?.function.name ?? 'missing_tool'
    return sendCalls(r, [{ id: `step_${step}`, name, arguments: JSON.stringify({ step }) }])
  },
  agent: (r) => {
    const results = trailingToolResults(r.body.messages)
    return results.length === 0 ? callFirstTool(r) : answer(r, `Results: ${results.join(' | ')}`)
  },
  reader: (r) => {
    const [result] = trailingToolResults(r.body.messages)
    if (result !== undefined) return answer(r, `Read: ${result}`)
    const lastUser = textOf([...r.body.messages].reverse().find((m) => m.role === 'user')?.content ?? null)
    const path = /READ:(\S+)/.exec(lastUser)?.[1]
    return path ? sendCalls(r, [{ id: 'read_1', name: 'Read', arguments: JSON.stringify({ file_path: path }) }]) : echo(r)
  },
  shell: (r) => {
    const promptTokens = r.arg === undefined ? undefined : Number(r.arg)
    const [result] = trailingToolResults(r.body.messages)
    if (result !== undefined) return answer(r, `Ran: ${result.trim().split('\n').at(-1)}`, { promptTokens })
    const lastUser = textOf([...r.body.messages].reverse().find((m) => m.role === 'user')?.content ?? null)
    const command = /RUN:(.+)$/m.exec(lastUser)?.[1]
    const call = { id: 'shell_1', name: 'exec_command', arguments: JSON.stringify({ cmd: command }) }
    return command ? sendCalls(r, [call], false, promptTokens) : echo(r, { promptTokens })
  },
  viewer: (r) => {
    const [result] = trailingToolResults(r.body.messages)
    if (result !== undefined) return answer(r, `Viewed: ${result}`)
    const lastUser = textOf([...r.body.messages].reverse().find((m) => m.role === 'user')?.content ?? null)
    const path = /VIEW:(\S+)/.exec(lastUser)?.[1]
    return path ? sendCalls(r, [{ id: 'view_1', name: 'view_image', arguments: JSON.stringify({ path }) }]) : echo(r)
  },
  mcpcall: (r) => {
    const [result] = trailingToolResults(r.body.messages)
    if (result !== undefined) return answer(r, `MCP result: ${result}`)
    const offered = r.body.tools?.find(({ function: { name } }) => name === r.arg || name.endsWith(`__${r.arg}`))
    // Claude Code defers MCP tools: it names them a line each in its prompt, for its ToolSearch tool.
    const deferred = new RegExp(`^(\\S+__${r.arg})$`, 'm')
    const named = offered?.function.name ?? r.body.messages.map((m) => deferred.exec(textOf(m.content))?.[1]).find(Boolean)
    const asked = textOf([...r.body.messages].reverse().find((m) => m.role === 'user')?.content ?? null)
    const query = asked.trim().split('\n').at(-1)!.trim()
    return named ? sendCalls(r, [{ id: 'mcp_1', name: named, arguments: JSON.stringify({ query }) }]) : echo(r)
  },
  recall: recaller('recall'),
  recallloop: recaller('recallloop'),
  recallmix: recaller('recallmix'),
  recallall: recaller('recallall'),
  recallid: recallById,
  memory: memoryModel,
  notes: notesModel,
}

async function handle(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? '/', 'http://fake')
  const tag = url.searchParams.get('tag') ?? ''
  if (req.method === 'GET' && url.pathname === '/__requests') {
    return sendJson(
      res,
      200,
      requests.filter((r) => r.model.endsWith(`#${tag}`)),
    )
  }
  if (req.method === 'POST' && url.pathname === '/__release') {
    // Releases the requests of this tag held so far (a later one waits for the next release).
    const waiting = held.get(tag) ?? []
    held.delete(tag)
    for (const resolve of waiting) resolve()
    return sendJson(res, 200, { released: waiting.length })
  }
  if (req.method !== 'POST' || !url.pathname.endsWith('/chat/completions')) return sendError(res, 404, 'not found')

  const body = JSON.parse(await readBody(req)) as ChatBody
  const record: Recorded = { model: body.model, body, authorization: req.headers.authorization, usage: null }
  // Only a tagged model's requests can be asked for (`/__requests` matches `#<tag>`): the others are
  // not kept (the benchmarks send thousands, some of them megabytes of images).
  if (body.model.includes('#')) requests.push(record)
  const [spec = 'echo', modelTag = ''] = body.model.split('#')
  const [mode = 'echo', arg] = spec.split(/-(.*)/s)
  const count = (counters.get(`${mode}#${modelTag}`) ?? 0) + 1
  counters.set(`${mode}#${modelTag}`, count)
  const handler = Object.hasOwn(MODES, mode) ? MODES[mode]! : MODES.echo!
  await handler({ req, res, body, arg, tag: modelTag, count, record })
}

/**
 * Starts the fake upstream on a free loopback port. It counts prompt tokens one way only (by
 * characters, see the header); `counting` is accepted for the benchmarks, which name that way.
 */
export async function startFakeOpenAI(_options: { counting?: 'characters' } = {}): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: String(error) } })
      else res.destroy()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (!address || typeof address === 'string') throw new Error('no port')
  return { url: `http://127.0.0.1:${address.port}`, server }
}
