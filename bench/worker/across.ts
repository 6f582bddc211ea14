/**
 * The search across sessions, measured over HTTP (end to end, the dev server's proxy in every
 * figure): a user of `BENCH_ACROSS_SESSIONS` sessions (1,000) of `BENCH_ACROSS_EVENTS` events
 * each (1,000), kept in `.bench/state` between runs; a search of all of them against a search of
 * the one session that holds the same hit; an append with the hand-over to the search shards on
 * and off; and how long a write takes to be found across sessions.
 */
import type { Measured } from '../shared'
import type { BenchWorker } from './client'
import { ROUNDS, RUN } from './config'
import type { Measurement } from './runner'

export const ACROSS_SESSIONS = Number(process.env.BENCH_ACROSS_SESSIONS ?? 1000)
export const ACROSS_EVENTS = Number(process.env.BENCH_ACROSS_EVENTS ?? 1000)
const USER = `bench-across-${ACROSS_SESSIONS}x${ACROSS_EVENTS}`

/** Session k's word no other event holds. */
const codeword = (k: number) => `zq${k.toString(36)}vex`
const sessionId = (k: number) => `across-${k}`

/** Session k's `events` events (default {@link ACROSS_EVENTS}): notes on its project, its codeword in the middle one. */
function eventsOf(k: number, events = ACROSS_EVENTS) {
  return Array.from({ length: events }, (_, i) => ({
    message: {
      role: i % 2 === 0 ? 'user' : 'assistant',
      content:
        i === Math.floor(events / 2)
          ? `The codeword for project ${k} is ${codeword(k)}, keep it safe.`
          : `Note ${i} of project ${k}: what did we decide about the rollout plan, and which items are still open?`,
    },
  }))
}

const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`

/** Polls a search across sessions until it finds `word` (at most ~60 s); answers how long it took, in ms. */
async function untilFound(api: (method: string, path: string) => Promise<any>, word: string): Promise<number> {
  const started = performance.now()
  for (let polls = 0; polls < 6000; polls++) {
    const page = await api('GET', `/v1/search?q=${word}&mode=all&limit=1`)
    if (page.hits.length > 0) return performance.now() - started
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error(`${word} was never found across sessions`)
}

/**
 * A user's `sessions` sessions of `events` events each: kept from an earlier run when the last
 * one's codeword is found, else written (8 appends in flight) and waited for until every session
 * is found across sessions.
 */
async function seedUser(worker: BenchWorker, user: string, sessions: number, events: number) {
  const api = await worker.as(user)
  const last = sessions - 1
  const kept = await api('GET', `/v1/search?q=${codeword(last)}&mode=all&limit=1`)
  if (kept.hits.length > 0) return console.log(`kept ${user} from an earlier run`)
  const started = performance.now()
  let next = 0
  const writer = async () => {
    for (let k = next++; k < sessions; k = next++)
      await api('POST', `/v1/sessions/${sessionId(k)}/events`, { events: eventsOf(k, events) })
  }
  await Promise.all(Array.from({ length: 8 }, writer))
  console.log(`seeded ${user}: ${seconds(started)} written`)
  for (let k = 0; k < sessions; k++) await untilFound(api, codeword(k))
  console.log(`seeded ${user}: ${seconds(started)} with every session handed over`)
}

/** The user of the across-sessions tables: {@link ACROSS_SESSIONS} sessions × {@link ACROSS_EVENTS} events. */
const seedAcross = (worker: BenchWorker) => seedUser(worker, USER, ACROSS_SESSIONS, ACROSS_EVENTS)

/**
 * The user whose 1,000 sessions hold `size` events in all (`size / 1,000` each, at least 1): the
 * search across sessions at a log size (bench/worker/at-size.ts). At 1,000,000 it is the user of
 * the across-sessions tables when those are 1,000 × 1,000, seeded once for both.
 */
export const acrossUserAt = (size: number) => `bench-across-1000x${Math.max(1, Math.floor(size / 1000))}`
const seededAt = new Map<number, Promise<void>>()
export function seedAcrossAt(worker: BenchWorker, size: number): Promise<void> {
  const events = Math.max(1, Math.floor(size / 1000))
  if (!seededAt.has(size)) seededAt.set(size, seedUser(worker, acrossUserAt(size), 1000, events))
  return seededAt.get(size)!
}

/** A sample of `batch` calls timed together from here, per call. */
async function timed(batch: number, call: (i: number) => Promise<unknown>): Promise<Measured> {
  const started = performance.now()
  for (let i = 0; i < batch; i++) await call(i)
  return { samples: [(performance.now() - started) / batch] }
}

type Api = (method: string, path: string, body?: unknown) => Promise<any>

/** A user's calls, its token made on first use. */
const callsAs = (worker: BenchWorker, user: string): Api => {
  let made: Promise<Api> | null = null
  return async (method, path, body) => {
    made ??= worker.as(user)
    return (await made)(method, path, body)
  }
}

/** The measurements of the search across sessions, by name. */
export function acrossMeasurements(worker: BenchWorker) {
  const api = callsAs(worker, USER)
  const appender = callsAs(worker, `bench-append-${RUN}`)
  let seeded: Promise<void> | null = null
  const setup = () => {
    seeded ??= seedAcross(worker)
    return seeded
  }
  // Each round another session's codeword: the same one hit, found both ways.
  const pick = (round: number) => (round * 7919) % ACROSS_SESSIONS
  let appended = 0
  return {
    acrossOne: {
      rounds: ROUNDS,
      keys: ['codeword'],
      setup,
      sample: (_key, round) =>
        timed(5, () => api('GET', `/v1/sessions/${sessionId(pick(round))}/search?q=${codeword(pick(round))}`)),
    },
    acrossAll: {
      rounds: ROUNDS,
      keys: ['codeword'],
      setup,
      sample: (_key, round) => timed(5, () => api('GET', `/v1/search?q=${codeword(pick(round))}`)),
    },
    acrossQuestion: {
      rounds: ROUNDS,
      keys: ['question'],
      setup,
      sample: (_key, round) =>
        timed(2, () => api('GET', `/v1/search?q=${encodeURIComponent(`what was the codeword of project ${pick(round)}?`)}`)),
    },
    // Ten appends of a turn's two events back to back, on a session with the hand-over and on one without.
    acrossAppend: {
      rounds: ROUNDS,
      keys: ['on', 'off'],
      sample: (key) =>
        timed(10, () =>
          appender('POST', `/v1/sessions/${key === 'on' ? 'across' : 'noacross'}-append-${RUN}/events`, {
            events: [
              { message: { role: 'user', content: `question ${++appended} about the release` } },
              { message: { role: 'assistant', content: `answer ${appended}` } },
            ],
          }),
        ),
    },
    // A write's answer, then the first search across sessions that finds it (polled every 10 ms).
    acrossLag: {
      rounds: Math.max(20, ROUNDS),
      keys: ['lag'],
      sample: async (_key, round) => {
        const word = `lag${round}x${RUN}`
        await appender('POST', `/v1/sessions/lag-${round % 10}-${RUN}/events`, {
          events: [{ message: { role: 'user', content: `${word} now` } }],
        })
        return { samples: [await untilFound(appender, word)] }
      },
    },
  } satisfies Record<string, Measurement>
}
