import { type Content, isInline, type MessageEvent, type Reasoning, type ToolCall } from '../events'
import { contentKey } from '../parts'
import { isServiceCall } from '../tool-pairs'

/**
 * Which messages of a chat-completions request are new. Clients send the whole history every
 * time, or only what is new, or something in between; the log must end up holding each message
 * once. The request's messages are matched against the log's, as the client was shown them.
 */

/**
 * A message as a client sees and sends it, in the neutral shape every door translates into: its
 * system prompt aside, `system` is an inline system message (a door that shows them; see `isInline`).
 * Only an assistant message's content may be null: one sent with its tool calls and no content,
 * stored as null (as the service stores such a reply), matched as "" (null ≡ "").
 */
export type ClientMessage = ClientMessageFields &
  ({ role: 'assistant'; content: Content | null } | { role: 'user' | 'tool' | 'system'; content: Content })

/** What a {@link ClientMessage} may carry besides its role and content. */
interface ClientMessageFields {
  /** Assistant messages. */
  toolCalls?: ToolCall[]
  /** Tool messages. */
  toolCallId?: string
  /** Assistant messages: their reasoning, kept when the message is stored, never matched. */
  reasoning?: Reasoning[]
  /** Tool messages: the result is the tool's error (listed in the event's `toolErrors`), never matched. */
  isError?: boolean
}

/** A message of the log as the client was shown it, with the seq and id of the event it comes from. */
export interface ShownMessage {
  message: ClientMessage
  seq: number
  id: string
}

/** What a door shows its clients of a log: inline system messages in place, or none (a door whose wire has no such thing). */
export interface ShownOptions {
  inline: boolean
  /** A tool id as the door's wire shows it (the same id always shows the same); absent: as stored. */
  toolId?: (id: string) => string
}

/**
 * A stored event as the client was shown it: nothing for the system prompt, synthetic events
 * (summaries) and interrupted results, nor for inline system messages unless the door shows
 * them; a tool event as one message per response; the service's own calls (`recall_history`, the
 * memory calls it ran) and their results taken out (a message left with nothing is skipped, and so
 * is the text of a round of those calls: metadata `serviceRound`).
 *
 * @example
 * clientMessagesOf(toolEvent) // [{ role: 'tool', content: '18°C', toolCallId: 'call_1' }, ...]
 */
export function clientMessagesOf(event: MessageEvent, shown: ShownOptions = { inline: false }): ClientMessage[] {
  const { message } = event
  if (isInline(event) && shown.inline) return [{ role: 'system', content: message.content ?? '' }]
  if (message.role === 'system' || event.synthetic || event.metadata.interrupted === true) return []
  const toolId = shown.toolId ?? ((id: string) => id)
  if (message.role === 'tool') {
    return (message.toolResponses ?? [])
      .filter((response) => !isServiceCall(response))
      .map((response) => ({ role: 'tool', content: response.data, toolCallId: toolId(response.id) }))
  }
  const calls = (message.toolCalls ?? [])
    .filter((call) => !isServiceCall(call))
    .map((call) => (shown.toolId ? { ...call, id: toolId(call.id) } : call))
  const content = message.content ?? ''
  if (message.role === 'assistant') {
    if (contentKey(content) === '' && calls.length === 0) return []
    // A step of the service's own rounds (its calls all the service's): the client was handed only the reply.
    if (event.metadata.serviceRound === true && calls.length === 0) return []
    return [{ role: 'assistant', content, ...(calls.length > 0 ? { toolCalls: calls } : {}) }]
  }
  return [{ role: 'user', content }]
}

/** Arguments compare as parsed JSON (key order and spacing aside); text that is not JSON as itself. */
function canonicalArguments(text: string): string {
  try {
    return JSON.stringify(sortKeys(JSON.parse(text)))
  } catch {
    return JSON.stringify(text)
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  )
}

/**
 * One text per message such that two messages are equal exactly when their texts are. Tool call
 * arguments compare as JSON, not as text: clients resending a history re-serialize them (key
 * order, spacing). An append's retry compares exactly instead (`history/append-input`):
 * there the client names its events by id and must send them again as they were.
 */
export function messageKey(message: ClientMessage): string {
  const calls = (message.toolCalls ?? []).map((call) => [call.id, call.name, canonicalArguments(call.arguments)])
  return JSON.stringify([message.role, contentKey(message.content), calls, message.toolCallId ?? null])
}

/**
 * The largest k such that the first k of `request` equal the last k of `log` (k ≤ both lengths),
 * in one pass over both (the prefix function of request + separator + log).
 */
export function overlap(request: readonly string[], log: readonly string[]): number {
  const text = [...request, null, ...log]
  const prefix = new Int32Array(text.length)
  for (let i = 1; i < text.length; i++) {
    let k = prefix[i - 1]!
    while (k > 0 && text[i] !== text[k]) k = prefix[k - 1]!
    if (text[i] === text[k] && text[i] !== null) k++
    prefix[i] = k
  }
  return text.length > request.length + 1 ? prefix[text.length - 1]! : 0
}

/**
 * Where a diverged request branches off the lineage: the largest j such that the request's first
 * j messages equal j consecutive messages of `lineage` ending at some position i (the largest
 * such i); j = 0 and i = 0 when its first message is nowhere in it. One pass over both (the
 * Z-function of request + separator + lineage).
 *
 * @example
 * branchPoint([u1, a1, u2edited], [u1, a1, u2, a2]) // { j: 2, i: 2 }: rewind at a1, then u2edited is new
 */
export function branchPoint(request: readonly ClientMessage[], lineage: readonly ClientMessage[]): { j: number; i: number } {
  const text = [...request.map(messageKey), null, ...lineage.map(messageKey)]
  const z = new Int32Array(text.length)
  for (let k = 1, left = 0, right = 0; k < text.length; k++) {
    let length = k < right ? Math.min(right - k, z[k - left]!) : 0
    while (k + length < text.length && text[length] !== null && text[length] === text[k + length]) length++
    z[k] = length
    if (k + length > right) {
      left = k
      right = k + length
    }
  }
  let best = { j: 0, i: 0 }
  for (let start = 0; start < lineage.length; start++) {
    const j = z[request.length + 1 + start]!
    if (j > 0 && j >= best.j) best = { j, i: start + j }
  }
  return best
}

/**
 * Whether new messages ask for a turn: they end with a user or tool message, inline system
 * messages after it aside (Claude Code ends its first request with one).
 */
export function asksTurn(fresh: readonly ClientMessage[]): boolean {
  let at = fresh.length - 1
  while (at >= 0 && fresh[at]!.role === 'system') at--
  return at >= 0 && fresh[at]!.role !== 'assistant'
}

/** What a request's messages are, against the log's. */
export type Reconciled =
  /** The request repeats one already answered: the stored reply (the log's last message) is its answer. */
  | { kind: 'retry' }
  /** The messages to write (in order) and, when the session had none, that the client is seeding it. */
  | { kind: 'new'; messages: ClientMessage[]; seeding: boolean }
  /** Nothing of the request is new, and it says it continues the log (see `continues`): the door decides what that asks. */
  | { kind: 'nothing_new' }
  /** Refused: `at` is the request message it is about (an index into `request`). */
  | { kind: 'refused'; code: 'invalid_request' | 'history_diverged'; at: number; reason: string }

/**
 * Reconciles a request's non-system messages with the end of the log's (see {@link clientMessagesOf}),
 * by the contract's steps: a retry of an answered request; else the request's messages after the
 * longest prefix that ends the log are new; they must end with a user or tool message, and may
 * hold an assistant message only when the session has none yet (a client seeding its history).
 *
 * `log` must hold the log's last `request.length` messages before its trailing assistant ones,
 * and those; `logIsEmpty` says whether the session has no message at all; `continues`, that the
 * request stands for the log up to where it starts (a Responses compaction capsule), so that
 * nothing new is not an error but `nothing_new`; `retried`, that the client says it is sending
 * the request again (`x-stainless-retry-count`) and `log` holds one message more than the
 * request when the conversation has more: then a request that is the whole conversation before
 * the reply (its first, holding no assistant message) is a retry too.
 *
 * @example
 * reconcile([u1, a1, u2], [u1, a1], { logIsEmpty: false }) // { kind: 'new', messages: [u2], seeding: false }
 */
export function reconcile(
  request: readonly ClientMessage[],
  log: readonly ClientMessage[],
  options: { logIsEmpty: boolean; continues?: boolean; retried?: boolean },
): Reconciled {
  const requestKeys = request.map(messageKey)
  const logKeys = log.map(messageKey)
  // 4. A retry: the log ends with a reply, and the request is what came before it. One holding no
  // assistant message is a retry only when the client says it resends it and it is the whole
  // conversation (else a question asked again, "yes" say, would be answered from the log).
  let before = logKeys.length
  while (before > 0 && log[before - 1]!.role === 'assistant') before--
  const wholeConversation = options.retried === true && requestKeys.length === before
  if (
    before < logKeys.length &&
    (wholeConversation || request.some((message) => message.role === 'assistant')) &&
    requestKeys.length <= before &&
    requestKeys.every((key, i) => key === logKeys[before - requestKeys.length + i])
  ) {
    return { kind: 'retry' }
  }
  // 3. New = what follows the longest prefix of the request that ends the log.
  const start = overlap(requestKeys, logKeys)
  const fresh = request.slice(start)
  if (fresh.length === 0 && options.continues) return { kind: 'nothing_new' }
  if (!asksTurn(fresh)) {
    return refused(
      'invalid_request',
      request.length - 1,
      'the last message must be a user or tool message the session does not hold yet',
    )
  }
  if (options.logIsEmpty) return { kind: 'new', messages: fresh, seeding: true }
  const assistant = fresh.findIndex((message) => message.role === 'assistant')
  if (assistant >= 0) {
    return refused(
      'history_diverged',
      start + assistant,
      "this assistant message is not in the session's history (an edited or foreign history): send only the new messages, or the history as the session holds it",
    )
  }
  return { kind: 'new', messages: fresh, seeding: false }
}

const refused = (code: 'invalid_request' | 'history_diverged', at: number, reason: string): Reconciled => ({
  kind: 'refused',
  code,
  at,
  reason,
})
