import type { ToolCall } from '../../core'
import { httpUpstream } from '../http-upstream'
import { type ChatModel, type ChatReply, type ChatRequest, isContextLengthMessage, UpstreamError } from '../port'
import { eventReader, passedOn } from './events'
import {
  type AnthropicUsage,
  anthropicPrompt,
  anthropicTools,
  finishReasonOf,
  PROVIDER,
  REASONING_TYPES,
  stopSequenceOf,
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
  const http = httpUpstream({
    url: `${options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')}/v1/messages`,
    timeoutMs: options.timeoutMs,
    secret: options.apiKey,
    fetch: options.fetch,
    refused(response, text) {
      const failure = response.status === 400 && isContextLengthMessage(text) ? 'context_length' : 'status'
      const retryAfter = response.headers.get('retry-after') ?? undefined
      return new UpstreamError(failure, `the model answered ${response.status}: ${text.slice(0, 300)}`, {
        status: response.status,
        ...(passedOn(response.status) ? { passOn: { ...(retryAfter ? { retryAfter } : {}) } } : {}),
      })
    },
  })

  function post(request: ChatRequest, signal: AbortSignal): Promise<Response> {
    const prompt = anthropicPrompt(request.messages, request.summaryIndex)
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
    const headers = {
      'x-api-key': options.apiKey,
      'anthropic-version': VERSION,
      ...(request.anthropic?.beta ? { 'anthropic-beta': request.anthropic.beta } : {}),
    }
    return http.post(body, headers, signal)
  }

  async function complete(request: ChatRequest): Promise<ChatReply> {
    const json = await http.json<{
      model?: string
      content?: Block[]
      stop_reason?: string | null
      stop_sequence?: string | null
      usage?: AnthropicUsage
    }>((signal) => post(request, signal))
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
      ...stopSequenceOf(json.stop_reason, json.stop_sequence),
      model: typeof json.model === 'string' ? json.model : null,
    }
  }

  return {
    chat: (request) =>
      request.onDelta
        ? http.stream((signal) => post(request, signal), {
            onDelta: request.onDelta,
            onToolCall: request.onToolCall,
            onReasoning: request.onReasoning,
            readChunk: eventReader(),
          })
        : complete(request),
  }
}
