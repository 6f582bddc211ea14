import { type ClientMessage, type Message, promptTokens, reconcile, type TokenEstimator, UNCALIBRATED } from '../core'
import { MEMORY_PROMPT } from '../memory'
import { turnEvent } from '../turns/open-step'
import type { TurnSession } from '../turns/session'
import { type DoorRequest, shownOf } from './request'

/** A request message as the event it would be written as (a tool message as a one-response tool event). */
function messageOf(message: ClientMessage): Message {
  if (message.role === 'tool')
    return { role: 'tool', content: null, toolResponses: [{ id: message.toolCallId!, name: '', data: message.content }] }
  return { role: message.role, content: message.content, ...(message.toolCalls ? { toolCalls: message.toolCalls } : {}) }
}

/**
 * The tokens of the prompt a door request would send, without sending it or writing anything:
 * the session's view and system prompt (the request's, when it has one), what is new of the
 * request (as reconciliation finds it), the tools' JSON (the memory tool's with its instruction),
 * scaled by the session's calibration. A request the session would not simply go on with (a
 * session that does not exist, a history that left the session's) is counted alone.
 *
 * @example
 * await countPromptTokens(input, { session, estimator }) // 1834
 */
export async function countPromptTokens(
  input: Pick<DoorRequest, 'messages' | 'shown' | 'request'>,
  deps: { session: TurnSession; estimator: TokenEstimator },
): Promise<number> {
  const { session, estimator } = deps
  const tokensOf = (message: Message) => turnEvent(message, estimator).tokens
  const state = await session.promptState()
  const steps = state && (await session.stepLog())
  let fresh: readonly ClientMessage[] = input.messages
  let stored = { viewTokens: 0, storedSystemTokens: 0 }
  if (state && steps) {
    const tail = steps.clientTail(input.messages.length, shownOf(input))
    const reconciled = reconcile(
      input.messages,
      tail.messages.map((shown) => shown.message),
      { logIsEmpty: tail.empty },
    )
    if (reconciled.kind !== 'refused') {
      stored = { viewTokens: state.viewTokens, storedSystemTokens: state.latestSystem?.tokens ?? 0 }
      fresh = reconciled.kind === 'new' ? reconciled.messages : []
    }
  }
  const system = input.request.system
  const estimate = promptTokens({
    ...stored,
    newSystemTokens: system === undefined ? null : tokensOf({ role: 'system', content: system }),
    addedTokens:
      fresh.reduce((sum, message) => sum + tokensOf(messageOf(message)), 0) +
      (input.request.tools ? estimator.count(JSON.stringify(input.request.tools)) : 0) +
      (input.request.memory ? estimator.count(MEMORY_PROMPT) : 0),
  })
  return Math.ceil(estimate * (state?.calibration ?? UNCALIBRATED).ratio)
}
