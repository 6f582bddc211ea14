import { imagesAfterToolResults, withoutReasoning } from '../../contract/openai-messages'
import type { ToolCall } from '../../core'
import { httpUpstream } from '../http-upstream'
import {
  type ChatModel,
  type ChatReply,
  type ChatRequest,
  isContextLengthMessage,
  UpstreamError,
  usageOf,
  type WireUsage,
} from '../port'
import type { StreamChunk, ToolCallDelta } from '../stream'
import { wireFields } from '../wire-fields'

export interface OpenAICompatibleOptions {
  /** e.g. `https://api.openai.com/v1`, `http://localhost:11434/v1` (Ollama). */
  baseUrl: string
  apiKey?: string
  /** Time allowed for the answer to start, and between two chunks of a stream. */
  timeoutMs: number
  fetch?: typeof fetch
}

type WireToolCall = { index?: number; id?: string; function?: { name?: string; arguments?: string } }

type WireChunk = {
  model?: string
  choices?: { delta?: { content?: string | null; tool_calls?: ToolCallDelta[] }; finish_reason?: string | null }[]
  usage?: WireUsage
}

/** One chunk of an OpenAI chat-completions stream; one that is not JSON is a protocol error. */
function openAIChunk(data: string): StreamChunk {
  let chunk: WireChunk
  try {
    chunk = JSON.parse(data)
  } catch {
    throw new UpstreamError('malformed', 'the model streamed a chunk that is not JSON')
  }
  const choice = chunk.choices?.[0]
  return {
    text: choice?.delta?.content,
    toolCalls: choice?.delta?.tool_calls,
    usage: usageOf(chunk.usage),
    finishReason: choice?.finish_reason,
    model: typeof chunk.model === 'string' ? chunk.model : null,
  }
}

const toolCallsOf = (calls: WireToolCall[] | undefined): ToolCall[] =>
  (calls ?? []).map((call) => ({
    id: call.id ?? '',
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
  const http = httpUpstream({
    url: `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`,
    timeoutMs: options.timeoutMs,
    secret: options.apiKey,
    fetch: options.fetch,
    refused(response, text) {
      const failure =
        (response.status === 400 || response.status === 413) && isContextLengthMessage(text) ? 'context_length' : 'status'
      return new UpstreamError(failure, `the model answered ${response.status}: ${text.slice(0, 300)}`, {
        status: response.status,
      })
    },
  })
  const headers: Record<string, string> = options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : {}

  function post(request: ChatRequest, signal: AbortSignal): Promise<Response> {
    const stream = request.onDelta !== undefined
    const body = {
      model: request.model,
      // The OpenAI wire takes no images in a tool message: they follow it (see imagesAfterToolResults).
      messages: imagesAfterToolResults(request.messages).map(withoutReasoning),
      max_tokens: request.maxTokens,
      ...wireFields(request),
      stream,
      ...(stream ? { stream_options: { include_usage: true } } : {}),
    }
    return http.post(body, headers, signal)
  }

  async function complete(request: ChatRequest): Promise<ChatReply> {
    const json = await http.json<{
      model?: string
      choices?: { message?: { content?: string | null; tool_calls?: WireToolCall[] }; finish_reason?: string }[]
      usage?: WireUsage
    }>((signal) => post(request, signal))
    const choice = json?.choices?.[0]
    if (!choice?.message) throw new UpstreamError('malformed', 'the model answered without choices[0].message')
    return {
      content: choice.message.content ?? null,
      toolCalls: toolCallsOf(choice.message.tool_calls),
      usage: usageOf(json.usage),
      finishReason: choice.finish_reason ?? null,
      model: typeof json.model === 'string' ? json.model : null,
    }
  }

  return {
    chat: (request) =>
      request.onDelta
        ? http.stream((signal) => post(request, signal), {
            onDelta: request.onDelta,
            onToolCall: request.onToolCall,
            readChunk: openAIChunk,
          })
        : complete(request),
  }
}
