import type { CompactInput } from '../contract/schemas'
import type { Usage } from '../contract/turn-result'
import type { CompactionResult } from '../core'
import type { OpenSession } from '../store/log/open-session'
import { type Compactor, chatModelFit } from '.'

/**
 * `POST /compact`: one pass now — the request's trigger (default `always`), its strategy or the
 * session's policy strategy (else `lastEvents(20)` without a summarizer), fitted for the
 * configured chat model with the session's calibration. A summarizer error is a 502; what the
 * summary call reported is `spend`t (the user's daily token quota), as a turn's is.
 *
 * @example
 * const result = await requestedPass(compaction, await storage.openExisting(), { dryRun: true }, env)
 */
export function requestedPass(
  compaction: Compactor,
  session: OpenSession,
  request: CompactInput,
  env: Env,
  spend?: (usage: Usage | null) => Promise<void>,
): Promise<CompactionResult> {
  const record = session.record()!
  return compaction.run(session, session.info(), {
    trigger: request.trigger,
    strategy: request.strategy ?? record.policy?.strategy ?? {},
    // Outside a turn the budget is the configured chat model's.
    model: chatModelFit(env, record.calibration.ratio),
    dryRun: request.dryRun,
    expectedVersion: request.expectedVersion,
    spend,
  })
}
