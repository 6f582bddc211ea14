import { createParser, type EventSourceMessage } from 'eventsource-parser'
import type { Usage } from '../../contract/turn-result'
import type { Reasoning, ToolCall } from '../../core'
import { type ChatReply, UpstreamError } from '../port'

/**
 * The server-sent events of a streaming body, parsed by eventsource-parser (comments and
 * heartbeats are skipped by the parser). Fails with `timeout` when no chunk arrives for
 * `idleMs`. Reads the body directly (no pipe chain), so a dropped connection surfaces here as
 * an error, not as an unhandled rejection elsewhere.
 */
async function* sseEvents(body: ReadableStream<Uint8Array>, idleMs: number): AsyncGenerator<EventSourceMessage> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  const ready: EventSourceMessage[] = []
  const parser = createParser({ onEvent: (event) => ready.push(event) })
  try {
    for (;;) {
      let timer: ReturnType<typeof setTimeout> | undefined
      const idle = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new UpstreamError('timeout', `no data from the model for ${idleMs} ms`)), idleMs)
      })
      let next: ReadableStreamReadResult<Uint8Array>
      try {
        next = await Promise.race([reader.read(), idle])
      } finally {
        if (timer !== undefined) clearTimeout(timer)
      }
      if (next.done) {
        parser.feed(decoder.decode())
        yield* ready.splice(0)
        return
      }
      parser.feed(decoder.decode(next.value, { stream: true }))
      yield* ready.splice(0)
    }
  } finally {
    reader.cancel().catch(() => undefined)
  }
}

/** A tool call's piece in a streamed chunk, as the OpenAI wire sends it (joined by `index`). */
export type ToolCallDelta = { index?: number; id?: string; function?: { name?: string; arguments?: unknown } }

/** What one streamed chunk carries, read by an adapter from its wire shape. */
export interface StreamChunk {
  text?: string | null
  /** A reasoning block, whole. */
  reasoning?: Reasoning
  toolCalls?: ToolCallDelta[]
  usage?: Usage | null
  finishReason?: string | null
  /** The stop sequence the reply stopped at (see `ChatReply.stopSequence`). */
  stopSequence?: string
  model?: string | null
}

export interface CollectOptions {
  idleMs: number
  onDelta: (text: string) => void
  /** Receives each tool call once it is complete (the stream moved on to the next one, or ended), in reply order. */
  onToolCall?: (call: ToolCall) => void
  /** Receives each reasoning block as it is whole. */
  onReasoning?: (block: Reasoning) => void
  /** Reads a chunk's data; null skips it; a thrown UpstreamError fails the stream. */
  readChunk: (data: string) => StreamChunk | null
  /** Who is streaming, for error messages: `the model`, `Workers AI`. */
  source: string
}

/**
 * Collects a chat-completions stream into one reply: text deltas passed on as they come, tool
 * calls joined by index, usage from whichever chunk carries it, to `[DONE]` or a finish reason.
 * Every failure says whether output had already reached the caller (a retry would repeat it).
 *
 * @example
 * const reply = await collectStream(response.body, { idleMs, onDelta, readChunk: openAIChunk, source: 'the model' })
 */
export async function collectStream(body: ReadableStream<Uint8Array>, options: CollectOptions): Promise<ChatReply> {
  let content = ''
  let started = false
  let finishReason: string | null = null
  let stopSequence: string | undefined
  let usage: Usage | null = null
  let model: string | null = null
  let done = false
  const reasoning: Reasoning[] = []
  const calls = new Map<number, ToolCall>()
  // Calls complete in index order: one is whole when a later index starts, or when the stream ends.
  const complete: ToolCall[] = []
  const completeBefore = (index: number) => {
    for (const at of [...calls.keys()].sort((a, b) => a - b)) {
      if (at >= index) break
      complete.push(calls.get(at)!)
      calls.delete(at)
      started = true
      options.onToolCall?.(complete.at(-1)!)
    }
  }
  try {
    for await (const event of sseEvents(body, options.idleMs)) {
      if (event.data.trim() === '[DONE]') {
        done = true
        break
      }
      const chunk = options.readChunk(event.data)
      if (!chunk) continue
      usage = chunk.usage ?? usage
      model = chunk.model ?? model
      if (chunk.reasoning) {
        started = true
        reasoning.push(chunk.reasoning)
        options.onReasoning?.(chunk.reasoning)
      }
      if (chunk.text) {
        started = true
        content += chunk.text
        options.onDelta(chunk.text)
      }
      for (const call of chunk.toolCalls ?? []) {
        const at = call.index ?? 0
        if (!calls.has(at)) completeBefore(at)
        const current = calls.get(at) ?? { id: '', name: '', arguments: '' }
        calls.set(at, {
          id: call.id ?? current.id,
          name: current.name + (call.function?.name ?? ''),
          arguments: current.arguments + (typeof call.function?.arguments === 'string' ? call.function.arguments : ''),
        })
      }
      finishReason = chunk.finishReason ?? finishReason
      stopSequence = chunk.stopSequence ?? stopSequence
    }
  } catch (error) {
    if (error instanceof UpstreamError)
      throw new UpstreamError(error.failure, error.message, { ...error.options, outputStarted: started })
    throw new UpstreamError('cut_off', `${options.source}'s stream broke: ${(error as Error).message}`, {
      outputStarted: started,
    })
  }
  if (!done && finishReason === null) {
    throw new UpstreamError('cut_off', `${options.source}'s stream ended before it finished`, { outputStarted: started })
  }
  completeBefore(Number.POSITIVE_INFINITY)
  return {
    content: content === '' && complete.length > 0 ? null : content,
    toolCalls: complete,
    usage,
    finishReason,
    ...(stopSequence !== undefined ? { stopSequence } : {}),
    model,
    ...(reasoning.length > 0 ? { reasoning } : {}),
  }
}
