import type { PassRequest } from '../../compaction'
import type { AppliedEdit, CompactionBlock, TurnResult } from '../../contract/turn-result'
import type { CompactionResult } from '../../core'

/** What the passes of a request's edits did, before its model call. */
export interface EditsRun {
  applied: AppliedEdit[]
  /** The passes written, for the turn's `context.compactions`. */
  compactions: CompactionResult[]
  compaction: CompactionBlock | null
  /** A paused compaction's whole answer (the request's messages written, no model call); null: the turn goes on. */
  paused: TurnResult | null
}

/** Runs one pass of the session's log for an edit, whatever the policy's trigger says. */
export type RunPass = (strategy: PassRequest['strategy'], inTurn?: PassRequest['inTurn']) => Promise<CompactionResult>
