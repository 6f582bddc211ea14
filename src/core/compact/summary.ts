import { clearedById, viewEvents } from '../clearing'
import type { ClearedEntry, MessageEvent } from '../events'
import { newMessageEvent } from '../events/new-event'
import type { PassCut } from '../pass'
import { bestPrepared, type PreparedSummary } from '../prepared'
import type { SessionInfo, Summarizer, SummaryMessage, SummaryOutcome } from '../summarizer'
import type { TokenEstimator } from '../tokens'
import { type Positions, seqsAt, type ViewColumns } from '../view/columns'
import type { CompactDeps } from './request'

export const isUsable = (message: SummaryMessage) =>
  (message.role === 'user' || message.role === 'assistant') &&
  typeof message.content === 'string' &&
  message.content.trim() !== ''

/**
 * The summary of what a cut covers: a prepared one when it covers exactly that (no model call),
 * else the summarizer's — rolled on from the prepared one that covers the most of its first part
 * over the rest, else from the view's prior summary over all of it (the newest that fit its input).
 */
export async function summaryOf(
  cut: PassCut,
  view: ViewColumns,
  cleared: readonly ClearedEntry[],
  summarizer: Summarizer,
  prepared: readonly PreparedSummary[],
  session: SessionInfo,
  deps: Pick<CompactDeps, 'store' | 'estimator'>,
  quoting = true,
): Promise<{ outcome: SummaryOutcome; prepared: boolean }> {
  const shown = clearedById(cleared)
  const read = async (positions: Int32Array) => viewEvents(await deps.store.readEvents(seqsAt(view, positions)), shown)
  const best = bestPrepared(prepared, seqsAt(view, cut.priorSummary), seqsAt(view, cut.coveredConversation))
  if (best && best.from === cut.coveredConversation.length)
    return { outcome: { kind: 'summary', messages: best.prepared.messages }, prepared: true }
  const priorSummary = best ? summaryEvents(best.prepared.messages, deps.estimator) : await read(cut.priorSummary)
  const priorTokens = priorSummary.reduce((sum, event) => sum + event.tokens, 0)
  const budget = (summarizer.inputTokens ?? Infinity) - priorTokens
  const outcome = await summarizer.summarize({
    session,
    priorSummary,
    covered: await read(newestThatFit(view, cut.coveredConversation.subarray(best?.from ?? 0), budget)),
    preserved: quoting ? await read(cut.preserved.subarray(0, summarizer.quotes ?? cut.preserved.length)) : [],
  })
  return { outcome, prepared: best !== null }
}

/** A prepared summary's messages as the prior summary a summarizer rolls on from (never stored). */
const summaryEvents = (messages: readonly SummaryMessage[], estimator: TokenEstimator): MessageEvent[] =>
  messages.map((message, i) => ({
    ...newMessageEvent(
      { id: `prepared-${i}`, message: { role: message.role, content: message.content }, timestamp: '', synthetic: true },
      estimator,
    ),
    seq: 0,
  }))

/**
 * The covered events a summarizer is sent when not all of them fit its input: walking from the
 * newest back, every event that still fits the tokens left (a huge tool result is passed over,
 * the turns around it are kept), in view order. All of them when they fit.
 *
 * @example
 * newestThatFit(columnsOf(view), Int32Array.of(0, 1, 2), 12) // positions, e.g. [0, 2]
 */
export function newestThatFit(view: ViewColumns, positions: Positions, budget: number): Positions {
  let total = 0
  for (const p of positions) total += view.tokens(p)
  if (total <= budget) return positions
  const chosen: number[] = []
  let left = budget
  for (let i = positions.length - 1; i >= 0 && left > 0; i--) {
    const tokens = view.tokens(positions[i]!)
    if (tokens <= left) {
      chosen.push(positions[i]!)
      left -= tokens
    }
  }
  return Int32Array.from(chosen.reverse())
}

/** A summary of the earlier steps of the newest turn: one assistant message, right after the turn's user message. */
export function inTurnSummary(messages: readonly SummaryMessage[]): SummaryMessage[] {
  const text = messages
    .filter((message) => message.role === 'assistant')
    .map((message) => message.content.trim())
    .join('\n\n')
  return [
    {
      role: 'assistant',
      content: `Summary of my earlier steps in this turn:\n${text || messages.map((m) => m.content).join('\n')}`,
    },
  ]
}

/** What stands for covered steps of a turn when no summarizer is configured: the calls made, and how to get any back. */
export function inTurnNote(covered: readonly MessageEvent[]): string {
  const counts = new Map<string, number>()
  const ids: string[] = []
  for (const event of covered)
    for (const call of event.message.toolCalls ?? []) {
      counts.set(call.name, (counts.get(call.name) ?? 0) + 1)
      ids.push(call.id)
    }
  const tools = [...counts].map(([name, n]) => `${name} ×${n}`).join(', ')
  const shown = ids.length > 64 ? [...ids.slice(0, 32), '…', ...ids.slice(-32)] : ids
  return `[${ids.length} earlier tool calls of this turn are out of view (${tools || 'none'}); recall_history with {"id": "<call id>"} returns any of them: ${shown.join(', ')}]`
}
