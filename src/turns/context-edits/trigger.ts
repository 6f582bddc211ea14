import { promptTokens, seqsAt } from '../../core'
import { promptPartsOf } from '../fit-prompt'
import type { TurnDeps } from '../session'
import type { PreparedStep } from '../step'

/** An edit's trigger: more input tokens (as the model counts them), or more tool uses, than it says. */
export type EditTrigger = { inputTokens: number } | { toolUses: number }

/** The prompt's tokens as the model counts them (the estimate scaled by the session's calibration). */
async function promptModelTokens(step: PreparedStep, deps: TurnDeps): Promise<number> {
  const state = await deps.session.promptState()
  return Math.ceil(promptTokens(promptPartsOf(step, state)) * step.fit.ratio)
}

/** The tool calls the prompt holds: the view's and the step's own (a seeded history's). */
async function toolUses(step: PreparedStep, deps: TurnDeps): Promise<number> {
  const { view } = await deps.session.readView()
  const positions: number[] = []
  for (let p = 0; p < view.length; p++) if (view.role(p) === 'assistant') positions.push(p)
  const events = await deps.session.readEvents(seqsAt(view, Int32Array.from(positions)))
  return [...events, ...step.added].reduce((sum, event) => sum + (event.message.toolCalls?.length ?? 0), 0)
}

/**
 * Whether a trigger fires on the prompt as it stands now (the passes before it having run).
 *
 * @example
 * if (await fires({ inputTokens: 100_000 }, step, deps)) await clearingEdit(...)
 */
export async function fires(trigger: EditTrigger, step: PreparedStep, deps: TurnDeps): Promise<boolean> {
  return 'inputTokens' in trigger
    ? (await promptModelTokens(step, deps)) > trigger.inputTokens
    : (await toolUses(step, deps)) > trigger.toolUses
}
