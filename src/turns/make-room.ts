import type { Policy } from '../contract/schemas'
import type { CompactionResult, FitStep, ModelFit, NewMessageEvent } from '../core'
import type { TurnDeps } from './session'

/**
 * One pass that makes room for the event about to be added (it counts as the newest turn's). When the
 * strategy summarizes and the summary fails or is declined, the same pass runs without one: the
 * turn must still fit.
 */
export async function makeRoom(
  step: Extract<FitStep, { kind: 'compact' }>,
  policy: Policy,
  added: NewMessageEvent[],
  model: ModelFit,
  deps: Pick<TurnDeps, 'session' | 'compactor' | 'limiter'>,
): Promise<CompactionResult> {
  const summarizer = policy.strategy.summarizer
  const info = deps.session.info()
  const pass = (withSummary: boolean) => {
    const tokenBudget = withSummary ? step.tokenBudget.withSummary : step.tokenBudget.withoutSummary
    const window = step.window === 'strategy' && policy.strategy.window ? policy.strategy.window : { tokenBudget }
    const strategy = { window, summarizer: withSummary ? summarizer : null }
    return deps.compactor.run(deps.session, info, {
      trigger: { always: true },
      strategy,
      pending: added,
      model,
      spend: deps.limiter?.spend,
    })
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
