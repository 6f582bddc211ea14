import { formatProblem, type Trigger, triggerProblem, type Window, windowProblem } from './core'

/** The summarizer options a strategy may carry (the HTTP contract's shape). */
export interface SummarizerSpec {
  model?: string
  overlapSize?: number
  systemPrompt?: string
  shadowPrompt?: string
}

/** A compaction strategy as stored and sent as JSON. */
export interface StrategySpec {
  window?: Window
  summarizer?: SummarizerSpec | null
}

/** A session's (or the deployment's) compaction policy. */
export interface Policy {
  trigger: Trigger
  strategy: StrategySpec
}

/**
 * Reads a policy given as JSON (the `COMPACTION_POLICY` variable), with the same rules as the
 * API: an error message names the bad field.
 *
 * @example
 * parsePolicy('{"trigger":{"tokenCount":6000},"strategy":{"window":{"tokenBudget":3000}}}')
 */
export function parsePolicy(json: string): { policy: Policy } | { problem: string } {
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch {
    return { problem: 'not valid JSON' }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { problem: 'must be an object { trigger, strategy }' }
  const { trigger, strategy = {}, ...rest } = value as Record<string, unknown>
  const unknownKey = Object.keys(rest)[0]
  if (unknownKey) return { problem: `${unknownKey}: unknown field` }
  const t = triggerProblem(trigger)
  if (t) return { problem: formatProblem('trigger', t) }
  if (typeof strategy !== 'object' || strategy === null || Array.isArray(strategy))
    return { problem: 'strategy: must be an object' }
  const { window, summarizer, ...more } = strategy as Record<string, unknown>
  const other = Object.keys(more)[0]
  if (other) return { problem: `strategy.${other}: unknown field` }
  if (window !== undefined) {
    const w = windowProblem(window)
    if (w) return { problem: formatProblem('strategy.window', w) }
  }
  if (summarizer !== undefined && summarizer !== null && (typeof summarizer !== 'object' || Array.isArray(summarizer))) {
    return { problem: 'strategy.summarizer: must be an object or null' }
  }
  return { policy: { trigger: trigger as Policy['trigger'], strategy: strategy as StrategySpec } }
}

/**
 * The built-in policy for turns when neither the request, the session nor COMPACTION_POLICY
 * gives one: leave conversations alone until they fill 60% of the prompt budget, then keep the
 * newest 30% (whole turns) and summarize the rest when a model is configured.
 */
export function defaultPolicy(promptBudget: number, summaries: boolean): Policy {
  return {
    trigger: { tokenCount: Math.max(1, Math.floor(promptBudget * 0.6)) },
    strategy: { window: { tokenBudget: Math.max(1, Math.floor(promptBudget * 0.3)) }, ...(summaries ? { summarizer: {} } : {}) },
  }
}
