/**
 * Issue 47, images and documents: a Messages client resending the same ~1 MB image on each of 100
 * turns against the same conversation in text (what the session's database grows by, the rows a
 * turn reads and writes, its time); a turn carrying ten new images against a text turn of the
 * same prompt tokens, the model call's share taken off both; what the Worker's intake of an image
 * costs; the memory a 32 MiB request takes in workerd. The Worker side is bench/media-entry.ts.
 */
import { rmSync } from 'node:fs'
import { encodeBase64 } from '../../src/core/media/base64'
import { LARGE_IMAGE, screenshotPng } from '../media-images'
import type { Measured } from '../shared'
import { mean, ms } from '../stats'
import { type BenchWorker, startBenchWorker } from './client'
import { column, median, n, p95, ratio } from './columns'
import { ROUNDS, RUN, USER } from './config'
import type { MeasurementName } from './measurements'
import { peakOf } from './peak'
import type { Key, MeasuredTable, Measurement, Results } from './runner'

/** Turns of each resending conversation. */
const TURNS = Number(process.env.BENCH_MEDIA_TURNS ?? 100)
/** The conversations (bench/media-entry.ts's RESEND_KINDS), each with the text one it is compared with. */
const RESEND: Record<string, { label: string; against?: string }> = {
  image: { label: 'the image in the first user message', against: 'text' },
  text: { label: 'the same conversation, text only' },
  'tool image': { label: 'the image in a tool_result (Claude Code’s Read)', against: 'tool text' },
  'tool text': { label: 'the same, the tool’s result a line of text' },
}
const INTAKE: Record<string, string> = {
  intake: 'the whole intake (MediaIntake: base64 decoded, type checked, size read, SHA-256)',
  decode: 'of which the strict base64 decode',
  hash: 'of which the SHA-256 (Web Crypto)',
  encode: 'the prompt’s copy: the bytes encoded back to base64 for the upstream',
}
/** The ten-image turns and the text turn they are compared with (bench/media-entry.ts's TEN_MODES). */
const TEN: Record<string, string> = {
  images: 'ten images (1280×800 PNGs of ~0.2 MB: screenshots) and a line of text',
  small: 'ten images of the same size in pixels, ~20 KB each (flat screenshots)',
  text: 'the line and text of the same estimated tokens',
}
/** The steps of a ten-image turn timed apart (bench/media-entry.ts's TEN_STEPS). */
const TEN_STEPS: Record<string, string> = {
  read: 'the body read: its bytes, then strict UTF-8 (the Worker)',
  parse: 'JSON.parse',
  validate: 'the request schema (zod)',
  intake: 'the images taken in (MediaIntake: base64 decoded, type, size, SHA-256)',
  call: 'a call to the session object with no upload, for scale',
  handover: 'the same call carrying the upload, read there',
  write: 'the same, the blobs written in one transaction (answered once durable)',
  sqlite: 'of which the write inside the object (SQLite’s work, no wait for durability)',
  prompt: 'the prompt for the model: the images as data URLs (the object)',
  encode: 'of which the base64 alone',
  stringify: 'the model request’s JSON (`requestJson`, its bytes read through)',
}
/** Samples of each step, and how many times it is done a sample. */
const STEP_BATCH = 10

/** Turns of ten images timed together a sample, each in a session of its own. */
const TEN_BATCH = 3
const TEN_ROUNDS = Math.max(5, Math.floor(ROUNDS / 2))
const PEAK_ROUNDS = 5

// ── the memory of a 32 MiB request, read from outside (`./peak`) ──────────────────────────

/** The requests whose memory is read: a Messages request and `/turns` near 32 MiB, and a small turn for scale. */
const PEAK: Record<string, string> = {
  messages: 'a Messages request, four 2560×1600 PNGs of 5.9 MB in its user message',
  read: 'the same body refused once read and parsed (no session named): the reading alone',
  turns: '`/turns`, the same four images',
  placeholder: '`/turns`, the same, `images: "placeholder"` (no image in the model request)',
  small: 'a `/turns` text turn of a line, for scale',
}

/** The four images' base64, made once (each ~7.8 MiB). */
let largeImages: Promise<string[]> | undefined
const fourImages = () => {
  largeImages ??= Promise.all(
    Array.from({ length: 4 }, async () =>
      encodeBase64(await screenshotPng(LARGE_IMAGE.width, LARGE_IMAGE.height, LARGE_IMAGE.noiseRows)),
    ),
  )
  return largeImages
}

/**
 * One sample of a request's memory, in a workerd process of its own (its state apart), after a
 * small turn has loaded the Worker and an object: what an earlier large request freed stays
 * resident and is reused, so in a shared process the peak depends on the requests before it.
 */
async function peakSample(kind: Key, round: number): Promise<Measured> {
  const state = `.bench/peak-${RUN}-${String(kind)}-${round}`
  try {
    const worker = await startBenchWorker(state)
    try {
      await worker.api('POST', `/v1/sessions/warm-${round}/turns`, { content: 'A line of text.' })
      return await peakRequest(worker, state, kind, round)
    } finally {
      await worker.close()
    }
  } finally {
    rmSync(state, { recursive: true, force: true })
  }
}

async function peakRequest(worker: BenchWorker, state: string, kind: Key, round: number): Promise<Measured> {
  const session = `peak-${kind}-${RUN}-${round}`
  const images = await fourImages()
  const text = { type: 'text', text: 'What changed between these four screenshots?' }
  let measured: Measured
  if (kind === 'messages' || kind === 'read') {
    const blocks = images.map((data) => ({ type: 'image', source: { type: 'base64', media_type: 'image/png', data } }))
    const body = JSON.stringify({ model: 'echo', max_tokens: 1024, messages: [{ role: 'user', content: [text, ...blocks] }] })
    const named: Record<string, string> = kind === 'messages' ? { 'X-Session-Id': session } : {}
    measured = await peakOf(
      worker,
      '/v1/messages',
      body,
      { ...named, 'anthropic-version': '2023-06-01' },
      kind === 'read' ? 400 : 200,
      state,
    )
  } else {
    const parts = images.map((data) => ({ type: 'image', mediaType: 'image/png', data }))
    const content = kind === 'small' ? 'A line of text.' : [text, ...parts]
    const body = JSON.stringify({ content, ...(kind === 'placeholder' ? { images: 'placeholder' } : {}) })
    measured = await peakOf(worker, `/v1/sessions/${session}/turns`, body, {}, 200, state)
  }
  return measured
}

/** A resending conversation's session. */
const resendSession = (kind: Key) => `resend-${String(kind).replace(' ', '-')}-${RUN}`

export function mediaMeasurements(worker: BenchWorker) {
  /** The body each ten-image turn's model call carried, captured once a mode (a tagged turn, untimed). */
  const upstreamBodies = new Map<Key, unknown>()
  const captureBody = async (mode: Key) => {
    if (upstreamBodies.has(mode)) return
    const tag = `media-ten-${mode}-${RUN}`
    await worker.bench('media/ten', { user: USER, mode, round: 1_000_000, batch: 1, run: RUN, tag })
    const [request] = (await (await fetch(`${worker.upstreamUrl}/__requests?tag=${tag}`)).json()) as { body: object }[]
    upstreamBodies.set(mode, { ...request!.body, model: 'echo' })
  }
  return {
    mediaResend: {
      rounds: TURNS,
      keys: Object.keys(RESEND),
      // The last turn's model request kept by the fake upstream (its tag), for the model call's share.
      sample: (kind, turn) =>
        worker.bench('media/resend', {
          user: USER,
          session: resendSession(kind),
          kind,
          turn,
          tag: turn === TURNS - 1 ? `${resendSession(kind)}-last` : '',
        }),
    },
    mediaResendUpstream: {
      rounds: ROUNDS,
      keys: Object.keys(RESEND),
      setup: async (kind) => {
        const tag = `${resendSession(kind)}-last`
        const [request] = (await (await fetch(`${worker.upstreamUrl}/__requests?tag=${tag}`)).json()) as { body: object }[]
        upstreamBodies.set(`resend ${kind}`, { ...request!.body, model: 'echo' })
      },
      sample: (kind) =>
        worker.bench(
          'upstream-bare',
          { user: USER, session: `media-bare-${RUN}`, batch: 5 },
          { body: upstreamBodies.get(`resend ${kind}`) },
        ),
    },
    mediaIntake: {
      rounds: ROUNDS,
      keys: Object.keys(INTAKE),
      sample: (step) => worker.bench('media/intake', { step, batch: 10 }),
    },
    mediaTen: {
      rounds: TEN_ROUNDS,
      keys: Object.keys(TEN),
      sample: (mode, round) => worker.bench('media/ten', { user: USER, mode, round, batch: TEN_BATCH, run: RUN }),
    },
    mediaTenUpstream: {
      rounds: TEN_ROUNDS,
      keys: Object.keys(TEN),
      setup: captureBody,
      sample: (mode) =>
        worker.bench('upstream-bare', { user: USER, session: `media-bare-${RUN}`, batch: 5 }, { body: upstreamBodies.get(mode) }),
    },
    mediaTenSteps: {
      rounds: TEN_ROUNDS,
      keys: Object.keys(TEN_STEPS),
      sample: (step, round) =>
        worker.bench('media/ten-steps', { user: USER, mode: 'images', step, batch: STEP_BATCH, run: `${RUN}-${round}` }),
    },
    mediaTenStepsSmall: {
      rounds: TEN_ROUNDS,
      keys: Object.keys(TEN_STEPS),
      sample: (step, round) =>
        worker.bench('media/ten-steps', { user: USER, mode: 'small', step, batch: STEP_BATCH, run: `${RUN}-${round}` }),
    },
    mediaPeak: {
      rounds: PEAK_ROUNDS,
      keys: Object.keys(PEAK),
      sample: (kind, round) => peakSample(kind, round),
    },
  } satisfies Record<string, Measurement>
}

// ── the tables ──────────────────────────────────────────────────────────────────────────

const MB = (bytes: number) => `${(bytes / 1_000_000).toFixed(2)} MB`
const KB = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`
const middle = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

/** Each turn of a resending conversation, in order. */
const turnsOf = (results: Results, kind: Key) => results.each('mediaResend', kind)
/** The turns after the first. */
const laterTurns = (results: Results, kind: Key) => turnsOf(results, kind).slice(1)

/**
 * A conversation's rows against its text conversation's at the same turn (turns after the first):
 * the median of the per-turn ratios, and the largest with its turn and both counts.
 */
function rowRatios(results: Results, kind: string, which: 'rowsRead' | 'rowsWritten'): string {
  const text = turnsOf(results, RESEND[kind]!.against!)
  const ratios = turnsOf(results, kind)
    .map((turn, t) => ({ t, ours: turn.rows![which], theirs: text[t]!.rows![which] }))
    .slice(1)
    .map((turn) => ({ ...turn, ratio: turn.ours / Math.max(1, turn.theirs) }))
  const worst = ratios.reduce((a, b) => (b.ratio > a.ratio ? b : a))
  const sum = (side: 'ours' | 'theirs') => ratios.reduce((total, turn) => total + turn[side], 0)
  return `${ratio(sum('ours'), sum('theirs'))} in all, a turn's median ${middle(ratios.map((turn) => turn.ratio)).toFixed(2)}×, at most ${worst.ratio.toFixed(2)}× (turn ${worst.t + 1}: ${worst.ours} against ${worst.theirs})`
}

export const MEDIA_TABLES: MeasuredTable<MeasurementName>[] = [
  {
    title: `A Messages client resending its whole history on each of ${TURNS} turns, the same ~1 MB image in it (a 1280×800 PNG of 1.04 MB), against the same conversation in text (through the whole app in workerd, one turn a sample, the conversations interleaved turn by turn; the database's size and rows are the session object's)`,
    measure: ['mediaResend', 'mediaResendUpstream'],
    columns: [
      column('conversation', (kind) => RESEND[kind as string]!.label),
      column('turn 1: time', (kind, r) => ms(turnsOf(r, kind)[0]!.samples[0]!)),
      column('db grew', (kind, r) => KB(turnsOf(r, kind)[0]!.counts!.grew!)),
      column(
        'rows read / written',
        (kind, r) => `${turnsOf(r, kind)[0]!.rows!.rowsRead} / ${turnsOf(r, kind)[0]!.rows!.rowsWritten}`,
      ),
      column(`turns 2–${TURNS}: time median`, (kind, r) => ms(middle(laterTurns(r, kind).map((m) => m.samples[0]!)))),
      column('mean', (kind, r) => ms(mean(laterTurns(r, kind).map((m) => m.samples[0]!)))),
      column('db grew a turn: median / max', (kind, r) => {
        const grew = laterTurns(r, kind).map((m) => m.counts!.grew!)
        return `${KB(middle(grew))} / ${KB(Math.max(...grew))}`
      }),
      column('rows read: median / max', (kind, r) => {
        const read = laterTurns(r, kind).map((m) => m.rows!.rowsRead)
        return `${middle(read)} / ${Math.max(...read)}`
      }),
      column('rows written: median / max', (kind, r) => {
        const written = laterTurns(r, kind).map((m) => m.rows!.rowsWritten)
        return `${middle(written)} / ${Math.max(...written)}`
      }),
      median(`the model call alone (turn ${TURNS}'s request)`, 'mediaResendUpstream'),
      column('database after', (kind, r) => MB(turnsOf(r, kind).at(-1)!.counts!.size!)),
      column(
        'blobs / chunk rows',
        (kind, r) => `${turnsOf(r, kind).at(-1)!.counts!.blobs} / ${turnsOf(r, kind).at(-1)!.counts!.chunks}`,
      ),
      column('request body, last turn', (kind, r) => MB(turnsOf(r, kind).at(-1)!.counts!.bodyBytes!)),
    ],
    notes: Object.entries(RESEND)
      .filter(([, { against }]) => against)
      .flatMap(([kind, { against }]) => [
        (r: Results) =>
          `${kind} ÷ ${against}, turn by turn over turns 2–${TURNS}: rows read ${rowRatios(r, kind, 'rowsRead')}; rows written ${rowRatios(r, kind, 'rowsWritten')} (target: rows read within 1.2×); the database ${MB(turnsOf(r, kind).at(-1)!.counts!.size! - turnsOf(r, against!).at(-1)!.counts!.size!)} larger after ${TURNS} turns (the image is ${MB(turnsOf(r, kind).at(-1)!.counts!.bytes!)}); time ${ratio(mean(laterTurns(r, kind).map((m) => m.samples[0]!)), mean(laterTurns(r, against!).map((m) => m.samples[0]!)))} (means)`,
      ]),
  },
  {
    title:
      'What the Worker’s intake of the resent image costs a request (its 1.41 MB of base64, 1.04 MB of PNG; in workerd, 10 a sample)',
    measure: ['mediaIntake'],
    columns: [column('step', (step) => INTAKE[step as string]!), median('median', 'mediaIntake'), p95('mediaIntake')],
  },
  {
    title: `A /turns turn whose user message carries ten new images against a turn whose text has the same estimated tokens, each the first turn of a session of its own (through the whole app in workerd, ${TEN_BATCH} a sample); the upstream's share set aside by timing the same model request (the very body the turn sent, captured at the fake upstream) from the session object alone and taking it off`,
    measure: [['mediaTen', 'mediaTenUpstream']],
    columns: [
      column('turn', (mode) => TEN[mode as string]!),
      column('request body', (mode, r) => MB(r.counts('mediaTen', mode).bodyBytes!)),
      column('prompt tokens (the turn’s estimate)', (mode, r) => n(r.countMedian('mediaTen', mode, 'promptTokens'))),
      median('whole turn median', 'mediaTen'),
      p95('mediaTen'),
      median('the model call alone', 'mediaTenUpstream'),
      column('turn − model call', (mode, r) => ms(r.median('mediaTen', mode) - r.median('mediaTenUpstream', mode))),
      column(
        'rows read / written',
        // A turn's rows are a sample's mean over its batch: shown to three places at most.
        (mode, r) => `${n(r.rows('mediaTen', mode).rowsRead)} / ${n(r.rows('mediaTen', mode).rowsWritten)}`,
      ),
    ],
    notes: [
      (r) => {
        const aside = (mode: string) => r.median('mediaTen', mode) - r.median('mediaTenUpstream', mode)
        const whole = (mode: string) => ratio(r.median('mediaTen', mode), r.median('mediaTen', 'text'))
        return `ten images ÷ text, the model call aside: ${ratio(aside('images'), aside('text'))} (target ≤ 1.2×); whole turns ${whole('images')}; the ~20 KB images ${ratio(aside('small'), aside('text'))}, whole turns ${whole('small')}`
      },
    ],
  },
  {
    title: `The steps of a ten-image turn, each timed apart in workerd (${STEP_BATCH} a sample): the ~0.2 MB screenshots' turn against the ~20 KB ones'`,
    measure: [['mediaTenSteps', 'mediaTenStepsSmall']],
    columns: [
      column('step', (step) => TEN_STEPS[step as string]!),
      median('~0.2 MB images (2.64 MB body): median', 'mediaTenSteps'),
      p95('mediaTenSteps'),
      median('~20 KB images (0.33 MB body): median', 'mediaTenStepsSmall'),
      p95('mediaTenStepsSmall'),
    ],
  },
  {
    title: `The memory a 32 MiB request takes: the resident set of the workerd process that runs the Worker and its objects, its peak during the request above what it held before (Linux /proc: the high-water mark reset before each request), ${PEAK_ROUNDS} requests each, over HTTP through the dev server, each in a workerd process of its own after a small turn`,
    measure: ['mediaPeak'],
    columns: [
      column('request', (kind) => PEAK[kind as string]!),
      column('body', (kind, r) => MB(r.counts('mediaPeak', kind).bodyBytes!)),
      column('peak growth median (MB)', (kind, r) => r.median('mediaPeak', kind).toFixed(0)),
      column('max', (kind, r) => Math.max(...r.samples('mediaPeak', kind)).toFixed(0)),
      column('÷ body', (kind, r) => ratio(r.median('mediaPeak', kind) * 1024 * 1024, r.counts('mediaPeak', kind).bodyBytes!)),
      column('resident before (MB)', (kind, r) => middle(r.each('mediaPeak', kind).map((m) => m.counts!.before!)).toFixed(0)),
      column('other workerd processes’ peak growth (MB)', (kind, r) =>
        middle(r.each('mediaPeak', kind).map((m) => m.counts!.others!)).toFixed(0),
      ),
      column('time', (kind, r) => ms(middle(r.each('mediaPeak', kind).map((m) => m.counts!.time!)))),
    ],
    notes: [() => 'peak growth is in MB of 2^20 bytes; the body in MB of 10^6'],
  },
]
