import {
  type CompactionEvent,
  isCompaction,
  isMessage,
  type MessageEvent,
  type MessageSkeleton,
  type NewMessageEvent,
} from '../events'
import { newMessageEvent } from '../events/new-event'
import { type PassCut, planPass } from '../pass'
import { rebase } from '../rebase'
import { type SessionStore, VersionConflictError } from '../session-store'
import type { SessionInfo, Summarizer, SummaryMessage } from '../summarizer'
import type { TokenEstimator } from '../tokens'
import { fires, type ModelFit, type Trigger } from '../triggers'
import { analyzeColumns } from '../view'
import { type Positions, seqsAt, type ViewColumns } from '../view/columns'
import { DEFAULT_WINDOW, type Window } from '../windows'
import { recordPass } from './pass-events'

export interface Strategy {
  /** Default `lastEvents(20)`. */
  window?: Window
  /** With a summarizer the covered events are replaced by a summary turn. */
  summarizer?: Summarizer | null
}

export interface CompactRequest {
  /** Default `always`. */
  trigger?: Trigger
  strategy?: Strategy
  session: SessionInfo
  /**
   * A user message about to be sent (not stored): it counts as the newest turn, so every stored
   * turn may be covered to make room for it. The boundary names stored events only.
   */
  pending?: readonly MessageSkeleton[]
  /** The model the pass fits the view for: what `contextFraction` triggers and windows are fractions of. */
  model?: ModelFit
  /** Plan the pass and answer what it would do: nothing is written and no summarizer is called. */
  dryRun?: boolean
  /**
   * The version the caller saw: at any other version the pass is neither planned nor written
   * ({@link VersionConflictError}), and a pass whose append finds the log moved is not rebased.
   */
  expectedVersion?: number
}

export interface CompactDeps {
  store: SessionStore
  estimator: TokenEstimator
  newId: () => string
  /** ISO-8601 timestamp for the events a pass writes. */
  now: () => string
  warn?: (message: string, data: Record<string, unknown>) => void
}

export type UnchangedReason = 'trigger_not_fired' | 'nothing_to_cover' | 'summarizer_declined' | 'summarizer_failed' | 'conflict'

/**
 * What a pass did. It names the events it covered and kept by seq, in view order (a view may be
 * long: whoever answers with them reads them then); the summary events it wrote are whole.
 */
export interface CompactionResult {
  unchanged: boolean
  reason: UnchangedReason | null
  covered: Int32Array
  pinned: Int32Array
  /** The summary events the pass wrote, whole. */
  summary: MessageEvent[]
  preserved: Int32Array
  tokensEstimatedSaved: number
  boundary: CompactionEvent | null
  /** The session's version after the call. */
  version: number
  /** Present (true) on a dry run: what the pass would do, nothing written. */
  dryRun?: true
}

/** How many times a pass is moved onto newer events before it gives up with `conflict`. */
export const MAX_REBASES = 8

const NONE = new Int32Array(0)

/** The result of a pass that changed nothing, and why. */
export const unchangedResult = (reason: UnchangedReason, version: number): CompactionResult => ({
  unchanged: true,
  reason,
  covered: NONE,
  pinned: NONE,
  summary: [],
  preserved: NONE,
  tokensEstimatedSaved: 0,
  boundary: null,
  version,
})

const isUsable = (message: SummaryMessage) =>
  (message.role === 'user' || message.role === 'assistant') &&
  typeof message.content === 'string' &&
  message.content.trim() !== ''

/**
 * Whether a pass's trigger fires on a view (the first thing {@link compact} checks): what a
 * turn asks before it schedules a pass to run after its answer. No trigger: `always`.
 *
 * @example
 * passDue(view, { turnCount: 20 }, model) // true once the view holds more than 20 turns
 */
export function passDue(
  view: ViewColumns,
  trigger: Trigger | undefined,
  model: ModelFit | undefined,
  analysis = analyzeColumns(view),
) {
  return fires(trigger ?? { always: true }, { ...analysis, model })
}

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
  const summarizer = request.strategy?.summarizer ?? null
  const { view, version, pins } = await store.readView()
  const expected = request.expectedVersion
  if (expected !== undefined && expected !== version) throw new VersionConflictError(expected, version)

  const analysis = analyzeColumns(view, pins)
  if (!passDue(view, request.trigger, request.model, analysis)) return unchanged('trigger_not_fired', version)
  const window = request.strategy?.window ?? DEFAULT_WINDOW
  const plan = planPass(
    view,
    { window, model: request.model, summarizing: summarizer !== null, pending: request.pending, pins },
    analysis,
  )
  if (plan.kind === 'unchanged') return unchanged(plan.reason, version)
  if (request.dryRun) return dryRun(plan, version, store)

  let summary: NewMessageEvent[] = []
  if (summarizer) {
    const seqs = (positions: Int32Array) => seqsAt(view, positions)
    const priorTokens = plan.priorSummary.reduce((sum, p) => sum + view.tokens(p), 0)
    const budget = (summarizer.inputTokens ?? Infinity) - priorTokens
    const outcome = await summarizer.summarize({
      session: request.session,
      priorSummary: await store.readEvents(seqs(plan.priorSummary)),
      covered: await store.readEvents(seqs(newestThatFit(view, plan.coveredConversation, budget))),
      preserved: await store.readEvents(seqs(plan.preserved)),
    })
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
    summary = outcome.messages.map((message) =>
      newMessageEvent(
        { id: deps.newId(), message: { role: message.role, content: message.content }, timestamp: deps.now(), synthetic: true },
        deps.estimator,
      ),
    )
  }

  return write(plan, summary, version, deps, expected === undefined)
}

/** What a pass would do, without a summary: its lists and what it would save; no boundary, nothing written. */
async function dryRun(plan: PassCut, version: number, store: SessionStore): Promise<CompactionResult> {
  const { kept, seqs } = await keptBy(plan, store)
  const { tokensEstimatedSaved } = recordPass(plan, kept, [], { id: 'dry-run', timestamp: '' })
  return { ...passResult(plan, seqs, [], tokensEstimatedSaved, null, version), dryRun: true }
}

/** The ids a pass keeps (what its boundary names), and its lists as seqs. */
async function keptBy(plan: PassCut, store: SessionStore) {
  const seqs = (positions: Positions) => seqsAt(plan.before, positions)
  const kept = {
    pinned: await store.readIds(seqs(plan.pinned)),
    held: plan.held.length > 0 ? await store.readIds(seqs(plan.held)) : [],
    preserved: await store.readIds(seqs(plan.preserved)),
  }
  return { kept, seqs }
}

/** The result of a pass that changed the view (or would have, on a dry run). */
const passResult = (
  plan: PassCut,
  seqs: (positions: Positions) => Int32Array,
  summary: MessageEvent[],
  tokensEstimatedSaved: number,
  boundary: CompactionEvent | null,
  version: number,
): CompactionResult => ({
  unchanged: false,
  reason: null,
  covered: seqs(plan.covered),
  pinned: seqs(plan.pinned),
  summary,
  preserved: seqs(plan.preserved),
  tokensEstimatedSaved,
  boundary,
  version,
})

/**
 * The covered events a summarizer is sent when not all of them fit its input: walking from the
 * newest back, every event that still fits the tokens left (a huge tool result is passed over,
 * the turns around it are kept), in view order. All of them when they fit.
 *
 * @example
 * newestThatFit(columnsOf(view), Int32Array.of(0, 1, 2), 12) // positions, e.g. [0, 2]
 */
export function newestThatFit(view: ViewColumns, positions: Positions, budget: number): Positions {
  let total = 0
  for (const p of positions) total += view.tokens(p)
  if (total <= budget) return positions
  const chosen: number[] = []
  let left = budget
  for (let i = positions.length - 1; i >= 0 && left > 0; i--) {
    const tokens = view.tokens(positions[i]!)
    if (tokens <= left) {
      chosen.push(positions[i]!)
      left -= tokens
    }
  }
  return Int32Array.from(chosen.reverse())
}

/**
 * Writes a pass: its boundary and summary in one append checked against the version the pass was
 * planned at; when messages landed meanwhile, the pass is moved onto them (`rebase`) and written
 * again, at most {@link MAX_REBASES} times — or, when it may not be rebased, the conflict thrown.
 */
async function write(
  first: PassCut,
  summary: NewMessageEvent[],
  version: number,
  deps: CompactDeps,
  rebasable: boolean,
): Promise<CompactionResult> {
  const { store } = deps
  const boundaryDraft = { id: deps.newId(), timestamp: deps.now() }
  let plan = first
  let at = version
  for (let attempt = 0; ; attempt++) {
    const { kept, seqs } = await keptBy(plan, store)
    const { events, tokensEstimatedSaved } = recordPass(plan, kept, summary, boundaryDraft)
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
