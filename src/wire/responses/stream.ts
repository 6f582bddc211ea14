import type { SSEStreamingApi } from 'hono/streaming'
import type { ServiceError } from '../../contract/errors'
import type { ToolCall } from '../../core'
import type { DoorAnswer } from '../../doors'
import { type DoorEvents, type SseEvent, sendAll } from '../door-events'
import { envelope, type ResponseContext, responseObject } from './answer'
import { openAIError } from './errors'
import { callItem, itemId, messageItem, outputText } from './items'

/**
 * One streamed response on the Responses wire, its events numbered in order: `response.created`,
 * `response.in_progress`, each output item added, its content or arguments in deltas, done, then
 * `response.completed` (or `response.failed`). Its state: the next sequence number, the output
 * items and calls so far, the text item open.
 *
 * @example
 * return answer.stream(c, new ResponseStream(answer.replyId!, context))
 */
export class ResponseStream implements DoorEvents {
  private sequence = 0
  private outputs = 0
  private calls = 0
  private open: { index: number; content: string } | null = null
  private readonly messageId: string
  private readonly pending: Record<string, unknown>

  constructor(
    private readonly replyId: string,
    private readonly context: ResponseContext,
  ) {
    this.messageId = itemId(replyId, 'message')
    this.pending = {
      ...envelope(replyId, Math.floor(Date.now() / 1000), context),
      status: 'in_progress',
      output: [],
      usage: null,
    }
  }

  start(sse: SSEStreamingApi): Promise<void> {
    return sendAll(sse, [
      this.event('response.created', { response: this.pending }),
      this.event('response.in_progress', { response: this.pending }),
    ])
  }

  text(sse: SSEStreamingApi, delta: string): Promise<void> {
    const opening: SseEvent[] = []
    if (!this.open) {
      this.open = { index: this.outputs++, content: '' }
      const { index } = this.open
      opening.push(
        this.event('response.output_item.added', { output_index: index, item: messageItem(this.replyId, '', 'in_progress') }),
        this.event('response.content_part.added', {
          item_id: this.messageId,
          output_index: index,
          content_index: 0,
          part: outputText(''),
        }),
      )
    }
    this.open.content += delta
    const at = { item_id: this.messageId, output_index: this.open.index, content_index: 0 }
    return sendAll(sse, [...opening, this.event('response.output_text.delta', { ...at, delta, logprobs: [] })])
  }

  toolCall(sse: SSEStreamingApi, call: ToolCall): Promise<void> {
    const closing = this.closeText()
    const index = this.outputs++
    const k = this.calls++
    const at = { item_id: itemId(this.replyId, 'call', k), output_index: index }
    const item = (status: 'in_progress' | 'completed') => callItem(this.replyId, k, call, status, this.context.namespaced)
    const { name } = item('completed')
    return sendAll(sse, [
      ...closing,
      this.event('response.output_item.added', { output_index: index, item: item('in_progress') }),
      this.event('response.function_call_arguments.delta', { ...at, delta: call.arguments }),
      this.event('response.function_call_arguments.done', { ...at, name, arguments: call.arguments }),
      this.event('response.output_item.done', { output_index: index, item: item('completed') }),
    ])
  }

  error(sse: SSEStreamingApi, error: ServiceError): Promise<void> {
    const { code, message } = openAIError(error).body.error
    return sendAll(sse, [
      ...this.closeText(),
      this.event('response.failed', { response: { ...this.pending, status: 'failed', error: { code, message } } }),
    ])
  }

  finish(sse: SSEStreamingApi, answer: DoorAnswer): Promise<void> {
    return sendAll(sse, [
      ...this.closeText(),
      this.event('response.completed', { response: responseObject(answer, this.context) }),
    ])
  }

  private event(type: string, fields: Record<string, unknown>): SseEvent {
    return { event: type, data: { type, ...fields, sequence_number: this.sequence++ } }
  }

  /** The open text item's end, if one is open. */
  private closeText(): SseEvent[] {
    if (!this.open) return []
    const { index, content } = this.open
    this.open = null
    const at = { item_id: this.messageId, output_index: index, content_index: 0 }
    return [
      this.event('response.output_text.done', { ...at, text: content, logprobs: [] }),
      this.event('response.content_part.done', { ...at, part: outputText(content) }),
      this.event('response.output_item.done', { output_index: index, item: messageItem(this.replyId, content, 'completed') }),
    ]
  }
}
