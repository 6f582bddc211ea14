/**
 * Every measurement of the worker suite, declared once: what one sample calls (a bench route of
 * bench/entry.ts, timed in workerd, or a request timed from here), how many rounds, where. A
 * sample in workerd times a batch of calls and divides: the clock there moves in 3 ms steps.
 */
import type { Measured, StorageWork } from '../shared'
import { acrossMeasurements } from './across'
import { agentLoopMeasurements } from './agent-loops'
import { atSizeMeasurements } from './at-size'
import type { BenchWorker, Params } from './client'
import { clientHistory } from './client-history'
import { BACKGROUND_PASS, HALF_ROUNDS, NAIVE_SIZES, NO_COMPACTION, ROUNDS, RUN, SIZES, SMALLEST, USER } from './config'
import { eventsMeasurements } from './events'
import { mcpMeasurements } from './mcp'
import { mediaMeasurements } from './media'
import { memoryMeasurements } from './memory'
import {
  appendsPerSecond,
  bundleSize,
  type ColdPart,
  coldIsolate,
  exportAndImport,
  type FirstBytePath,
  firstByteVia,
  timedHere,
  tokenizerCalls,
} from './over-http'
import { preparedMeasurements } from './prepared'
import { CODEX_CACHE_KEYS, codexCacheShare, promptPrefixShare } from './prompt-cache'
import type { Key, Measurement } from './runner'
import { keepViewShort, type Sessions, seed } from './seeding'

/** A route's parameters, or how they follow from the key. */
type ParamsAt = Params | ((key: Key) => Params)
const paramsAt = (params: ParamsAt, key: Key) => (typeof params === 'function' ? params(key) : params)

/** How measurements reach the sessions of a size. */
function targetsOf(worker: BenchWorker, sessions: Sessions) {
  const ours = (key: Key) => sessions.ours(Number(key))
  return {
    worker,
    ours,
    /** A bench route on our session of the size. */
    onOurs: (route: string, params: ParamsAt) => (key: Key) =>
      worker.bench(route, { user: USER, session: ours(key), ...paramsAt(params, key) }),
    /** A bench route on the peer's history of the size. */
    onPeer: (route: string, params: ParamsAt) => (key: Key) =>
      worker.bench(route, { peer: sessions.peer(Number(key)), ...paramsAt(params, key) }),
    /** After a sample that appended: the view compacted back to its usual length, untimed. */
    keepShort: (key: Key) => keepViewShort(worker, ours(key)),
  }
}
type Targets = ReturnType<typeof targetsOf>

const compaction = JSON.stringify(NO_COMPACTION)

/** A whole chat turn through the object, 10 a sample (run again beside the chat-completions door, on the same sessions). */
const turnInWorkerd = ({ onOurs, keepShort }: Targets): Measurement => ({
  rounds: ROUNDS,
  after: keepShort,
  sample: onOurs('turn', { batch: 10, compaction }),
})

function turnsAndViews(targets: Targets) {
  const { worker, ours, onOurs, keepShort } = targets
  const turnOverHttp = (key: Key) =>
    timedHere(() => worker.api('POST', `/v1/sessions/${ours(key)}/turns`, { content: 'hello', compaction: NO_COMPACTION }))
  const viewEvents = async (key: Key): Promise<Measured> => {
    const { stats } = await worker.api('GET', `/v1/sessions/${ours(key)}`)
    return { samples: [], counts: { viewEvents: stats.viewEvents } }
  }
  return {
    turnInWorkerd: turnInWorkerd(targets),
    turnOverHttp: { rounds: ROUNDS, after: keepShort, sample: turnOverHttp },
    appendAndView: { rounds: ROUNDS, after: keepShort, sample: onOurs('append-view', { batch: 5 }) },
    viewEvents: { rounds: 1, sample: viewEvents },
    viewInObject: { rounds: ROUNDS, sample: onOurs('view/in-object', { batch: 10 }) },
    viewOverRpc: { rounds: ROUNDS, sample: onOurs('view/rpc', { batch: 10 }) },
    viewNaive: { rounds: Math.max(5, Math.floor(ROUNDS / 4)), keys: NAIVE_SIZES, sample: onOurs('view/naive', {}) },
    viewCold: { rounds: HALF_ROUNDS, sample: onOurs('view/cold', { batch: 5 }) },
  } satisfies Record<string, Measurement>
}

/** Where the turns of a storage sample start: each sample's are new to the session. */
let turnsSent = 0
const nextTurns = () => (turnsSent += 40)

function storage({ onOurs, onPeer, keepShort }: Targets) {
  /** One RPC that runs 20 turns' storage work inside the object, timed there, with their rows. */
  const storageTurns = (side: 'ours' | 'peer', work: StorageWork, rounds: number): Measurement => {
    const params = () => ({ batch: 20, from: nextTurns(), work })
    return side === 'ours'
      ? { rounds, after: keepShort, sample: onOurs('storage-turns', params) }
      : { rounds, sample: onPeer('peer/storage-turns', params) }
  }
  return {
    storageOurs: storageTurns('ours', 'turn', ROUNDS),
    storagePeer: storageTurns('peer', 'turn', ROUNDS),
    toolStorageOurs: storageTurns('ours', 'tool', HALF_ROUNDS),
    toolStoragePeer: storageTurns('peer', 'tool', HALF_ROUNDS),
    // The peer's turns with a compaction overlay over the older half of its history.
    peerWithOverlay: { ...storageTurns('peer', 'turn', HALF_ROUNDS), setup: onPeer('peer/overlay', (key) => ({ upTo: key })) },
    // The raw-SQLite floor of a turn's storage work: two plain inserts, the view's rows read by seq.
    floor: { rounds: HALF_ROUNDS, sample: onOurs('floor-turns', () => ({ batch: 20, from: nextTurns() })) },
  } satisfies Record<string, Measurement>
}

/** A door turn (chat completions, Messages or Responses) sending only the new message, or resending the last `resent` messages of history with it. */
const doorTurn =
  ({ worker, ours }: Targets, resent: number, door: 'chat' | 'messages' | 'responses' = 'chat') =>
  async (key: Key) => {
    const history = resent === 0 ? [] : await clientHistory(worker, ours(key), resent)
    return worker.bench('door', { user: USER, session: ours(key), batch: 10, compaction, door }, { history })
  }

function wholeTurns(targets: Targets) {
  const { onOurs, keepShort } = targets
  return {
    turnRows: { rounds: 5, after: keepShort, sample: onOurs('turn-rows', { compaction }) },
    continuation: { rounds: ROUNDS, after: keepShort, sample: onOurs('tool-continuation', { batch: 5, compaction }) },
    chatDoorOnlyNew: { rounds: ROUNDS, after: keepShort, sample: doorTurn(targets, 0) },
    turnBesideChatDoor: turnInWorkerd(targets),
    chatDoorResending: { rounds: HALF_ROUNDS, after: keepShort, sample: doorTurn(targets, 1000) },
    messagesDoorOnlyNew: { rounds: ROUNDS, after: keepShort, sample: doorTurn(targets, 0, 'messages') },
    turnBesideMessagesDoor: turnInWorkerd(targets),
    messagesDoorResending: { rounds: HALF_ROUNDS, after: keepShort, sample: doorTurn(targets, 1000, 'messages') },
    responsesDoorOnlyNew: { rounds: ROUNDS, after: keepShort, sample: doorTurn(targets, 0, 'responses') },
    turnBesideResponsesDoor: turnInWorkerd(targets),
    responsesDoorResending: { rounds: HALF_ROUNDS, after: keepShort, sample: doorTurn(targets, 1000, 'responses') },
  } satisfies Record<string, Measurement>
}

/**
 * Issue 31: a turn against its floor (its storage work plus a bare call to the same upstream from
 * the same object, with the body a turn sent), and the parts of its time: through the app, over
 * the RPC, inside the object, the RPC's round trip, the auth middleware with and without.
 */
function turnFloor(targets: Targets) {
  const { worker, ours, onOurs, keepShort } = targets
  const captured = new Map<Key, unknown>()
  /** What a turn on the session sent the upstream: one turn, tagged so that the fake keeps its request apart, untimed. */
  const upstreamBodyOf = async (key: Key) => {
    if (!captured.has(key)) {
      const tag = `floor-${key}-${RUN}`
      const turn = { content: 'what a turn sends the model', model: `echo#${tag}`, compaction: NO_COMPACTION }
      await worker.api('POST', `/v1/sessions/${ours(key)}/turns`, turn)
      const [request] = (await (await fetch(`${worker.upstreamUrl}/__requests?tag=${tag}`)).json()) as { body: object }[]
      captured.set(key, { ...request!.body, model: 'echo' })
    }
    return captured.get(key)
  }
  // 40 a sample: the clock's 3 ms step is 0.075 ms of one.
  const turns = (route: string): Measurement => ({
    rounds: ROUNDS,
    after: keepShort,
    sample: onOurs(route, () => ({ batch: 40, compaction, from: nextTurns() })),
  })
  return {
    turnViaApp: turns('turn-app'),
    turnOverRpc: turns('turn'),
    turnInside: turns('turn-inside'),
    storageFloorPart: {
      rounds: ROUNDS,
      after: keepShort,
      sample: onOurs('storage-turns', () => ({ batch: 40, from: nextTurns(), work: 'turn' })),
    },
    bareUpstream: {
      rounds: ROUNDS,
      sample: async (key) =>
        worker.bench('upstream-bare', { user: USER, session: ours(key), batch: 40 }, { body: await upstreamBodyOf(key) }),
    },
    // After bareUpstream, which leaves the body in the object: one RPC a turn, as a turn is.
    floorOverRpc: turns('floor-turn'),
    ping: { rounds: ROUNDS, sample: onOurs('ping', { batch: 100 }) },
    auth: { rounds: ROUNDS, keys: [0, 1], sample: (withAuth) => worker.bench('auth', { with: withAuth, batch: 100 }) },
  } satisfies Record<string, Measurement>
}

/**
 * Issue 26: a turn whose policy's pass fires — in the background, its summary taking 2 s —
 * against one whose policy does not, on the same session, through the door and `/turns`.
 */
function background(targets: Targets) {
  const { onOurs, keepShort } = targets
  const fires = JSON.stringify(BACKGROUND_PASS)
  const door = (policy: string) => (key: Key) =>
    targets.worker.bench('door', { user: USER, session: targets.ours(key), batch: 10, compaction: policy }, { history: [] })
  return {
    doorPassFires: { rounds: HALF_ROUNDS, after: keepShort, sample: door(fires) },
    doorNoPass: { rounds: HALF_ROUNDS, after: keepShort, sample: door(compaction) },
    turnPassFires: { rounds: HALF_ROUNDS, after: keepShort, sample: onOurs('turn', { batch: 10, compaction: fires }) },
    turnNoPass: { rounds: HALF_ROUNDS, after: keepShort, sample: onOurs('turn', { batch: 10, compaction }) },
  } satisfies Record<string, Measurement>
}

/** Issue 25's paths: a rewind and back, a regenerate, a chat-completions door request that edits the newest question. */
function branches(targets: Targets) {
  const { worker, ours, onOurs, keepShort } = targets
  const doorRewind = async (key: Key) => {
    // The end of the conversation as the client was shown it (the view's, in OpenAI's shape); the
    // bench adds two turns after a pass that fixes the view, and each request edits the second.
    const { messages } = await worker.api('GET', `/v1/sessions/${ours(key)}/view?format=openai`)
    const history = (messages as unknown[]).slice(-20)
    return worker.bench('door-rewind', { user: USER, session: ours(key), batch: 5 }, { history })
  }
  return {
    rewindAndBack: { rounds: ROUNDS, sample: onOurs('rewind-and-back', { batch: 5 }) },
    regenerate: { rounds: ROUNDS, after: keepShort, sample: onOurs('regenerate', { batch: 5 }) },
    doorRewind: { rounds: HALF_ROUNDS, after: keepShort, sample: doorRewind },
  } satisfies Record<string, Measurement>
}

function reads({ worker, ours, onOurs, onPeer }: Targets) {
  /** A phrase in one event only. */
  const rare = (key: Key) => `Message ${Math.floor(Number(key) / 2)}`
  /** A phrase in one event near the end of the seeded log (FTS5 walks newest first for ours, oldest first for the peer). */
  const recent = (key: Key) => `Message ${Number(key) - 100}`
  const peerRounds = Math.max(3, Math.floor(ROUNDS / 2))
  return {
    // Over HTTP, once, before anything is measured: a session whose index is not caught up is indexed
    // by its first search; the peer builds its index on its first search and keeps it up on appends.
    firstSearch: { rounds: 1, sample: (key) => timedHere(() => worker.api('GET', `/v1/sessions/${ours(key)}/search?q=decide`)) },
    peerFirstSearch: { rounds: 1, sample: (key) => timedHere(() => onPeer('peer/search', { q: 'decide' })(key)) },
    // A rare phrase is timed over 1,000 searches a sample (the clock's step 0.003 ms of one), a common word over 5. The peer quotes a query as one phrase.
    searchRare: { rounds: ROUNDS, sample: onOurs('search', (key) => ({ batch: 1000, q: `"${rare(key)}"` })) },
    searchRecent: { rounds: ROUNDS, sample: onOurs('search', (key) => ({ batch: 1000, q: `"${recent(key)}"` })) },
    searchCommon: { rounds: ROUNDS, sample: onOurs('search', { batch: 5, q: 'rollout' }) },
    // Ranked (mode auto, the default): a question every word of which is in every event (the caps
    // bound it), and one of a rare number beside such words.
    searchQuestion: {
      rounds: ROUNDS,
      sample: onOurs('search', { batch: 5, mode: 'auto', q: 'what did we decide about the rollout plan?' }),
    },
    searchRareQuestion: {
      rounds: ROUNDS,
      sample: onOurs('search', (key) => ({
        batch: 20,
        mode: 'auto',
        q: `which message was number ${Math.floor(Number(key) / 2)}?`,
      })),
    },
    peerSearchRare: { rounds: ROUNDS, sample: onPeer('peer/search', (key) => ({ batch: 1000, q: rare(key) })) },
    peerSearchRecent: { rounds: ROUNDS, sample: onPeer('peer/search', (key) => ({ batch: 1000, q: recent(key) })) },
    peerSearchCommon: { rounds: peerRounds, sample: onPeer('peer/search', { batch: 5, q: 'rollout' }) },
    context: { rounds: ROUNDS, sample: onOurs('context', { batch: 5 }) },
    searchRareInside: { rounds: ROUNDS, sample: onOurs('search-inside', (key) => ({ batch: 1000, q: `"${rare(key)}"` })) },
    peerSearchRareInside: { rounds: ROUNDS, sample: onPeer('peer/search-inside', (key) => ({ batch: 1000, q: rare(key) })) },
  } satisfies Record<string, Measurement>
}

function others({ worker, ours }: Targets) {
  const compactionPass = async (size: Key, round: number) => {
    const id = `pass-${size}-${round}-${RUN}`
    await seed(worker, id, Number(size), Number(size))
    return worker.bench('compact', { user: USER, session: id, keep: Math.floor(Number(size) / 2) })
  }
  return {
    // The request limit on (one RPC to a request shard) or off, on a GET through the whole app.
    limitedGet: {
      rounds: ROUNDS,
      keys: [0, 1],
      sample: (on) => worker.bench('limited-get', { session: ours(SMALLEST), on, batch: 10 }),
    },
    // Issue 31: one user's request rate, the request limit off, in one object, in shards.
    oneTenant: {
      rounds: HALF_ROUNDS,
      keys: ['off', 'one', 'shards', 'rpc'],
      sample: (path) => worker.bench('one-tenant', { path, total: 640, inFlight: 32, run: RUN }),
    },
    requestShard: { rounds: ROUNDS, keys: ['a request'], sample: () => worker.bench('request-shard', { batch: 100, run: RUN }) },
    firstByte: {
      rounds: ROUNDS * 2,
      keys: [
        'service',
        'chat',
        'messages',
        'responses',
        'proxy',
        'objectProxy',
        'objectRelay',
        'answer',
        'direct',
      ] satisfies FirstBytePath[],
      sample: (path, round) => firstByteVia(worker, path as FirstBytePath, round),
    },
    compactionPass: { rounds: 5, keys: [100, 1_000, 10_000], sample: compactionPass },
    tokenizerCalls: { rounds: 1, keys: ['a session'], sample: () => tokenizerCalls(worker, ours(SMALLEST)) },
    appendsPerSecond: { rounds: 1, keys: [1, 60], sample: (sessions) => appendsPerSecond(worker, Number(sessions)) },
    bundle: { rounds: 1, keys: ['bundle'], sample: bundleSize },
    // Issue 31: a new isolate (the real Worker, or the smallest one, started afresh): ready, its first request, its second.
    coldIsolate: {
      rounds: 3,
      keys: [
        'ours:ready',
        'ours:first',
        'ours:second',
        'ours:read',
        'bare:ready',
        'bare:first',
        'bare:second',
      ] satisfies ColdPart[],
      sample: (part, round) => coldIsolate(worker, part as ColdPart, round),
    },
    // Issue 29: at 100,000 events (the smallest size when the run has none that large).
    exportImport: {
      rounds: 1,
      keys: [SIZES.find((size) => size >= 100_000) ?? SMALLEST],
      sample: (size) => exportAndImport(worker, ours(Number(size)), Number(size)),
    },
    promptPrefixShare: { rounds: 1, keys: ['200 turns'], sample: () => promptPrefixShare(worker) },
    codexCacheShare: {
      rounds: 1,
      keys: [...CODEX_CACHE_KEYS],
      sample: (key) => codexCacheShare(worker, key as (typeof CODEX_CACHE_KEYS)[number]),
    },
  } satisfies Record<string, Measurement>
}

/** Issue 32's other round-three paths: a fork, an undo, a Responses client's compaction, an export's first page. */
function roundThree({ onOurs }: Targets) {
  return {
    fork: { rounds: HALF_ROUNDS, sample: onOurs('fork', { batch: 5 }) },
    // Timed one call at a time (a pass before each): 20 a sample, so the clock's 3 ms step is 0.15 ms of one.
    undo: { rounds: HALF_ROUNDS, sample: onOurs('undo', { batch: 20 }) },
    responsesCompaction: { rounds: HALF_ROUNDS, sample: onOurs('responses-compaction', { batch: 20 }) },
    exportPage: { rounds: ROUNDS, sample: onOurs('export-page', { batch: 5, lines: 1_000 }) },
  } satisfies Record<string, Measurement>
}

/** Every measurement, by name. */
export function measurementsOf(worker: BenchWorker, sessions: Sessions) {
  const targets = targetsOf(worker, sessions)
  return {
    ...turnsAndViews(targets),
    ...storage(targets),
    ...wholeTurns(targets),
    ...turnFloor(targets),
    ...branches(targets),
    ...roundThree(targets),
    ...background(targets),
    ...reads(targets),
    ...others(targets),
    ...eventsMeasurements(worker),
    ...acrossMeasurements(worker),
    ...memoryMeasurements(worker),
    ...mcpMeasurements(worker),
    ...mediaMeasurements(worker),
    ...agentLoopMeasurements(worker),
    ...preparedMeasurements(worker),
    ...atSizeMeasurements(worker, sessions),
  }
}

export type MeasurementName = keyof ReturnType<typeof measurementsOf>
