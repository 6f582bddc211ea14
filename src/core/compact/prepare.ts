import type { MessageSkeleton } from '../events'
import { type PreparedSummary, preparedPrefix } from '../prepared'
import type { SessionInfo, Summarizer } from '../summarizer'
import type { ModelFit } from '../triggers'
import { seqsAt } from '../view/columns'
import { planCut } from './plan-cut'
import type { CompactDeps, Strategy } from './request'
import { isUsable, summaryOf } from './summary'

/** What {@link prepareSummaries} is asked: the strategy's pass as it would run, and the summaries prepared before. */
export interface PrepareRequest {
  strategy: Strategy & { summarizer: Summarizer }
  session: SessionInfo
  model?: ModelFit
  /** The summaries prepared before (their summarizer the strategy's). */
  previous: readonly PreparedSummary[]
  /**
   * Whether the client's next request may bring a new message (default true). False while the
   * newest turn waits for its tool calls' results: that request goes on with the same turn, so a
   * pass with it covers what one now would, and an agent loop asks for no summary each step.
   */
  nextMessage?: boolean
}

/** The message a client's next request will bring, as a pass then counts it: the newest turn, of no tokens yet. */
const NEXT_MESSAGE: MessageSkeleton = {
  type: 'MESSAGE',
  id: 'next-message',
  tokens: 0,
  synthetic: false,
  message: { role: 'user' },
}

/**
 * Prepares the summaries a pass of the strategy would want (round4 §6), for a pass to take later
 * without waiting for the model: of what it would cover now (a pass asked for between requests)
 * and once the next message comes (one asked for with it: a compaction edit, Codex's trigger, a
 * fit), each topped up from the prepared one that covers the most of its first part, else written
 * from the view's prior summary. For a window of whole turns the one of now is the one of the
 * next message prepared before: one call a turn. Null when nothing new was prepared (the ones
 * before cover both ranges, the pass would cover nothing, or no usable summary came). Nothing is
 * written to the log.
 *
 * @example
 * const prepared = await prepareSummaries({ strategy, session, model, previous }, { store, estimator })
 */
export async function prepareSummaries(
  request: PrepareRequest,
  deps: Pick<CompactDeps, 'store' | 'estimator'>,
): Promise<PreparedSummary[] | null> {
  const snapshot = await deps.store.readView()
  const made: PreparedSummary[] = []
  let changed = false
  for (const pending of request.nextMessage === false ? [undefined] : [undefined, [NEXT_MESSAGE]]) {
    const planned = await planCut(snapshot, { strategy: request.strategy, model: request.model, pending }, deps)
    if (typeof planned === 'string' || planned.cut.coveredConversation.length === 0) continue
    const { cut, view, cleared } = planned
    const prior = seqsAt(view, cut.priorSummary)
    const covered = seqsAt(view, cut.coveredConversation)
    const pool = [...made, ...request.previous]
    const exact = pool.find((prepared) => preparedPrefix(prepared, prior, covered) === covered.length)
    if (exact) {
      if (!made.includes(exact)) made.push(exact)
      continue
    }
    // No quotes of what follows: a rewind or an edit may take that away while the range stays.
    const { outcome } = await summaryOf(cut, view, cleared, request.strategy.summarizer, pool, request.session, deps, false)
    if (outcome.kind !== 'summary' || outcome.messages.length === 0 || !outcome.messages.every(isUsable)) break
    made.push({ prior, covered, messages: outcome.messages, ...(outcome.title ? { title: outcome.title } : {}) })
    changed = true
  }
  return changed ? made : null
}
