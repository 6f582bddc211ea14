import { defaultPolicy, deploymentPolicy } from '../compaction/policy'
import type { ContextJson } from '../contract/schemas'
import { chatModelBudget, modelSettings } from '../models/config'
import type { SessionFacts } from '../reads/facts'

/** What the session object knows now, in memory: a background pass running, requests waiting on its queue. */
export interface SessionActivity {
  compacting: boolean
  /** A summary is being prepared ahead of a pass now (round4 §6). */
  preparing: boolean
  queued: number
}

/**
 * `GET /v1/sessions/:id/context`: a session's facts (counted by its storage) with the deployment's
 * budget, the effective policy and what the object is doing now. Read-only.
 *
 * @example
 * const report = contextReport(stored.answers.facts(record), env, { compacting: false, queued: 0 })
 */
export function contextReport(facts: SessionFacts, env: Env, activity: SessionActivity): ContextJson {
  const models = modelSettings(env)
  const { lastCompactionError, policy, ...counted } = facts
  return {
    budget: chatModelBudget(models),
    ...counted,
    ...activity,
    lastCompactionError,
    policy: policy ?? deploymentPolicy(env.COMPACTION_POLICY) ?? defaultPolicy(models.model !== null),
  }
}
