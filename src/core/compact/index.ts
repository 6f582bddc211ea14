import { type ClearedEntry, isCompaction, isMessage, type NewMessageEvent } from '../events'
import { newMessageEvent } from '../events/new-event'
import type { PassCut } from '../pass'
import { rebase } from '../rebase'
import { VersionConflictError } from '../session-store'
import { analyzeColumns } from '../view'
import { seqsAt } from '../view/columns'
import { recordPass } from './pass-events'
import { passDue, planCut } from './plan-cut'
import type { CompactDeps, CompactRequest } from './request'
import { type CompactionResult, dryRun, keptBy, passResult, type UnchangedReason, unchangedResult } from './result'
import { inTurnNote, inTurnSummary, isUsable, summaryOf } from './summary'

export { passDue } from './plan-cut'
export { type PrepareRequest, prepareSummaries } from './prepare'
export type { CompactDeps, CompactRequest, Strategy } from './request'
export { type CompactionResult, type UnchangedReason, unchangedResult } from './result'
export { inTurnNote, newestThatFit } from './summary'

/** How many times a pass is moved onto newer events before it gives up with `conflict`. */
export const MAX_REBASES = 8

/**
 * Compacts a session: evaluates the trigger on its view, runs one pass of the window strategy
 * (calling the summarizer when there is one), and records the result with one version-checked
 * append — rebased onto messages appended meanwhile, abandoned with `conflict` when another
 * boundary was written first. A summarizer error propagates and nothing is written.
 *
 * @example
 * const result = await compact(
 *   { trigger: { turnCount: 20 }, strategy: { window: { lastTurns: 8 } }, session },
 *   { store, estimator: defaultEstimator, newId: () => crypto.randomUUID(), now: () => new Date().toISOString() },
 * )
 */
export async function compact(request: CompactRequest, deps: CompactDeps): Promise<CompactionResult> {
  const { store } = deps
  // A dry run says it is one, whatever it finds.
  const unchanged = (reason: UnchangedReason, version: number): CompactionResult =>
    request.dryRun ? { ...unchangedResult(reason, version), dryRun: true } : unchangedResult(reason, version)
  const strategy = request.strategy ?? {}
  const summarizer = strategy.summarizer ?? null
  const snapshot = await store.readView()
  const { version } = snapshot
  const expected = request.expectedVersion
  if (expected !== undefined && expected !== version) throw new VersionConflictError(expected, version)
  if (!passDue(snapshot.view, request.trigger, request.model, analyzeColumns(snapshot.view, snapshot.pins)))
    return unchanged('trigger_not_fired', version)

  const planned = await planCut(snapshot, request, deps)
  if (typeof planned === 'string') return unchanged(planned, version)
  const { cut, view, cleared } = planned
  if (request.dryRun) return dryRun(cut, cleared, version, store)

  let summary: NewMessageEvent[] = []
  let prepared = false
  if (summarizer && cut.covered.length > 0) {
    const usable = strategy.inTurn ? [] : (strategy.prepared ?? [])
    const made = await summaryOf(cut, view, cleared, summarizer, usable, request.session, deps)
    const { outcome } = made
    prepared = made.prepared
    if (outcome.kind === 'declined' || (outcome.kind === 'summary' && outcome.messages.length === 0)) {
      return unchanged('summarizer_declined', version)
    }
    if (outcome.kind === 'failed' || !outcome.messages.every(isUsable)) {
      deps.warn?.('summarizer failed; the view is left unchanged', {
        session: request.session.id,
        detail: outcome.kind === 'failed' ? outcome.detail : 'blank or invalid summary message',
      })
      return unchanged('summarizer_failed', version)
    }
    const messages = strategy.inTurn ? inTurnSummary(outcome.messages) : outcome.messages
    summary = messages.map((message) =>
      newMessageEvent(
        { id: deps.newId(), message: { role: message.role, content: message.content }, timestamp: deps.now(), synthetic: true },
        deps.estimator,
      ),
    )
  } else if (strategy.inTurn) {
    const covered = await store.readEvents(seqsAt(view, cut.coveredConversation))
    summary = [
      newMessageEvent(
        {
          id: deps.newId(),
          message: { role: 'assistant', content: inTurnNote(covered) },
          timestamp: deps.now(),
          synthetic: true,
        },
        deps.estimator,
      ),
    ]
  }

  return write(cut, summary, cleared, version, deps, expected === undefined, prepared)
}

/**
 * Writes a pass: its boundary and summary in one append checked against the version the pass was
 * planned at; when messages landed meanwhile, the pass is moved onto them (`rebase`) and written
 * again, at most {@link MAX_REBASES} times — or, when it may not be rebased, the conflict thrown.
 */
async function write(
  first: PassCut,
  summary: NewMessageEvent[],
  cleared: readonly ClearedEntry[],
  version: number,
  deps: CompactDeps,
  rebasable: boolean,
  prepared: boolean,
): Promise<CompactionResult> {
  const { store } = deps
  const boundaryDraft = { id: deps.newId(), timestamp: deps.now() }
  let plan = first
  let at = version
  for (let attempt = 0; ; attempt++) {
    const { kept, seqs } = await keptBy(plan, store)
    const { events, tokensEstimatedSaved } = recordPass(plan, kept, summary, boundaryDraft, cleared, prepared)
    try {
      const written = await store.append(events, at)
      const boundary = written.find(isCompaction)!
      return passResult(plan, seqs, written.filter(isMessage), tokensEstimatedSaved, boundary, written.at(-1)!.seq)
    } catch (error) {
      if (!(error instanceof VersionConflictError) || !rebasable) throw error
      const since = await store.readSince(at)
      const latest = since.at(-1)?.seq ?? error.actual
      const outcome = rebase(plan, since)
      if (outcome.kind === 'conflict' || attempt >= MAX_REBASES) return unchangedResult('conflict', latest)
      plan = outcome.plan
      at = latest
    }
  }
}
