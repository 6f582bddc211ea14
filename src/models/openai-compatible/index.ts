import type { ToolCall } from '../../core'
import {
  type ChatModel,
  type ChatReply,
  type ChatRequest,
  isContextLengthMessage,
  UpstreamError,
  type Usage,
  usageOf,
  type WireUsage,
} from '../port'
import { sseEvents } from '../sse'

export interface OpenAICompatibleOptions {
  /** e.g. `https://api.openai.com/v1`, `http://localhost:11434/v1` (Ollama). */
  baseUrl: string
  apiKey?: string
  /** Time allowed for the answer to start, and between two chunks of a stream. */
  timeoutMs: number
  fetch?: typeof fetch
}

type WireToolCall = { index?: number; id?: string; function?: { name?: string; arguments?: string } }

const toolCallsOf = (calls: WireToolCall[] | undefined): ToolCall[] =>
  (calls ?? []).map((call, i) => ({
    id: call.id ?? `call_${i}`,
    name: call.function?.name ?? '',
    arguments: call.function?.arguments ?? '',
  }))

/**
 * A chat model behind any OpenAI-compatible `POST /chat/completions`: OpenAI, Ollama, vLLM,
 * llama.cpp, Groq, Workers AI's OpenAI endpoint. Streams with server-sent events when asked.
 *
 * @example
 * const model = openAICompatible({ baseUrl: 'https://api.openai.com/v1', apiKey, timeoutMs: 60_000 })
 * const reply = await model.chat({ model: 'gpt-4o-mini', messages, maxTokens: 512 })
 */
export function openAICompatible(options: OpenAICompatibleOptions): ChatModel {
  const doFetch = options.fetch ?? fetch
  const url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`

  async function post(request: ChatRequest, signal: AbortSignal): Promise<Response> {
    const stream = request.onDelta !== undefined
    const body = {
      model: request.model,
      messages: request.messages,
      max_tokens: request.maxTokens,
      stream,
      ...(stream ? { stream_options: { include_usage: true } } : {}),
    }
    let response: Response
    try {
      response = await doFetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : {}) },
        body: JSON.stringify(body),
        signal,
      })
    } catch (error) {
      if (signal.aborted) throw new UpstreamError('timeout', `the model did not answer within ${options.timeoutMs} ms`)
      throw new UpstreamError('transport', `could not reach the model: ${redact((error as Error).message)}`)
    }
    if (!response.ok) {
      const text = redact(await response.text().catch(() => ''))
      const failure =
        (response.status === 400 || response.status === 413) && isContextLengthMessage(text) ? 'context_length' : 'status'
      throw new UpstreamError(failure, `the model answered ${response.status}: ${text.slice(0, 300)}`, {
        status: response.status,
      })
    }
    return response
  }

  /** Upstream error texts may echo credentials ("Incorrect API key provided: …"): never pass them on. */
  function redact(text: string): string {
    let safe = text.replace(/Bearer\s+\S+/gi, 'Bearer [redacted]')
    if (options.apiKey && options.apiKey.length >= 4) safe = safe.replaceAll(options.apiKey, '[redacted]')
    return safe
  }

  async function complete(request: ChatRequest): Promise<ChatReply> {
    const controller = new AbortController()
    const timer = setTimeout(() => controller.abort(), options.timeoutMs)
    try {
      const response = await post(request, controller.signal)
      let json: {
        choices?: { message?: { content?: string | null; tool_calls?: WireToolCall[] }; finish_reason?: string }[]
        usage?: WireUsage
      }
      try {
        json = await response.json()
      } catch {
        if (controller.signal.aborted)
          throw new UpstreamError('timeout', `the model did not finish within ${options.timeoutMs} ms`)
        throw new UpstreamError('malformed', 'the model answered with a body that is not JSON')
      }
      const choice = json?.choices?.[0]
      if (!choice?.message) throw new UpstreamError('malformed', 'the model answered without choices[0].message')
      return {
        content: choice.message.content ?? null,
        toolCalls: toolCallsOf(choice.message.tool_calls),
        usage: usageOf(json.usage),
        finishReason: choice.finish_reason ?? null,
      }
    } finally {
      clearTimeout(timer)
    }
  }

  async function stream(request: ChatRequest): Promise<ChatReply> {
    const controller = new AbortController()
    const timer = setTimeout(() => controller.abort(), options.timeoutMs)
    let response: Response
    try {
      response = await post(request, controller.signal)
    } finally {
      clearTimeout(timer)
    }
    if (!response.body) throw new UpstreamError('malformed', 'the model answered a stream with no body')
    let content = ''
    let started = false
    let finishReason: string | null = null
    let usage: Usage | null = null
    let done = false
    const calls = new Map<number, { id: string; name: string; arguments: string }>()
    try {
      for await (const event of sseEvents(response.body, options.timeoutMs)) {
        if (event.data.trim() === '[DONE]') {
          done = true
          break
        }
        let chunk: {
          choices?: { delta?: { content?: string | null; tool_calls?: WireToolCall[] }; finish_reason?: string | null }[]
          usage?: WireUsage
        }
        try {
          chunk = JSON.parse(event.data)
        } catch {
          throw new UpstreamError('malformed', 'the model streamed a chunk that is not JSON', { outputStarted: started })
        }
        usage = usageOf(chunk.usage) ?? usage
        const choice = chunk.choices?.[0]
        if (!choice) continue // e.g. the usage chunk
        const text = choice.delta?.content
        if (text) {
          started = true
          content += text
          request.onDelta!(text)
        }
        for (const call of choice.delta?.tool_calls ?? []) {
          const at = call.index ?? 0
          const current = calls.get(at) ?? { id: '', name: '', arguments: '' }
          calls.set(at, {
            id: call.id ?? current.id,
            name: current.name + (call.function?.name ?? ''),
            arguments: current.arguments + (call.function?.arguments ?? ''),
          })
        }
        finishReason = choice.finish_reason ?? finishReason
      }
    } catch (error) {
      if (error instanceof UpstreamError)
        throw new UpstreamError(error.failure, error.message, { ...error.options, outputStarted: started })
      throw new UpstreamError('cut_off', `the model's stream broke: ${(error as Error).message}`, { outputStarted: started })
    }
    if (!done && finishReason === null) {
      throw new UpstreamError('cut_off', 'the model’s stream ended before it finished', { outputStarted: started })
    }
    return {
      content: content === '' && calls.size > 0 ? null : content,
      toolCalls: [...calls.entries()].sort(([a], [b]) => a - b).map(([i, call]) => ({ ...call, id: call.id || `call_${i}` })),
      usage,
      finishReason,
    }
  }

  return {
    provider: 'openai-compatible',
    chat: (request) => (request.onDelta ? stream(request) : complete(request)),
  }
}
