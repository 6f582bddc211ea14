import type { MessageSkeleton } from '../events'
import { NO_PINS, type ViewPins } from '../pins'
import { analyzeColumns } from '../view'
import { newestTurnStartOf, type ViewColumns } from '../view/columns'
import type { PassCut, PassPlan } from '.'

/**
 * A pass inside the newest turn: when an agent's loop alone outgrows the window, the turn's user
 * message stays, whole tool groups before a cut (an assistant message with its calls, and the
 * tool messages after it) are covered, and one summary of them goes right after that user
 * message; the newest group always stays. Everything before the turn stays as it is.
 */
export interface InTurnOptions {
  /** The view's tokens after the pass may be at most this (the summary's room included when summarizing). */
  tokenBudget: number
  summarizing: boolean
  /** Tokens kept for the summary the pass writes. */
  summaryReserve?: number
  pins?: ViewPins
  /** Events not written yet that belong to the newest group (a continuation's tool results). */
  pending?: readonly MessageSkeleton[]
}

/**
 * Plans a pass inside the view's newest turn (see {@link InTurnOptions}): the fewest oldest tool
 * groups whose covering brings the view within the budget — all but the newest when none does.
 * An earlier in-turn summary (a synthetic message after the turn's start) is covered with them and
 * rolled into the new one. Unchanged when the turn has fewer than two groups.
 *
 * @example
 * const plan = planInTurn(columnsOf(view), { tokenBudget: 20_000, summarizing: true })
 */
export function planInTurn(view: ViewColumns, options: InTurnOptions): PassPlan {
  const pins = options.pins ?? NO_PINS
  const start = newestTurnStartOf(view)
  if (start >= view.length) return { kind: 'unchanged', reason: 'nothing_to_cover' }
  const prior: number[] = []
  const groups: number[][] = []
  const heldInLoop: number[] = []
  for (let p = start + 1; p < view.length; p++) {
    if (pins.pinned(view.seq(p))) heldInLoop.push(p)
    else if (view.synthetic(p)) prior.push(p)
    else if (view.role(p) === 'assistant' || groups.length === 0) groups.push([p])
    else groups.at(-1)!.push(p)
  }
  // A group being answered now (pending tool results) is the newest: it stays with them.
  if (groups.length < 2) return { kind: 'unchanged', reason: 'nothing_to_cover' }
  const analysis = analyzeColumns(view, pins)
  const pendingTokens = (options.pending ?? []).reduce((sum, event) => sum + event.tokens, 0)
  const reserve = options.summarizing ? (options.summaryReserve ?? 0) : 0
  const priorTokens = prior.reduce((sum, p) => sum + view.tokens(p), 0)
  let tokens = analysis.tokens + pendingTokens - priorTokens + reserve
  let count = 0
  while (count < groups.length - 1 && tokens > options.tokenBudget) {
    for (const p of groups[count]!) tokens -= view.tokens(p)
    count++
  }
  if (count === 0) count = 1
  const covered = Int32Array.from([...prior, ...groups.slice(0, count).flat()].sort((a, b) => a - b))
  const head: number[] = []
  for (let p = 0; p <= start; p++) head.push(p)
  const kept = [...heldInLoop, ...groups.slice(count).flat()].sort((a, b) => a - b)
  const held = head.filter((p) => pins.pinned(view.seq(p)))
  const plan: PassCut = {
    before: view,
    beforeTokens: analysis.tokens,
    cut: covered.length,
    summarizing: options.summarizing,
    pinned: Int32Array.from(head),
    held: Int32Array.from(held),
    covered,
    preserved: Int32Array.from(kept),
    priorSummary: Int32Array.from(prior),
    coveredConversation: Int32Array.from(groups.slice(0, count).flat()),
    pins,
    fixed: true,
  }
  return { kind: 'cut', ...plan }
}
