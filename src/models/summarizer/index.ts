import type { Usage } from '../../contract/turn-result'
import {
  EventText,
  type MessageEvent,
  type SessionInfo,
  type Summarizer,
  type SummaryOutcome,
  type SummaryRequest,
} from '../../core'
import type { ChatModel } from '../port'
import { DEFAULT_SHADOW_PROMPT, DEFAULT_SYSTEM_PROMPT, TITLE_PROMPT } from './prompt'
import { titleOf } from './title'

export interface SummarizerFailure {
  session: SessionInfo
  /** `blank` when the model answered nothing usable; `error` when the call failed. */
  kind: 'blank' | 'error'
  error?: unknown
}

export interface ModelSummarizerOptions {
  model: ChatModel
  /** The model name, e.g. a smaller model than the chat model. */
  modelName: string
  maxTokens: number
  /** The summary model's context window: what the conversation sent to it must fit in (with `maxTokens` for the answer). */
  contextTokens?: number
  /** How many preserved events are quoted for continuity (default 2). */
  overlapSize?: number
  systemPrompt?: string
  /** The user message that opens the summary turn in the view. */
  shadowPrompt?: string
  /** A focus for this pass (what to keep), in the summarization request only: never in the stored summary. */
  instructions?: string
  /** How an event is written into the prompt (default `EventText`). */
  formatEvent?: (event: MessageEvent) => string
  onFailure?: (failure: SummarizerFailure) => void
  /** Told what each summary call reported (awaited before the summary is used). */
  onUsage?: ((usage: Usage | null) => Promise<void>) | undefined
}

const defaultFormat = (event: MessageEvent) => EventText.of(event.message)

/** Tokens kept for what a request holds besides the conversation: the instructions, headings and quoted events. */
export const SUMMARY_PROMPT_RESERVE = 1536

/** Characters of each preserved event quoted for continuity: a glimpse, whatever the event's size. */
const QUOTE_CHARS = 2000

/**
 * A summarizer that asks a chat model for a rolling summary: the previous summary is fed back,
 * the covered conversation is summarized (system messages never included), and the first
 * preserved events are quoted for continuity. The call is never stored as conversation; the
 * answer becomes a two-message summary turn (the shadow prompt, then the summary).
 *
 * @example
 * const summarizer = modelSummarizer({ model, modelName: 'gpt-4o-mini', maxTokens: 1024 })
 * await compact({ strategy: { window: { lastTurns: 6 }, summarizer }, session }, deps)
 */
export function modelSummarizer(options: ModelSummarizerOptions): Summarizer {
  const format = options.formatEvent ?? defaultFormat
  const overlap = options.overlapSize ?? 2
  const lines = (events: readonly MessageEvent[], clip = Infinity) =>
    events
      .filter((event) => event.message.role !== 'system')
      .map((event) => format(event).slice(0, clip))
      .join('\n')

  return {
    quotes: overlap,
    inputTokens:
      options.contextTokens === undefined
        ? undefined
        : // Instructions take room too: at most a token per 2 characters (4,000 → 2,000).
          Math.max(
            0,
            options.contextTokens -
              options.maxTokens -
              SUMMARY_PROMPT_RESERVE -
              Math.ceil((options.instructions?.length ?? 0) / 2),
          ),
    async summarize(request: SummaryRequest): Promise<SummaryOutcome> {
      const prior = request.priorSummary.filter((event) => event.message.role === 'assistant')
      const parts = [
        prior.length > 0 ? `Previous summary:\n${prior.map((event) => event.message.content ?? '').join('\n')}` : null,
        `Conversation to summarize:\n${lines(request.covered)}`,
        overlap > 0 && request.preserved.length > 0
          ? `The conversation continues with these messages (context only; they stay in view, do not summarize them):\n${lines(request.preserved.slice(0, overlap), QUOTE_CHARS)}`
          : null,
        options.instructions ? `Instructions for this summary:\n${options.instructions}` : null,
        prior.length > 0 ? 'Write the updated summary.' : 'Write the summary.',
        request.title ? TITLE_PROMPT : null,
      ]
      let content: string | null
      let usage: Usage | null
      try {
        const reply = await options.model.chat({
          model: options.modelName,
          messages: [
            { role: 'system', content: options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT },
            { role: 'user', content: parts.filter((part) => part !== null).join('\n\n') },
          ],
          maxTokens: options.maxTokens,
        })
        content = reply.content
        usage = reply.usage
      } catch (error) {
        options.onFailure?.({ session: request.session, kind: 'error', error })
        throw error
      }
      await options.onUsage?.(usage)
      const { summary, title } = request.title ? titleOf(content ?? '') : { summary: content ?? '', title: null }
      if (summary.trim() === '') {
        options.onFailure?.({ session: request.session, kind: 'blank' })
        return { kind: 'failed', detail: 'the summary model answered with a blank text' }
      }
      return {
        kind: 'summary',
        messages: [
          { role: 'user', content: options.shadowPrompt ?? DEFAULT_SHADOW_PROMPT },
          { role: 'assistant', content: summary.trim() },
        ],
        ...(title ? { title } : {}),
      }
    },
  }
}
