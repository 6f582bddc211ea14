import { defaultPolicy, deploymentPolicy } from '../compaction/policy'
import type { Policy } from '../contract/schemas'
import { chatModelBudget, modelSettings } from '../models/config'
import type { SessionFacts } from '../store/session/insight'

/** `GET /v1/sessions/:id/context`: what a session holds, what the model would see of it, and what compaction did. */
export interface SessionContext extends Omit<SessionFacts, 'policy'> {
  /** The configured chat model's: its context, its reply tokens and what a prompt gets of them. */
  budget: { contextTokens: number; replyTokens: number; promptTokens: number }
  /** The policy turns would use: the session's, else COMPACTION_POLICY, else the built-in default. */
  policy: Policy
}

/**
 * A session's context report: its facts (counted by the session object) with the deployment's
 * budget and the effective policy. Read-only.
 *
 * @example
 * const report = sessionContext(stored.answers.facts(record), env)
 */
export function sessionContext(facts: SessionFacts, env: Env): SessionContext {
  const models = modelSettings(env)
  return {
    budget: chatModelBudget(models),
    ...facts,
    policy: facts.policy ?? deploymentPolicy(env.COMPACTION_POLICY) ?? defaultPolicy(models.model !== null),
  }
}
