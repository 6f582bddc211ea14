import { ANTHROPIC } from '../../contract/anthropic-messages'
import type { AppliedEdit } from '../../contract/turn-result'
import { clearOlderThinking, type MessageEvent, type NewMessageEvent } from '../../core'
import type { TurnDeps } from '../session'
import type { ContextEdit } from '../step'

/**
 * The prompt's events with the request's thinking edit applied: Anthropic's thinking kept on the
 * newest turns only, and what left counted — when the upstream takes thinking back at all (an
 * Anthropic one; to any other none is ever sent, so nothing is cleared from it). Only what is
 * sent changes: the log keeps every block.
 *
 * @example
 * const prompt = thinkingSent(events, request.contextEdits, { takesThinking: true, ratio: 1 }, deps)
 */
export function thinkingSent<E extends MessageEvent | NewMessageEvent>(
  events: E[],
  edits: readonly ContextEdit[] | undefined,
  upstream: { takesThinking: boolean; ratio: number },
  deps: Pick<TurnDeps, 'estimator'>,
): { events: E[]; applied: AppliedEdit | null } {
  const at = edits?.findIndex((edit) => edit.kind === 'clearThinking') ?? -1
  const edit = edits?.[at]
  if (edit?.kind !== 'clearThinking' || !upstream.takesThinking) return { events, applied: null }
  const { events: kept, cleared } = clearOlderThinking(events, edit.keep, ANTHROPIC, deps.estimator)
  if (cleared.turns === 0) return { events, applied: null }
  const clearedInputTokens = Math.round(cleared.tokens * upstream.ratio)
  return { events: kept, applied: { at, kind: 'clearThinking', clearedThinkingTurns: cleared.turns, clearedInputTokens } }
}
