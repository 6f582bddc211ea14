/**
 * A fake Anthropic Messages upstream for tests: a real HTTP server on loopback speaking
 * `POST /v1/messages`, plain and streamed with Anthropic's server-sent events (`message_start`,
 * `content_block_*`, `message_delta`, `message_stop`, pings). The requested model name picks the
 * behaviour, `claude-<mode>[-<arg>][#<tag>]`:
 *
 * | mode           | behaviour                                                                  |
 * |----------------|----------------------------------------------------------------------------|
 * | `echo`         | answers `Echo: <the last user message's text>`                             |
 * | `think`        | a thinking block (with its signature), then like echo                      |
 * | `tools-<ids>`  | a `tool_use` block for the request's first tool per comma-separated id      |
 * | `agent-<ids>`  | like tools-<ids> after a user message; after tool results `Results: <…>`    |
 * | `reader`       | Claude Code's loop: after a user message holding `READ:<path>`, a `tool_use` |
 * |                | of its `Read` tool with `{"file_path": path}`; after its result,            |
 * |                | `Read: <the result's text>` (else like echo)                               |
 * | `limited`      | 429 `rate_limit_error` with `retry-after: 7`                                |
 * | `overloaded`   | 529 `overloaded_error`                                                      |
 * | `long`         | 400 `prompt is too long`                                                    |
 * | `midfail`      | streams a piece of text, then an `error` event (`overloaded_error`)        |
 * | `memory`       | once the memory tool is offered, runs the script after `MEMORY:` in the    |
 * |                | last user message (`./memory-script`): each round's `tool_use` blocks (on  |
 * |                | if the tool is withdrawn), then `Memory results: <results, "\n---\n">`  |
 *
 * A tool result's text is its content's: a string, or its blocks' (text as it is, `[image]` and
 * `[document]` for the others, joined by a space).
 *
 * Like Anthropic, a reply's text stops before the first of the request's `stop_sequences` it
 * holds: `stop_reason` is then `stop_sequence` and `stop_sequence` that sequence.
 *
 * Usage is counted like a prompt cache would: tokens (4 characters each) of the messages this
 * prompt shares, cache markers aside, with the previous prompt of its tag are `cache_read`; the
 * newest message is `input_tokens`; the rest `cache_creation`.
 * `GET /__requests?tag=<tag>` returns the requests of a tag (headers, framing and body).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { callOf, memoryScript, roundOf } from './memory-script'

type Block = { type: string; text?: string; content?: unknown; cache_control?: unknown; [key: string]: unknown }
type Message = { role: string; content: Block[] }
interface Body {
  model: string
  system?: Block[]
  messages: Message[]
  tools?: { name: string }[]
  stream?: boolean
  max_tokens: number
  stop_sequences?: string[]
}
interface Recorded {
  model: string
  headers: Record<string, string | undefined>
  /** How the body came: with a Content-Length, or chunked. */
  framing: { contentLength?: string; transferEncoding?: string }
  body: Body
}

const requests: Recorded[] = []
const previous = new Map<string, string[]>()

const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers })
  res.end(JSON.stringify(body))
}
const error = (res: ServerResponse, status: number, type: string, message: string, headers: Record<string, string> = {}) =>
  send(res, status, { type: 'error', error: { type, message } }, headers)

/** Each message as text without cache markers: what a prompt cache compares. */
const unmarked = (body: Body) =>
  [JSON.stringify(body.system ?? []), ...body.messages.map((m) => JSON.stringify(m))].map((text) =>
    text.replace(/,?"cache_control":\{[^}]*\}/g, ''),
  )

function usageOf(tag: string, body: Body, output: string) {
  const parts = unmarked(body)
  const before = previous.get(tag) ?? []
  let shared = 0
  while (shared < parts.length - 1 && shared < before.length && parts[shared] === before[shared]) shared++
  previous.set(tag, parts)
  const tokens = (texts: string[]) => texts.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0)
  return {
    input_tokens: tokens(parts.slice(-1)),
    cache_read_input_tokens: tokens(parts.slice(0, shared)),
    cache_creation_input_tokens: tokens(parts.slice(shared, -1)),
    output_tokens: Math.ceil(output.length / 4),
  }
}

const textOf = (message: Message | undefined) =>
  (message?.content ?? [])
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('\n')

/** A tool result's text (see the header). */
const resultText = (result: Block) =>
  Array.isArray(result.content)
    ? (result.content as Block[]).map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join(' ')
    : String(result.content ?? '')

/** `memory`: once the tool is offered, the script's next round of `tool_use` blocks (on if it is withdrawn), then the results it got. */
function memoryAnswer(body: Body): Block[] | null {
  const offered = body.tools?.some((tool) => tool.name === 'memory') ?? false
  const script = memoryScript(body.messages.map((m) => ({ role: m.role, text: textOf(m) })))
  if (!script || (!offered && script.done === 0)) return null
  if (script.done < script.rounds.length) {
    const { text, calls } = roundOf(script.rounds[script.done]!)
    const uses = calls.map((command, i) => ({ type: 'tool_use', id: `toolu_mem_${script.done}_${i}`, ...callOf(command) }))
    return [...(text ? [{ type: 'text', text }] : []), ...uses]
  }
  const at = body.messages.findLastIndex((m) => m.role === 'user' && textOf(m).includes('MEMORY:'))
  const results = body.messages
    .slice(at + 1)
    .flatMap((m) => m.content.filter((block) => block.type === 'tool_result'))
    .map(resultText)
  return [{ type: 'text', text: `Memory results: ${results.join('\n---\n')}` }]
}

function answerOf(mode: string, arg: string | undefined, body: Body): Block[] {
  const last = body.messages.at(-1)
  const results = (last?.content ?? []).filter((block) => block.type === 'tool_result')
  const lastUser = [...body.messages].reverse().find((m) => m.role === 'user' && m.content.some((b) => b.type === 'text'))
  const echo: Block = { type: 'text', text: `Echo: ${textOf(lastUser).slice(0, 200)}` }
  if (mode === 'think') return [{ type: 'thinking', thinking: 'Let me think.', signature: 'sig-123' }, echo]
  if (mode === 'memory') return memoryAnswer(body) ?? [echo]
  if (mode === 'agent' && results.length > 0) return [{ type: 'text', text: `Results: ${results.map(resultText).join(' | ')}` }]
  if (mode === 'reader') {
    if (results.length > 0) return [{ type: 'text', text: `Read: ${resultText(results[0]!)}` }]
    const path = /READ:(\S+)/.exec(textOf(lastUser))?.[1]
    if (path) return [{ type: 'tool_use', id: 'read_1', name: 'Read', input: { file_path: path } }]
    return [echo]
  }
  if (mode === 'tools' || mode === 'agent') {
    const name = body.tools?.[0]?.name ?? 'missing_tool'
    return (arg ?? 'toolu_1').split(',').map((id, n) => ({ type: 'tool_use', id, name, input: { n } }))
  }
  return [echo]
}

/** The answer's stop: a tool call's, else where the text holds a stop sequence (cut before it), else the turn's end. */
function stopOf(blocks: Block[], sequences: string[] = []): { stop_reason: string; stop_sequence: string | null } {
  if (blocks.some((block) => block.type === 'tool_use')) return { stop_reason: 'tool_use', stop_sequence: null }
  for (const block of blocks) {
    if (block.type !== 'text') continue
    const found = sequences
      .map((sequence) => ({ sequence, at: block.text!.indexOf(sequence) }))
      .filter(({ at }) => at >= 0)
      .sort((a, b) => a.at - b.at)[0]
    if (!found) continue
    block.text = block.text!.slice(0, found.at)
    return { stop_reason: 'stop_sequence', stop_sequence: found.sequence }
  }
  return { stop_reason: 'end_turn', stop_sequence: null }
}

type Stop = ReturnType<typeof stopOf>

function stream(
  res: ServerResponse,
  model: string,
  blocks: Block[],
  stop: Stop,
  usage: ReturnType<typeof usageOf>,
  failMidway: boolean,
) {
  res.writeHead(200, { 'Content-Type': 'text/event-stream' })
  const event = (type: string, data: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)
  const { output_tokens, ...input } = usage
  event('message_start', {
    message: {
      id: 'msg_fake',
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      usage: { ...input, output_tokens: 1 },
    },
  })
  event('ping', {})
  for (const [index, block] of blocks.entries()) {
    if (block.type === 'text') {
      event('content_block_start', { index, content_block: { type: 'text', text: '' } })
      for (const piece of (block.text ?? '').split(/(?<= )/)) {
        event('content_block_delta', { index, delta: { type: 'text_delta', text: piece } })
        if (failMidway) {
          event('error', { error: { type: 'overloaded_error', message: 'Overloaded' } })
          return res.end()
        }
      }
    } else if (block.type === 'thinking') {
      event('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } })
      event('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: block.thinking } })
      event('content_block_delta', { index, delta: { type: 'signature_delta', signature: block.signature } })
    } else {
      event('content_block_start', { index, content_block: { ...block, input: {} } })
      const json = JSON.stringify(block.input)
      event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json.slice(0, 3) } })
      event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json.slice(3) } })
    }
    event('content_block_stop', { index })
  }
  event('message_delta', { delta: stop, usage: { output_tokens } })
  event('message_stop', {})
  res.end()
}

async function handle(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? '/', 'http://fake')
  if (req.method === 'GET' && url.pathname === '/__requests') {
    const tag = url.searchParams.get('tag') ?? ''
    return send(
      res,
      200,
      requests.filter((r) => r.model.endsWith(`#${tag}`)),
    )
  }
  if (req.method !== 'POST' || url.pathname !== '/v1/messages') return error(res, 404, 'not_found_error', 'no such route')
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Body
  const headers = Object.fromEntries(
    ['x-api-key', 'anthropic-version', 'anthropic-beta'].map((name) => [name, req.headers[name] as string | undefined]),
  )
  const framing = { contentLength: req.headers['content-length'], transferEncoding: req.headers['transfer-encoding'] }
  requests.push({ model: body.model, headers, framing, body })
  const [name, tag = ''] = body.model.split('#')
  const [, mode = 'echo', arg] = /^claude-([a-z]+)(?:-(.*))?$/.exec(name ?? '') ?? []
  if (mode === 'limited') return error(res, 429, 'rate_limit_error', 'Rate limited', { 'retry-after': '7' })
  if (mode === 'overloaded') return error(res, 529, 'overloaded_error', 'Overloaded')
  if (mode === 'long') return error(res, 400, 'invalid_request_error', 'prompt is too long: 250000 tokens > 200000 maximum')
  const blocks = answerOf(mode, arg, body)
  const stop = stopOf(blocks, body.stop_sequences)
  const output = blocks.map((block) => block.text ?? JSON.stringify(block.input ?? '')).join('')
  const usage = usageOf(tag, body, output)
  if (body.stream) return stream(res, body.model, blocks, stop, usage, mode === 'midfail')
  send(res, 200, { id: 'msg_fake', type: 'message', role: 'assistant', model: body.model, content: blocks, ...stop, usage })
}

export async function startFakeAnthropic(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    handle(req, res).catch((failure) => {
      if (!res.headersSent) error(res, 500, 'api_error', String(failure))
      else res.destroy()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (!address || typeof address === 'string') throw new Error('no port')
  return { url: `http://127.0.0.1:${address.port}`, server }
}
