import type { SSEStreamingApi } from 'hono/streaming'
import type { ServiceError } from '../contract/errors'
import type { CompactionBlock } from '../contract/turn-result'
import type { Reasoning, ToolCall } from '../core'
import type { DoorAnswer } from '../doors'

/** One server-sent event: its name, and its data as JSON. */
export interface SseEvent {
  event: string
  data: Record<string, unknown>
}

/** Writes events in order. */
export async function sendAll(sse: SSEStreamingApi, events: readonly SseEvent[]): Promise<void> {
  for (const { event, data } of events) await sse.writeSSE({ event, data: JSON.stringify(data) })
}

/**
 * How a door writes an answer as server-sent events, in its wire format: each door's stream
 * (`<door>/stream`) is one of these, a small state machine over the answer's pieces.
 */
export interface DoorEvents {
  start?(sse: SSEStreamingApi): Promise<void>
  end?(sse: SSEStreamingApi): Promise<void>
  text(sse: SSEStreamingApi, text: string): Promise<void>
  toolCall(sse: SSEStreamingApi, call: ToolCall): Promise<void>
  /** A reasoning block (a wire format that shows none leaves it out). */
  reasoning?(sse: SSEStreamingApi, block: Reasoning): Promise<void>
  /** A compaction a request's edit ran, opening the message (a wire format that shows none leaves it out). */
  compaction?(sse: SSEStreamingApi, block: CompactionBlock): Promise<void>
  error(sse: SSEStreamingApi, error: ServiceError): Promise<void>
  /** The answer's end, once all of it went out. */
  finish(sse: SSEStreamingApi, answer: DoorAnswer): Promise<void>
  /** Sent every `everyMs` while the stream waits (Anthropic's pings). */
  keepAlive?: { everyMs: number; write(sse: SSEStreamingApi): Promise<void> }
}
