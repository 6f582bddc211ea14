import type { Reasoning } from '../../core'
import { UpstreamError } from '../port'
import type { StreamChunk } from '../stream'
import { type AnthropicUsage, finishReasonOf, PROVIDER, REASONING_TYPES, stopSequenceOf, usageOfAnthropic } from './wire'

/** Whether a status is one a client should see as it is (a 429, an overload) rather than as a 502. */
export const passedOn = (status: number) => status === 429 || status === 529

type Block = { type: string; id?: string; name?: string; [field: string]: unknown }

interface StreamEvent {
  type?: string
  index?: number
  message?: { model?: string; usage?: AnthropicUsage }
  content_block?: Block
  delta?: {
    type?: string
    text?: string
    partial_json?: string
    thinking?: string
    signature?: string
    stop_reason?: string | null
    stop_sequence?: string | null
  }
  usage?: AnthropicUsage
  error?: { type?: string; message?: string }
}

/**
 * Reads one Anthropic stream's events as chunks: text deltas; each `tool_use` block as a call at
 * its own index (its input from the `input_json_delta` pieces); each thinking block whole at its
 * stop (its text and signature put together); the usage of `message_start` completed by
 * `message_delta`'s, and the stop reason (with the stop sequence it stopped at). An `error` event fails the stream with its type.
 */
export function eventReader(): (data: string) => StreamChunk | null {
  const callAt = new Map<number, number>()
  const thinking = new Map<number, Reasoning>()
  let usage: AnthropicUsage = {}
  const append = (block: Reasoning, field: 'thinking' | 'signature', piece: string | undefined) => {
    block[field] = `${(block[field] as string | undefined) ?? ''}${piece ?? ''}`
  }
  return (data) => {
    let event: StreamEvent
    try {
      event = JSON.parse(data)
    } catch {
      throw new UpstreamError('malformed', 'the model streamed an event that is not JSON')
    }
    const index = event.index ?? 0
    switch (event.type) {
      case 'message_start':
        usage = { ...event.message?.usage }
        return { model: event.message?.model ?? null }
      case 'content_block_start': {
        const block = event.content_block
        if (block && REASONING_TYPES.has(block.type)) thinking.set(index, { provider: PROVIDER, ...block })
        if (block?.type !== 'tool_use') return null
        callAt.set(index, callAt.size)
        return { toolCalls: [{ index: callAt.get(index)!, id: block.id, function: { name: block.name, arguments: '' } }] }
      }
      case 'content_block_delta': {
        const { delta } = event
        const block = thinking.get(index)
        if (block && delta?.type === 'thinking_delta') append(block, 'thinking', delta.thinking)
        if (block && delta?.type === 'signature_delta') append(block, 'signature', delta.signature)
        if (delta?.type === 'text_delta') return { text: delta.text ?? '' }
        if (delta?.type === 'input_json_delta' && callAt.has(index))
          return { toolCalls: [{ index: callAt.get(index)!, function: { arguments: delta.partial_json ?? '' } }] }
        return null
      }
      case 'content_block_stop': {
        const block = thinking.get(index)
        thinking.delete(index)
        return block ? { reasoning: block } : null
      }
      case 'message_delta':
        usage = { ...usage, ...Object.fromEntries(Object.entries(event.usage ?? {}).filter(([, value]) => value !== null)) }
        return {
          usage: usageOfAnthropic(usage),
          finishReason: finishReasonOf(event.delta?.stop_reason) ?? 'stop',
          ...stopSequenceOf(event.delta?.stop_reason, event.delta?.stop_sequence),
        }
      case 'error': {
        const type = event.error?.type ?? 'api_error'
        const status = type === 'overloaded_error' ? 529 : type === 'rate_limit_error' ? 429 : 500
        throw new UpstreamError('status', `the model's stream failed (${type}): ${event.error?.message ?? ''}`, {
          status,
          ...(passedOn(status) ? { passOn: {} } : {}),
        })
      }
      default:
        return null
    }
  }
}
