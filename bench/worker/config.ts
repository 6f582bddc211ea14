/** The worker suite's settings: sizes, rounds, and the names its sessions are made under. */

/** Log sizes measured (events), smallest first: ratios are taken between the largest and the first. */
export const SIZES = process.env.BENCH_SIZES?.split(',').map(Number) ?? [1_000, 10_000, 100_000, 1_000_000]
export const LARGEST = SIZES.at(-1)!
export const SMALLEST = SIZES[0]!

/** Rounds per measurement; the slower or less varied measurements take a half or a quarter of them. */
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40)
export const HALF_ROUNDS = Math.max(5, Math.floor(ROUNDS / 2))

/** Projecting the whole log per read is not run beyond this (at 1M it takes seconds a read). */
export const NAIVE_MAX = 100_000
export const NAIVE_SIZES = SIZES.filter((size) => size <= NAIVE_MAX)

/** Turns a session's view keeps: ~400 events of ~150 bytes, about the 64 KiB the peer reads back. */
export const VIEW_TURNS = 200

export const SECRET = 'bench-secret'
export const USER = 'bench'
/** Sessions made per run get this suffix; the big logs are kept in `.bench/state` between runs. */
export const RUN = Date.now().toString(36)

/**
 * A turn's policy whose pass fires on every turn and runs in the background, summarizing with a
 * model that takes 2 s (the stub's `slow-2000`): a turn must not wait for it.
 */
export const BACKGROUND_PASS = {
  trigger: { always: true },
  strategy: { window: { lastTurns: VIEW_TURNS - 20 }, summarizer: { model: 'slow-2000' } },
  background: true,
}

/** A turn's compaction policy that checks its trigger and never fires. */
export const NO_COMPACTION = { trigger: { tokenCount: 1_000_000_000 }, strategy: {} }
