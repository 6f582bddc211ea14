import type { MessageEvent, Metadata } from '../events'

/** Who the summary is for; a summarizer may use it to choose a prompt or for logging. */
export interface SessionInfo {
  id: string
  metadata: Metadata
}

export interface SummaryRequest {
  session: SessionInfo
  /** The summary left by the previous pass, fed back so that summaries roll. */
  priorSummary: MessageEvent[]
  /** The conversation the pass covers: no system messages and no prior summary. */
  covered: MessageEvent[]
  /** What stays in the view, for continuity. */
  preserved: MessageEvent[]
  /** Whether the summarizer should also name the whole conversation (the session has no title of its client's or a model's yet). */
  title?: boolean
}

/** One message of the summary turn; compaction stores it as a synthetic event. */
export interface SummaryMessage {
  role: 'user' | 'assistant'
  content: string
}

/**
 * What a summarizer answers. `summary` with at least one message becomes the summary turn;
 * `declined` and `failed` leave the view unchanged. A transport error, timeout or unusable
 * upstream response is thrown instead, and propagates out of `compact`.
 */
export type SummaryOutcome =
  | { kind: 'summary'; messages: SummaryMessage[]; title?: string }
  | { kind: 'declined' }
  | { kind: 'failed'; detail?: string }

/**
 * The summarizer port.
 *
 * @example
 * const echo: Summarizer = {
 *   async summarize({ covered }) {
 *     return { kind: 'summary', messages: [
 *       { role: 'user', content: 'What happened so far?' },
 *       { role: 'assistant', content: `${covered.length} earlier messages.` },
 *     ] }
 *   },
 * }
 */
export interface Summarizer {
  summarize(request: SummaryRequest): Promise<SummaryOutcome>
  /**
   * The most tokens of prior summary and covered conversation one request can carry (its model's
   * context less its answer and its own instructions). When the covered events do not fit, the
   * newest of them that fit are sent; absent, all of them are.
   */
  readonly inputTokens?: number
  /** How many of the preserved events it reads (quoted for continuity); absent: all of them. */
  readonly quotes?: number
}
