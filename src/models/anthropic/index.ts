import type { ToolCall } from '../../core'
import { type ChatModel, type ChatReply, type ChatRequest, isContextLengthMessage, UpstreamError } from '../port'
import { collectStream } from '../stream'
import { eventReader, passedOn } from './events'
import {
  type AnthropicUsage,
  anthropicPrompt,
  anthropicTools,
  finishReasonOf,
  PROVIDER,
  REASONING_TYPES,
  usageOfAnthropic,
} from './wire'

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
    const reasoning = json.content
      .filter((block) => REASONING_TYPES.has(block.type))
      .map((block) => ({ provider: PROVIDER, ...block }))
    return {
      ...(reasoning.length > 0 ? { reasoning } : {}),
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
      onReasoning: request.onReasoning,
      readChunk: eventReader(),
      source: 'the model',
    })
  }

  return { chat: (request) => (request.onDelta ? stream(request, request.onDelta) : complete(request)) }
}
