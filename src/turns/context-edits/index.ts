import type { MessageEvent } from '../../core'
import type { TurnDeps } from '../session'
import type { ContextEdit, PreparedStep } from '../step'
import { clearingEdit } from './clearing'
import { compactionEdit, pausedAnswer, summaryText } from './compaction'
import type { EditsRun, RunPass } from './edits-run'
import { fires } from './trigger'

export { countAfterEdits } from './count'
export type { EditsRun } from './edits-run'
export { thinkingSent } from './thinking'

/**
 * A request's context edits (a Messages client's `context_management`), applied by the service
 * to the session's prompt before the model is called, whatever the upstream: a clearing of old
 * tool results and a summarizing pass, each when its trigger fires on the prompt as it then
 * stands (passes of the session's log: the view stays as they left it); thinking left out of the
 * older turns of what is sent (see `thinkingSent`). What they did is the answer's.
 */

/**
 * Runs the passes of a request's edits, in the request's order, each when its trigger fires on the
 * prompt as the edits before it left it (see `clearingEdit`, `compactionEdit`). A compaction's
 * block carries its summary and a capsule naming the event the reply follows; one that failed at
 * the summary model is a block with neither, and the turn goes on. With `pause` the request's
 * messages are written without a reply and the block is the answer.
 *
 * @example
 * const edits = await runContextEdits(step, request.contextEdits, deps)
 * if (edits.paused) return edits.paused
 */
export async function runContextEdits(step: PreparedStep, edits: readonly ContextEdit[], deps: TurnDeps): Promise<EditsRun> {
  const run: EditsRun = { applied: [], compactions: [], compaction: null, paused: null }
  const { session, compactor } = deps
  const pass: RunPass = (strategy, inTurn) =>
    compactor.run(session, session.info(), {
      trigger: { always: true },
      strategy,
      pending: step.added,
      model: step.fit,
      spend: deps.limiter?.spend,
      ...(inTurn ? { inTurn } : {}),
    })
  let summaries: MessageEvent[] = []
  let paused = false
  for (const [at, edit] of edits.entries()) {
    if (edit.kind === 'clearThinking' || !(await fires(edit.trigger, step, deps))) continue
    if (edit.kind === 'clearToolUses') {
      const cleared = await clearingEdit(at, edit, step, deps, pass)
      if (cleared) {
        run.compactions.push(cleared.result)
        run.applied.push(cleared.applied)
      }
      continue
    }
    const written = await compactionEdit(edit, step, deps, pass)
    if (written === 'failed') {
      run.compaction = { content: null, capsule: null }
      continue
    }
    run.compactions.push(...written)
    summaries = [...summaries, ...written.flatMap((result) => result.summary)]
    paused ||= edit.pause
  }
  if (summaries.length === 0) {
    // A failed compaction's block (neither summary nor capsule) still opens the message.
    if (run.compaction) deps.onCompaction?.(step.replyId, run.compaction)
    return run
  }
  // The capsule names the event the reply follows: after a pause, the view's tip before the request's messages.
  const tip = await viewTip(deps)
  const point = paused ? tip : (step.added.at(-1)?.id ?? tip)
  run.compaction = {
    content: summaryText(summaries),
    capsule: deps.sealCompaction && point !== null ? await deps.sealCompaction(point) : null,
  }
  if (paused)
    run.paused = await pausedAnswer(step, run, summaries.filter((event) => event.message.role === 'assistant').at(-1)!, deps)
  // A paused answer comes whole; a streamed reply's message opens with the block.
  else deps.onCompaction?.(step.replyId, run.compaction)
  return run
}

/** The id of the view's last event (null: an empty view). */
async function viewTip(deps: TurnDeps): Promise<string | null> {
  const { view } = await deps.session.readView()
  if (view.length === 0) return null
  return (await deps.session.readIds(Int32Array.of(view.seq(view.length - 1))))[0] ?? null
}
