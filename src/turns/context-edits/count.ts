import type { Compactor } from '../../compaction'
import type { ModelFit, NewMessageEvent } from '../../core'
import type { TurnSession } from '../session'
import type { ContextEdit } from '../step'
import { clearingStrategy, savedModelTokens } from './clearing'
import { firesOn, toolUsesOf } from './trigger'

/**
 * A counted prompt's tokens (`count`, as the model counts them) once the request's context edits
 * are applied as its turn would apply them, nothing written (`context_management` on a Messages
 * `count_tokens`): the clearing, when its trigger fires on the count, runs as a dry pass, and
 * what it would save is taken off. A compaction is not applied (its summary takes the model), so
 * a clearing after one is planned on the view before it. The thinking edit takes nothing off:
 * thinking is in no estimate.
 *
 * @example
 * await countAfterEdits(48_000, request.contextEdits, added, { session, compactor, fit }) // 31_250
 */
export async function countAfterEdits(
  count: number,
  edits: readonly ContextEdit[],
  added: readonly NewMessageEvent[],
  deps: { session: TurnSession; compactor: Compactor; fit: ModelFit },
): Promise<number> {
  const { session, compactor, fit } = deps
  let tokens = count
  for (const edit of edits) {
    if (edit.kind !== 'clearToolUses' || !(await firesOn(edit.trigger, tokens, () => toolUsesOf(added, deps)))) continue
    const planned = await compactor.run(session, session.info(), {
      trigger: { always: true },
      strategy: clearingStrategy(edit, added, fit.ratio),
      pending: added,
      model: fit,
      dryRun: true,
    })
    tokens -= savedModelTokens(planned, fit.ratio)
  }
  return tokens
}
