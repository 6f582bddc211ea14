import { serviceErrorOf } from '../../contract/errors'
import type { ContextEditsReport, TurnResult } from '../../contract/turn-result'
import { type CompactionResult, type MessageEvent, type NewMessageEvent, promptTokens, textOf } from '../../core'
import { promptPartsOf } from '../fit-prompt'
import type { TurnDeps } from '../session'
import type { ContextEdit, PreparedStep } from '../step'
import type { EditsRun, RunPass } from './edits-run'
import { fires } from './trigger'

type CompactEdit = Extract<ContextEdit, { kind: 'compact' }>

/**
 * A `compact_20260112` edit whose trigger fired, as the service's summarizing passes: everything
 * before the newest turn (the session's summarizer, the edit's `instructions` as its focus); then,
 * when the prompt still passes the trigger, the newest turn's own loop but its newest step. The
 * passes that wrote something, or `failed` when no summary could be had (the summary model failed
 * or answered nothing): the request then goes on without it, as Anthropic's does.
 *
 * @example
 * const written = await compactionEdit(edit, step, deps, pass)
 */
export async function compactionEdit(
  edit: CompactEdit,
  step: PreparedStep,
  deps: TurnDeps,
  pass: RunPass,
): Promise<CompactionResult[] | 'failed'> {
  const summarizer = {
    ...(step.policy?.strategy.summarizer ?? {}),
    ...(edit.instructions ? { instructions: edit.instructions } : {}),
  }
  let results: CompactionResult[]
  try {
    results = [await pass({ window: { lastTurns: 1 }, summarizer })]
    if (await fires(edit.trigger, step, deps))
      results.push(await pass({ summarizer }, { tokenBudget: 1, summaryReserve: deps.models.summaryTokens }))
  } catch (error) {
    // The summary model's own failure; a deployment without a model is the request's error.
    const known = serviceErrorOf(error)
    if (known && known.wire.code !== 'not_configured' && known.status >= 500) return 'failed'
    throw error
  }
  const written = results.filter((result) => !result.unchanged)
  const declined = results.some((result) => result.reason === 'summarizer_failed' || result.reason === 'summarizer_declined')
  return declined && written.length === 0 ? 'failed' : written
}

/** The text of the summaries passes wrote: their assistant messages' (the summary itself, without the request for it). */
export const summaryText = (summary: readonly MessageEvent[]) =>
  summary
    .filter((event) => event.message.role === 'assistant')
    .map((event) => textOf(event.message.content))
    .join('\n\n')

/**
 * A paused compaction's answer: the request's messages (and its new system prompt) written without
 * a reply — the next request goes on from them — and the summary as the answer's reply.
 */
export async function pausedAnswer(
  step: PreparedStep,
  run: EditsRun,
  summary: MessageEvent,
  deps: TurnDeps,
): Promise<TurnResult> {
  const messages: NewMessageEvent[] = [...(step.systemEvent ? [step.systemEvent] : []), ...step.added]
  const written = messages.length > 0 ? await deps.session.writeHistory(messages) : []
  deps.written()
  const report: ContextEditsReport = { applied: run.applied, compaction: run.compaction, paused: true }
  return {
    reply: summary,
    status: 'completed',
    toolCalls: [],
    events: [...step.earlier, ...written],
    compaction: null,
    usage: null,
    context: {
      promptTokens: promptTokens(promptPartsOf(step, await deps.session.promptState())),
      budget: step.fit.promptBudget,
      compactions: run.compactions,
      retried: false,
      calibration: step.calibration,
    },
    contextEdits: report,
  }
}
