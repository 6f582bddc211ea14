import { defaultPolicy, deploymentPolicy } from '../compaction/policy'
import type { ContextJson } from '../contract/schemas'
import { chatModelBudget, modelSettings } from '../models/config'
import type { SessionFacts } from '../store/session/facts'

/**
 * `GET /v1/sessions/:id/context`: a session's facts (counted by its storage) with the deployment's
 * budget and the effective policy. Read-only.
 *
 * @example
 * const report = contextReport(stored.answers.facts(record), env)
 */
export function contextReport(facts: SessionFacts, env: Env): ContextJson {
  const models = modelSettings(env)
  return {
    budget: chatModelBudget(models),
    ...facts,
    policy: facts.policy ?? deploymentPolicy(env.COMPACTION_POLICY) ?? defaultPolicy(models.model !== null),
  }
}
