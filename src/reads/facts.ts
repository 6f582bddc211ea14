import type { Policy } from '../contract/schemas'
import type { Usage } from '../contract/turn-result'
import {
  analyzeColumns,
  bestPrepared,
  type Calibration,
  type ColumnsAnalysis,
  newestTurnSeqs,
  type Positions,
  pendingToolCalls,
  type UsageTotals,
  type ViewColumns,
  type ViewPins,
} from '../core'
import type { SessionLog } from '../store/log/log'
import type { PreparedSet, StoredPrepared } from '../store/log/prepared'
import type { CompactionFailure, SessionRecord } from '../store/log/session-row'
import type { ViewCache } from '../store/log/view-cache'

/** Prompt and cached prompt tokens summed over the recent calls, and the cached share (0 when no prompt token was reported). */
export function cacheOf(recent: SessionRecord['recentUsage']): SessionFacts['cache'] {
  const promptTokens = recent.reduce((total, [prompt]) => total + prompt, 0)
  const cachedPromptTokens = recent.reduce((total, [, cached]) => total + cached, 0)
  const hitRate = promptTokens === 0 ? 0 : Math.round((cachedPromptTokens / promptTokens) * 1000) / 1000
  return { calls: recent.length, promptTokens, cachedPromptTokens, hitRate }
}

/** What a session holds and what compaction did to it, as counted from its row and view: nothing written, no model asked. */
export interface SessionFacts {
  /** Estimates of the view's parts; `total` is the view's tokens. */
  tokens: { system: number; summary: number; preamble: number; conversation: number; total: number }
  calibration: Calibration
  /** Every log event (COMPACTION included); the view's; the log's MESSAGE events outside the view. */
  events: { log: number; view: number; covered: number }
  turns: number
  pendingToolCalls: string[]
  lastUsage: Usage | null
  /** The provider's prompt cache over the last chat calls that reported usage (see {@link cacheOf}). */
  cache: { calls: number; promptTokens: number; cachedPromptTokens: number; hitRate: number }
  compactions: number
  /** Runs of messages rewinds abandoned. */
  branches: number
  /** The messages pinned on the lineage now, in log order. */
  pinned: string[]
  lastCompaction: {
    boundaryId: string
    seq: number
    timestamp: string
    coveredEventCount: number
    tokensEstimatedSaved: number
  } | null
  /** How the last background pass failed; null when it did not. */
  lastCompactionError: CompactionFailure | null
  /** The session's own policy (the effective one is decided where the deployment's is known). */
  policy: Policy | null
  /** What the session's model calls spent, as the upstreams reported it. */
  usage: UsageTotals
  /** The summary prepared ahead of a pass (round4 §6), and whether it still covers the start of the view's conversation; null: none. */
  prepared: PreparedState | null
}

/** What `/context` says of a prepared summary. */
export interface PreparedState {
  /** `ready`: it covers the start of the view's conversation, rolled on from the view's summary, so a pass covering that uses it; `stale`: the view moved away from it (a pass, a rewind, an undo, a pin or edit in its range) and the next preparation starts again. */
  state: 'ready' | 'stale'
  /** The conversation events it covers, by seq: how many, the first and the last. */
  covers: { events: number; fromSeq: number; toSeq: number }
  tokens: number
  preparedAt: string
}

/**
 * The state of a session's prepared summaries against the view now: the one that covers the most
 * of the view's conversation first, after the same summary (ready), else the newest (stale).
 */
function preparedState(set: PreparedSet, view: ViewColumns, analysis: ColumnsAnalysis): PreparedState | null {
  const seqs = (positions: Positions) => Int32Array.from(positions, (p) => view.seq(p))
  const best = bestPrepared(set.summaries, seqs(analysis.priorSummary), seqs(analysis.conversation))
  const prepared = (best?.prepared as StoredPrepared | undefined) ?? set.summaries.at(-1)
  if (!prepared) return null
  const ready = best !== null
  return {
    state: ready ? 'ready' : 'stale',
    covers: { events: prepared.covered.length, fromSeq: prepared.covered[0] ?? 0, toSeq: prepared.covered.at(-1) ?? 0 },
    tokens: prepared.tokens,
    preparedAt: prepared.preparedAt,
  }
}

const sum = (view: ViewColumns, positions: Positions) => positions.reduce((total, p) => total + view.tokens(p), 0)

/**
 * A session's facts for `GET /context`, in O(view): the view's columns (no bodies but the
 * newest turn's, for its pending calls), the session row's counters, and the newest boundary.
 */
export function sessionFacts(
  log: SessionLog,
  view: ViewCache,
  record: SessionRecord,
  pins: { pinned: ReadonlyMap<string, number>; ofView: ViewPins },
  prepared: PreparedSet | null = null,
): SessionFacts {
  const columns = view.snapshot(record)
  // Counted as a pass sees the view: a pinned question is no turn, a held message no preamble.
  const analysis = analyzeColumns(columns, pins.ofView)
  const [boundary] = record.compactions > 0 ? log.boundariesBefore(record.version + 1, 1) : []
  const messages = record.version - record.compactions - record.rewinds - record.pinEvents
  return {
    tokens: {
      system: analysis.latestSystem >= 0 ? columns.tokens(analysis.latestSystem) : 0,
      summary: sum(columns, analysis.priorSummary),
      preamble: sum(columns, analysis.preamble),
      conversation: sum(columns, analysis.conversation),
      total: analysis.tokens,
    },
    calibration: record.calibration,
    events: { log: record.version, view: columns.length, covered: messages - columns.length },
    turns: analysis.turns,
    pendingToolCalls: pendingToolCalls([...view.eventsOf(newestTurnSeqs(columns))]),
    lastUsage: record.lastUsage,
    cache: cacheOf(record.recentUsage),
    compactions: record.compactions,
    branches: record.branches,
    pinned: [...pins.pinned].sort((a, b) => a[1] - b[1]).map(([id]) => id),
    lastCompaction:
      boundary?.type === 'COMPACTION'
        ? {
            boundaryId: boundary.id,
            seq: boundary.seq,
            timestamp: boundary.timestamp,
            coveredEventCount: boundary.boundary.coveredEventCount,
            tokensEstimatedSaved: boundary.boundary.tokensEstimatedSaved,
          }
        : null,
    lastCompactionError: record.lastCompactionError,
    policy: record.policy,
    usage: record.usage,
    prepared: prepared && preparedState(prepared, columns, analysis),
  }
}
