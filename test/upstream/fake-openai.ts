/**
 * A fake OpenAI-compatible upstream for tests: a real HTTP server on loopback speaking the chat
 * completions wire protocol, plain and streaming (SSE). The requested model name picks the
 * behaviour, `<mode>[-<arg>][#<tag>]`:
 *
 * | mode            | behaviour                                                              |
 * |-----------------|------------------------------------------------------------------------|
 * | `echo`          | answers `Echo: <last user message>` (word by word when streaming)       |
 * | `slow-<ms>`     | like echo, after waiting `ms` (streaming: spread over the words)        |
 * | `fail-<status>` | answers that status with an OpenAI error body                          |
 * | `flaky-<n>`     | answers 503 to the first n requests of its tag, then like echo         |
 * | `limited-<n>`   | answers 429 to the first n requests of its tag, then like echo         |
 * | `blank`         | answers an empty (whitespace) message                                  |
 * | `null`          | answers a null message content                                          |
 * | `malformed`     | answers 200 with a body that is not the protocol                       |
 * | `cut`           | sends part of the answer, then drops the connection                    |
 * | `hang`          | never answers                                                          |
 * | `context-<n>`   | a context-length 400 when the messages hold more than n characters     |
 * | `noisy`         | like echo, with SSE comments, heartbeats and a usage chunk             |
 * | `leak`          | a 401 whose message echoes the Authorization header it received        |
 * | `tools-<ids>`   | calls the request's first tool once per comma-separated id (`_`: no id), |
 * |                 | plain or streamed in the real delta format (arguments in pieces)        |
 * | `scale-<x>`     | like echo, reporting prompt tokens at x × the service's own estimate    |
 * | `recall-<q>`    | when recall_history is offered: calls it with query q, then answers     |
 * |                 | `Recalled: <its result>`; `recallloop-<q>` calls it whenever offered      |
 * |                 | (then `Done after <n> recalls`); `recallmix-<q>` calls it and a client tool |
 * | `toolscut-<ids>`| streams the calls of tools-<ids>, then drops the connection in the     |
 * |                 | middle of the last call's arguments                                    |
 * | `agent-<ids>`   | an agent's loop: like tools-<ids> after a user message; after tool      |
 * |                 | results, answers `Results: <each result's content, joined by " | ">`  |
 *
 * Every request is recorded; `GET /__requests?tag=<tag>` returns those of a tag.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { type Message as CoreMessage, defaultEstimator, EventText } from '../../src/core'

interface Recorded {
  model: string
  body: Record<string, unknown>
  authorization: string | undefined
  at: number
}

const requests: Recorded[] = []
const counters = new Map<string, number>()
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

type Message = { role: string; content: string | null }

function answerFor(messages: Message[]): string {
  const lastUser = [...messages].reverse().find((m) => m.role === 'user')
  return `Echo: ${(lastUser?.content ?? '').slice(0, 200)}`
}

type WireMessage = Message & {
  tool_calls?: { id: string; function: { name: string; arguments: string } }[]
  tool_call_id?: string
}

/** A wire message as the event it would be stored as, for our estimator. */
const asStored = (m: WireMessage): CoreMessage =>
  m.role === 'tool'
    ? { role: 'tool', content: null, toolResponses: [{ id: m.tool_call_id ?? '', name: '', data: m.content ?? '' }] }
    : {
        role: m.role as CoreMessage['role'],
        content: m.content,
        ...(m.tool_calls
          ? { toolCalls: m.tool_calls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })) }
          : {}),
      }

/**
 * Usage as a model would report it: prompt tokens as the service's own estimator counts the
 * prompt (each message as the event it is stored as, and the tools' JSON) — times `scale` for a
 * model that counts differently — and completion tokens by characters.
 */
const usageFor = (body: { messages: WireMessage[]; tools?: unknown[] }, answer: string, scale = 1) => {
  let estimate = 0
  if (counting === 'characters') {
    // A stub that must answer at once (the benchmarks): a token per 4 characters, no tokenizer.
    estimate = Math.ceil(body.messages.reduce((n, m) => n + (m.content?.length ?? 0), 0) / 4)
  } else {
    for (const m of body.messages) estimate += defaultEstimator.count(EventText.of(asStored(m)))
    if (body.tools) estimate += defaultEstimator.count(JSON.stringify(body.tools))
  }
  const prompt = Math.round(estimate * scale)
  const completion = Math.ceil(answer.length / 4)
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion }
}

function sendJson(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'Content-Type': 'application/json' })
  res.end(JSON.stringify(body))
}

const chunk = (model: string, delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`

async function handle(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? '/', 'http://fake')
  if (req.method === 'GET' && url.pathname === '/__requests') {
    const tag = url.searchParams.get('tag') ?? ''
    return sendJson(
      res,
      200,
      requests.filter((r) => r.model.endsWith(`#${tag}`)),
    )
  }
  if (req.method !== 'POST' || !url.pathname.endsWith('/chat/completions'))
    return sendJson(res, 404, { error: { message: 'not found' } })

  const body = JSON.parse(await readBody(req)) as {
    model: string
    messages: WireMessage[]
    tools?: { function: { name: string } }[]
    stream?: boolean
    stream_options?: { include_usage?: boolean }
  }
  requests.push({ model: body.model, body, authorization: req.headers.authorization, at: Date.now() })
  const [spec = 'echo', tag = ''] = body.model.split('#')
  const [mode = 'echo', arg] = spec.split(/-(.*)/s)
  const count = (counters.get(`${mode}#${tag}`) ?? 0) + 1
  counters.set(`${mode}#${tag}`, count)

  let answer: string | null = answerFor(body.messages)
  // A model that counts its prompt at `scale` times our estimate (answering as echo does).
  const scale = mode === 'scale' ? Number(arg) : 1
  switch (mode) {
    case 'leak':
      return sendJson(res, 401, {
        error: {
          message: `Incorrect API key provided: ${req.headers.authorization}; key ${req.headers.authorization?.slice(7)}`,
        },
      })
    case 'fail':
      return sendJson(res, Number(arg), { error: { message: `fake failure ${arg}`, type: 'server_error' } })
    case 'flaky':
      if (count <= Number(arg)) return sendJson(res, 503, { error: { message: 'temporarily unavailable' } })
      break
    case 'limited':
      if (count <= Number(arg)) return sendJson(res, 429, { error: { message: 'rate limited', type: 'rate_limit_error' } })
      break
    case 'hang':
      return // never answers; the client's timeout ends it
    case 'malformed':
      res.writeHead(200, { 'Content-Type': body.stream ? 'text/event-stream' : 'application/json' })
      return res.end(body.stream ? 'data: {"choices": [{"delta": {"content": "Hel' + '\n\n' : '<html>not json</html>')
    case 'context': {
      const size = body.messages.reduce((n, m) => n + (m.content?.length ?? 0), 0)
      if (size > Number(arg)) {
        return sendJson(res, 400, {
          error: {
            message: `This model's maximum context length is ${arg} characters; the messages hold ${size}.`,
            code: 'context_length_exceeded',
          },
        })
      }
      break
    }
    case 'blank':
      answer = '  \n '
      break
    case 'null':
      answer = null
      break
    case 'slow':
      if (!body.stream) await wait(Number(arg))
      break
  }

  if (mode === 'tools') return answerWithToolCalls(res, body, (arg ?? '').split(','))
  if (mode === 'toolscut') return answerWithToolCalls(res, body, (arg ?? '').split(','), true)
  if (mode === 'recall' || mode === 'recallloop' || mode === 'recallmix') {
    const offered = (body.tools ?? []).some((tool) => tool.function.name === 'recall_history')
    const afterTool = body.messages.at(-1)?.role === 'tool'
    const recall = { name: 'recall_history', arguments: JSON.stringify({ query: arg ?? '' }) }
    if (offered && (mode === 'recallloop' || !afterTool)) {
      const client = body.tools!.find((tool) => tool.function.name !== 'recall_history')
      const calls = mode === 'recallmix' && client ? [recall, { name: client.function.name, arguments: '{}' }] : [recall]
      return sendCalls(res, body, calls)
    }
    const recalled = body.messages.filter((m) => m.role === 'tool').length
    answer = mode === 'recallloop' || !afterTool ? `Done after ${recalled} recalls` : `Recalled: ${body.messages.at(-1)!.content}`
  }
  if (mode === 'agent') {
    const results = trailingToolResults(body.messages)
    if (results.length === 0) return answerWithToolCalls(res, body, (arg ?? '').split(','))
    answer = `Results: ${results.join(' | ')}`
  }

  if (!body.stream) {
    if (mode === 'cut') {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '500' })
      res.write('{"choices": [{"message": {"role": "assist')
      await wait(50)
      return res.destroy()
    }
    return sendJson(res, 200, {
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: answer }, finish_reason: 'stop' }],
      usage: usageFor(body, answer ?? '', scale),
    })
  }

  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' })
  res.write(chunk(body.model, { role: 'assistant', content: '' }))
  const words = (answer ?? '').split(/(?<= )/)
  for (const [i, word] of words.entries()) {
    if (mode === 'noisy') res.write(': keep-alive\n\n')
    if (mode === 'slow') await wait(Number(arg) / Math.max(1, words.length))
    res.write(chunk(body.model, { content: word }))
    if (mode === 'cut' && i === 1) {
      await wait(50) // let the client see the first pieces, then drop the connection
      return res.destroy()
    }
  }
  res.write(chunk(body.model, {}, 'stop'))
  if (body.stream_options?.include_usage) {
    res.write(
      `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', choices: [], usage: usageFor(body, answer ?? '', scale) })}\n\n`,
    )
  }
  res.end('data: [DONE]\n\n')
}

/** The contents of the tool messages that end the prompt (what the model was just given). */
function trailingToolResults(messages: Message[]): string[] {
  const results: string[] = []
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role === 'tool'; i--) results.unshift(messages[i]!.content ?? '')
  return results
}

/** Calls the request's first tool once per id (`_`: a call without an id), as the real wire does. */
function answerWithToolCalls(
  res: ServerResponse,
  body: { model: string; messages: WireMessage[]; stream?: boolean; tools?: { function: { name: string } }[] },
  ids: string[],
  cut = false,
) {
  const name = body.tools?.[0]?.function.name ?? 'missing_tool'
  const calls = ids.map((id, i) => ({ ...(id === '_' ? {} : { id }), name, arguments: `{"n":${i}}` }))
  return sendCalls(res, body, calls, cut)
}

/** Answers with these tool calls, plain or streamed in the real delta format (each call named, then its arguments in pieces). */
function sendCalls(
  res: ServerResponse,
  body: { model: string; stream?: boolean; messages: WireMessage[]; tools?: unknown[] },
  calls: { id?: string; name: string; arguments: string }[],
  cut = false,
) {
  const wire = calls.map(({ id, name, arguments: args }) => ({
    ...(id === undefined ? {} : { id }),
    type: 'function',
    function: { name, arguments: args },
  }))
  if (!body.stream) {
    return sendJson(res, 200, {
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: wire }, finish_reason: 'tool_calls' }],
      usage: usageFor(body, ''),
    })
  }
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' })
  res.write(chunk(body.model, { role: 'assistant', content: null }))
  for (const [index, call] of wire.entries()) {
    const { id, function: fn } = call as { id?: string; function: { name: string; arguments: string } }
    res.write(
      chunk(body.model, {
        tool_calls: [{ index, ...(id ? { id } : {}), type: 'function', function: { name: fn.name, arguments: '' } }],
      }),
    )
    res.write(chunk(body.model, { tool_calls: [{ index, function: { arguments: fn.arguments.slice(0, 3) } }] }))
    if (cut && index === wire.length - 1) {
      // Mid-arguments, once the client has read what came before: the last call is never whole.
      setTimeout(() => res.destroy(), 300)
      return
    }
    res.write(chunk(body.model, { tool_calls: [{ index, function: { arguments: fn.arguments.slice(3) } }] }))
  }
  res.write(chunk(body.model, {}, 'tool_calls'))
  res.end('data: [DONE]\n\n')
}

/** How the fake counts prompt tokens: as the service estimates them (tests), or by characters (benchmarks). */
let counting: 'estimate' | 'characters' = 'estimate'

/** Starts the fake upstream on a free loopback port. */
export async function startFakeOpenAI(
  options: { counting?: 'estimate' | 'characters' } = {},
): Promise<{ url: string; server: Server }> {
  counting = options.counting ?? 'estimate'
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
