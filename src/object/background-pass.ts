import { log } from '../log'

/**
 * A session object's background pass: at most one at a time, run after the turn that started it
 * was answered. `ctx.waitUntil` and the platform's keep-alive for pending I/O (compatibility date
 * 2026-10-01 on) keep the object in memory while it runs, with no client connected. No alarm:
 * a pass lost to an eviction loses nothing — the log is whole, the view as it was, and the next
 * turn's policy fires again — where an alarm would cost a storage write on every turn.
 *
 * @example
 * const passes = new BackgroundPass((work) => ctx.waitUntil(work))
 * passes.start(async () => { await compactor.run(session, info, request) })
 */
export class BackgroundPass {
  private running: Promise<void> | null = null
  /** The pass to start once the running one ends (see {@link startOrQueue}). */
  private queued: (() => Promise<void>) | null = null

  constructor(private readonly waitUntil: (work: Promise<unknown>) => void) {}

  /** Whether a pass runs now. */
  get compacting(): boolean {
    return this.running !== null
  }

  /** Starts `pass` unless one runs already; whether it started. `pass` reports its own failures (what escapes it is logged). */
  start(pass: () => Promise<void>): boolean {
    if (this.running) return false
    const running = pass()
      .catch((error: unknown) => log.error('a background pass failed unexpectedly', { error: String(error) }))
      .finally(() => {
        this.running = null
        const next = this.queued
        this.queued = null
        if (next) this.start(next)
      })
    this.running = running
    this.waitUntil(running)
    return true
  }

  /**
   * Starts `pass`, or, when one runs, once that one has ended: work asked for meanwhile is not
   * lost, and runs on what the running one left. Only the newest waits (it replaces one waiting).
   */
  startOrQueue(pass: () => Promise<void>): void {
    if (!this.start(pass)) this.queued = pass
  }

  /** Waits until no pass runs, a queued one included. */
  async settled(): Promise<void> {
    while (this.running) await this.running
  }
}
