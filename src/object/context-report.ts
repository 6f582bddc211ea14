import { defaultPolicy, deploymentPolicy } from '../compaction/policy'
import type { ContextJson } from '../contract/schemas'
import { chatModelBudget, modelSettings } from '../models/config'
import type { SessionFacts } from '../store/session/facts'

/**
 * `GET /v1/sessions/:id/context`: a session's facts (counted by its storage) with the deployment's
 * budget, the effective policy and whether a background pass runs now. Read-only.
 *
 * @example
 * const report = contextReport(stored.answers.facts(record), env, false)
 */
export function contextReport(facts: SessionFacts, env: Env, compacting: boolean): ContextJson {
  const models = modelSettings(env)
  const { lastCompactionError, policy, ...counted } = facts
  return {
    budget: chatModelBudget(models),
    ...counted,
    compacting,
    lastCompactionError,
    policy: policy ?? deploymentPolicy(env.COMPACTION_POLICY) ?? defaultPolicy(models.model !== null),
  }
}
