import { type NewMessageEvent, promptTokens, seqsAt } from '../../core'
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

/** The tool calls a prompt holds: the view's and those the request adds (a seeded history's). */
export async function toolUsesOf(added: readonly NewMessageEvent[], deps: Pick<TurnDeps, 'session'>): Promise<number> {
  const { view } = await deps.session.readView()
  const positions: number[] = []
  for (let p = 0; p < view.length; p++) if (view.role(p) === 'assistant') positions.push(p)
  const events = await deps.session.readEvents(seqsAt(view, Int32Array.from(positions)))
  return [...events, ...added].reduce((sum, event) => sum + (event.message.toolCalls?.length ?? 0), 0)
}

/**
 * Whether a trigger fires on a prompt of `inputTokens` (as the model counts them) and the tool
 * uses `toolUses` answers (read only for a trigger on tool uses).
 *
 * @example
 * await firesOn({ toolUses: 30 }, 12_000, () => toolUsesOf(added, deps))
 */
export const firesOn = async (trigger: EditTrigger, inputTokens: number, toolUses: () => Promise<number>) =>
  'inputTokens' in trigger ? inputTokens > trigger.inputTokens : (await toolUses()) > trigger.toolUses

/**
 * Whether a trigger fires on the prompt as it stands now (the passes before it having run).
 *
 * @example
 * if (await fires({ inputTokens: 100_000 }, step, deps)) await clearingEdit(...)
 */
export async function fires(trigger: EditTrigger, step: PreparedStep, deps: TurnDeps): Promise<boolean> {
  const inputTokens = 'inputTokens' in trigger ? await promptModelTokens(step, deps) : 0
  return firesOn(trigger, inputTokens, () => toolUsesOf(step.added, deps))
}
