import { ServiceError } from '../contract/errors'
import { newEventId } from '../contract/ids'
import { toOpenAIMessages } from '../contract/openai-messages'
import { isServiceCall, type MessageEvent } from '../core'
import { log } from '../log'
import { NOT_CONFIGURED } from '../models/config'
import { toServiceError, UpstreamError } from '../models/port'
import { admitted } from '../rate-limits'
import { CallIds } from '../turns/call-ids'
import { turnEvent } from '../turns/open-step'
import { promptMedia } from '../turns/prompt-media'
import type { TurnDeps } from '../turns/session'
import { completedStopSequence, type DoorAnswer } from './answer'
import type { DoorRequest } from './request'
import { seedEvents } from './seed'

/**
 * A door request answered without the session: its system prompt and messages sent to the model
 * as they came, nothing read from the log nor written to it (a client's auxiliary request — a
 * title, a classifier, its own compaction — or a side conversation). It counts toward the user's
 * limits like any model turn. A prompt the model refuses as too long is the door's "too long".
 *
 * @example
 * const answer = await passthroughTurn(input, deps) // answer.stored === false
 */
export function passthroughTurn(input: DoorRequest, deps: TurnDeps): Promise<DoorAnswer> {
  const { models, estimator, limiter } = deps
  const { request } = input
  if (!models.model) throw new ServiceError('not_configured', NOT_CONFIGURED)
  const model = models.model
  const replyId = newEventId()
  const { maxTokens, ...options } = request.options ?? {}
  const ids = new CallIds(() => new Set())
  let position = 0
  return admitted(limiter, async (reached) => {
    const prompt = seedEvents(input.messages, input.fields, estimator).added
    reached()
    deps.onReply?.(replyId, false)
    let reply: Awaited<ReturnType<typeof model.chat>>
    try {
      reply = await model.chat({
        model: request.model ?? models.chatModel,
        messages: toOpenAIMessages(prompt, request.system ?? null, promptMedia(deps.session, request, models)),
        maxTokens: maxTokens ?? models.replyTokens,
        onDelta: request.stream ? deps.onDelta : undefined,
        onReasoning: request.stream ? deps.onReasoning : undefined,
        onToolCall: request.stream ? (made) => deps.onToolCall?.(ids.at(position++, made)) : undefined,
        tools: request.tools,
        toolChoice: request.toolChoice,
        parallelToolCalls: request.parallelToolCalls,
        options,
        anthropic: request.anthropic,
      })
    } catch (error) {
      if (error instanceof UpstreamError && error.failure === 'context_length')
        throw new ServiceError('context_overflow', error.message)
      throw toServiceError(error)
    }
    await limiter?.spend(reply.usage)
    // Not stored, but answered by the model: it counts in the user's usage.
    // Counted, never in the way of the answer the model was paid for.
    await deps.session
      .spent(reply.model ?? request.model ?? models.chatModel, reply.usage, 'turn')
      .catch((error: unknown) => log.error('counting an unstored answer failed', { error: String(error) }))
    const calls = ids.all(reply.toolCalls).filter((call) => !isServiceCall(call))
    const event = turnEvent(
      {
        role: 'assistant',
        content: reply.content,
        ...(calls.length > 0 ? { toolCalls: calls } : {}),
        ...(reply.reasoning ? { reasoning: reply.reasoning } : {}),
      },
      estimator,
      replyId,
      { model: reply.model ?? request.model ?? models.chatModel },
    )
    const status = calls.length > 0 ? 'requires_action' : 'completed'
    return {
      reply: { ...event, seq: 0 } as MessageEvent,
      status,
      usage: reply.usage,
      finishReason: status === 'requires_action' ? 'tool_calls' : (reply.finishReason ?? 'stop'),
      ...completedStopSequence({ status, stopSequence: reply.stopSequence }),
      stored: false,
    }
  })
}
