/** The worker suite's tables, in the order they print: each names the measurements it shows and how a row reads them. */
import { ms } from '../stats'
import { ACROSS_EVENTS, ACROSS_SESSIONS } from './across'
import { AGENT_LOOP_TABLES } from './agent-loops'
import { AT_SIZE_TABLES } from './at-size'
import { column, growth, logEvents, median, medianRatio, n, p95, ratio, timing, viewEvents } from './columns'
import { LARGEST, NAIVE_SIZES, ROUNDS, SIZES, SMALLEST } from './config'
import { MCP_TABLES } from './mcp'
import type { MeasurementName } from './measurements'
import { MEDIA_TABLES } from './media'
import { MEMORY_TABLES } from './memory'
import type { FirstBytePath } from './over-http'
import { PREPARED_TABLES } from './prepared'
import type { Column, Key, MeasuredTable, Results } from './runner'

type Table = MeasuredTable<MeasurementName>

/** A measurement's median rows read or written, whole. */
const rowsColumn = (header: string, name: MeasurementName, kind: 'rowsRead' | 'rowsWritten') =>
  column(header, (key, results) => Math.round(results.rows(name, key)[kind]))
/** Rows read and written as `read / written`. */
const rowsReadWritten = (name: MeasurementName) =>
  column('rows read / written', (key, results) => `${results.rows(name, key).rowsRead} / ${results.rows(name, key).rowsWritten}`)

/** The same storage work on both sides: times, their ratio, and the rows each read and wrote. */
const sideBySide = (title: string, peer: MeasurementName, ours: MeasurementName): Table => ({
  title,
  measure: [[ours, peer]],
  columns: [
    logEvents,
    ...timing('agents/sessions', peer),
    ...timing('ours', ours),
    medianRatio('agents / ours', peer, ours),
    rowsColumn('rows read: agents', peer, 'rowsRead'),
    rowsColumn('ours', ours, 'rowsRead'),
    rowsColumn('rows written: agents', peer, 'rowsWritten'),
    rowsColumn('ours', ours, 'rowsWritten'),
  ],
})

/**
 * A search table: each size's first search, then a rare phrase's (an event in the middle of the
 * log, and one 100 events from its end) and a common word's times and rows.
 */
const searches = (
  title: string,
  first: MeasurementName,
  [rare, recent]: [MeasurementName, MeasurementName],
  common: MeasurementName,
): Table => ({
  title,
  measure: [first, rare, recent, common],
  columns: [
    logEvents,
    median('first search', first),
    ...timing('a rare phrase', rare),
    rowsColumn('rows read', rare, 'rowsRead'),
    median('a recent rare phrase', recent),
    ...timing('a word in every event', common),
    rowsColumn('rows read', common, 'rowsRead'),
  ],
})

/** Our search against the peer's at each size, as a line under the tables. */
const searchRatios = (kind: string, ours: MeasurementName, peer: MeasurementName) => (results: Results) =>
  `search, ${kind}: agents/sessions / ours ${SIZES.map((size) => `${ratio(results.median(peer, size), results.median(ours, size))} at ${n(size)}`).join(', ')}`

/** The naive read's cells, where it was run. */
const naive =
  (cell: Column['cell']): Column['cell'] =>
  (key, results) =>
    results.has('viewNaive', key) ? cell(key, results) : ''

const NAIVE_LARGEST = NAIVE_SIZES.at(-1)!

/**
 * A door's turn beside a /turns turn on the same session: only the new message, or 1,000 of
 * history resent with it (`what` they are on that door's wire).
 */
const doorTable = (
  door: string,
  turn: string,
  what: string,
  [onlyNew, beside, resending]: [MeasurementName, MeasurementName, MeasurementName],
): Table => ({
  title: `The ${door}: ${turn} (only the new message, or 1,000 ${what} of history resent) against a /turns turn on the same session (stub model; in workerd)`,
  measure: [onlyNew, beside, resending],
  columns: [
    logEvents,
    median('/turns median', beside),
    ...timing(`${door}, only new`, onlyNew),
    medianRatio(`${door} / turns`, onlyNew, beside),
    rowsReadWritten(onlyNew),
    ...timing(`resending 1,000 ${what}`, resending),
    rowsReadWritten(resending),
  ],
  notes: [
    () => `target: ${door} / turns ≤ 1.2×`,
    (r) =>
      `resending 1,000 at ${n(LARGEST)} / at 1k (medians): ${growth(r, resending, LARGEST, SMALLEST)} — the cost follows the request, not the log`,
  ],
})

/** A turn's floor at a size: its storage work plus the bare upstream call, medians. */
const floorAt = (r: Results, key: Key) => r.median('storageFloorPart', key) + r.median('bareUpstream', key)

const DOOR_NAMES = {
  continuation: 'tool continuation',
  chatDoorOnlyNew: 'chat completions',
  messagesDoorOnlyNew: 'Messages',
  responsesDoorOnlyNew: 'Responses',
}

/** The auth middleware's time: the same route with it and without. */
const authPart = (r: Results) => r.median('auth', 1) - r.median('auth', 0)

/** A turn's time in parts, each the difference of two medians of the same run. */
const TURN_PARTS: [string, (r: Results, key: Key) => number][] = [
  ['auth', authPart],
  ['routing, validation, answer JSON', (r, key) => r.median('turnViaApp', key) - r.median('turnOverRpc', key) - authPart(r)],
  ['call round trip', (r, key) => r.median('ping', key)],
  ['frames, rest of the call', (r, key) => r.median('turnOverRpc', key) - r.median('turnInside', key) - r.median('ping', key)],
  ['model call (bare)', (r, key) => r.median('bareUpstream', key)],
  ['storage work', (r, key) => r.median('storageFloorPart', key)],
  [
    'prompt, estimates, fit, bookkeeping',
    (r, key) => r.median('turnInside', key) - r.median('bareUpstream', key) - r.median('storageFloorPart', key),
  ],
  ['whole turn through the app', (r, key) => r.median('turnViaApp', key)],
]

/** The rows of the cold-start table. */
const COLD_PARTS = {
  'ours:ready': 'ours: the dev server started until ready (workerd up, the bundle loaded)',
  'ours:first': 'ours: the new isolate’s first request, a turn on a new session',
  'ours:second': 'ours: its second request, the same, warm',
  'ours:read': 'ours: a new isolate whose first request is a read (the user’s sessions listed)',
  'bare:ready': 'the smallest Worker (answers "ok"): started until ready',
  'bare:first': 'the smallest Worker: its first request',
  'bare:second': 'the smallest Worker: its second request',
}

/** The paths of the first-byte table. */
const FIRST_BYTE_PATHS = {
  service: 'a streamed `/turns` turn (dev server, Worker, session object, upstream)',
  chat: 'a streamed chat completion (the chat-completions door)',
  messages: 'a streamed Messages request',
  responses: 'a streamed Responses request',
  proxy: 'a bare Worker proxying the model request to the same upstream (the floor for any Worker)',
  objectProxy: 'a bare Worker proxying it through a Durable Object that only proxies (the floor with an object in the path)',
  objectRelay:
    'the same object relaying it in the service’s own frames and events (its model adapter, turn frames and `/turns` events; no auth, session, prompt or write)',
  answer: 'a bare Worker answering at once, calling nothing (the dev server’s round trip)',
  direct: 'the model request straight to the fake upstream',
}

/** The service's own first-byte paths. */
const FIRST_BYTE_DOORS: FirstBytePath[] = ['service', 'chat', 'messages', 'responses']

/** What a first-byte path adds to the upstream's own time, as a multiple of what `floor` adds. */
const addedRatio = (r: Results, path: Key, floor: FirstBytePath) =>
  ratio(
    r.median('firstByte', path) - r.median('firstByte', 'direct'),
    r.median('firstByte', floor) - r.median('firstByte', 'direct'),
  )

/** A first-byte column: what each of `paths` adds, as a multiple of what `floor` adds (blank for the other paths). */
const addedRatioColumn = (title: string, floor: FirstBytePath, paths: FirstBytePath[]) =>
  column(title, (path, r) => (paths.includes(path as FirstBytePath) ? addedRatio(r, path, floor) : ''))

/** The paths of the one-tenant table. */
const TENANT_PATHS = {
  off: 'GET, request limit off',
  one: 'GET, every request counted in one object (the design before: one RPC to the same object each)',
  shards: 'GET, counted in the user’s 16 request shards (the design now: one RPC to a shard picked at random)',
  rpc: 'the counting RPC alone, to one object (what one object sustains here)',
}

/** A session's ranked search (mode auto) at each size: its cost bounded by its caps, not the log. */
const RANKED_SEARCH: Table = {
  title:
    'Ranked search in one session (mode auto, the default), 20 hits with their events, over RPC: a question whose words are in every event, and one with a rare number',
  measure: [['searchQuestion', 'searchRareQuestion']],
  columns: [
    logEvents,
    ...timing('every word common', 'searchQuestion'),
    rowsColumn('rows read', 'searchQuestion', 'rowsRead'),
    ...timing('a rare word beside them', 'searchRareQuestion'),
    rowsColumn('rows read', 'searchRareQuestion', 'rowsRead'),
  ],
  notes: [
    (r) =>
      `${n(LARGEST)} ÷ ${n(SMALLEST)}: ${growth(r, 'searchQuestion', LARGEST, SMALLEST)} and ${growth(r, 'searchRareQuestion', LARGEST, SMALLEST)} (target: flat)`,
  ],
}

/** The search across sessions: a codeword found in all of a user's sessions against in its own; appends; the lag. */
const ACROSS_TABLES: Table[] = [
  {
    title: `Search across sessions over HTTP: ${n(ACROSS_SESSIONS)} sessions × ${n(ACROSS_EVENTS)} events of one user, the same hit found in all of them (GET /v1/search) and in its session`,
    measure: [['acrossAll', 'acrossOne'], 'acrossQuestion'],
    columns: [
      column('', () => 'a codeword one event holds'),
      ...timing('across sessions', 'acrossAll'),
      ...timing('in its session', 'acrossOne'),
      medianRatio('across ÷ one', 'acrossAll', 'acrossOne'),
    ],
    footer: (r) => [
      [
        'a question of common words (every event holds most of them), across sessions',
        ms(r.median('acrossQuestion', 'question')),
        ms(r.p95('acrossQuestion', 'question')),
        '',
        '',
        '',
      ],
    ],
    notes: [() => 'target: across sessions within 2× of a one-session search of the same hits'],
  },
  {
    title:
      'An append (a turn’s two events) over HTTP, its session handing its events to the search across sessions or not; ten back to back a sample',
    measure: ['acrossAppend'],
    columns: [column('hand-over', (key) => String(key)), ...timing('append', 'acrossAppend')],
    notes: [(r) => `on ÷ off: ${ratio(r.median('acrossAppend', 'on'), r.median('acrossAppend', 'off'))} (target ≤ 1.05×)`],
  },
  {
    title: 'Indexing lag: a write’s answer until a search across sessions finds it (polled every 10 ms, over HTTP)',
    measure: ['acrossLag'],
    columns: [
      column('', () => 'lag'),
      median('p50', 'acrossLag'),
      column('p99', (key, r) => ms(percentile(r.samples('acrossLag', key), 0.99))),
    ],
    notes: [() => 'contract: within 2 s'],
  },
]

/** The `p`th percentile of some samples (an observed value). */
const percentile = (samples: number[], p: number) => [...samples].sort((a, b) => a - b)[Math.ceil(samples.length * p) - 1]!

export const TABLES: Table[] = [
  RANKED_SEARCH,
  ...ACROSS_TABLES,
  {
    title: 'Per-turn service overhead: a whole chat turn (stub model answering at once; trigger checked, not firing)',
    measure: ['turnInWorkerd', 'turnOverHttp', 'appendAndView', 'viewEvents'],
    columns: [
      logEvents,
      viewEvents,
      ...timing('turn in workerd', 'turnInWorkerd'),
      ...timing('turn over HTTP', 'turnOverHttp'),
      ...timing('append×2 + view read (3 RPCs)', 'appendAndView'),
    ],
    notes: [
      (r) =>
        `turn at ${n(LARGEST)} / at 1k (in workerd, medians): ${growth(r, 'turnInWorkerd', LARGEST, SMALLEST)} — target ≤ 1.2×`,
    ],
  },
  {
    title:
      'View read: the service (cached view entries, bodies by seq range) vs naive (project the whole log every read), in workerd',
    measure: ['viewInObject', 'viewOverRpc', 'viewNaive', 'viewCold'],
    columns: [
      logEvents,
      viewEvents,
      ...timing('service', 'viewInObject'),
      median('with the view sent back over RPC median', 'viewOverRpc'),
      column('naive median', (key, r) => (r.has('viewNaive', key) ? ms(r.median('viewNaive', key)) : 'not run')),
      column(
        'p95',
        naive((key, r) => ms(r.p95('viewNaive', key))),
      ),
      column(
        'naive / service',
        naive((key, r) => ratio(r.median('viewNaive', key), r.median('viewInObject', key))),
      ),
      ...timing('cold object (restarted): first read', 'viewCold'),
    ],
    notes: [
      (r) =>
        `service view read vs naive at ${n(NAIVE_LARGEST)}: ${(r.median('viewNaive', NAIVE_LARGEST) / r.median('viewInObject', NAIVE_LARGEST)).toFixed(0)}× faster — target ≥ 50×`,
    ],
  },
  sideBySide(
    'The same storage work on both sides, measured the same way: one RPC that runs 20 turns inside the object (2 appends + the recent history / the view read back), timed there; rows as counted at ctx.storage.sql.exec',
    'storagePeer',
    'storageOurs',
  ),
  sideBySide(
    "An agent turn's storage work on both sides, measured the same way (20 a sample inside the object): ours appends the user message with the call, then its result with the reply (the two appends a turn and its continuation make); agents/sessions appends the user message and the call, updates the call's message with the output and appends the reply; both read the view / recent history back",
    'toolStoragePeer',
    'toolStorageOurs',
  ),
  {
    title: 'SQLite rows a whole chat turn reads and writes (warm object; trigger checked, not firing)',
    measure: ['turnRows'],
    columns: [
      logEvents,
      rowsColumn('rows read median', 'turnRows', 'rowsRead'),
      rowsColumn('rows written median', 'turnRows', 'rowsWritten'),
    ],
  },
  {
    title:
      'A tool continuation: toolResults for a pending call, the model called with them, the tool event and reply written (stub model; in workerd)',
    measure: ['continuation'],
    columns: [
      logEvents,
      viewEvents,
      ...timing('continuation', 'continuation'),
      rowsColumn('rows read', 'continuation', 'rowsRead'),
      rowsColumn('rows written', 'continuation', 'rowsWritten'),
    ],
    notes: [
      (r) => `continuation at ${n(LARGEST)} / at 1k (medians): ${growth(r, 'continuation', LARGEST, SMALLEST)} — target ≤ 1.2×`,
    ],
  },
  doorTable('chat-completions door', 'a chat-completions turn', 'messages', [
    'chatDoorOnlyNew',
    'turnBesideChatDoor',
    'chatDoorResending',
  ]),
  doorTable('Responses door', 'a Responses turn as Codex sends it', 'items', [
    'responsesDoorOnlyNew',
    'turnBesideResponsesDoor',
    'responsesDoorResending',
  ]),
  doorTable('Messages door', 'a Messages turn', 'messages', [
    'messagesDoorOnlyNew',
    'turnBesideMessagesDoor',
    'messagesDoorResending',
  ]),
  {
    title:
      'Provider caches: a Codex-style session (200 turns through the Responses door, the whole input each time, compacting every 50 turns keeping 20) against a cache that works as OpenAI describes its own (the prefix shared with the previous request under the same prompt_cache_key, in 128-token blocks from 1,024)',
    measure: ['codexCacheShare'],
    columns: [
      column('session', (key) => String(key)),
      column('model calls', (key, r) => r.counts('codexCacheShare', key).calls!),
      column('compactions', (key, r) => r.counts('codexCacheShare', key).passes!),
      column('prompt tokens', (key, r) => n(r.counts('codexCacheShare', key).prompt!)),
      column('read from the cache', (key, r) => {
        const { prompt, cached } = r.counts('codexCacheShare', key)
        return `${n(cached!)} (${((100 * cached!) / prompt!).toFixed(1)}%)`
      }),
    ],
  },
  {
    title:
      'Prompt caching: a client resending its whole history through the Messages door for 200 turns, its session compacting every 50 turns (keeping 20); each prompt rendered as the Anthropic upstream sends it, cache markers aside, against the one before it',
    measure: ['promptPrefixShare'],
    columns: [
      column('session', (key) => String(key)),
      column('prompts', (key, r) => r.counts('promptPrefixShare', key).turns!),
      column('compactions', (key, r) => r.counts('promptPrefixShare', key).passes!),
      column('bytes repeating the previous prompt’s prefix', (key, r) => {
        const { shared, total } = r.counts('promptPrefixShare', key)
        return `${((100 * shared!) / total!).toFixed(1)}%`
      }),
    ],
    notes: [
      () =>
        'aim: ≥ 90% (between two compactions every prompt starts with the one before it; a compaction changes the prefix once)',
    ],
  },
  {
    ...searches(
      'Search inside the object (FTS5; the query parsed as the route does; 20 hits with their events, a rare phrase (an event in the middle of the log, and one 100 from its end) timed over 1,000 searches a sample, a common word over 5; first search: the index caught up, over HTTP)',
      'firstSearch',
      ['searchRare', 'searchRecent'],
      'searchCommon',
    ),
    // The rare phrases interleaved with the peer's, round by round: whatever drifts in the run drifts for
    // both. Inside the object too: the RPC around each search is most of its time, the same on both sides.
    measure: [
      'firstSearch',
      ['searchRareInside', 'peerSearchRareInside'],
      ['searchRare', 'peerSearchRare'],
      ['searchRecent', 'peerSearchRecent'],
      'searchCommon',
    ],
  },
  {
    ...searches(
      'The same searches on agents/sessions, timed the same way around the RPC (its FTS5 index, built on its first search in one statement; it ranks every match; 20 hits, answered as their JSON as ours are)',
      'peerFirstSearch',
      ['peerSearchRare', 'peerSearchRecent'],
      'peerSearchCommon',
    ),
    notes: [
      searchRatios('a rare phrase', 'searchRare', 'peerSearchRare'),
      (r) =>
        `a rare phrase inside the object (the same 1,000 searches without an RPC around each): ours ${SIZES.map((size) => ms(r.median('searchRareInside', size))).join(' / ')}, agents/sessions ${SIZES.map((size) => ms(r.median('peerSearchRareInside', size))).join(' / ')}`,
      searchRatios('a rare phrase inside the object', 'searchRareInside', 'peerSearchRareInside'),
      searchRatios('a recent rare phrase', 'searchRecent', 'peerSearchRecent'),
      searchRatios('a word in every event', 'searchCommon', 'peerSearchCommon'),
    ],
  },
  {
    title:
      'Branches, through the object in workerd: a rewind to before the newest turn and back (two REWINDs), a regenerate, a chat-completions request editing the newest question, on a view of the last 100 events and two turns, the same at every size (5 a sample; rows per call)',
    measure: ['rewindAndBack', 'regenerate', 'doorRewind'],
    columns: [
      logEvents,
      ...timing('rewind and back', 'rewindAndBack'),
      rowsReadWritten('rewindAndBack'),
      ...timing('regenerate', 'regenerate'),
      rowsReadWritten('regenerate'),
      ...timing('door request that rewinds', 'doorRewind'),
      rowsReadWritten('doorRewind'),
    ],
    notes: [
      (r) =>
        `at ${n(LARGEST)} / at 1k (medians): rewind and back ${growth(r, 'rewindAndBack', LARGEST, SMALLEST)}, regenerate ${growth(r, 'regenerate', LARGEST, SMALLEST)}, door request that rewinds ${growth(r, 'doorRewind', LARGEST, SMALLEST)}`,
    ],
  },
  {
    title:
      'Round three’s other paths, through the object in workerd: a fork of the view (the source’s rows), an undo of a pass made just before it, a Responses client’s compaction (a pass and its summary, undone after, untimed) — these three on a view of the last 100 events, the same at every size — and an export’s first 1,000 lines (5 a sample; rows per call)',
    measure: ['fork', 'undo', 'responsesCompaction', 'exportPage'],
    columns: [
      logEvents,
      ...timing('fork', 'fork'),
      rowsReadWritten('fork'),
      ...timing('undo', 'undo'),
      rowsReadWritten('undo'),
      ...timing('Responses compaction', 'responsesCompaction'),
      rowsReadWritten('responsesCompaction'),
      ...timing('export page', 'exportPage'),
      rowsReadWritten('exportPage'),
    ],
    notes: [
      (r) =>
        `at ${n(LARGEST)} / at 1k (medians): fork ${growth(r, 'fork', LARGEST, SMALLEST)}, undo ${growth(r, 'undo', LARGEST, SMALLEST)}, Responses compaction ${growth(r, 'responsesCompaction', LARGEST, SMALLEST)}, export page ${growth(r, 'exportPage', LARGEST, SMALLEST)}`,
    ],
  },
  {
    title:
      'Background passes: a turn whose policy’s pass fires (in the background, its summary model taking 2 s) against one whose policy does not, same session, through the chat-completions door and /turns (10 turns a sample; in workerd)',
    measure: [['doorPassFires', 'doorNoPass', 'turnPassFires', 'turnNoPass']],
    columns: [
      logEvents,
      ...timing('door, pass fires', 'doorPassFires'),
      ...timing('door, no pass', 'doorNoPass'),
      medianRatio('fires / not', 'doorPassFires', 'doorNoPass'),
      ...timing('/turns, pass fires', 'turnPassFires'),
      ...timing('/turns, no pass', 'turnNoPass'),
      medianRatio('fires / not', 'turnPassFires', 'turnNoPass'),
    ],
    notes: [() => 'target: fires / not ≤ 1.2× — no answer waits for a summary'],
  },
  {
    title:
      'GET /context and the storage floor, inside workerd (context: 5 calls a sample through the object; floor: 20 turns a sample inside it)',
    measure: ['context', 'floor', 'storageOurs'],
    columns: [
      logEvents,
      ...timing('context', 'context'),
      rowsColumn('rows read', 'context', 'rowsRead'),
      median('storage turn (ours)', 'storageOurs'),
      median('raw-SQLite floor', 'floor'),
      medianRatio('ours / floor', 'storageOurs', 'floor'),
    ],
    notes: [(r) => `GET /context at ${n(LARGEST)} / at 1k (medians): ${growth(r, 'context', LARGEST, SMALLEST)}`],
  },
  {
    title: 'A GET /v1/sessions/:id through the app in workerd, RATE_LIMIT_REQUESTS off and on (10 a sample)',
    measure: ['limitedGet'],
    columns: [
      column('request limit', (on) => (on ? 'on (one RPC to one of the user’s request shards: 1 row written)' : 'off')),
      median('median', 'limitedGet'),
      p95('limitedGet'),
    ],
  },
  {
    title:
      'A turn against its floor: the storage work (2 appends and the view read) plus a bare call from the object to the same stub upstream with the body a turn sent, timed inside the object (summed) and as one RPC a turn, as a turn is (40 turns a sample, in workerd)',
    measure: [['storageFloorPart', 'bareUpstream', 'floorOverRpc', 'turnOverRpc', 'turnViaApp', 'turnInside']],
    columns: [
      logEvents,
      median('storage work', 'storageFloorPart'),
      median('bare upstream call', 'bareUpstream'),
      column('sum (inside)', (key, r) => ms(floorAt(r, key))),
      median('turn inside', 'turnInside'),
      column('inside / sum', (key, r) => ratio(r.median('turnInside', key), floorAt(r, key))),
      median('floor over RPC', 'floorOverRpc'),
      median('turn over RPC', 'turnOverRpc'),
      medianRatio('RPC turn / RPC floor', 'turnOverRpc', 'floorOverRpc'),
      median('turn through the app', 'turnViaApp'),
      medianRatio('app turn / RPC floor', 'turnViaApp', 'floorOverRpc'),
    ],
  },
  {
    title:
      'Where a turn’s time goes (each part the difference of two medians of the same run: through the app, over RPC, inside the object, a call that does nothing, the auth middleware with and without)',
    measure: [['ping', 'turnViaApp', 'turnOverRpc', 'turnInside', 'bareUpstream', 'storageFloorPart'], 'auth'],
    columns: [logEvents, ...TURN_PARTS.map(([header, part]) => column(header, (key, r) => ms(part(r, key))))],
  },
  {
    title: 'Every turn against the same floor, one RPC a turn (the doors only the new message, 10 a sample; the continuation 5)',
    measure: [
      ['continuation', 'chatDoorOnlyNew', 'messagesDoorOnlyNew', 'responsesDoorOnlyNew'],
      ['bareUpstream', 'floorOverRpc'],
    ],
    columns: [
      logEvents,
      median('floor over RPC', 'floorOverRpc'),
      ...(['continuation', 'chatDoorOnlyNew', 'messagesDoorOnlyNew', 'responsesDoorOnlyNew'] as const).map((name) =>
        column(
          `${DOOR_NAMES[name]} (÷ floor)`,
          (key, r) => `${ms(r.median(name, key))} (${ratio(r.median(name, key), r.median('floorOverRpc', key))})`,
        ),
      ),
    ],
  },
  {
    title:
      'One tenant at scale: one user’s requests per second, 32 in flight (640 a sample; GETs of 16 sessions through the app in workerd)',
    measure: ['oneTenant'],
    columns: [
      column('path', (path) => TENANT_PATHS[path as keyof typeof TENANT_PATHS]),
      column('requests/s median', (path, r) => r.median('oneTenant', path).toFixed(0)),
      column('vs the limit off', (path, r) =>
        path === 'rpc' ? '' : `${(r.median('oneTenant', path) / r.median('oneTenant', 'off')).toFixed(2)}×`,
      ),
    ],
  },
  {
    title: 'What counting one request costs its object (100 admissions a sample, inside the object)',
    measure: ['requestShard'],
    columns: [
      column('work', () => 'a request counted'),
      median('median', 'requestShard'),
      p95('requestShard'),
      rowsReadWritten('requestShard'),
    ],
  },
  {
    title: `Time to the first streamed byte over HTTP, each door against a bare Worker proxying the same model request (${ROUNDS * 2} each, interleaved; a session per door growing from empty)`,
    measure: ['firstByte'],
    columns: [
      column('path', (path) => FIRST_BYTE_PATHS[path as keyof typeof FIRST_BYTE_PATHS]),
      median('median', 'firstByte'),
      p95('firstByte'),
      column('until the upstream has the request', (path, r) =>
        path === 'answer' ? '' : ms(r.countMedian('firstByte', path, 'reached')),
      ),
      column('from there to the first byte', (path, r) =>
        path === 'answer' ? '' : ms(r.countMedian('firstByte', path, 'after')),
      ),
      column('added to the upstream’s own', (path, r) =>
        path === 'direct' || path === 'answer' ? '' : ms(r.median('firstByte', path) - r.median('firstByte', 'direct')),
      ),
      addedRatioColumn('÷ the bare proxy’s added', 'proxy', [...FIRST_BYTE_DOORS, 'objectProxy', 'objectRelay']),
      addedRatioColumn('÷ the object proxy’s added', 'objectProxy', [...FIRST_BYTE_DOORS, 'objectRelay']),
      addedRatioColumn('÷ the relay’s added', 'objectRelay', FIRST_BYTE_DOORS),
    ],
  },
  {
    title: 'agents/sessions with a compaction overlay over the older half (same method as above)',
    measure: ['peerWithOverlay', 'storageOurs'],
    columns: [
      logEvents,
      median('median', 'peerWithOverlay'),
      p95('peerWithOverlay'),
      medianRatio('agents+overlay / ours', 'peerWithOverlay', 'storageOurs'),
    ],
  },
  {
    title: 'A compaction pass (no summarizer, keeping half the view) on views of N events, in workerd (5 sessions each)',
    measure: ['compactionPass'],
    columns: [column('view events', (size) => n(Number(size))), median('median', 'compactionPass'), p95('compactionPass')],
  },
  {
    title: 'Tokenizer calls over the life of a session object (appends, 20 turns with summaries, compactions, cold reloads)',
    measure: ['tokenizerCalls'],
    columns: [
      column('message events in the log', (key, r) => n(r.counts('tokenizerCalls', key).messages!)),
      column('estimates computed', (key, r) => n(r.counts('tokenizerCalls', key).calls!)),
      column('per event', (key, r) => r.median('tokenizerCalls', key).toFixed(3)),
    ],
  },
  {
    title: 'Appends (2 events each) over HTTP, 24 in flight',
    measure: ['appendsPerSecond'],
    columns: [
      column('target', (sessions) => (sessions === 1 ? 'one session' : `${sessions} sessions in parallel`)),
      column('appends/s', (key, r) => r.median('appendsPerSecond', key).toFixed(0)),
    ],
  },
  {
    title: 'Export and import over HTTP: a seeded session exported as jsonl, imported into a new id in parts of 20,000 events',
    measure: ['exportImport'],
    columns: [
      column('log events', (key, r) => n(r.counts('exportImport', key).events!)),
      column('export', (key, r) => `${(r.median('exportImport', key) / 1000).toFixed(1)} s`),
      column('exported events/s', (key, r) => n(r.counts('exportImport', key).exportPerSecond!)),
      column('import', (key, r) => `${(r.counts('exportImport', key).importMs! / 1000).toFixed(1)} s`),
      column('imported events/s', (key, r) => n(r.counts('exportImport', key).importPerSecond!)),
      column('MB', (key, r) => String(r.counts('exportImport', key).megabytes)),
      column(
        'chunks (largest)',
        (key, r) => `${n(r.counts('exportImport', key).chunks!)} (${n(r.counts('exportImport', key).largestChunk!)} B)`,
      ),
    ],
  },
  {
    title:
      'Events out: a turn of a user with a webhook endpoint against one without (both write the turn’s notice; in workerd, 10 a sample, one short session each)',
    measure: [['webhookTurn', 'webhookTurnBackToBack']],
    columns: [
      column('turn', (key) => String(key)),
      ...timing('one turn, the one before it delivered', 'webhookTurn'),
      ...timing('10 back to back, a turn', 'webhookTurnBackToBack'),
    ],
    footer: (r) => [
      [
        'with / without',
        ratio(r.median('webhookTurn', 'with a webhook'), r.median('webhookTurn', 'without a webhook')),
        '',
        ratio(r.median('webhookTurnBackToBack', 'with a webhook'), r.median('webhookTurnBackToBack', 'without a webhook')),
        '',
      ],
    ],
    notes: [
      () =>
        'target: ≤ 1.1× (the fan-out and the delivery run after the answer, in the user’s object); back to back, they run while the next turns do, on the one thread local workerd gives every object',
    ],
  },
  {
    title: 'A webhook’s delivery over HTTP: a turn’s answer, then the receiver’s POST (its time counted from the answer)',
    measure: ['webhookDelivery'],
    columns: [column('', (key) => String(key)), median('median', 'webhookDelivery'), p95('webhookDelivery')],
  },
  {
    title:
      'The live stream over HTTP: an append’s answer, and the frame a subscriber of the session got for it (both from the append’s start)',
    measure: ['liveFrame'],
    columns: [column('', (key) => String(key)), median('median', 'liveFrame'), p95('liveFrame')],
    footer: (r) => [
      [
        'added by the stream (frame − answer)',
        ms(r.median('liveFrame', 'its frame received') - r.median('liveFrame', 'the append answered')),
        '',
      ],
    ],
  },
  {
    title:
      'Cold starts: a new isolate (the real Worker started afresh in local workerd, 3 each), and a session object’s first read after a restart',
    measure: ['coldIsolate', 'viewCold'],
    columns: [
      column('what', (part) => COLD_PARTS[part as keyof typeof COLD_PARTS]),
      median('median', 'coldIsolate'),
      column('max', (part, r) => ms(Math.max(...r.samples('coldIsolate', part)))),
    ],
    footer: (r) =>
      SIZES.map((size) => [
        `a cold session object's first view read, ${n(size)} events (the view-read table's column)`,
        ms(r.median('viewCold', size)),
        ms(r.p95('viewCold', size)),
      ]),
  },
  ...MEMORY_TABLES,
  ...MCP_TABLES,
  ...MEDIA_TABLES,
  ...PREPARED_TABLES,
  ...AGENT_LOOP_TABLES,
  ...AT_SIZE_TABLES,
  {
    title: 'Worker bundle (wrangler deploy --dry-run)',
    measure: ['bundle'],
    columns: [
      column('files', (key, r) => r.counts('bundle', key).files!),
      column('size', (key, r) => `${(r.counts('bundle', key).bytes! / 1024).toFixed(0)} KiB`),
      column('gzip', (key, r) => `${(r.counts('bundle', key).gzipped! / 1024).toFixed(0)} KiB`),
    ],
    notes: [
      (r) =>
        `what is in it (esbuild's metafile, bytes in the output): ${Object.entries(r.counts('bundle', 'bundle'))
          .filter(([name]) => name.startsWith('in:'))
          .sort((a, b) => b[1] - a[1])
          .slice(0, 12)
          .map(([name, bytes]) => `${name.slice(3)} ${(bytes / 1024).toFixed(0)} KiB`)
          .join(', ')}`,
    ],
  },
]
