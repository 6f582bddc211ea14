/**
 * Issue 53 §1, flat cost: round four's new paths on the suite's logs of each size (1k to 1M
 * events, seeded and kept as ./seeding.ts says), each path's rows and time at every size against
 * its own at the smallest. All of them are run in one step, so that every round takes each path
 * at each size in turn (drift hits every size alike).
 */
import { sign } from 'hono/jwt'
import { ms } from '../stats'
import { acrossUserAt, seedAcrossAt } from './across'
import type { BenchWorker } from './client'
import { column, n, ratio } from './columns'
import { HALF_ROUNDS, LARGEST, RUN, SECRET, SIZES, SMALLEST, USER, VIEW_TURNS } from './config'
import type { MeasurementName } from './measurements'
import { peakOf } from './peak'
import type { Key, MeasuredTable, Measurement, Results } from './runner'
import { type Sessions, turnEvents } from './seeding'

/** Image turns a sample: each after an untimed first turn that carries the image, the client resending it. */
const IMAGE_TURNS = 3

/** Each sample's clearings start at new tool groups (ten a sample: see `loopClearings`). */
let groups = 0
/** Each sample's memory commands' numbering. */
let commands = 0

/** A ranked question across a user's sessions (mode auto): a project's codeword among notes on every project. */
const acrossQuestion = (round: number) => `what was the codeword of project ${(round * 7919) % 1000}?`
/**
 * A question whose matches are the same at every size: the codeword is in one event of each
 * session whatever its length (1,000 events in all), where the project's number above is also a
 * note's number in every session of 1,000 events.
 */
const SAME_MATCHES = 'what was the codeword?'

/** A message event as the log answers it. */
type LoggedEvent = { id: string; seq: number; type: string; synthetic: boolean; message?: { content: unknown } }

/**
 * The newest message the seeding wrote (the view's tip as seeded): the message before the first
 * one with parts (this table's first image turn), or the log's newest message if there is none.
 * The seeding wrote `size` events and a pass after every 1,000: all of them before `size`. On a
 * log seeded after this table first ran, that message is the first run's base turn (see
 * `baseOf`), whose view is the same cut of the seeded one.
 */
async function seededTip({ api }: BenchWorker, session: string, size: number): Promise<string> {
  let tip: string | undefined
  for (let after = Math.max(0, size - 10); ; ) {
    const page = (await api('GET', `/v1/sessions/${session}/events?after=${after}&limit=1000`)) as {
      events: LoggedEvent[]
      nextAfter: number | null
    }
    for (const event of page.events) {
      // A pass's summary is no message of the conversation (a rewind cannot name it).
      if (event.type !== 'MESSAGE' || event.synthetic) continue
      if (Array.isArray(event.message!.content) && tip) return tip
      tip = event.id
    }
    if (page.nextAfter === null) return tip!
    after = page.nextAfter
  }
}

export function atSizeMeasurements(worker: BenchWorker, sessions: Sessions) {
  const ours = (key: Key) => sessions.ours(Number(key))
  /**
   * Each size's view as every sample here starts it, made once a run (untimed): the session taken
   * back to its view as seeded (a REWIND to {@link seededTip}; the seeded views differ, ~400 to
   * ~1,400 events, by where the last seeding pass fell), a window pass keeping its last
   * {@link VIEW_TURNS} turns (~400 events, as a live session keeps it), then one turn with an id
   * of this run: the view's tip, answered.
   */
  const bases = new Map<Key, Promise<string>>()
  const baseOf = (key: Key) => {
    if (!bases.has(key))
      bases.set(
        key,
        (async () => {
          const session = ours(key)
          const seeded = await seededTip(worker, session, Number(key))
          await worker.api('POST', `/v1/sessions/${session}/rewind`, { to: seeded, position: 'at' })
          await worker.api('POST', `/v1/sessions/${session}/compact`, { strategy: { window: { lastTurns: VIEW_TURNS } } })
          const tip = `base-${RUN}-${key}`
          const [question, answer] = turnEvents(0)
          await worker.api('POST', `/v1/sessions/${session}/events`, { events: [question, { ...answer, id: tip }] })
          return tip
        })(),
      )
    return bases.get(key)!
  }
  /**
   * The session taken back to that view (a REWIND, untimed) before the first sample and after
   * each that appends: every sample at every size and round runs on the same ~400-event view of
   * text, while the log keeps everything (the abandoned branches too) and grows.
   */
  const rewind = async (key: Key) => {
    const to = await baseOf(key)
    const view = (await worker.api('GET', `/v1/sessions/${ours(key)}/view`)) as { events: { id: string }[] }
    if (view.events.at(-1)?.id === to) return
    await worker.api('POST', `/v1/sessions/${ours(key)}/rewind`, { to, position: 'at' })
  }
  const imageTurn =
    (door: string): Measurement['sample'] =>
    (key) =>
      worker.bench('media/at-size', { user: USER, session: ours(key), door, batch: IMAGE_TURNS })
  const image = (door: string): Measurement => ({
    rounds: HALF_ROUNDS,
    setup: rewind,
    after: rewind,
    sample: imageTurn(door),
  })
  return {
    /** The table's rows: its paths (nothing is measured under this name). */
    roundFourPaths: {
      rounds: 0,
      keys: Object.keys(PATHS),
      sample: () => Promise.reject(new Error('roundFourPaths is the table’s rows, not a measurement')),
    },
    imageAtSizeChat: image('chat'),
    imageAtSizeMessages: image('messages'),
    imageAtSizeResponses: image('responses'),
    imageAtSizeTurns: image('turns'),
    clearingAtSize: {
      rounds: HALF_ROUNDS,
      setup: rewind,
      after: rewind,
      sample: (key) => {
        const from = groups
        groups += 10
        return worker.bench('loops/clearing', { user: USER, session: ours(key), from, batch: 5 })
      },
    },
    inTurnAtSize: {
      rounds: HALF_ROUNDS,
      setup: rewind,
      after: rewind,
      sample: (key) => worker.bench('in-turn-pass', { user: USER, session: ours(key), batch: 5 }),
    },
    preparedAtSize: {
      rounds: HALF_ROUNDS,
      setup: rewind,
      after: rewind,
      sample: async (key) =>
        worker.bench('prepared-pass', { user: USER, session: ours(key), base: await baseOf(key), batch: 10 }),
    },
    acrossAtSize: {
      rounds: HALF_ROUNDS,
      setup: (key) => seedAcrossAt(worker, Number(key)),
      sample: (key, round) =>
        worker.bench('search-across', { user: acrossUserAt(Number(key)), q: acrossQuestion(round), batch: 2 }),
    },
    acrossSameAtSize: {
      rounds: HALF_ROUNDS,
      setup: (key) => seedAcrossAt(worker, Number(key)),
      sample: (key) => worker.bench('search-across', { user: acrossUserAt(Number(key)), q: SAME_MATCHES, batch: 2 }),
    },
    mcpReadAtSize: {
      rounds: HALF_ROUNDS,
      sample: (key) => worker.bench('mcp/tool-at-size', { op: 'read', user: USER, session: ours(key), batch: 10 }),
    },
    mcpSearchAtSize: {
      rounds: HALF_ROUNDS,
      setup: (key) => seedAcrossAt(worker, Number(key)),
      sample: (key) => worker.bench('mcp/tool-at-size', { op: 'search', user: acrossUserAt(Number(key)), batch: 2 }),
    },
    acrossPeak: {
      rounds: 5,
      keys: [LARGEST],
      setup: (key) => seedAcrossAt(worker, Number(key)),
      sample: async (key, round) => {
        const user = acrossUserAt(Number(key))
        const token = await sign({ sub: user, exp: Math.floor(Date.now() / 1000) + 3600 }, SECRET, 'HS256')
        const q = encodeURIComponent(acrossQuestion(round))
        return peakOf(worker, `/v1/search?q=${q}&limit=20`, undefined, { Authorization: `Bearer ${token}` })
      },
    },
    memoryAtSize: {
      rounds: HALF_ROUNDS,
      setup: () => worker.bench('memory/seed', { user: USER, files: 2 }),
      sample: (key) => {
        const from = commands
        commands += 20
        return worker.bench('memory/in-turn', { user: USER, session: ours(key), op: 'view', batch: 20, from })
      },
    },
  } satisfies Record<string, Measurement>
}

/** Each path: its measurement, what it is, and where its rows are counted. */
const PATHS: Record<string, { name: MeasurementName; what: string; rows: string }> = {
  chat: {
    name: 'imageAtSizeChat',
    what: 'an image turn, chat completions (`image_url`), the client resending it',
    rows: 'session object',
  },
  messages: { name: 'imageAtSizeMessages', what: 'an image turn, Messages (`image`), the same', rows: 'session object' },
  responses: {
    name: 'imageAtSizeResponses',
    what: 'an image turn, Responses (`input_image`), the same',
    rows: 'session object',
  },
  turns: { name: 'imageAtSizeTurns', what: 'an image turn, `/turns`, the image in each new message', rows: 'session object' },
  clearing: {
    name: 'clearingAtSize',
    what: 'a clearing pass (keep 3) after a tool group of 8 KB, less the append',
    rows: 'session object',
  },
  inTurn: {
    name: 'inTurnAtSize',
    what: 'a pass inside the newest turn (4 tool groups, 3 covered), as the fit check runs it',
    rows: 'session object',
  },
  prepared: {
    name: 'preparedAtSize',
    what: 'a compaction answered from a prepared summary (the view but its last 4 turns, ~400 events covered)',
    rows: 'session object',
  },
  search: {
    name: 'searchQuestion',
    what: 'a ranked search in the session (mode auto, every word common, 20 hits)',
    rows: 'session object',
  },
  across: {
    name: 'acrossAtSize',
    what: 'a ranked search across 1,000 sessions holding the size in all (`GET /v1/search`)',
    rows: 'search shards (4)',
  },
  acrossSame: {
    name: 'acrossSameAtSize',
    what: 'the same, a question whose matches are the same at every size (`what was the codeword?`: 1,000 events)',
    rows: 'search shards (4)',
  },
  mcpRead: { name: 'mcpReadAtSize', what: 'MCP `read_session` (the newest 20 events)', rows: 'session object' },
  mcpSearch: {
    name: 'mcpSearchAtSize',
    what: 'MCP `search_sessions` across the same 1,000 sessions',
    rows: 'search shards (4)',
  },
  memory: {
    name: 'memoryAtSize',
    what: 'a memory command in a turn (`view` of a file)',
    rows: 'session object (memory object: see note)',
  },
}

const pathOf = (key: Key) => PATHS[key as string]!
/** Rows, to a tenth when a mean over calls. */
const rowsText = (value: number) => (Number.isInteger(value) ? n(value) : value.toFixed(1))
const rowsAt = (r: Results, key: Key, size: number) => {
  const { rowsRead, rowsWritten } = r.rows(pathOf(key).name, size)
  return `${rowsText(rowsRead)} / ${rowsText(rowsWritten)}`
}

const sizeLabel = (size: number) => (size >= 1_000_000 ? `${size / 1_000_000}M` : `${size / 1000}k`)

export const AT_SIZE_TABLES: MeasuredTable<MeasurementName>[] = [
  {
    title: `Round four at size: each new path on logs of ${SIZES.map(sizeLabel).join(', ')} events (the suite's sessions; the search across sessions on a user of 1,000 sessions holding that many events in all), its median time (in workerd) and the rows it read / wrote per call, against its own at ${sizeLabel(SMALLEST)}; every path at every size in turn, each round`,
    measure: [
      'roundFourPaths',
      [
        'imageAtSizeChat',
        'imageAtSizeMessages',
        'imageAtSizeResponses',
        'imageAtSizeTurns',
        'clearingAtSize',
        'inTurnAtSize',
        'preparedAtSize',
        'searchQuestion',
        'acrossAtSize',
        'acrossSameAtSize',
        'mcpReadAtSize',
        'mcpSearchAtSize',
        'memoryAtSize',
      ],
    ],
    columns: [
      column('path', (key) => pathOf(key).what),
      column('rows counted in', (key) => pathOf(key).rows),
      ...SIZES.flatMap((size) => [
        column(`${sizeLabel(size)}: median`, (key, r) => ms(r.median(pathOf(key).name, size))),
        column('rows read / written', (key, r) => rowsAt(r, key, size)),
      ]),
      ...SIZES.filter((size) => size !== SMALLEST).map((size) =>
        column(`${sizeLabel(size)} ÷ ${sizeLabel(SMALLEST)}`, (key, r) =>
          ratio(r.median(pathOf(key).name, size), r.median(pathOf(key).name, SMALLEST)),
        ),
      ),
    ],
    notes: [
      () => `target: rows the same at every size; time at each size ≤ 1.2× of ${sizeLabel(SMALLEST)}'s`,
      (r) =>
        `memory object's rows per command (read / written), by size: ${SIZES.map((size) => `${r.countMedian('memoryAtSize', size, 'memoryRowsRead')} / ${r.countMedian('memoryAtSize', size, 'memoryRowsWritten')}`).join(', ')}`,
      (r) =>
        `not flat (rows at ${sizeLabel(LARGEST)} ≠ at ${sizeLabel(SMALLEST)}, or time > 1.2×): ${
          Object.keys(PATHS)
            .filter((key) => {
              const { name } = pathOf(key)
              const [small, large] = [r.rows(name, SMALLEST), r.rows(name, LARGEST)]
              const rowsGrew = large.rowsRead !== small.rowsRead || large.rowsWritten !== small.rowsWritten
              return rowsGrew || SIZES.some((size) => r.median(name, size) > 1.2 * r.median(name, SMALLEST))
            })
            .join(', ') || 'none'
        }`,
    ],
  },
  {
    title:
      'The memory a search across sessions takes: the resident set of the workerd process that runs the Worker and its objects, its peak during a ranked question (`GET /v1/search`) above what it held before (Linux /proc), on the largest index seeded (1,000 sessions holding the largest size in all), over HTTP',
    measure: ['acrossPeak'],
    columns: [
      column('index', (key) => `${sizeLabel(Number(key))} events in 1,000 sessions`),
      column('peak growth median (MB)', (key, r) => r.median('acrossPeak', key).toFixed(1)),
      column('resident before (MB)', (key, r) => r.countMedian('acrossPeak', key, 'before').toFixed(0)),
      column('time median', (key, r) => ms(r.countMedian('acrossPeak', key, 'time'))),
    ],
  },
]
