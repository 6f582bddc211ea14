import { type ClearingPlan, type ClearToolResults, clearedById, planClearing, viewEvents } from '../clearing'
import {
  type ClearedEntry,
  type CompactionEvent,
  isCompaction,
  isMessage,
  type MessageEvent,
  type MessageSkeleton,
  type NewMessageEvent,
} from '../events'
import { newMessageEvent } from '../events/new-event'
import { keepAllPlan, type PassCut, type PassPlan, planPass } from '../pass'
import { planInTurn } from '../pass/in-turn'
import { bestPrepared, type PreparedSummary, preparedPrefix } from '../prepared'
import { rebase } from '../rebase'
import { type SessionStore, VersionConflictError, type ViewSnapshot } from '../session-store'
import type { SessionInfo, Summarizer, SummaryMessage, SummaryOutcome } from '../summarizer'
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
  /**
   * Clear old tool results first (see `../clearing`). Alone it is a clearing pass; with a window
   * or a summarizer the window's cut follows when the trigger still fires, in the same pass.
   */
  clearToolResults?: ClearToolResults
  /**
   * A summary prepared ahead (see `../prepared`), written by this summarizer: used when it covers
   * the first part of what the pass covers (the rest summarized on from it), else ignored.
   */
  prepared?: readonly PreparedSummary[]
  /**
   * Cover the older tool groups of the newest turn instead of older turns (an agent's loop that
   * alone outgrows the window), down to this view budget: see `planInTurn`.
   */
  inTurn?: { tokenBudget: number; summaryReserve?: number }
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

/** What a pass covers, planned on a view: its cut, the view it cut (cleared messages at their cleared size), the clearing it keeps. */
interface PlannedCut {
  cut: PassCut
  view: ViewColumns
  cleared: readonly ClearedEntry[]
}

/**
 * Plans a pass of a strategy on a view, its trigger aside: a clearing first (the view's columns
 * then count the cleared messages at their cleared size), then the window's cut (or the newest
 * turn's) when the trigger still fires. What the pass would cover, or why it covers nothing.
 */
async function planCut(
  snapshot: ViewSnapshot,
  request: Pick<CompactRequest, 'strategy' | 'trigger' | 'model' | 'pending'>,
  deps: Pick<CompactDeps, 'store' | 'estimator'>,
): Promise<PlannedCut | 'nothing_to_cover'> {
  const strategy = request.strategy ?? {}
  const summarizer = strategy.summarizer ?? null
  const { view: stored, pins, cleared: clearedNow, clearedSeqs } = snapshot
  const storedAnalysis = analyzeColumns(stored, pins)
  const planned = strategy.clearToolResults
    ? await planViewClearing(stored, clearedById(clearedNow), clearedSeqs, strategy.clearToolResults, deps.store, deps)
    : null
  const clearing = planned?.plan ?? null
  const view = planned?.plan ? withTokens(stored, planned.plan.changed, planned.positions, planned.ids) : stored
  const cleared = clearing?.cleared ?? clearedNow ?? []
  const analysis = clearing ? analyzeColumns(view, pins) : storedAnalysis
  const windowed =
    strategy.inTurn !== undefined || strategy.window !== undefined || summarizer !== null || !strategy.clearToolResults
  let plan: PassPlan
  if (clearing && (!windowed || !passDue(view, request.trigger, request.model, analysis)))
    plan = { kind: 'cut', ...keepAllPlan(view, pins, analysis) }
  else if (strategy.inTurn)
    plan = planInTurn(view, { ...strategy.inTurn, summarizing: summarizer !== null, pins, pending: request.pending })
  else
    plan = planPass(
      view,
      {
        window: strategy.window ?? DEFAULT_WINDOW,
        model: request.model,
        summarizing: summarizer !== null,
        pending: request.pending,
        pins,
      },
      analysis,
    )
  if (plan.kind === 'unchanged') return plan.reason
  // What the pass saves counts its clearing too.
  return { cut: clearing ? { ...plan, beforeTokens: storedAnalysis.tokens } : plan, view, cleared }
}

/**
 * The summary of what a cut covers: a prepared one when it covers exactly that (no model call),
 * else the summarizer's — rolled on from the prepared one that covers the most of its first part
 * over the rest, else from the view's prior summary over all of it (the newest that fit its input).
 */
async function summaryOf(
  cut: PassCut,
  view: ViewColumns,
  cleared: readonly ClearedEntry[],
  summarizer: Summarizer,
  prepared: readonly PreparedSummary[],
  session: SessionInfo,
  deps: Pick<CompactDeps, 'store' | 'estimator'>,
  quoting = true,
): Promise<{ outcome: SummaryOutcome; prepared: boolean }> {
  const shown = clearedById(cleared)
  const read = async (positions: Int32Array) => viewEvents(await deps.store.readEvents(seqsAt(view, positions)), shown)
  const best = bestPrepared(prepared, seqsAt(view, cut.priorSummary), seqsAt(view, cut.coveredConversation))
  if (best && best.from === cut.coveredConversation.length)
    return { outcome: { kind: 'summary', messages: best.prepared.messages }, prepared: true }
  const priorSummary = best ? summaryEvents(best.prepared.messages, deps.estimator) : await read(cut.priorSummary)
  const priorTokens = priorSummary.reduce((sum, event) => sum + event.tokens, 0)
  const budget = (summarizer.inputTokens ?? Infinity) - priorTokens
  const outcome = await summarizer.summarize({
    session,
    priorSummary,
    covered: await read(newestThatFit(view, cut.coveredConversation.subarray(best?.from ?? 0), budget)),
    preserved: quoting ? await read(cut.preserved.subarray(0, summarizer.quotes ?? cut.preserved.length)) : [],
  })
  return { outcome, prepared: best !== null }
}

/** A prepared summary's messages as the prior summary a summarizer rolls on from (never stored). */
const summaryEvents = (messages: readonly SummaryMessage[], estimator: TokenEstimator): MessageEvent[] =>
  messages.map((message, i) => ({
    ...newMessageEvent(
      { id: `prepared-${i}`, message: { role: message.role, content: message.content }, timestamp: '', synthetic: true },
      estimator,
    ),
    seq: 0,
  }))

/** What {@link prepareSummaries} is asked: the strategy's pass as it would run, and the summaries prepared before. */
export interface PrepareRequest {
  strategy: Strategy & { summarizer: Summarizer }
  session: SessionInfo
  model?: ModelFit
  /** The summaries prepared before (their summarizer the strategy's). */
  previous: readonly PreparedSummary[]
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
  for (const pending of [undefined, [NEXT_MESSAGE]]) {
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

/**
 * The view's messages a clearing looks at: its tool messages (with `inputs`, its assistant messages
 * too) not cleared already — read only when the store knows which are (`cleared`, by seq), so
 * that a clearing in a long loop reads the results that aged since the last one, not the loop.
 */
function toolPositions(view: ViewColumns, inputs: boolean, cleared?: ReadonlySet<number>): Int32Array {
  const positions: number[] = []
  for (let p = 0; p < view.length; p++) {
    const role = view.role(p)
    if ((role === 'tool' || (inputs && role === 'assistant')) && !cleared?.has(view.seq(p))) positions.push(p)
  }
  return Int32Array.from(positions)
}

/** A clearing of the view's tool messages (read whole, as stored), or null when it clears nothing; the positions and ids it read. */
async function planViewClearing(
  view: ViewColumns,
  current: Map<string, ClearedEntry>,
  clearedSeqs: ReadonlySet<number> | undefined,
  options: ClearToolResults,
  store: SessionStore,
  deps: Pick<CompactDeps, 'estimator'>,
): Promise<{ plan: ClearingPlan | null; positions: Int32Array; ids: string[] }> {
  const inputs = Array.isArray(options.clearInputs) ? options.clearInputs.length > 0 : options.clearInputs === true
  const positions = toolPositions(view, inputs, clearedSeqs)
  const events = await store.readEvents(seqsAt(view, positions))
  // The stored tokens, or the cleared ones a boundary gave: what the view counts now.
  const counted = events.map((event, i) => ({ ...event, tokens: view.tokens(positions[i]!) }))
  return { plan: planClearing(counted, current, options, deps.estimator), positions, ids: events.map((event) => event.id) }
}

/** A view's columns with some events' tokens replaced (by id; `ids`: those of `positions`). */
function withTokens(view: ViewColumns, changed: Map<string, number>, positions: Int32Array, ids: string[]): ViewColumns {
  const at = new Map<number, number>()
  positions.forEach((p, i) => {
    const tokens = changed.get(ids[i]!)
    if (tokens !== undefined) at.set(p, tokens)
  })
  return {
    length: view.length,
    seq: (p) => view.seq(p),
    role: (p) => view.role(p),
    synthetic: (p) => view.synthetic(p),
    inline: (p) => view.inline(p),
    tokens: (p) => at.get(p) ?? view.tokens(p),
  }
}

/** A summary of the earlier steps of the newest turn: one assistant message, right after the turn's user message. */
function inTurnSummary(messages: readonly SummaryMessage[]): SummaryMessage[] {
  const text = messages
    .filter((message) => message.role === 'assistant')
    .map((message) => message.content.trim())
    .join('\n\n')
  return [
    {
      role: 'assistant',
      content: `Summary of my earlier steps in this turn:\n${text || messages.map((m) => m.content).join('\n')}`,
    },
  ]
}

/** What stands for covered steps of a turn when no summarizer is configured: the calls made, and how to get any back. */
export function inTurnNote(covered: readonly MessageEvent[]): string {
  const counts = new Map<string, number>()
  const ids: string[] = []
  for (const event of covered)
    for (const call of event.message.toolCalls ?? []) {
      counts.set(call.name, (counts.get(call.name) ?? 0) + 1)
      ids.push(call.id)
    }
  const tools = [...counts].map(([name, n]) => `${name} ×${n}`).join(', ')
  const shown = ids.length > 64 ? [...ids.slice(0, 32), '…', ...ids.slice(-32)] : ids
  return `[${ids.length} earlier tool calls of this turn are out of view (${tools || 'none'}); recall_history with {"id": "<call id>"} returns any of them: ${shown.join(', ')}]`
}

/** What a pass would do, without a summary: its lists and what it would save; no boundary, nothing written. */
async function dryRun(
  plan: PassCut,
  cleared: readonly ClearedEntry[],
  version: number,
  store: SessionStore,
): Promise<CompactionResult> {
  const { kept, seqs } = await keptBy(plan, store)
  const { tokensEstimatedSaved } = recordPass(plan, kept, [], { id: 'dry-run', timestamp: '' }, cleared)
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
