import type { ToolInput } from '../contract/schemas'
import type { Usage } from '../contract/turn-result'
import {
  isServiceCall,
  MEMORY_TOOL,
  type Message,
  type Metadata,
  type NewMessageEvent,
  RECALL_TOOL,
  type RecallHit,
  type TokenEstimator,
  type ToolCall,
} from '../core'
import type { MemoryAnswer } from '../memory'
import type { ChatReply } from '../models/port'

/** Recall rounds a request may run; after them the model is called once more without the tool. */
export const MAX_RECALL_ROUNDS = 3

/** Hits a recall call asks for when it does not say, and the most it may ask for. */
const RECALL_LIMIT = { default: 5, max: 20 }

/** Characters of each hit's text a recall result carries: enough to answer from, bounded whatever the event. */
const HIT_CHARS = 2000

/** Characters of what a recall by id carries: the message asked for, whole up to this (a cleared result is often large). */
const BY_ID_CHARS = 64_000

/** Where a recall call searches: this session's covered events, or all of the user's sessions. */
export type RecallScope = 'this_session' | 'all_sessions'

/**
 * The built-in tool offered with `recall`: the model looks up what compaction hid or cleared, by
 * a query or by an id, and — with `across` (`recall: { sessions: "all" }`) — searches the user's
 * other sessions too.
 *
 * @example
 * recallDefinition(false).function.name // 'recall_history'
 */
export function recallDefinition(across: boolean): ToolInput {
  const query = { type: 'string', description: 'Words or a question, best matches first; "a phrase" in quotes.' }
  const id = { type: 'string', description: 'A message id or a tool call id: that message, or that call’s result, whole.' }
  const limit = { type: 'integer', minimum: 1, maximum: RECALL_LIMIT.max, description: 'How many messages at most.' }
  const scope = {
    type: 'string',
    enum: ['this_session', 'all_sessions'],
    description:
      'For a query. this_session (default): this conversation; all_sessions: every conversation of this user (each hit names its session).',
  }
  const where = across
    ? 'earlier parts of this conversation that are no longer in your context (they were summarized, left out or cleared), or of the user’s other conversations (scope all_sessions)'
    : 'earlier parts of this conversation that are no longer in your context (they were summarized, left out or cleared)'
  return {
    type: 'function',
    function: {
      name: RECALL_TOOL,
      description: `Look up ${where}. With \`query\`, returns the matching messages; with \`id\` (a message id or a tool call id, as a notice names it), returns that message or that call’s result whole.`,
      parameters: { type: 'object', properties: across ? { query, id, limit, scope } : { query, id, limit } },
    },
  }
}

/** The tool as offered for this session alone (`recall: true`). */
export const RECALL_DEFINITION: ToolInput = recallDefinition(false)

/** `recall_history`'s definition as a prompt carries it, estimated (see {@link recallDefinition}). */
export const recallTokensOf = (across: boolean, estimator: TokenEstimator) =>
  estimator.count(JSON.stringify(recallDefinition(across)))

/** What a request's recall rounds left: the events they add, the reply that ended them, its calls, and the usage summed. */
export interface RecallOutcome {
  /** Each run round's call and result, in order: written before the reply. */
  events: NewMessageEvent[]
  reply: ChatReply
  /** The final reply's calls with their own ids. */
  calls: ToolCall[]
  /** The results of the service's calls the final reply made beside client calls: written after it. */
  after: NewMessageEvent | null
  usage: Usage | null
}

export interface RecallDeps {
  enabled: boolean
  /** A reply's calls with the ids they are stored with. */
  own: (reply: ChatReply) => ToolCall[]
  /** Calls the model again with these events after the prompt; `offer` says whether recall is offered. */
  again: (events: NewMessageEvent[], offer: boolean) => Promise<ChatReply>
  /** The covered events matching a query (search with scope `covered`), or all of the user's sessions' (`all_sessions`). */
  search: (query: string, limit: number, scope: RecallScope) => Promise<RecallHit[]>
  /** A message by its id, or a call's result by the call's id, whole (never an abandoned one). */
  byId: (id: string) => Promise<RecallHit | null>
  /** A message event of the turn (an assistant one carries the model in its metadata). */
  event: (message: Message, metadata?: Metadata) => NewMessageEvent
  /** The memory tool's runner, when the request offers it: its calls run in the same rounds as recall's. */
  memory?: (args: string) => Promise<MemoryAnswer>
}

/** Whether the service runs a call in a round: a recall call while recall is on, a memory call while the tool is offered. */
const runsHere = (call: ToolCall, deps: RecallDeps) =>
  (deps.enabled && call.name === RECALL_TOOL) || (deps.memory !== undefined && call.name === MEMORY_TOOL && isServiceCall(call))

const sumUsage = (a: Usage | null, b: Usage | null): Usage | null => {
  if (!a || !b) return a ?? b
  const cache = (field: 'cachedPromptTokens' | 'cacheWriteTokens') =>
    a[field] === undefined && b[field] === undefined ? {} : { [field]: (a[field] ?? 0) + (b[field] ?? 0) }
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    ...cache('cachedPromptTokens'),
    ...cache('cacheWriteTokens'),
  }
}

/** A recall call's arguments, forgiving what a model may send: a query string or an id, a limit clamped to 1–20, a scope. */
function argumentsOf(call: ToolCall): { query: string; id: string; limit: number; scope: RecallScope } {
  try {
    const parsed = JSON.parse(call.arguments) as { query?: unknown; id?: unknown; limit?: unknown; scope?: unknown }
    const limit =
      typeof parsed.limit === 'number' && Number.isFinite(parsed.limit) ? Math.trunc(parsed.limit) : RECALL_LIMIT.default
    return {
      query: typeof parsed.query === 'string' ? parsed.query : '',
      id: typeof parsed.id === 'string' ? parsed.id : '',
      limit: Math.min(Math.max(limit, 1), RECALL_LIMIT.max),
      scope: parsed.scope === 'all_sessions' ? 'all_sessions' : 'this_session',
    }
  } catch {
    return { query: '', id: '', limit: RECALL_LIMIT.default, scope: 'this_session' }
  }
}

/**
 * The tool event answering the service's calls, in call order, one at a time: a recall call with
 * `{ "hits": [...] }` (texts clipped), a memory call with its command's result (an error one
 * listed in the event's `toolErrors`, as a client's error result is).
 */
async function serviceResults(calls: ToolCall[], deps: RecallDeps): Promise<NewMessageEvent> {
  const toolResponses = []
  const toolErrors: string[] = []
  for (const call of calls) {
    if (call.name === MEMORY_TOOL) {
      const answer = await deps.memory!(call.arguments)
      toolResponses.push({ id: call.id, name: MEMORY_TOOL, data: answer.text })
      if (answer.error) toolErrors.push(call.id)
      continue
    }
    const { query, id, limit, scope } = argumentsOf(call)
    if (id !== '') {
      const found = await deps.byId(id)
      const data = found
        ? JSON.stringify({ hits: [{ ...found, text: found.text.slice(0, BY_ID_CHARS) }] })
        : JSON.stringify({ hits: [], error: `no message or tool call "${id}" in this conversation` })
      toolResponses.push({ id: call.id, name: RECALL_TOOL, data })
      continue
    }
    const hits = query === '' ? [] : await deps.search(query, limit, scope)
    const data = JSON.stringify({ hits: hits.map((hit) => ({ ...hit, text: hit.text.slice(0, HIT_CHARS) })) })
    toolResponses.push({ id: call.id, name: RECALL_TOOL, data })
  }
  return deps.event({ role: 'tool', content: null, toolResponses }, toolErrors.length > 0 ? { toolErrors } : {})
}

/**
 * The rounds of the service's own tools in a request: while the model calls `recall_history` (and
 * recall is on) or the memory tool (when offered), the service runs the calls — recall against the
 * covered events, memory against the user's store — and calls the model again with the calls and
 * their results: at most {@link MAX_RECALL_ROUNDS} rounds, both tools together, then once more
 * without them (a call it still makes is stored, not run). A reply that also calls client tools
 * ends the rounds: the service's calls are run and stored after it, and the client's handed over.
 */
export async function withRecall(first: ChatReply, deps: RecallDeps): Promise<RecallOutcome> {
  const events: NewMessageEvent[] = []
  let reply = first
  let usage = first.usage
  for (let rounds = 0; ; rounds++) {
    const calls = deps.own(reply)
    const ours = calls.filter((call) => runsHere(call, deps))
    if (ours.length === 0 || rounds === MAX_RECALL_ROUNDS) return { events, reply, calls, after: null, usage }
    const results = await serviceResults(ours, deps)
    if (ours.length < calls.length) return { events, reply, calls, after: results, usage }
    events.push(deps.event({ role: 'assistant', content: reply.content, toolCalls: calls }), results)
    reply = await deps.again(events, rounds + 1 < MAX_RECALL_ROUNDS)
    usage = sumUsage(usage, reply.usage)
  }
}
