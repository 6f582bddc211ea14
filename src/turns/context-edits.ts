import type { PassRequest } from '../compaction'
import { ANTHROPIC } from '../contract/anthropic-messages'
import { serviceErrorOf } from '../contract/errors'
import type { AppliedEdit, CompactionBlock, ContextEditsReport, TurnResult } from '../contract/turn-result'
import {
  type ClearedEntry,
  type CompactionResult,
  clearOlderThinking,
  type MessageEvent,
  type NewMessageEvent,
  promptTokens,
  seqsAt,
  textOf,
} from '../core'
import { promptPartsOf } from './fit-prompt'
import type { TurnDeps } from './session'
import type { ContextEdit, PreparedStep } from './step'

/**
 * A request's context edits (a Messages client's `context_management`), applied by the service
 * to the session's prompt before the model is called, whatever the upstream: a clearing of old
 * tool results and a summarizing pass, each when its trigger fires on the prompt as it then
 * stands (passes of the session's log: the view stays as they left it); thinking left out of the
 * older turns of what is sent (see {@link thinkingSent}). What they did is the answer's.
 */

/** What the passes of a request's edits did, before its model call. */
export interface EditsRun {
  applied: AppliedEdit[]
  /** The passes written, for the turn's `context.compactions`. */
  compactions: CompactionResult[]
  compaction: CompactionBlock | null
  /** A paused compaction's whole answer (the request's messages written, no model call); null: the turn goes on. */
  paused: TurnResult | null
}

/** The prompt's tokens as the model counts them (the estimate scaled by the session's calibration). */
async function promptModelTokens(step: PreparedStep, deps: TurnDeps): Promise<number> {
  const state = await deps.session.promptState()
  return Math.ceil(promptTokens(promptPartsOf(step, state)) * step.fit.ratio)
}

/** The tool calls the prompt holds: the view's and the step's own (a seeded history's). */
async function toolUses(step: PreparedStep, deps: TurnDeps): Promise<number> {
  const { view } = await deps.session.readView()
  const positions: number[] = []
  for (let p = 0; p < view.length; p++) if (view.role(p) === 'assistant') positions.push(p)
  const events = await deps.session.readEvents(seqsAt(view, Int32Array.from(positions)))
  return [...events, ...step.added].reduce((sum, event) => sum + (event.message.toolCalls?.length ?? 0), 0)
}

/** Whether a trigger fires: the prompt holds more input tokens, or more tool uses, than it says. */
async function fires(trigger: { inputTokens: number } | { toolUses: number }, step: PreparedStep, deps: TurnDeps) {
  return 'inputTokens' in trigger
    ? (await promptModelTokens(step, deps)) > trigger.inputTokens
    : (await toolUses(step, deps)) > trigger.toolUses
}

/** The tool results the request itself brings (its step's, not stored yet). */
const newResults = (step: PreparedStep) => step.added.reduce((sum, event) => sum + (event.message.toolResponses?.length ?? 0), 0)

/** The calls a view's clearing names (their results or their arguments cleared). */
const clearedCalls = (entries: readonly ClearedEntry[] | undefined) => new Set((entries ?? []).flatMap((entry) => entry.callIds))

/** The text of the summary a pass wrote: its assistant messages' (the summary itself, without the request for it). */
const summaryText = (summary: readonly MessageEvent[]) =>
  summary
    .filter((event) => event.message.role === 'assistant')
    .map((event) => textOf(event.message.content))
    .join('\n\n')

/**
 * Runs the passes of a request's edits, in the request's order, each when its trigger fires on the
 * prompt as the edits before it left it: a clearing pass (`clearToolUses`), and a summarizing pass
 * over everything before the newest turn, then inside it when the prompt still passes the trigger
 * (`compact`). A compaction's block carries its summary and a capsule naming the event the reply
 * follows; one that failed at the summary model is a block with neither, and the turn goes on.
 * With `pause` the request's messages are written without a reply and the block is the answer.
 *
 * @example
 * const edits = await runContextEdits(step, request.contextEdits, deps)
 * if (edits.paused) return edits.paused
 */
export async function runContextEdits(step: PreparedStep, edits: readonly ContextEdit[], deps: TurnDeps): Promise<EditsRun> {
  const run: EditsRun = { applied: [], compactions: [], compaction: null, paused: null }
  const { session, compactor } = deps
  const pass = (strategy: PassRequest['strategy'], inTurn?: PassRequest['inTurn']) =>
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
      const before = clearedCalls((await session.readView()).cleared)
      const { kind: _, trigger: __, ...options } = edit
      const result = await pass({
        clearToolResults: {
          ...options,
          // `keep` counts the prompt's results, the request's own new ones (not stored yet, never cleared) among them.
          keep: Math.max(0, edit.keep - newResults(step)),
          clearAtLeast: Math.ceil(edit.clearAtLeast / step.fit.ratio),
        },
      })
      if (result.unchanged || !result.boundary || result.boundary.type !== 'COMPACTION') continue
      run.compactions.push(result)
      const after = clearedCalls(result.boundary.boundary.cleared)
      run.applied.push({
        at,
        kind: 'clearToolUses',
        clearedToolUses: [...after].filter((id) => !before.has(id)).length,
        clearedInputTokens: Math.round(result.tokensEstimatedSaved * step.fit.ratio),
      })
      continue
    }
    const summarizer = {
      ...(step.policy?.strategy.summarizer ?? {}),
      ...(edit.instructions ? { instructions: edit.instructions } : {}),
    }
    const written = await summarizing(async () => {
      // Everything before the newest turn; then, when the prompt still passes the trigger, its loop but the newest step.
      const done = [await pass({ window: { lastTurns: 1 }, summarizer })]
      if (await fires(edit.trigger, step, deps)) {
        const reserve = deps.models.summaryTokens
        done.push(await pass({ summarizer }, { tokenBudget: 1, summaryReserve: reserve }))
      }
      return done
    })
    if (written === 'failed') {
      run.compaction = { content: null, capsule: null }
      continue
    }
    run.compactions.push(...written)
    summaries = [...summaries, ...written.flatMap((result) => result.summary)]
    paused ||= edit.pause
  }
  if (summaries.length === 0) return run
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

/**
 * The passes of a compaction edit, or `failed` when its summary could not be had (the summary
 * model failed or answered nothing): the request goes on without it, as Anthropic's does.
 */
async function summarizing(passes: () => Promise<CompactionResult[]>): Promise<CompactionResult[] | 'failed'> {
  let results: CompactionResult[]
  try {
    results = await passes()
  } catch (error) {
    const known = serviceErrorOf(error)
    if (known && known.wire.code !== 'not_configured' && known.status >= 500) return 'failed'
    throw error
  }
  if (results.some((result) => result.reason === 'summarizer_failed' || result.reason === 'summarizer_declined'))
    return results.some((result) => !result.unchanged) ? results.filter((result) => !result.unchanged) : 'failed'
  return results.filter((result) => !result.unchanged)
}

/** The id of the view's last event (null: an empty view). */
async function viewTip(deps: TurnDeps): Promise<string | null> {
  const { view } = await deps.session.readView()
  if (view.length === 0) return null
  return (await deps.session.readIds(Int32Array.of(view.seq(view.length - 1))))[0] ?? null
}

/**
 * A paused compaction's answer: the request's messages (and its new system prompt) written without
 * a reply — the next request goes on from them — and the summary as the answer's reply.
 */
async function pausedAnswer(step: PreparedStep, run: EditsRun, summary: MessageEvent, deps: TurnDeps): Promise<TurnResult> {
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

/**
 * The prompt's events with the request's thinking edit applied: Anthropic's thinking kept on the
 * newest turns only, and what left counted — when the upstream takes thinking back at all (an
 * Anthropic one; to any other none is ever sent, so nothing is cleared from it).
 */
export function thinkingSent<E extends MessageEvent | NewMessageEvent>(
  events: E[],
  edits: readonly ContextEdit[] | undefined,
  upstream: { takesThinking: boolean; ratio: number },
  deps: Pick<TurnDeps, 'estimator'>,
): { events: E[]; applied: AppliedEdit | null } {
  const at = edits?.findIndex((edit) => edit.kind === 'clearThinking') ?? -1
  const edit = edits?.[at]
  if (edit?.kind !== 'clearThinking' || !upstream.takesThinking) return { events, applied: null }
  const { events: kept, cleared } = clearOlderThinking(events, edit.keep, ANTHROPIC, deps.estimator)
  if (cleared.turns === 0) return { events, applied: null }
  const clearedInputTokens = Math.round(cleared.tokens * upstream.ratio)
  return { events: kept, applied: { at, kind: 'clearThinking', clearedThinkingTurns: cleared.turns, clearedInputTokens } }
}
