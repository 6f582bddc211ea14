import type { ClearToolResults } from '../clearing'
import type { MessageSkeleton } from '../events'
import type { PreparedSummary } from '../prepared'
import type { SessionStore } from '../session-store'
import type { SessionInfo, Summarizer } from '../summarizer'
import type { TokenEstimator } from '../tokens'
import type { ModelFit, Trigger } from '../triggers'
import type { Window } from '../windows'

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
