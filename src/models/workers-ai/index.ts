import { imagesAfterToolResults, type OpenAIMessage, withoutReasoning } from '../../contract/openai-messages'
import type { ToolCall } from '../../core'
import {
  type ChatModel,
  type ChatReply,
  type ChatRequest,
  isContextLengthMessage,
  UpstreamError,
  usageOf,
  type WireUsage,
} from '../port'
import { collectStream, type StreamChunk, type ToolCallDelta } from '../stream'
import { wireFields } from '../wire-fields'

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
  (calls ?? []).map((call) => ({
    id: call.id ?? '',
    name: call.function?.name ?? call.name ?? '',
    arguments: text(call.function?.arguments ?? call.arguments) ?? '',
  }))

/** An older-shape streamed call (`{ name, arguments }`, whole, arguments maybe an object) as an OpenAI delta at its place. */
const legacyDelta = (call: LegacyToolCall, index: number): ToolCallDelta =>
  'function' in call && call.function
    ? { index, id: call.id, function: { name: call.function.name, arguments: text(call.function.arguments) ?? '' } }
    : { index, id: call.id, function: { name: call.name, arguments: text(call.arguments) ?? '' } }

type WireChunk = {
  response?: unknown
  usage?: WireUsage
  tool_calls?: LegacyToolCall[]
  choices?: { delta?: { content?: string | null; tool_calls?: ToolCallDelta[] }; finish_reason?: string | null }[]
}

/**
 * One chunk of a Workers AI stream, in either shape: OpenAI-style `choices[0].delta` or the older
 * `{ response }`. Heartbeats and keep-alives that are not JSON are skipped.
 */
function workersAIChunk(data: string): StreamChunk | null {
  let chunk: WireChunk
  try {
    chunk = JSON.parse(data)
  } catch {
    return null
  }
  const choice = chunk.choices?.[0]
  return {
    text: chunk.choices ? choice?.delta?.content : typeof chunk.response === 'string' ? chunk.response : null,
    toolCalls: choice?.delta?.tool_calls ?? chunk.tool_calls?.map(legacyDelta),
    usage: usageOf(chunk.usage),
    finishReason: choice?.finish_reason,
  }
}

/**
 * Reads one answer in either shape the platform returns: the older `{ response, usage,
 * tool_calls }` or the OpenAI-style `{ choices, usage }`.
 */
function replyOf(result: unknown): ChatReply {
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

/** What the Workers AI text-generation input has of a request's tools and options (no `stop`, `tool_choice`, `parallel_tool_calls`). */
const WORKERS_AI_FIELDS = [
  'tools',
  'temperature',
  'top_p',
  'seed',
  'presence_penalty',
  'frequency_penalty',
  'response_format',
] as const

/** A message with its file parts (documents, which no Workers AI model reads) as a line of text naming each. */
function documentsAsText(message: OpenAIMessage): OpenAIMessage {
  if (message.role !== 'user' || typeof message.content === 'string') return message
  const content = message.content.map((part) =>
    part.type === 'file' ? { type: 'text' as const, text: `[document: ${part.file.filename ?? 'untitled'}]` } : part,
  )
  return { ...message, content }
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
          // Images as OpenAI image_url parts (its vision models take them), after the tool messages; documents as text.
          messages: imagesAfterToolResults(request.messages).map(withoutReasoning).map(documentsAsText),
          max_tokens: request.maxTokens,
          ...wireFields(request, WORKERS_AI_FIELDS),
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

  return {
    async chat(request) {
      const result = await run(request)
      if (request.onDelta === undefined) return replyOf(result)
      if (result instanceof ReadableStream) {
        const body = result as ReadableStream<Uint8Array>
        return collectStream(body, {
          idleMs: options.timeoutMs,
          onDelta: request.onDelta,
          onToolCall: request.onToolCall,
          readChunk: workersAIChunk,
          source: 'Workers AI',
        })
      }
      // A model that does not stream answered whole: pass it on as one piece.
      const reply = replyOf(result)
      if (reply.content) request.onDelta(reply.content)
      for (const call of reply.toolCalls) request.onToolCall?.(call)
      return reply
    },
  }
}
