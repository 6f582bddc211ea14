import { type ClearingPlan, type ClearToolResults, clearedById, planClearing } from '../clearing'
import type { ClearedEntry } from '../events'
import { keepAllPlan, type PassCut, type PassPlan, planPass } from '../pass'
import { planInTurn } from '../pass/in-turn'
import type { SessionStore, ViewSnapshot } from '../session-store'
import { fires, type ModelFit, type Trigger } from '../triggers'
import { analyzeColumns } from '../view'
import { seqsAt, type ViewColumns } from '../view/columns'
import { DEFAULT_WINDOW } from '../windows'
import type { CompactDeps, CompactRequest } from './request'

/**
 * Whether a pass's trigger fires on a view (the first thing {@link compact} checks): what a
 * turn asks before it schedules a pass to run after its answer. No trigger: `always`.
 *
 * @example
 * passDue(view, { turnCount: 20 }, model) // true once the view holds more than 20 turns
 */
export function passDue(
  view: ViewColumns,
  trigger: Trigger | undefined,
  model: ModelFit | undefined,
  analysis = analyzeColumns(view),
) {
  return fires(trigger ?? { always: true }, { ...analysis, model })
}

/** What a pass covers, planned on a view: its cut, the view it cut (cleared messages at their cleared size), the clearing it keeps. */
export interface PlannedCut {
  cut: PassCut
  view: ViewColumns
  cleared: readonly ClearedEntry[]
}

/**
 * Plans a pass of a strategy on a view, its trigger aside: a clearing first (the view's columns
 * then count the cleared messages at their cleared size), then the window's cut (or the newest
 * turn's) when the trigger still fires. What the pass would cover, or why it covers nothing.
 */
export async function planCut(
  snapshot: ViewSnapshot,
  request: Pick<CompactRequest, 'strategy' | 'trigger' | 'model' | 'pending'>,
  deps: Pick<CompactDeps, 'store' | 'estimator'>,
): Promise<PlannedCut | 'nothing_to_cover'> {
  const strategy = request.strategy ?? {}
  const summarizer = strategy.summarizer ?? null
  const { view: stored, pins, cleared: clearedNow, clearedSeqs } = snapshot
  const storedAnalysis = analyzeColumns(stored, pins)
  const planned = strategy.clearToolResults
    ? await planViewClearing(stored, clearedById(clearedNow), clearedSeqs, strategy.clearToolResults, deps.store, deps)
    : null
  const clearing = planned?.plan ?? null
  const view = planned?.plan ? withTokens(stored, planned.plan.changed, planned.positions, planned.ids) : stored
  const cleared = clearing?.cleared ?? clearedNow ?? []
  const analysis = clearing ? analyzeColumns(view, pins) : storedAnalysis
  const windowed =
    strategy.inTurn !== undefined || strategy.window !== undefined || summarizer !== null || !strategy.clearToolResults
  // A clearing alone that clears nothing covers nothing: the default window is no part of it.
  if (!windowed && !clearing) return 'nothing_to_cover'
  let plan: PassPlan
  if (clearing && (!windowed || !passDue(view, request.trigger, request.model, analysis)))
    plan = { kind: 'cut', ...keepAllPlan(view, pins, analysis) }
  else if (strategy.inTurn)
    plan = planInTurn(view, { ...strategy.inTurn, summarizing: summarizer !== null, pins, pending: request.pending })
  else
    plan = planPass(
      view,
      {
        window: strategy.window ?? DEFAULT_WINDOW,
        model: request.model,
        summarizing: summarizer !== null,
        pending: request.pending,
        pins,
      },
      analysis,
    )
  if (plan.kind === 'unchanged') return plan.reason
  // What the pass saves counts its clearing too.
  return { cut: clearing ? { ...plan, beforeTokens: storedAnalysis.tokens } : plan, view, cleared }
}

/**
 * The view's messages a clearing looks at: its tool messages (with `inputs`, its assistant messages
 * too) not cleared already — read only when the store knows which are (`cleared`, by seq), so
 * that a clearing in a long loop reads the results that aged since the last one, not the loop.
 */
function toolPositions(view: ViewColumns, inputs: boolean, cleared?: ReadonlySet<number>): Int32Array {
  const positions: number[] = []
  for (let p = 0; p < view.length; p++) {
    const role = view.role(p)
    if ((role === 'tool' || (inputs && role === 'assistant')) && !cleared?.has(view.seq(p))) positions.push(p)
  }
  return Int32Array.from(positions)
}

/** A clearing of the view's tool messages (read whole, as stored), or null when it clears nothing; the positions and ids it read. */
async function planViewClearing(
  view: ViewColumns,
  current: Map<string, ClearedEntry>,
  clearedSeqs: ReadonlySet<number> | undefined,
  options: ClearToolResults,
  store: SessionStore,
  deps: Pick<CompactDeps, 'estimator'>,
): Promise<{ plan: ClearingPlan | null; positions: Int32Array; ids: string[] }> {
  const inputs = Array.isArray(options.clearInputs) ? options.clearInputs.length > 0 : options.clearInputs === true
  const positions = toolPositions(view, inputs, clearedSeqs)
  const events = await store.readEvents(seqsAt(view, positions))
  // The stored tokens, or the cleared ones a boundary gave: what the view counts now.
  const counted = events.map((event, i) => ({ ...event, tokens: view.tokens(positions[i]!) }))
  return { plan: planClearing(counted, current, options, deps.estimator), positions, ids: events.map((event) => event.id) }
}

/** A view's columns with some events' tokens replaced (by id; `ids`: those of `positions`). */
function withTokens(view: ViewColumns, changed: Map<string, number>, positions: Int32Array, ids: string[]): ViewColumns {
  const at = new Map<number, number>()
  positions.forEach((p, i) => {
    const tokens = changed.get(ids[i]!)
    if (tokens !== undefined) at.set(p, tokens)
  })
  return {
    length: view.length,
    seq: (p) => view.seq(p),
    role: (p) => view.role(p),
    synthetic: (p) => view.synthetic(p),
    inline: (p) => view.inline(p),
    tokens: (p) => at.get(p) ?? view.tokens(p),
  }
}
