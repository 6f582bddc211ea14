/** What the bench Worker (bench/entry.ts) and its Node driver (bench/worker.ts) both speak: pure TypeScript, no runtime's types. */

/** SQLite rows read and written, as counted at `ctx.storage.sql.exec` (see test/support/row-counts.ts). */
export interface Rows {
  rowsRead: number
  rowsWritten: number
}

/** What a bench route answers: its samples (ms unless the route says otherwise) and, where counted, the rows of one call. */
export interface Measured {
  samples: number[]
  rows?: Rows
  /** What a measurement counts besides (events, calls, bytes), by name. */
  counts?: Record<string, number>
}

/** A turn's storage work: a plain turn (user message, reply) or an agent's (with a tool call and its result). */
export type StorageWork = 'turn' | 'tool'

/** The text of the i-th message every benchmark session is made of (about 90 characters). */
export const message = (i: number) => `Message ${i}: what did we decide about the rollout plan, and which items are still open?`

/** The agent-loop benchmarks’ tool result of a step: 8 KB (8,192 characters) of words (the same as test/api/agent-loops.test.ts's). */
export const loopResult = (step: number) =>
  Array.from({ length: 1700 }, (_, i) => `w${(step * 7 + i) % 997}`)
    .join(' ')
    .slice(0, 8192)
