import type { ToolCall } from '../../core'
import { type ChatModel, type ChatReply, type ChatRequest, isContextLengthMessage, UpstreamError } from '../port'
import { collectStream, type StreamChunk } from '../stream'
import { type AnthropicUsage, anthropicPrompt, anthropicTools, finishReasonOf, usageOfAnthropic } from './wire'

export interface AnthropicOptions {
  /** Without `/v1`, as the SDKs take it: `https://api.anthropic.com`. */
  baseUrl: string
  apiKey: string
  /** Time allowed for the answer to start, and between two events of a stream. */
  timeoutMs: number
  fetch?: typeof fetch
}

/** The API version the service speaks to Anthropic. */
const VERSION = '2023-06-01'

type Block = { type: string; text?: string; id?: string; name?: string; input?: unknown }

/** Whether a status is one a client should see as it is (a 429, an overload) rather than as a 502. */
const passedOn = (status: number) => status === 429 || status === 529

/**
 * A chat model behind Anthropic's native Messages API: the prompt sent with the service's own
 * cache markers (the system prompt, the newest message), tools as Anthropic tools, a Messages
 * client's extra fields and `anthropic-beta` passed on; the answer's usage with what the prompt
 * cache read and wrote. Streams Anthropic's server-sent events when asked.
 *
 * @example
 * const model = anthropic({ baseUrl: 'https://api.anthropic.com', apiKey, timeoutMs: 60_000 })
 * const reply = await model.chat({ model: 'claude-sonnet-4-5', messages, maxTokens: 1024 })
 */
export function anthropic(options: AnthropicOptions): ChatModel {
  const doFetch = options.fetch ?? fetch
  const url = `${options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')}/v1/messages`

  async function post(request: ChatRequest, signal: AbortSignal): Promise<Response> {
    const prompt = anthropicPrompt(request.messages)
    const o = request.options ?? {}
    const body = {
      // The client's fields the door did not read first: the service's own win.
      ...request.anthropic?.fields,
      model: request.model,
      max_tokens: request.maxTokens,
      ...(prompt.system ? { system: prompt.system } : {}),
      messages: prompt.messages,
      ...anthropicTools(request),
      ...(o.temperature !== undefined ? { temperature: Math.min(o.temperature, 1) } : {}),
      ...(o.topP !== undefined ? { top_p: o.topP } : {}),
      ...(o.stop !== undefined ? { stop_sequences: typeof o.stop === 'string' ? [o.stop] : o.stop } : {}),
      stream: request.onDelta !== undefined,
    }
    let response: Response
    try {
      response = await doFetch(url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'x-api-key': options.apiKey,
          'anthropic-version': VERSION,
          ...(request.anthropic?.beta ? { 'anthropic-beta': request.anthropic.beta } : {}),
        },
        body: JSON.stringify(body),
        signal,
      })
    } catch (error) {
      if (signal.aborted) throw new UpstreamError('timeout', `the model did not answer within ${options.timeoutMs} ms`)
      throw new UpstreamError('transport', `could not reach the model: ${redact((error as Error).message)}`)
    }
    if (!response.ok) {
      const text = redact(await response.text().catch(() => ''))
      const failure = response.status === 400 && isContextLengthMessage(text) ? 'context_length' : 'status'
      const retryAfter = response.headers.get('retry-after') ?? undefined
      throw new UpstreamError(failure, `the model answered ${response.status}: ${text.slice(0, 300)}`, {
        status: response.status,
        ...(passedOn(response.status) ? { passOn: { ...(retryAfter ? { retryAfter } : {}) } } : {}),
      })
    }
    return response
  }

  /** Error texts may echo the key: never pass it on. */
  const redact = (text: string) => (options.apiKey.length >= 4 ? text.replaceAll(options.apiKey, '[redacted]') : text)

  async function complete(request: ChatRequest): Promise<ChatReply> {
    const signal = AbortSignal.timeout(options.timeoutMs)
    const response = await post(request, signal)
    let json: { model?: string; content?: Block[]; stop_reason?: string | null; usage?: AnthropicUsage }
    try {
      json = await response.json()
    } catch {
      if (signal.aborted) throw new UpstreamError('timeout', `the model did not finish within ${options.timeoutMs} ms`)
      throw new UpstreamError('malformed', 'the model answered with a body that is not JSON')
    }
    if (!Array.isArray(json?.content)) throw new UpstreamError('malformed', 'the model answered without content')
    const text = json.content.flatMap((block) => (block.type === 'text' && typeof block.text === 'string' ? [block.text] : []))
    const toolCalls: ToolCall[] = json.content.flatMap((block) =>
      block.type === 'tool_use'
        ? [{ id: block.id ?? '', name: block.name ?? '', arguments: JSON.stringify(block.input ?? {}) }]
        : [],
    )
    return {
      content: text.length > 0 ? text.join('') : toolCalls.length > 0 ? null : '',
      toolCalls,
      usage: usageOfAnthropic(json.usage),
      finishReason: finishReasonOf(json.stop_reason),
      model: typeof json.model === 'string' ? json.model : null,
    }
  }

  async function stream(request: ChatRequest, onDelta: (text: string) => void): Promise<ChatReply> {
    const controller = new AbortController()
    const timer = setTimeout(() => controller.abort(), options.timeoutMs)
    let response: Response
    try {
      response = await post(request, controller.signal)
    } finally {
      clearTimeout(timer)
    }
    if (!response.body) throw new UpstreamError('malformed', 'the model answered a stream with no body')
    return collectStream(response.body, {
      idleMs: options.timeoutMs,
      onDelta,
      onToolCall: request.onToolCall,
      readChunk: eventReader(),
      source: 'the model',
    })
  }

  return { chat: (request) => (request.onDelta ? stream(request, request.onDelta) : complete(request)) }
}

/**
 * Reads one stream's events as chunks: text deltas, each `tool_use` block as a call at its own
 * index (its input from the `input_json_delta` pieces), the usage of `message_start` completed by
 * `message_delta`'s, and the stop reason. An `error` event fails the stream with its type.
 */
function eventReader(): (data: string) => StreamChunk | null {
  const callAt = new Map<number, number>()
  let usage: AnthropicUsage = {}
  return (data) => {
    let event: {
      type?: string
      index?: number
      message?: { model?: string; usage?: AnthropicUsage }
      content_block?: Block
      delta?: { type?: string; text?: string; partial_json?: string; stop_reason?: string | null }
      usage?: AnthropicUsage
      error?: { type?: string; message?: string }
    }
    try {
      event = JSON.parse(data)
    } catch {
      throw new UpstreamError('malformed', 'the model streamed an event that is not JSON')
    }
    switch (event.type) {
      case 'message_start':
        usage = { ...event.message?.usage }
        return { model: event.message?.model ?? null }
      case 'content_block_start':
        if (event.content_block?.type !== 'tool_use') return null
        callAt.set(event.index ?? 0, callAt.size)
        return {
          toolCalls: [
            {
              index: callAt.get(event.index ?? 0)!,
              id: event.content_block.id,
              function: { name: event.content_block.name, arguments: '' },
            },
          ],
        }
      case 'content_block_delta':
        if (event.delta?.type === 'text_delta') return { text: event.delta.text ?? '' }
        if (event.delta?.type === 'input_json_delta' && callAt.has(event.index ?? 0))
          return {
            toolCalls: [{ index: callAt.get(event.index ?? 0)!, function: { arguments: event.delta.partial_json ?? '' } }],
          }
        return null
      case 'message_delta':
        usage = { ...usage, ...Object.fromEntries(Object.entries(event.usage ?? {}).filter(([, value]) => value !== null)) }
        return { usage: usageOfAnthropic(usage), finishReason: finishReasonOf(event.delta?.stop_reason) ?? 'stop' }
      case 'error': {
        const type = event.error?.type ?? 'api_error'
        const status = type === 'overloaded_error' ? 529 : type === 'rate_limit_error' ? 429 : 500
        throw new UpstreamError('status', `the model's stream failed (${type}): ${event.error?.message ?? ''}`, {
          status,
          ...(passedOn(status) ? { passOn: {} } : {}),
        })
      }
      default:
        return null
    }
  }
}
