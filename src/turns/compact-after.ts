import { preparesAt } from '../compaction'
import { type ErrorBody, serviceErrorOf } from '../contract/errors'
import type { TurnResult } from '../contract/turn-result'
import { log } from '../log'
import type { TurnDeps } from './session'
import type { PreparedStep } from './step'

/**
 * The last phase: the policy's pass once the step is written. In the background (when the
 * policy or the deployment says so, and the trigger fires now) the pass is started to run after
 * the answer — `compactionScheduled`, unless one runs already — and how it ends is the session's
 * to report (`/context`); else the turn waits for it, after any background pass running now (one
 * pass at a time; its trigger is looked at again on the view that pass left). It never fails the
 * turn: a failed pass is reported in the result (a summarizer's upstream failure was logged where
 * it happened; anything else is a bug, logged here).
 */
export async function compactAfter(step: PreparedStep, result: TurnResult, deps: TurnDeps): Promise<TurnResult> {
  const policy = step.policy
  if (!policy || !result.context) return result
  const request = {
    trigger: policy.trigger,
    strategy: policy.strategy,
    model: { ...step.fit, ratio: result.context.calibration.ratio },
    spend: deps.limiter?.spend,
  }
  const pass = () => deps.compactor.run(deps.session, deps.session.info(), request)
  const at = preparesAt(policy)
  // A reply that asks for tool calls is followed by their results, in the same turn: no new message yet.
  const nextMessage = result.status !== 'requires_action'
  // The summary a later pass will want, prepared after the answer (round4 §6); never in the turn's way.
  const prepare = () =>
    at !== null &&
    deps.passes?.prepare(async () => {
      await deps.compactor
        .prepare(deps.session, deps.session.info(), { ...request, at, nextMessage })
        .catch((error: unknown) => log.warn('preparing a summary failed; a pass will summarize', { error: String(error) }))
    })
  if (deps.passes?.inBackground(policy)) {
    if (!(await deps.compactor.due(deps.session, request))) {
      prepare()
      return { ...result, compactionScheduled: false }
    }
    const started = deps.passes.start(async () => {
      const outcome = await pass().then(
        (compaction) =>
          compaction.reason === 'summarizer_failed'
            ? failure('summarizer_failed', 'the summary model answered with a blank text')
            : null,
        (error: unknown) => failureOf(error),
      )
      deps.session.noteBackgroundPass(outcome)
    })
    return { ...result, compactionScheduled: started }
  }
  try {
    // One pass at a time: a door's turn may start another while this one waits.
    while (deps.passes?.running()) {
      deps.onCompacting?.()
      await deps.passes.settled()
    }
    const compaction = await pass()
    if (compaction.unchanged) prepare()
    return { ...result, compaction }
  } catch (error) {
    return { ...result, compaction: { error: failureOf(error) } }
  }
}

const failure = (code: string, message: string) => ({ code, message })

/** A pass's error in the contract's words (anything but a service error is a bug: logged). */
function failureOf(error: unknown): ErrorBody {
  const known = serviceErrorOf(error)
  if (known) return known.body
  log.error('compaction after a turn failed', { error: String(error) })
  return { code: 'internal', message: 'compaction failed' }
}
