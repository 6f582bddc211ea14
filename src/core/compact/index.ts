import {
  type CompactionEvent,
  isCompaction,
  isMessage,
  type MessageEvent,
  type MessageSkeleton,
  type NewMessageEvent,
  type ViewEvent,
} from '../events'
import { newMessageEvent } from '../events/new-event'
import { type PassCut, planPass } from '../pass'
import { rebase } from '../rebase'
import { type SessionStore, VersionConflictError } from '../session-store'
import type { SessionInfo, Summarizer, SummaryMessage } from '../summarizer'
import type { TokenEstimator } from '../tokens'
import { fires, type Trigger } from '../triggers'
import { analyzeView } from '../view'
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
}

export interface CompactDeps<E extends ViewEvent = MessageEvent> {
  store: SessionStore<E>
  estimator: TokenEstimator
  newId: () => string
  /** ISO-8601 timestamp for the events a pass writes. */
  now: () => string
  warn?: (message: string, data: Record<string, unknown>) => void
}

export type UnchangedReason = 'trigger_not_fired' | 'nothing_to_cover' | 'summarizer_declined' | 'summarizer_failed' | 'conflict'

/**
 * What a pass did. The lists hold the store's view events (`E`): whole events for a store of
 * whole events, skeletons for the session object, which writes its answer from storage.
 */
export interface CompactionResult<E extends ViewEvent = MessageEvent> {
  unchanged: boolean
  reason: UnchangedReason | null
  covered: E[]
  pinned: E[]
  /** The summary events the pass wrote, whole. */
  summary: MessageEvent[]
  preserved: E[]
  tokensEstimatedSaved: number
  boundary: CompactionEvent | null
  /** The session's version after the call. */
  version: number
}

/** How many times a pass is moved onto newer events before it gives up with `conflict`. */
export const MAX_REBASES = 8

/** The result of a pass that changed nothing, and why. */
export const unchangedResult = <E extends ViewEvent = MessageEvent>(
  reason: UnchangedReason,
  version: number,
): CompactionResult<E> => ({
  unchanged: true,
  reason,
  covered: [],
  pinned: [],
  summary: [],
  preserved: [],
  tokensEstimatedSaved: 0,
  boundary: null,
  version,
})

const isUsable = (message: SummaryMessage) =>
  (message.role === 'user' || message.role === 'assistant') &&
  typeof message.content === 'string' &&
  message.content.trim() !== ''

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
export async function compact<E extends ViewEvent = MessageEvent>(
  request: CompactRequest,
  deps: CompactDeps<E>,
): Promise<CompactionResult<E>> {
  const { store } = deps
  const summarizer = request.strategy?.summarizer ?? null
  const { view, version } = await store.readView()

  if (!fires(request.trigger ?? { always: true }, analyzeView(view))) return unchangedResult('trigger_not_fired', version)
  const plan = planPass(view, {
    window: request.strategy?.window ?? DEFAULT_WINDOW,
    summarizing: summarizer !== null,
    pending: request.pending,
  })
  if (plan.kind === 'unchanged') return unchangedResult(plan.reason, version)

  let summary: NewMessageEvent[] = []
  if (summarizer) {
    const priorTokens = plan.priorSummary.reduce((sum, event) => sum + event.tokens, 0)
    const covered = newestThatFit(plan.coveredConversation, (summarizer.inputTokens ?? Infinity) - priorTokens)
    const outcome = await summarizer.summarize({
      session: request.session,
      priorSummary: await store.readEvents(plan.priorSummary),
      covered: await store.readEvents(covered),
      preserved: await store.readEvents(plan.preserved),
    })
    if (outcome.kind === 'declined' || (outcome.kind === 'summary' && outcome.messages.length === 0)) {
      return unchangedResult('summarizer_declined', version)
    }
    if (outcome.kind === 'failed' || !outcome.messages.every(isUsable)) {
      deps.warn?.('summarizer failed; the view is left unchanged', {
        session: request.session.id,
        detail: outcome.kind === 'failed' ? outcome.detail : 'blank or invalid summary message',
      })
      return unchangedResult('summarizer_failed', version)
    }
    summary = outcome.messages.map((message) =>
      newMessageEvent(
        { id: deps.newId(), message: { role: message.role, content: message.content }, timestamp: deps.now(), synthetic: true },
        deps.estimator,
      ),
    )
  }

  return write(plan, summary, version, deps)
}

/**
 * The covered events a summarizer is sent when not all of them fit its input: walking from the
 * newest back, every event that still fits the tokens left (a huge tool result is passed over,
 * the turns around it are kept), in view order. All of them when they fit.
 *
 * @example
 * newestThatFit([a(5), b(50), c(5)], 12) // [a, c]
 */
export function newestThatFit<E extends { tokens: number }>(events: readonly E[], budget: number): E[] {
  let total = 0
  for (const event of events) total += event.tokens
  if (total <= budget) return [...events]
  const chosen: E[] = []
  let left = budget
  for (let i = events.length - 1; i >= 0 && left > 0; i--) {
    const event = events[i]!
    if (event.tokens <= left) {
      chosen.push(event)
      left -= event.tokens
    }
  }
  return chosen.reverse()
}

async function write<E extends ViewEvent>(
  first: PassCut<E>,
  summary: NewMessageEvent[],
  version: number,
  deps: CompactDeps<E>,
): Promise<CompactionResult<E>> {
  const boundaryDraft = { id: deps.newId(), timestamp: deps.now() }
  let plan = first
  let at = version
  for (let attempt = 0; ; attempt++) {
    const { events, tokensEstimatedSaved } = recordPass(plan, summary, boundaryDraft)
    try {
      const written = await deps.store.append(events, at)
      const boundary = written.find(isCompaction)!
      return {
        unchanged: false,
        reason: null,
        covered: plan.covered,
        pinned: plan.pinned,
        summary: written.filter(isMessage),
        preserved: plan.preserved,
        tokensEstimatedSaved,
        boundary,
        version: written.at(-1)!.seq,
      }
    } catch (error) {
      if (!(error instanceof VersionConflictError)) throw error
      const since = await deps.store.readSince(at)
      const latest = since.at(-1)?.seq ?? error.actual
      const outcome = rebase<E>(plan, since)
      if (outcome.kind === 'conflict' || attempt >= MAX_REBASES) return unchangedResult('conflict', latest)
      plan = outcome.plan
      at = latest
    }
  }
}
