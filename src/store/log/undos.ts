import type { Sql } from '../../sql'

/**
 * The undos of a session's passes, recorded in the same transaction as the COMPACTION that undoes
 * (the `undos` table), so whether a pass is undone is read by the pass, never from the log.
 */
export class SessionUndos {
  constructor(private readonly sql: Sql) {}

  /** Records that the COMPACTION at `undoSeq` undoes the pass at `passSeq` (call it inside its write). */
  record(undoSeq: number, passSeq: number): void {
    this.sql.run`INSERT INTO undos (undo_seq, pass_seq) VALUES (${undoSeq}, ${passSeq})`
  }

  /** Whether an undo of the pass at `passSeq` is on the lineage (`onLineage` says which seqs are). */
  undone(passSeq: number, onLineage: (seq: number) => boolean): boolean {
    const rows = this.sql.all<{ undo_seq: number }>`SELECT undo_seq FROM undos WHERE pass_seq = ${passSeq}`
    return rows.some((row) => onLineage(row.undo_seq))
  }
}
