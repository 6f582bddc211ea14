import { type Policy, parsePolicyJson } from '../contract/schemas'
import { log } from '../log'

/**
 * The built-in policy for turns when neither the request, the session nor COMPACTION_POLICY
 * gives one: leave conversations alone until they fill 60% of the model's prompt budget, then
 * keep the newest 30% (whole turns) and summarize the rest when a model is configured.
 *
 * @example
 * defaultPolicy(true) // { trigger: { contextFraction: 0.6 }, strategy: { window: { contextFraction: 0.3 }, summarizer: {} } }
 */
export function defaultPolicy(summaries: boolean): Policy {
  return {
    trigger: { contextFraction: 0.6 },
    strategy: { window: { contextFraction: 0.3 }, ...(summaries ? { summarizer: {} } : {}) },
  }
}

/** COMPACTION_POLICY as parsed, by its text: parsed (and a bad one reported) once per isolate. */
const parsed = new Map<string, Policy | null>()

/**
 * The deployment's policy from the `COMPACTION_POLICY` variable, read with the API's own policy
 * schema; null when unset, or when it is not valid (logged once, the built-in default applies).
 */
export function deploymentPolicy(json: string | undefined): Policy | null {
  if (!json) return null
  let policy = parsed.get(json)
  if (policy === undefined) {
    const result = parsePolicyJson(json, 'COMPACTION_POLICY')
    if ('problem' in result) log.error('COMPACTION_POLICY is not valid; using the built-in default', { problem: result.problem })
    policy = 'policy' in result ? result.policy : null
    parsed.set(json, policy)
  }
  return policy
}

/** Where a turn's policy may come from, most specific first. */
export interface PolicySources {
  /** The turn request's `compaction` (false: none for this turn). */
  requested: Policy | false | undefined
  /** The session's own policy. */
  session: Policy | null
  /** The deployment's COMPACTION_POLICY text. */
  deployment: string | undefined
  /** Whether summaries are possible, for the built-in default. */
  summaries: boolean
}

/**
 * A turn's policy: the request's (false: none), the session's, COMPACTION_POLICY, or the
 * built-in default.
 */
export function turnPolicy(sources: PolicySources): Policy | null {
  if (sources.requested === false) return null
  return sources.requested ?? sources.session ?? deploymentPolicy(sources.deployment) ?? defaultPolicy(sources.summaries)
}

/** Where a policy's pass runs when the policy does not say (`COMPACTION_BACKGROUND`). */
export type BackgroundMode = 'doors' | 'always' | 'never'

const MODES: readonly BackgroundMode[] = ['doors', 'always', 'never']
let reported: string | undefined

/** `COMPACTION_BACKGROUND` read: `doors` when unset, or when not one of the three (logged once). */
export function backgroundMode(value: string | undefined): BackgroundMode {
  const mode = value?.trim().toLowerCase() || 'doors'
  if ((MODES as readonly string[]).includes(mode)) return mode as BackgroundMode
  if (reported !== value) log.error('COMPACTION_BACKGROUND is not doors, always or never; using doors', { value })
  reported = value
  return 'doors'
}

/**
 * Whether a turn's policy pass runs after the turn is answered: the policy's own `background`,
 * else the deployment's mode for this kind of request (a door's, or a `/turns` turn).
 *
 * @example
 * runsInBackground({ trigger, strategy }, 'doors', true) // true: a door's turn answers before its pass
 */
export function runsInBackground(policy: Policy, mode: BackgroundMode, door: boolean): boolean {
  return policy.background ?? (mode === 'always' || (mode === 'doors' && door))
}
