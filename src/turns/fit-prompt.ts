import { ServiceError } from '../contract/errors'
import type { CompactionResult, FitState, FitStep, PromptParts } from '../core'
import { planPromptFit } from '../core'
import { makeRoom } from './make-room'
import type { PromptState, TurnDeps } from './session'
import { type PreparedStep, tokensOf } from './step'

/** How far fitting has come: passes run so far, an upstream's refusal, tokens of added events counted as stored. */
export interface FitProgress {
  /** Window passes over older turns. */
  passes: number
  /** Whether a clearing ran (or was tried). */
  cleared?: boolean
  /** Passes inside the newest turn. */
  inTurn?: number
  refused?: FitState['refused']
  /** Tokens of the first added events taken as already in the view (a seeded history written first). */
  ahead?: number
}

/**
 * The next step of fitting a prepared step's prompt to its budget (see the core's
 * `planPromptFit`), from the session's state: in estimate units, the budget being as many
 * estimated tokens as the model would count in it.
 *
 * @example
 * planFit(step, await session.promptState(), { passes: 0 }) // { kind: 'call', promptTokens: 812 }
 */
export function planFit(step: PreparedStep, state: PromptState | null, progress: FitProgress): FitStep {
  return planPromptFit({
    budget: Math.floor(step.fit.promptBudget / step.fit.ratio),
    parts: promptPartsOf(step, state, progress.ahead ?? 0),
    canCompact: step.policy !== null,
    summaryReserve: step.summaryReserve,
    passes: progress.passes,
    clearing: step.policy?.strategy.clearToolResults ? 'first' : 'lastResort',
    cleared: progress.cleared ?? false,
    inTurn: progress.inTurn ?? 0,
    refused: progress.refused,
  })
}

/**
 * The parts of a prepared step's prompt, in estimate units: the view (with `ahead` tokens of the
 * added events taken as stored), the system message sent, and what the step adds with its tools
 * (`recall_history`'s definition included when it is offered).
 */
export const promptPartsOf = (step: PreparedStep, state: PromptState | null, ahead = 0): PromptParts => ({
  viewTokens: (state?.viewTokens ?? 0) + ahead,
  storedSystemTokens: state?.latestSystem?.tokens ?? 0,
  newSystemTokens: step.systemEvent?.tokens ?? null,
  addedTokens: tokensOf(step.added) - ahead + step.toolsTokens + (offersRecall(step, state) ? step.recallTokens : 0),
})

/** Whether the step's calls offer `recall_history`: the request turned it on, or the view shows what only recall brings back. */
export const offersRecall = (step: Pick<PreparedStep, 'recallRequested'>, state: PromptState | null): boolean =>
  step.recallRequested || state?.recallNeeded === true

export const overflow = (message: string) => new ServiceError('context_overflow', message)

/** A prompt made to fit: its estimated tokens, and the passes that made room for it. */
export interface FittedPrompt {
  promptTokens: number
  compactions: CompactionResult[]
}

/**
 * Runs the passes the plan asks for until the prompt fits, or throws the 413. After an upstream
 * refused the prompt (`refusal`: its words) the plan is the refusal's: one pass to half the size.
 */
export async function fitPrompt(step: PreparedStep, deps: TurnDeps, refusal?: string): Promise<FittedPrompt> {
  const compactions: CompactionResult[] = []
  const ran = { passes: 0, cleared: false, inTurn: 0, steps: 0 }
  for (;;) {
    const state = await deps.session.promptState()
    const progress = refusal === undefined ? ran : { passes: 0, refused: { passes: ran.steps, message: refusal, again: false } }
    const plan = planFit(step, state, progress)
    if (plan.kind === 'overflow') throw overflow(plan.message)
    if (plan.kind === 'call') return { promptTokens: plan.promptTokens, compactions }
    // A background pass may be making room already: wait for it, then look again.
    if (deps.passes?.running()) {
      deps.onCompacting?.()
      await deps.passes.settled()
      continue
    }
    // The added events are the newest turn's (a continuation's tool event joins the stored turn): never covered.
    const result = await makeRoom(plan, step.policy!, step.added, step.fit, deps)
    ran.steps++
    if (plan.kind === 'clear') ran.cleared = true
    else if (plan.kind === 'inTurn') ran.inTurn++
    else ran.passes++
    // A clearing or a pass inside the turn that found nothing to do made no room: not one of the passes that did.
    if (plan.kind === 'compact' || !result.unchanged) compactions.push(result)
  }
}
