import { isTurnStart, type Message, type Reasoning } from '../events'
import type { TokenEstimator } from '../tokens'

/**
 * Clearing thinking: a prompt's reasoning blocks of one provider (Anthropic's `thinking` and
 * `redacted_thinking`, the only reasoning ever sent back) kept for the newest turns that carry
 * some, and left out of the older ones. Only the prompt changes: the log keeps every block.
 */

/** What a prompt lost to a thinking clearing: the turns whose thinking was left out, and its tokens. */
export interface ThinkingCleared {
  turns: number
  tokens: number
}

/** A reasoning block's tokens as the model read them: its thinking text (a redacted block's data). */
const blockTokens = (block: Reasoning, estimator: TokenEstimator): number => {
  const text = typeof block.thinking === 'string' ? block.thinking : typeof block.data === 'string' ? block.data : ''
  return estimator.count(text)
}

/**
 * A prompt's events with the reasoning of `provider` kept only on the newest `keep` turns that
 * carry some (`all`: every turn keeps its own). A turn starts at a user message of the
 * conversation (not a summary's); what comes before the first one counts as a turn of its own.
 *
 * @example
 * clearOlderThinking(prompt, 1, 'anthropic', estimator) // { events, cleared: { turns: 3, tokens: 812 } }
 */
export function clearOlderThinking<E extends { synthetic: boolean; message: Message }>(
  events: readonly E[],
  keep: number | 'all',
  provider: string,
  estimator: TokenEstimator,
): { events: E[]; cleared: ThinkingCleared } {
  const none = { events: [...events], cleared: { turns: 0, tokens: 0 } }
  if (keep === 'all') return none
  const thinks = (event: E) => (event.message.reasoning ?? []).some((block) => block.provider === provider)
  // The turn of each event, and the turns that carry thinking, newest last.
  let turn = 0
  const turnOf = events.map((event, i) => (i > 0 && isTurnStart(event) ? ++turn : turn))
  const thinking = [...new Set(events.flatMap((event, i) => (thinks(event) ? [turnOf[i]!] : [])))]
  const older = new Set(thinking.slice(0, Math.max(0, thinking.length - keep)))
  if (older.size === 0) return none
  let tokens = 0
  const kept = events.map((event, i) => {
    if (!older.has(turnOf[i]!) || !thinks(event)) return event
    const reasoning = event.message.reasoning!.filter((block) => {
      if (block.provider !== provider) return true
      tokens += blockTokens(block, estimator)
      return false
    })
    const { reasoning: _, ...message } = event.message
    return { ...event, message: reasoning.length > 0 ? { ...message, reasoning } : message }
  })
  return { events: kept, cleared: { turns: older.size, tokens } }
}
