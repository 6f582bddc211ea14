/**
 * Issue 48, agent loops that never overflow: a loop of 300 tool calls with 8 KB results each
 * through `/turns` in a 32,768-token window (the stub model's `loop-300`, its window set by
 * MODEL_CONTEXT_TOKENS), once with the built-in policy (the fit check's last-resort clearing, keep
 * 3) and once with a policy that clears with `clearAtLeast`; what each step costs at steps 10 to
 * 300, how much of each prompt repeats the one before (what a provider's prompt cache could
 * serve), how often it cleared; and a clearing pass against an ordinary append.
 */
import type { Measured } from '../shared'
import { mean, ms } from '../stats'
import type { BenchWorker } from './client'
import { column, median, n, p95, ratio } from './columns'
import { HALF_ROUNDS, RUN, USER } from './config'
import type { MeasurementName } from './measurements'
import type { Key, MeasuredTable, Measurement, Results } from './runner'

const STEPS = 300
export const LOOP_WINDOW = 32_768
/** The steps reported; each one's samples are it and the 9 steps before it (step 10: steps 1–10). */
const REPORTED = [10, 100, 200, 300]
const SPAN = 10
const CLEAR_AT_LEAST = 8_000
/** Each loop is run this many times (a few seconds each): the steps' times are taken over all of them. */
const RUNS = Number(process.env.BENCH_LOOP_RUNS ?? 5)

/** The loops run: the model (its tag names the stub's record) and the session's policy. */
const LOOPS: Record<string, { model: string; policy?: unknown }> = {
  'built-in policy': { model: 'loop-300#bench-loop-builtin' },
  [`clearToolResults keep 3, clearAtLeast ${n(CLEAR_AT_LEAST)}`]: {
    model: 'loop-300#bench-loop-batched',
    policy: {
      trigger: { contextFraction: 0.9 },
      strategy: { clearToolResults: { keep: 3, clearAtLeast: CLEAR_AT_LEAST } },
    },
  },
}
const LOOP_KEYS = Object.keys(LOOPS)
/** A clearing pass two ways: as `POST /compact` answers it, and as a door's turn runs it (no answer to write). */
const CLEARINGS = ['POST /compact, its answer read', 'as a door’s turn runs it, no answer']

/** A run's model: the loop's, tagged with the run (the stub records each tag's requests). */
const modelOf = (key: string, run: number) => `${LOOPS[key]!.model}-${run}`

/** The loops' models and their window, for the bench Worker's MODEL_CONTEXT_TOKENS. */
export const LOOP_CONTEXT_TOKENS = Object.fromEntries(
  LOOP_KEYS.flatMap((key) => Array.from({ length: RUNS }, (_, run) => [modelOf(key, run), LOOP_WINDOW])),
)

type Sent = {
  body: { messages: { role: string; content: unknown; tool_calls?: unknown[] }[] }
  usage: { prompt_tokens: number } | null
}

/** The length of the longest common prefix of two texts. */
function sharedPrefix(a: string, b: string): number {
  let at = 0
  while (at < a.length && at < b.length && a.charCodeAt(at) === b.charCodeAt(at)) at++
  return at
}

const isClearedNotice = (content: unknown) => typeof content === 'string' && content.startsWith('[tool result cleared:')

/** The whole log of a session, page by page. */
async function wholeLog(worker: BenchWorker, session: string): Promise<any[]> {
  const events: any[] = []
  for (let after = 0; ; ) {
    const page = await worker.api('GET', `/v1/sessions/${session}/events?after=${after}&limit=1000`)
    events.push(...page.events)
    if (page.nextAfter === null) return events
    after = page.nextAfter
  }
}

/** What the prompts the model was sent show, request after request (counts of a Measured). */
function promptsOf(sent: Sent[]): Record<string, number> {
  const texts = sent.map(({ body }) => JSON.stringify(body.messages))
  const notices = sent.map(({ body }) => body.messages.filter((message) => isClearedNotice(message.content)).length)
  const appendOnly: { ofPrevious: number; ofNew: number }[] = []
  let clearedBefore = 0
  let passInTurnBefore = 0
  let lowestAtPass = 1
  for (let i = 1; i < sent.length; i++) {
    const shared = sharedPrefix(texts[i]!, texts[i - 1]!)
    const share = { ofPrevious: shared / texts[i - 1]!.length, ofNew: shared / texts[i]!.length }
    const grewByAStep = sent[i]!.body.messages.length === sent[i - 1]!.body.messages.length + 2
    const same = texts[i] === texts[i - 1] // a request retried
    if (same || (grewByAStep && notices[i] === notices[i - 1])) {
      if (!same) appendOnly.push(share)
      continue
    }
    if (grewByAStep) clearedBefore++
    else passInTurnBefore++
    lowestAtPass = Math.min(lowestAtPass, share.ofPrevious)
  }
  const ofPrevious = appendOnly.map((share) => share.ofPrevious).sort((a, b) => a - b)
  const ofNew = appendOnly.map((share) => share.ofNew).sort((a, b) => a - b)
  return {
    requests: sent.length,
    maxPromptTokens: Math.max(...sent.map(({ usage }) => usage?.prompt_tokens ?? Number.POSITIVE_INFINITY)),
    appendOnly: appendOnly.length,
    clearedBefore,
    passInTurnBefore,
    minOfPrevious: ofPrevious[0] ?? 1,
    medianOfNew: ofNew[Math.floor(ofNew.length / 2)] ?? 1,
    below90OfPrevious: ofPrevious.filter((share) => share < 0.9).length,
    lowestAtPass,
  }
}

/**
 * What the log shows of the passes: the clearings (a boundary clearing a result no earlier one
 * did) and the tokens each saved (each result's tokens less its notice's), the passes covering
 * steps (inside the turn).
 */
function passesOf(log: any[]): Record<string, number> {
  const tokensOf = new Map<string, number>(log.filter((e) => e.type === 'MESSAGE').map((e) => [e.id, e.tokens]))
  const clearedSoFar = new Set<string>()
  const saved: number[] = []
  let covering = 0
  for (const event of log) {
    if (event.type !== 'COMPACTION' || event.boundary.undoes !== undefined) continue
    let clearing = 0
    let isClearing = false
    for (const entry of event.boundary.cleared ?? []) {
      if (clearedSoFar.has(entry.eventId)) continue
      clearedSoFar.add(entry.eventId)
      isClearing = true
      clearing += tokensOf.get(entry.eventId)! - entry.tokens
    }
    if (isClearing) saved.push(clearing)
    if (event.boundary.coveredEventCount > 0) covering++
  }
  const total = saved.reduce((sum, tokens) => sum + tokens, 0)
  return {
    clearings: saved.length,
    resultsCleared: clearedSoFar.size,
    minSaved: saved.length === 0 ? 0 : Math.min(...saved),
    totalSaved: total,
    coveringPasses: covering,
    toolResults: log.filter((e) => e.type === 'MESSAGE' && e.message.role === 'tool').length,
  }
}

interface LoopRun {
  /** Each step's sample (step k at k - 1): its time through the app, the session object's rows. */
  steps: Measured[]
  /** Each step's model request as the fake upstream received it (step k at k - 1). */
  sentBodies: unknown[]
  counts: Record<string, number>
}

/** Runs one loop through /turns, step after step, as an agent does; what it cost and what the model was sent. */
async function runLoop(worker: BenchWorker, key: string, run: number): Promise<LoopRun> {
  const { policy } = LOOPS[key]!
  const model = modelOf(key, run)
  const session = `loop-${RUN}-${LOOP_KEYS.indexOf(key)}-${run}`
  await worker.api('POST', '/v1/sessions', { id: session, ...(policy ? { policy } : {}) })
  const step = (k: number) => worker.bench('loops/step', { user: USER, session, model, step: k })
  let next = (await step(0)).counts!.next
  const steps: Measured[] = []
  let loopSummaryTokens = 0
  for (let k = 1; k <= STEPS; k++) {
    if (next !== k) throw new Error(`loop ${key}: step ${k} asked for ${next}`)
    // Before the step that ends the turn: what the loop's steps spent on summaries prepared after their answers.
    if (k === STEPS) loopSummaryTokens = await summaryTokensSettled(worker, session)
    const taken = await step(k)
    steps.push(taken)
    next = taken.counts!.next
  }
  if (next !== 0) throw new Error(`loop ${key}: no answer after step ${STEPS}`)
  const turnEndSummaryTokens = (await summaryTokensSettled(worker, session)) - loopSummaryTokens
  const log = await wholeLog(worker, session)
  const tag = model.split('#')[1]!
  const sent = (await (await fetch(`${worker.upstreamUrl}/__requests?tag=${tag}`)).json()) as Sent[]
  // Each step's prompt as sent to the model (the request whose messages end with its result).
  const sentBodies: unknown[] = []
  for (const request of sent) {
    const done = /^step_(\d+)$/.exec((request.body.messages.at(-1) as { tool_call_id?: string }).tool_call_id ?? '')
    const taken = done ? steps[Number(done[1]) - 1] : undefined
    if (taken) taken.counts = { ...taken.counts, promptBytes: JSON.stringify(request.body).length }
    if (done) sentBodies[Number(done[1]) - 1] = request.body
  }
  return { steps, sentBodies, counts: { ...promptsOf(sent), ...passesOf(log), loopSummaryTokens, turnEndSummaryTokens } }
}

/** The summary tokens a session has spent, once no preparation of a summary runs (`/context` says when). */
async function summaryTokensSettled(worker: BenchWorker, session: string): Promise<number> {
  for (let polls = 0; polls < 10_000; polls++) {
    const context = await worker.api('GET', `/v1/sessions/${session}/context`)
    if (!context.preparing) return context.usage.summaryTokens
  }
  throw new Error(`${session}: a summary is still being prepared`)
}

const medianOf = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0

/** Whether a step's request wrote a pass (all clearings here: see passesOf). */
const passed = (m: Measured) => m.counts!.fitPasses! + m.counts!.policyPasses! > 0

/** The steps of all runs whose request wrote a pass against the others. */
function stepsByKind(runs: LoopRun[]): Record<string, number> {
  const steps = runs.flatMap((run) => run.steps)
  const byKind = (clearing: boolean, prefix: string) => {
    const chosen = steps.filter((m) => passed(m) === clearing)
    return {
      [`${prefix}Steps`]: chosen.length,
      [`${prefix}Ms`]: medianOf(chosen.map((m) => m.samples[0]!)),
      [`${prefix}MeanMs`]: mean(chosen.map((m) => m.samples[0]!)),
      [`${prefix}RowsRead`]: medianOf(chosen.map((m) => m.rows!.rowsRead)),
      [`${prefix}RowsWritten`]: medianOf(chosen.map((m) => m.rows!.rowsWritten)),
      [`${prefix}AnswerBytes`]: medianOf(chosen.map((m) => m.counts!.answerBytes!)),
    }
  }
  return { runs: runs.length, ...byKind(false, 'ordinary'), ...byKind(true, 'clearing') }
}

export function agentLoopMeasurements(worker: BenchWorker) {
  const runs = new Map<string, Promise<LoopRun[]>>()
  /** A loop's runs, one after another (made once). */
  const loop = (key: Key) => {
    const name = String(key)
    if (!runs.has(name))
      runs.set(
        name,
        (async () => {
          const done: LoopRun[] = []
          for (let run = 0; run < RUNS; run++) done.push(await runLoop(worker, name, run))
          return done
        })(),
      )
    return runs.get(name)!
  }
  const clearingSession = (key: Key) => `loop-clearing-${RUN}-${CLEARINGS.indexOf(String(key))}`
  const clearingSeeded: Record<string, Promise<unknown>> = {}
  let groups = 0
  /** Per reported step and loop: `<loop> @ <step>`. */
  const stepKeys = LOOP_KEYS.flatMap((name) => REPORTED.map((step) => `${name} @ ${step}`))
  /** The step a round of a reported step's key samples — round r: run r / SPAN's step (reported - SPAN + 1 + r % SPAN) — in its run. */
  const stepAt = async (key: Key, round: number) => {
    const [name, at] = String(key).split(' @ ')
    return { run: (await loop(name!))[Math.floor(round / SPAN)]!, index: Number(at) - SPAN + (round % SPAN) }
  }
  const ofReportedSteps = { rounds: SPAN * RUNS, keys: stepKeys, setup: (key: Key) => loop(String(key).split(' @ ')[0]!) }
  return {
    loopStep: {
      ...ofReportedSteps,
      sample: async (key, round) => {
        const { run, index } = await stepAt(key, round)
        return run.steps[index]!
      },
    },
    // The same step when its request wrote no pass (a clearing step is measured against them below): the loop's trend apart from its clearings.
    loopOrdinaryStep: {
      ...ofReportedSteps,
      sample: async (key, round) => {
        const { run, index } = await stepAt(key, round)
        const taken = run.steps[index]!
        return passed(taken) ? { samples: [] } : taken
      },
    },
    // The same step's model request alone (the body it sent, replayed from the session object): its share of the step.
    loopModelCall: {
      ...ofReportedSteps,
      sample: async (key, round) => {
        const { run, index } = await stepAt(key, round)
        return worker.bench(
          'upstream-bare',
          { user: USER, session: `loop-bare-${RUN}`, batch: 5 },
          { body: run.sentBodies[index] },
        )
      },
    },
    // What the first run's prompts and log show (every run sends the same prompts), and the steps of all runs by kind.
    loopPrompts: {
      rounds: 1,
      keys: LOOP_KEYS,
      sample: async (key) => {
        const done = await loop(key)
        return { samples: [], counts: { ...done[0]!.counts, ...stepsByKind(done) } }
      },
    },
    loopClearing: {
      rounds: HALF_ROUNDS,
      keys: CLEARINGS,
      // One session a way of running the pass, seeded with the loop's question.
      setup: (key) =>
        (clearingSeeded[key] ??= worker.api('POST', `/v1/sessions/${clearingSession(key)}/events`, {
          events: [{ message: { role: 'user', content: 'Read every file and report.' } }],
        })),
      sample: (key) => {
        const from = groups
        groups += 10
        const answered = key === CLEARINGS[0] ? '1' : '0'
        return worker.bench('loops/clearing', { user: USER, session: clearingSession(key), from, batch: 5, answered })
      },
    },
  } satisfies Record<string, Measurement>
}

const count = (name: MeasurementName, what: string) => (key: Key, r: Results) => r.counts(name, key)[what]!
/** A step's median time less its model call's (the same request sent alone): the service's own part. */
const ownMs = (r: Results, key: Key) => r.median('loopStep', key) - r.median('loopModelCall', key)
/** A step's time from step 10 to 300, each way: all steps' medians and means; the steps without a pass, the same. */
const trend = (r: Results, name: string) => {
  const [first, last] = [`${name} @ 10`, `${name} @ 300`]
  const means = (m: MeasurementName) => ratio(mean(r.samples(m, last)), mean(r.samples(m, first)))
  return `time ${ratio(r.median('loopStep', last), r.median('loopStep', first))} (means ${means('loopStep')}), the steps without a pass ${ratio(r.median('loopOrdinaryStep', last), r.median('loopOrdinaryStep', first))} (means ${means('loopOrdinaryStep')})`
}
const percent = (share: number) => `${(share * 100).toFixed(1)}%`

export const AGENT_LOOP_TABLES: MeasuredTable<MeasurementName>[] = [
  {
    title: `An agent loop through /turns: 300 tool calls of 8 KB results in a ${n(LOOP_WINDOW)}-token window, a step's time (the app in workerd, the stub model answering at once; each step taken once the one before has done its work after the answer, its search index's merges) and the session object's rows, at each reported step (over it and the 9 steps before, in each of ${RUNS} runs of each loop)`,
    measure: [['loopStep', 'loopModelCall', 'loopOrdinaryStep']],
    columns: [
      column('loop', (key) => String(key).split(' @ ')[0]!),
      column('step', (key) => String(key).split(' @ ')[1]!),
      median('step median', 'loopStep'),
      p95('loopStep'),
      column('mean', (key, r) => `${mean(r.samples('loopStep', key)).toFixed(2)} ms`),
      column('steps without a pass: median / mean', (key, r) => {
        const samples = r.samples('loopOrdinaryStep', key)
        return `${samples.length}: ${ms(r.median('loopOrdinaryStep', key))} / ${mean(samples).toFixed(2)} ms`
      }),
      column('prompt sent', (key, r) => `${(r.countMedian('loopStep', key, 'promptBytes') / 1024).toFixed(0)} KiB`),
      median('its model call alone', 'loopModelCall'),
      column('step − model call', (key, r) => `${ownMs(r, key).toFixed(2)} ms`),
      column('rows read', (key, r) => n(r.rows('loopStep', key).rowsRead)),
      column('rows written', (key, r) => n(r.rows('loopStep', key).rowsWritten)),
    ],
    notes: LOOP_KEYS.map(
      (name) => (r: Results) =>
        `${name}: step 300 / step 10 — ${trend(r, name)}, the model call aside ${ratio(ownMs(r, `${name} @ 300`), ownMs(r, `${name} @ 10`))}, rows read ${ratio(r.rows('loopStep', `${name} @ 300`).rowsRead, r.rows('loopStep', `${name} @ 10`).rowsRead)}, rows written ${ratio(r.rows('loopStep', `${name} @ 300`).rowsWritten, r.rows('loopStep', `${name} @ 10`).rowsWritten)} (target: flat from 10 to 300)`,
    ),
  },
  {
    title:
      'The same loops’ prompts (the first run’s; every run sends the same), request after request: the share of the previous prompt (its messages’ JSON as sent) the next one repeats as its prefix, over the requests that only added a step; the passes between requests',
    measure: ['loopPrompts'],
    columns: [
      column('loop', (key) => String(key)),
      column('requests', count('loopPrompts', 'requests')),
      column('largest prompt (tokens, stub’s count)', (key, r) => n(r.counts('loopPrompts', key).maxPromptTokens!)),
      column('step added only', count('loopPrompts', 'appendOnly')),
      column('lowest share kept', (key, r) => percent(r.counts('loopPrompts', key).minOfPrevious!)),
      column('below 90%', count('loopPrompts', 'below90OfPrevious')),
      column('median share of the new prompt', (key, r) => percent(r.counts('loopPrompts', key).medianOfNew!)),
      column('after a clearing', count('loopPrompts', 'clearedBefore')),
      column('after a pass in the turn', count('loopPrompts', 'passInTurnBefore')),
      column('summary tokens prepared in the loop', count('loopPrompts', 'loopSummaryTokens')),
      column('at the turn’s end', count('loopPrompts', 'turnEndSummaryTokens')),
      column('lowest share at those', (key, r) => percent(r.counts('loopPrompts', key).lowestAtPass!)),
    ],
    notes: [
      () => 'target: ≥ 90% of the previous prompt repeated, except at requests after a clearing',
      (r) =>
        LOOP_KEYS.map((name) => {
          const c = r.counts('loopPrompts', name)
          const allowed = Math.floor(c.totalSaved! / CLEAR_AT_LEAST)
          return `${name}: ${c.clearings} clearings (${c.resultsCleared} of ${c.toolResults} results cleared, ${n(c.totalSaved!)} tokens saved, the least by one clearing ${n(c.minSaved!)}), ${c.coveringPasses} passes covering steps in the turn${name.includes('clearAtLeast') ? `; clearAtLeast ${n(CLEAR_AT_LEAST)} allows at most ${allowed} clearings for what was saved: ${c.minSaved! >= CLEAR_AT_LEAST ? 'met' : 'NOT met'}` : ''}`
        }).join('\n\n'),
    ],
  },
  {
    title:
      'The same loops’ steps whose request wrote a pass (all of them clearings: the fit check’s, before the model call, or the policy’s, after it) against their ordinary steps, over all runs: through the app in workerd (the clock’s step is 3 ms), the session object’s rows, the /turns answer’s size',
    measure: ['loopPrompts'],
    columns: [
      column('loop', (key) => String(key)),
      ...(['ordinary', 'clearing'] as const).flatMap((kind) => [
        column(kind === 'ordinary' ? 'ordinary steps' : 'steps that cleared', count('loopPrompts', `${kind}Steps`)),
        column(
          `${kind} median / mean`,
          (key, r) => `${ms(count('loopPrompts', `${kind}Ms`)(key, r))} / ${ms(count('loopPrompts', `${kind}MeanMs`)(key, r))}`,
        ),
        column(
          `${kind} rows read / written`,
          (key, r) =>
            `${count('loopPrompts', `${kind}RowsRead`)(key, r)} / ${count('loopPrompts', `${kind}RowsWritten`)(key, r)}`,
        ),
        column(`${kind} answer`, (key, r) => `${(count('loopPrompts', `${kind}AnswerBytes`)(key, r) / 1024).toFixed(1)} KiB`),
      ]),
      column(
        'clearing / ordinary (median, mean)',
        (key, r) =>
          `${ratio(count('loopPrompts', 'clearingMs')(key, r), count('loopPrompts', 'ordinaryMs')(key, r))}, ${ratio(count('loopPrompts', 'clearingMeanMs')(key, r), count('loopPrompts', 'ordinaryMeanMs')(key, r))}`,
      ),
    ],
    notes: [() => 'target: a step that clears ≤ 1.2× an ordinary step'],
  },
  {
    title:
      'A clearing pass (keep 3, clearing the one result that aged out) against an ordinary append of a tool group (a call and its 8 KB result), inside the session object (5 of each a sample): as POST /compact runs it, its answer (the view’s events) read to the end; and as a turn through a door runs it, with no answer to write',
    measure: ['loopClearing'],
    columns: [
      column('what', (key) => String(key)),
      median('clearing median', 'loopClearing'),
      p95('loopClearing'),
      column('append median', (key, r) => `${r.countMedian('loopClearing', key, 'appendMs').toFixed(2)} ms`),
      column('clearing / append', (key, r) =>
        ratio(r.median('loopClearing', key), r.countMedian('loopClearing', key, 'appendMs')),
      ),
      column(
        'rows read / written (clearing)',
        (key, r) => `${n(r.rows('loopClearing', key).rowsRead)} / ${n(r.rows('loopClearing', key).rowsWritten)}`,
      ),
      column(
        'rows read / written (append)',
        (key, r) =>
          `${n(r.countMedian('loopClearing', key, 'appendRowsRead'))} / ${n(r.countMedian('loopClearing', key, 'appendRowsWritten'))}`,
      ),
    ],
    notes: [() => 'target: clearing / append ≤ 1.2×'],
  },
]
