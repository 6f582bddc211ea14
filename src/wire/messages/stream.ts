import type { SSEStreamingApi } from 'hono/streaming'
import type { ServiceError } from '../../contract/errors'
import type { CompactionBlock } from '../../contract/turn-result'
import type { Reasoning, ToolCall } from '../../core'
import type { DoorAnswer } from '../../doors'
import { type DoorEvents, type SseEvent, sendAll } from '../door-events'
import { anthropicUsage, appliedEdits, compactionBlock, inputOf, messageId, stopOf, thinkingBlock, toolUse } from './answer'
import { anthropicError } from './errors'

/** Anthropic sends a ping at least this often while a stream waits. */
export const PING_MS = 10_000

const event = (type: string, fields: Record<string, unknown> = {}): SseEvent => ({ event: type, data: { type, ...fields } })

/**
 * One streamed message on the Anthropic wire: `message_start` and a `ping` once its reply's id is
 * known (pings alone while the answer waits), each content block opened as its first piece comes
 * and closed before the next one opens (`content_block_start`, deltas, `content_block_stop`),
 * then `message_delta` with the stop reason and usage, and `message_stop`. Its state: the
 * blocks' index, the one open, whether the message began.
 *
 * @example
 * return answer.stream(c, new MessageStream(body.model, () => answer.replyId, answer.first.type === 'waiting'))
 */
export class MessageStream implements DoorEvents {
  private index = -1
  private open: 'text' | null = null
  private begun = false
  readonly keepAlive = { everyMs: PING_MS, write: (sse: SSEStreamingApi) => sendAll(sse, [event('ping')]) }

  /**
   * `replyId`: the reply's id once known (a frame names it before its first piece). `waiting`: the
   * answer has not begun. `managed`: the request had `context_management` (`message_delta` says
   * what it did).
   */
  constructor(
    private readonly model: string,
    private readonly replyId: () => string | null,
    private readonly waiting: boolean,
    private readonly managed = false,
  ) {}

  start(sse: SSEStreamingApi): Promise<void> {
    return this.waiting ? sendAll(sse, [event('ping')]) : this.begin(sse)
  }

  async text(sse: SSEStreamingApi, text: string): Promise<void> {
    await this.begin(sse)
    const opening =
      this.open === 'text'
        ? []
        : [...this.close(), event('content_block_start', { index: ++this.index, content_block: { type: 'text', text: '' } })]
    this.open = 'text'
    await sendAll(sse, [...opening, event('content_block_delta', { index: this.index, delta: { type: 'text_delta', text } })])
  }

  /** A thinking block, whole: its text and signature as one delta each. */
  async reasoning(sse: SSEStreamingApi, block: Reasoning): Promise<void> {
    await this.begin(sse)
    const [thinking] = thinkingBlock(block)
    if (!thinking) return
    const closing = this.close()
    const index = ++this.index
    const opening = event('content_block_start', {
      index,
      content_block: thinking.type === 'thinking' ? { type: 'thinking', thinking: '', signature: '' } : thinking,
    })
    const deltas =
      thinking.type === 'thinking'
        ? [
            event('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: thinking.thinking ?? '' } }),
            event('content_block_delta', { index, delta: { type: 'signature_delta', signature: thinking.signature ?? '' } }),
          ]
        : []
    await sendAll(sse, [...closing, opening, ...deltas, event('content_block_stop', { index })])
  }

  /** A compaction block, whole: opened empty, its summary and capsule as one `compaction_delta`, as Anthropic streams it. */
  async compaction(sse: SSEStreamingApi, block: CompactionBlock): Promise<void> {
    await this.begin(sse)
    const closing = this.close()
    const index = ++this.index
    const { content, encrypted_content } = compactionBlock(block)
    await sendAll(sse, [
      ...closing,
      event('content_block_start', { index, content_block: { type: 'compaction', content: null, encrypted_content: null } }),
      event('content_block_delta', { index, delta: { type: 'compaction_delta', content, encrypted_content } }),
      event('content_block_stop', { index }),
    ])
  }

  async toolCall(sse: SSEStreamingApi, call: ToolCall): Promise<void> {
    await this.begin(sse)
    const closing = this.close()
    const index = ++this.index
    await sendAll(sse, [
      ...closing,
      event('content_block_start', { index, content_block: { ...toolUse(call), input: {} } }),
      event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(inputOf(call)) } }),
      event('content_block_stop', { index }),
    ])
  }

  error(sse: SSEStreamingApi, error: ServiceError): Promise<void> {
    return sse.writeSSE({ event: 'error', data: JSON.stringify(anthropicError(error).body) })
  }

  async finish(sse: SSEStreamingApi, answer: DoorAnswer): Promise<void> {
    await this.begin(sse)
    await sendAll(sse, [
      ...this.close(),
      event('message_delta', {
        delta: stopOf(answer),
        usage: anthropicUsage(answer.usage),
        ...(this.managed ? { context_management: appliedEdits(answer) } : {}),
      }),
      event('message_stop'),
    ])
  }

  /** `message_start` (the message's id: its reply's) and a ping, once the id is known; nothing once begun. */
  private async begin(sse: SSEStreamingApi): Promise<void> {
    const replyId = this.replyId()
    if (this.begun || replyId === null) return
    this.begun = true
    await sendAll(sse, [
      event('message_start', {
        message: {
          id: messageId(replyId),
          type: 'message',
          role: 'assistant',
          model: this.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: anthropicUsage(null),
        },
      }),
      event('ping'),
    ])
  }

  /** The open block's end, if one is open. */
  private close(): SseEvent[] {
    if (this.open === null) return []
    this.open = null
    return [event('content_block_stop', { index: this.index })]
  }
}
