/**
 * Turns on one session, one at a time, in arrival order. A turn may release the queue early —
 * once its events are written — so the next turn's prompt includes them while this one still
 * runs its compaction.
 *
 * @example
 * const queue = new TurnQueue()
 * await queue.run(async (releaseEarly) => {
 *   await write()
 *   releaseEarly()
 *   await compactAfter()
 * })
 */
export class TurnQueue {
  private last: Promise<void> = Promise.resolve()
  private queued = 0

  /** How many turns wait for the one running (or for each other) to release the queue. */
  get waiting(): number {
    return this.queued
  }

  /** Runs `work` after every earlier turn released the queue; released when `work` ends, if not before. */
  async run<T>(work: (releaseEarly: () => void) => Promise<T>): Promise<T> {
    const previous = this.last
    let release!: () => void
    this.last = new Promise<void>((resolve) => {
      release = resolve
    })
    this.queued++
    try {
      await previous
    } finally {
      this.queued--
    }
    try {
      return await work(release)
    } finally {
      release()
    }
  }
}
