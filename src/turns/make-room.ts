import type { Policy } from '../contract/schemas'
import { type CompactionResult, DEFAULT_CLEARING, type FitStep, type ModelFit, type NewMessageEvent } from '../core'
import type { TurnDeps } from './session'

/**
 * One pass that makes room for the event about to be added (it counts as the newest turn's): a
 * clearing of old tool results (the strategy's, else `keep: 3`), a window pass over older turns,
 * or a pass inside the newest turn. When the strategy summarizes and the summary fails or is
 * declined, the same pass runs without one: the turn must still fit.
 */
export async function makeRoom(
  step: Extract<FitStep, { kind: 'compact' | 'clear' | 'inTurn' }>,
  policy: Policy,
  added: NewMessageEvent[],
  model: ModelFit,
  deps: Pick<TurnDeps, 'session' | 'compactor' | 'limiter'>,
): Promise<CompactionResult> {
  const summarizer = policy.strategy.summarizer
  const info = deps.session.info()
  const run = (
    strategy: Parameters<typeof deps.compactor.run>[2]['strategy'],
    inTurn?: { tokenBudget: number; summaryReserve: number },
  ) =>
    deps.compactor.run(deps.session, info, {
      trigger: { always: true },
      strategy,
      pending: added,
      model,
      spend: deps.limiter?.spend,
      ...(inTurn ? { inTurn } : {}),
    })
  if (step.kind === 'clear') return run({ clearToolResults: policy.strategy.clearToolResults ?? DEFAULT_CLEARING })
  const pass = (withSummary: boolean) => {
    const tokenBudget = withSummary ? step.tokenBudget.withSummary : step.tokenBudget.withoutSummary
    if (step.kind === 'inTurn') {
      // The view's budget with the summary's room in it: the core keeps that room for what it writes.
      const summaryReserve = step.tokenBudget.withoutSummary - step.tokenBudget.withSummary
      return run(
        { summarizer: withSummary ? summarizer : null },
        { tokenBudget: step.tokenBudget.withoutSummary, summaryReserve },
      )
    }
    const window = step.window === 'strategy' && policy.strategy.window ? policy.strategy.window : { tokenBudget }
    return run({ window, summarizer: withSummary ? summarizer : null })
  }
  if (!summarizer) return pass(false)
  let result: CompactionResult
  try {
    result = await pass(true)
  } catch {
    return pass(false) // whatever failed, the pass without a summary still makes room
  }
  if (result.reason === 'summarizer_failed' || result.reason === 'summarizer_declined') return pass(false)
  return result
}
