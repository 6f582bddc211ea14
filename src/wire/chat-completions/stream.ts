import type { SSEStreamingApi } from 'hono/streaming'
import type { ServiceError } from '../../contract/errors'
import { toOpenAIToolCall } from '../../contract/openai-messages'
import type { ChatCompletionChunk } from '../../contract/schemas'
import type { ToolCall } from '../../core'
import { answeringModel, type DoorAnswer } from '../../doors'
import type { DoorEvents } from '../door-events'
import { completionId, wireUsage } from './answer'

/**
 * One streamed completion as `chat.completion.chunk` frames, all with the same id, time and model:
 * the role first, then content pieces and tool-call deltas by index, a finish chunk, the usage
 * chunk when asked for, then `[DONE]`. Its state: how many calls went out.
 *
 * @example
 * return answer.stream(c, new ChatCompletionStream(answer.replyId!, 'gpt-4o', { includeUsage: true }))
 */
export class ChatCompletionStream implements DoorEvents {
  private calls = 0
  private readonly envelope: Pick<ChatCompletionChunk, 'id' | 'object' | 'created' | 'model'>

  constructor(
    replyId: string,
    private readonly requested: string,
    private readonly options: { includeUsage: boolean },
  ) {
    this.envelope = {
      id: completionId(replyId),
      object: 'chat.completion.chunk',
      created: Math.floor(Date.now() / 1000),
      model: requested,
    }
  }

  private chunk(delta: Record<string, unknown>, finishReason: string | null = null): ChatCompletionChunk {
    return { ...this.envelope, choices: [{ index: 0, delta, finish_reason: finishReason }] }
  }

  private write(sse: SSEStreamingApi, data: unknown): Promise<void> {
    return sse.writeSSE({ data: JSON.stringify(data) })
  }

  start(sse: SSEStreamingApi): Promise<void> {
    return this.write(sse, this.chunk({ role: 'assistant', content: '' }))
  }

  text(sse: SSEStreamingApi, text: string): Promise<void> {
    return this.write(sse, this.chunk({ content: text }))
  }

  /** A whole call as one delta, at the next index. */
  toolCall(sse: SSEStreamingApi, call: ToolCall): Promise<void> {
    return this.write(sse, this.chunk({ tool_calls: [{ index: this.calls++, ...toOpenAIToolCall(call) }] }))
  }

  error(sse: SSEStreamingApi, error: ServiceError): Promise<void> {
    return this.write(sse, { error: { ...error.body, type: error.code } })
  }

  async finish(sse: SSEStreamingApi, answer: DoorAnswer): Promise<void> {
    await this.write(sse, { ...this.chunk({}, answer.finishReason), model: answeringModel(answer, this.requested) })
    if (this.options.includeUsage) await this.write(sse, { ...this.envelope, choices: [], usage: wireUsage(answer.usage) })
  }

  end(sse: SSEStreamingApi): Promise<void> {
    return sse.writeSSE({ data: '[DONE]' })
  }
}
