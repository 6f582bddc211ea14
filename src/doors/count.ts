import type { Compactor } from '../compaction'
import { recallOf } from '../contract/schemas'
import { type ClientMessage, type Message, promptTokens, reconcile, type TokenEstimator, UNCALIBRATED } from '../core'
import { MEMORY_PROMPT } from '../memory'
import { countAfterEdits } from '../turns/context-edits'
import { offersRecall } from '../turns/fit-prompt'
import { turnEvent } from '../turns/open-step'
import { recallTokensOf } from '../turns/recall'
import type { TurnSession } from '../turns/session'
import { type DoorRequest, shownOf } from './request'

/** A request message as the event it would be written as (a tool message as a one-response tool event). */
function messageOf(message: ClientMessage): Message {
  if (message.role === 'tool')
    return { role: 'tool', content: null, toolResponses: [{ id: message.toolCallId!, name: '', data: message.content }] }
  return { role: message.role, content: message.content, ...(message.toolCalls ? { toolCalls: message.toolCalls } : {}) }
}

/** A counted prompt's tokens, as the model counts them; with context edits asked for, before them too. */
export interface PromptCount {
  tokens: number
  /** The tokens before the request's context edits (only when it asked for some). */
  beforeEdits?: number
}

/**
 * The tokens of the prompt a door request would send, without sending it or writing anything:
 * the session's view and system prompt (the request's, when it has one), what is new of the
 * request (as reconciliation finds it), the tools' JSON (the memory tool's with its instruction),
 * scaled by the session's calibration; then its context edits, as its turn would apply them (see
 * `countAfterEdits`). A request the session would not simply go on with (a session that does not
 * exist, a history that left the session's) is counted alone, and its edits clear nothing.
 *
 * @example
 * await countPromptTokens(input, { session, estimator, compactor, promptBudget }) // { tokens: 1834 }
 */
export async function countPromptTokens(
  input: Pick<DoorRequest, 'messages' | 'shown' | 'request'>,
  deps: { session: TurnSession; estimator: TokenEstimator; compactor: Compactor; promptBudget: number },
): Promise<PromptCount> {
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
  const added = fresh.map((message) => turnEvent(messageOf(message), estimator))
  const system = input.request.system
  const recall = recallOf(input.request.recall)
  const recallTokens = recallTokensOf(recall.across, estimator)
  const recalls = offersRecall({ recallRequested: recall.on }, state)
  const estimate = promptTokens({
    ...stored,
    newSystemTokens: system === undefined ? null : tokensOf({ role: 'system', content: system }),
    addedTokens:
      added.reduce((sum, event) => sum + event.tokens, 0) +
      (input.request.tools ? estimator.count(JSON.stringify(input.request.tools)) : 0) +
      (input.request.memory ? estimator.count(MEMORY_PROMPT) : 0) +
      (recalls ? recallTokens : 0),
  })
  const ratio = (state?.calibration ?? UNCALIBRATED).ratio
  const tokens = Math.ceil(estimate * ratio)
  const edits = input.request.contextEdits
  if (!edits) return { tokens }
  if (stored.viewTokens === 0) return { tokens, beforeEdits: tokens }
  const fit = { promptBudget: deps.promptBudget, ratio }
  const cleared = await countAfterEdits(tokens, edits, added, { session, compactor: deps.compactor, fit })
  // A clearing shows what only recall brings back: recall_history is offered from then on.
  const offered = cleared < tokens && !recalls ? Math.ceil((estimate + recallTokens) * ratio) - tokens : 0
  return { tokens: cleared + offered, beforeEdits: tokens }
}
