import { ServiceError } from '../contract/errors'
import { newEventId } from '../contract/ids'
import type { TurnInput } from '../contract/schemas'
import { recallOf } from '../contract/schemas'
import { type ContextEditsReport, storedResult, type TurnResult } from '../contract/turn-result'
import { admitted } from '../rate-limits'
import { compactAfter } from './compact-after'
import { type EditsRun, runContextEdits } from './context-edits'
import { openContentTurn, openContinuation } from './open-step'
import { prepareStep, seedHistoryFirst } from './prepare-step'
import { recordStep } from './record-step'
import type { TurnDeps } from './session'
import type { StepInput, StepRequest } from './step'
import { callFitted, StepCaller } from './step-caller'

/**
 * One request on `/turns`, as the HTTP contract describes it: a retry answers the stored result;
 * else the step (a user message, or a continuation's tool event) runs (see {@link runStep}).
 *
 * @example
 * const result = await runTurn({ content: 'Hello' }, deps)
 */
export async function runTurn(input: TurnInput, deps: TurnDeps): Promise<TurnResult> {
  const { session, estimator } = deps
  if (input.regenerate) return regenerate(input.id, input, deps)
  const content = input.content
  const opened =
    content !== undefined
      ? await openContentTurn({ ...input, content }, session, estimator)
      : await openContinuation(input.toolResults ?? [], session, estimator)
  if (opened.kind === 'done') return opened.result
  // An edit: the turn runs on the view as of the point, the REWIND written with it.
  if (input.rewind) session.rewindFirst({ to: input.rewind.to, position: input.rewind.position ?? 'at' }, 'edit', 'rewind.to')
  const field = content !== undefined ? 'content' : 'toolResults'
  return runStep({ added: [opened.added], fields: [field], closesPending: content !== undefined }, input, deps)
}

/**
 * A regenerate: the newest turn's user message stays, what followed it in that turn leaves the
 * view (one REWIND at that message, written with the new reply), and the model answers again.
 * A retried `id` (the REWIND's) answers the stored result.
 */
export async function regenerate(id: string | undefined, request: StepRequest, deps: TurnDeps): Promise<TurnResult> {
  const { session } = deps
  if (id !== undefined) {
    const done = (await session.stepLog())?.regenerated(id) ?? null
    if (done === 'conflict')
      throw new ServiceError('id_conflict', `event id "${id}" is already in the log, but not as the REWIND of a regenerate`)
    if (done) return storedResult(done)
  }
  const [question, ...answer] = await session.newestTurn()
  if (!question || answer.length === 0) {
    throw new ServiceError(
      'nothing_to_regenerate',
      question ? 'the newest turn has no reply to regenerate yet' : 'the session has no turn to regenerate',
    )
  }
  const rewindId = id ?? newEventId()
  if (!session.rewindFirst({ to: question.id, position: 'at' }, 'regenerate', 'regenerate', rewindId)) {
    throw new ServiceError('nothing_to_regenerate', 'the newest turn has no reply to regenerate yet')
  }
  return runStep({ added: [], fields: [], closesPending: false, keyId: rewindId }, request, deps)
}

/**
 * One step of a turn, in its phases: prepared (checks, pending calls closed, what it sends),
 * a seeded history written first when only that lets it fit, the model called with the prompt
 * fitted (compacting first if needed, once more if the upstream refuses it), the step's events
 * written with the reply in one append, then the policy's pass. Counted as a model turn by the
 * user's limiter once it reaches the model.
 *
 * @example
 * const result = await runStep({ added: [userEvent], fields: ['content'], closesPending: true }, {}, deps)
 */
export function runStep(input: StepInput, request: StepRequest, deps: TurnDeps): Promise<TurnResult> {
  return admitted(deps.limiter, async (reached) => {
    // A seeded history goes first when the request's edits are to pass over it.
    const passes = request.contextEdits?.some((edit) => edit.kind !== 'clearThinking') ?? false
    const step = await seedHistoryFirst(await prepareStep(input, request, deps), input.history ?? 0, deps, passes)
    // The request's own context edits first (a Messages client's): a paused compaction is the answer.
    const edits = request.contextEdits ? await runContextEdits(step, request.contextEdits, deps) : null
    if (edits?.paused) return edits.paused
    const caller = new StepCaller(step, request, deps, reached)
    const first = await callFitted(step, caller, deps)
    if (edits) first.context.compactions.unshift(...edits.compactions)
    const result = await recordStep(step, { caller, ...first }, deps, {
      // On when the calls offered it (asked for, or the view needs it); across when the request said so.
      recall: { on: caller.recallOffered, across: recallOf(request.recall).across },
      memory: request.memory === true,
      idempotency: input.idempotency,
    })
    return compactAfter(step, edits ? { ...result, contextEdits: reportOf(edits, caller) } : result, deps)
  })
}

/** What a request's edits did: its passes', and its thinking edit's on the last call, in the request's order. */
function reportOf(edits: EditsRun, caller: StepCaller): ContextEditsReport {
  const applied = [...edits.applied, ...(caller.thinkingCleared ? [caller.thinkingCleared] : [])].sort((a, b) => a.at - b.at)
  return { applied, compaction: edits.compaction, paused: false }
}
