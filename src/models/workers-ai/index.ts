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

/** The part of the `AI` binding this adapter uses. */
export interface AiBinding {
  run(model: string, input: Record<string, unknown>): Promise<unknown>
}

export interface WorkersAIOptions {
  binding: AiBinding
  /** Time allowed for the answer to start, and between two chunks of a stream. */
  timeoutMs: number
}

type LegacyToolCall = { id?: string; name?: string; arguments?: unknown; function?: { name?: string; arguments?: unknown } }

const text = (value: unknown): string | null =>
  value === undefined || value === null ? null : typeof value === 'string' ? value : JSON.stringify(value)

const toolCallsOf = (calls: LegacyToolCall[] | undefined): ToolCall[] =>
  (calls ?? []).map((call, i) => ({
    id: call.id ?? `call_${i}`,
    name: call.function?.name ?? call.name ?? '',
    arguments: text(call.function?.arguments ?? call.arguments) ?? '',
  }))

/**
 * Reads one answer in either shape the platform returns: the older `{ response, usage,
 * tool_calls }` or the OpenAI-style `{ choices, usage }`.
 */
export function replyOf(result: unknown): ChatReply {
  if (typeof result !== 'object' || result === null) throw new UpstreamError('malformed', 'Workers AI answered with no object')
  const r = result as {
    response?: unknown
    usage?: WireUsage
    tool_calls?: LegacyToolCall[]
    choices?: { message?: { content?: unknown; tool_calls?: LegacyToolCall[] }; finish_reason?: string }[]
  }
  if (Array.isArray(r.choices)) {
    const choice = r.choices[0]
    if (!choice?.message) throw new UpstreamError('malformed', 'Workers AI answered without choices[0].message')
    return {
      content: text(choice.message.content),
      toolCalls: toolCallsOf(choice.message.tool_calls),
      usage: usageOf(r.usage),
      finishReason: choice.finish_reason ?? null,
    }
  }
  if (!('response' in r) && !r.tool_calls) throw new UpstreamError('malformed', 'Workers AI answered without a response')
  return { content: text(r.response), toolCalls: toolCallsOf(r.tool_calls), usage: usageOf(r.usage), finishReason: null }
}

/**
 * A chat model through the Workers AI binding (`env.AI.run`). `max_tokens` is always passed:
 * some models stop at 256 tokens otherwise.
 *
 * @example
 * const model = workersAI({ binding: env.AI, timeoutMs: 60_000 })
 * await model.chat({ model: '@cf/meta/llama-3.1-8b-instruct', messages, maxTokens: 1024 })
 */
export function workersAI(options: WorkersAIOptions): ChatModel {
  async function run(request: ChatRequest): Promise<unknown> {
    let timer: ReturnType<typeof setTimeout> | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new UpstreamError('timeout', `Workers AI did not answer within ${options.timeoutMs} ms`)),
        options.timeoutMs,
      )
    })
    try {
      return await Promise.race([
        options.binding.run(request.model, {
          messages: request.messages,
          max_tokens: request.maxTokens,
          stream: request.onDelta !== undefined,
        }),
        timeout,
      ])
    } catch (error) {
      if (error instanceof UpstreamError) throw error
      const message = (error as Error)?.message ?? String(error)
      const failure = isContextLengthMessage(message) ? 'context_length' : 'status'
      // The binding throws for platform errors (capacity, rate limits): treat them as a 5xx.
      throw new UpstreamError(failure, `Workers AI failed: ${message}`, {
        status: /rate|capacity|429/i.test(message) ? 429 : 500,
      })
    } finally {
      clearTimeout(timer!)
    }
  }

  async function stream(request: ChatRequest, body: ReadableStream<Uint8Array>): Promise<ChatReply> {
    let content = ''
    let started = false
    let usage: Usage | null = null
    let finishReason: string | null = null
    let done = false
    try {
      for await (const event of sseEvents(body, options.timeoutMs)) {
        if (event.data.trim() === '[DONE]') {
          done = true
          break
        }
        let chunk: {
          response?: unknown
          usage?: WireUsage
          choices?: { delta?: { content?: string | null }; finish_reason?: string | null }[]
        }
        try {
          chunk = JSON.parse(event.data)
        } catch {
          continue // heartbeats and keep-alives that are not JSON: skip them
        }
        usage = usageOf(chunk.usage) ?? usage
        const piece = chunk.choices
          ? chunk.choices[0]?.delta?.content
          : typeof chunk.response === 'string'
            ? chunk.response
            : null
        finishReason = chunk.choices?.[0]?.finish_reason ?? finishReason
        if (piece) {
          started = true
          content += piece
          request.onDelta!(piece)
        }
      }
    } catch (error) {
      if (error instanceof UpstreamError)
        throw new UpstreamError(error.failure, error.message, { ...error.options, outputStarted: started })
      throw new UpstreamError('cut_off', `the Workers AI stream broke: ${(error as Error).message}`, { outputStarted: started })
    }
    if (!done && finishReason === null)
      throw new UpstreamError('cut_off', 'the Workers AI stream ended before it finished', { outputStarted: started })
    return { content, toolCalls: [], usage, finishReason }
  }

  return {
    provider: 'workers-ai',
    async chat(request) {
      const result = await run(request)
      if (request.onDelta === undefined) return replyOf(result)
      if (result instanceof ReadableStream) return stream(request, result as ReadableStream<Uint8Array>)
      // A model that does not stream answered whole: pass it on as one piece.
      const reply = replyOf(result)
      if (reply.content) request.onDelta(reply.content)
      return reply
    },
  }
}
