/**
 * Issue 51, the memory store: a memory command as a turn runs it (the session object's call to the
 * user's memory object) against the REST call that does the same through the app, listing 1,000
 * files, and what a turn reads of the user's memory with the tool and without.
 */
import { ms } from '../stats'
import type { BenchWorker } from './client'
import { column, median, medianRatio, p95 } from './columns'
import { ROUNDS, RUN } from './config'
import type { MeasurementName } from './measurements'
import type { Key, MeasuredTable, Measurement } from './runner'

/** Users of this run (the state is kept between runs): the REST calls', the turn's, the 1,000 files', the rows'. */
const USERS = { rest: `mem-rest-${RUN}`, turn: `mem-turn-${RUN}`, thousand: `mem-1000-${RUN}`, rows: `mem-rows-${RUN}` }
const FILES = 1000
/** The operations compared, each the tool's command and the REST call that does the same. */
const OPERATIONS = {
  create: ['create (a new file)', 'PUT of a new file'],
  replace: ['str_replace', 'PATCH { replace }'],
  view: ['view of a file', 'GET of the file'],
  list: [`view of /memories, ${FILES.toLocaleString('en')} files`, 'GET /v1/memories (the list)'],
} as const
type Operation = keyof typeof OPERATIONS
/** Where each operation runs: listing on the user with 1,000 files, the rest on small stores. */
const userOf = (operation: Key, side: 'rest' | 'turn') => (operation === 'list' ? USERS.thousand : USERS[side])
/** Calls a sample: 20 (10 for the listings), so the clock's 3 ms step is 0.15 ms of one. */
const batchOf = (operation: Key) => (operation === 'list' ? 10 : 20)

/** Each sample's calls new names (a create makes a new file each time). */
let next = 0
const from = (operation: Key) => (next += batchOf(operation))

export function memoryMeasurements(worker: BenchWorker) {
  const seeded = new Map<string, Promise<unknown>>()
  const seed = (user: string, files: number) => {
    if (!seeded.has(user)) seeded.set(user, worker.bench('memory/seed', { user, files }))
    return seeded.get(user)!
  }
  const setup = (operation: Key) =>
    Promise.all([seed(userOf(operation, 'rest'), operation === 'list' ? FILES : 2), seed(USERS.turn, 2)])
  const keys = Object.keys(OPERATIONS) as Operation[]
  return {
    memoryRest: {
      rounds: ROUNDS,
      keys,
      setup,
      sample: (operation) =>
        worker.bench('memory/rest', {
          user: userOf(operation, 'rest'),
          op: operation,
          batch: batchOf(operation),
          from: from(operation),
        }),
    },
    memoryInTurn: {
      rounds: ROUNDS,
      keys,
      setup,
      sample: (operation) =>
        worker.bench('memory/in-turn', {
          user: userOf(operation, 'turn'),
          session: `mem-${RUN}`,
          op: operation,
          batch: batchOf(operation),
          from: from(operation),
        }),
    },
    memoryListInside: {
      rounds: ROUNDS,
      keys: [`${FILES} files`],
      setup: () => seed(USERS.thousand, FILES),
      sample: () => worker.bench('memory/list-inside', { user: USERS.thousand, batch: 20 }),
    },
    memoryTurnReads: {
      rounds: 3,
      keys: ['none', 'offered', 'command'],
      sample: (mode) => worker.bench('memory/turn', { user: USERS.rows, session: `mem-rows-${mode}-${RUN}`, mode }),
    },
  } satisfies Record<string, Measurement>
}

const TURN_MODES: Record<string, string> = {
  none: 'a turn without the memory tool',
  offered: 'the tool offered, the model not calling it',
  command: 'the tool offered, the model creating one file',
}

export const MEMORY_TABLES: MeasuredTable<MeasurementName>[] = [
  {
    title:
      'A memory command inside a turn (the session object’s call to the user’s memory object, as a turn makes it, timed inside the session object) against the REST call that does the same (through the app in workerd; 20 a sample, the listings 10)',
    measure: [['memoryRest', 'memoryInTurn']],
    columns: [
      column('command in a turn', (operation) => OPERATIONS[operation as Operation][0]),
      median('in a turn median', 'memoryInTurn'),
      p95('memoryInTurn'),
      column('REST call', (operation) => OPERATIONS[operation as Operation][1]),
      median('REST median', 'memoryRest'),
      p95('memoryRest'),
      medianRatio('in a turn / REST', 'memoryInTurn', 'memoryRest'),
    ],
    notes: [() => 'target: in a turn / REST ≤ 1.2×'],
  },
  {
    title: `Listing ${FILES.toLocaleString('en')} memory files: GET /v1/memories through the app in workerd, and the same list inside the memory object (20 a sample)`,
    measure: ['memoryListInside', 'memoryRest'],
    columns: [
      column('files', () => FILES.toLocaleString('en')),
      column('GET /v1/memories median', (_, r) => ms(r.median('memoryRest', 'list'))),
      column('p95', (_, r) => ms(r.p95('memoryRest', 'list'))),
      median('inside the object median', 'memoryListInside'),
      p95('memoryListInside'),
      column('rows read inside', (key, r) => Math.round(r.rows('memoryListInside', key).rowsRead)),
    ],
    notes: [(r) => `target: under 10 ms in workerd — GET /v1/memories: ${ms(r.median('memoryRest', 'list'))} (median)`],
  },
  {
    title:
      'What a turn reads of the user’s memory object (one turn each, 3 samples; the object’s commands and rows during the turn)',
    measure: ['memoryTurnReads'],
    columns: [
      column('turn', (mode) => TURN_MODES[mode as string]!),
      column('memory commands', (mode, r) => r.countMedian('memoryTurnReads', mode, 'commands')),
      column('rows read', (mode, r) => Math.round(r.rows('memoryTurnReads', mode).rowsRead)),
      column('rows written', (mode, r) => Math.round(r.rows('memoryTurnReads', mode).rowsWritten)),
    ],
    notes: [() => 'target: a turn that does not offer the tool reads no memory (0 commands, 0 rows)'],
  },
]
