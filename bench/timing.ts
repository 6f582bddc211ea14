/** Timing inside a Durable Object for the bench Worker (bench/entry.ts and what it routes to). */
import type { RowCounts } from '../test/support/row-counts'
import type { Measured } from './shared'

/**
 * Times `batch` runs of `work` inside an object, answering the mean. Its clock moves only at I/O,
 * so the batch is bracketed by a 1 ms timer; the same bracket around no work is measured and taken off.
 */
export async function timedInside(batch: number, work: (i: number) => Promise<unknown>): Promise<number> {
  const bracket = async (fn: () => Promise<void>) => {
    await scheduler.wait(1)
    const start = performance.now()
    await fn()
    await scheduler.wait(1)
    return performance.now() - start
  }
  const empty = await bracket(async () => {})
  const full = await bracket(async () => {
    for (let i = 0; i < batch; i++) await work(i)
  })
  return Math.max(0, full - empty) / batch
}

/** `batch` runs of `work` timed inside the object, with the rows they read and wrote, per run. */
export async function perRun(
  rows: { take(): RowCounts },
  batch: number,
  work: (i: number) => Promise<unknown>,
): Promise<Measured> {
  rows.take()
  const ms = await timedInside(batch, work)
  const { rowsRead, rowsWritten } = rows.take()
  return { samples: [ms], rows: { rowsRead: rowsRead / batch, rowsWritten: rowsWritten / batch } }
}
