import type { ToolInput } from '../contract/schemas'
import type { Usage } from '../contract/turn-result'
import { type Message, type NewMessageEvent, RECALL_TOOL, type RecallHit, type ToolCall } from '../core'
import type { ChatReply } from '../models/port'

/** Recall rounds a request may run; after them the model is called once more without the tool. */
export const MAX_RECALL_ROUNDS = 3

/** Hits a recall call asks for when it does not say, and the most it may ask for. */
const RECALL_LIMIT = { default: 5, max: 20 }

/** Characters of each hit's text a recall result carries: enough to answer from, bounded whatever the event. */
const HIT_CHARS = 2000

/** Where a recall call searches: this session's covered events, or all of the user's sessions. */
export type RecallScope = 'this_session' | 'all_sessions'

/**
 * The built-in tool offered with `recall`: the model looks up what compaction hid, and — with
 * `across` (`recall: { sessions: "all" }`) — the user's other sessions too.
 *
 * @example
 * recallDefinition(false).function.name // 'recall_history'
 */
export function recallDefinition(across: boolean): ToolInput {
  const query = {
    type: 'string',
    description:
      'What to look for, in words or as a question; the best matches come first. "a phrase" in quotes must occur as written.',
  }
  const limit = { type: 'integer', minimum: 1, maximum: RECALL_LIMIT.max, description: 'How many messages at most.' }
  const scope = {
    type: 'string',
    enum: ['this_session', 'all_sessions'],
    description:
      'this_session (default): this conversation; all_sessions: every conversation of this user (each hit names its session).',
  }
  return {
    type: 'function',
    function: {
      name: RECALL_TOOL,
      description: across
        ? 'Look up earlier parts of this conversation that are no longer in your context, or of the user’s other conversations (scope all_sessions). Returns the matching messages.'
        : 'Look up earlier parts of this conversation that are no longer in your context (they were summarized or left out). Returns the matching messages.',
      parameters: { type: 'object', properties: across ? { query, limit, scope } : { query, limit }, required: ['query'] },
    },
  }
}

/** The tool as offered for this session alone (`recall: true`). */
export const RECALL_DEFINITION: ToolInput = recallDefinition(false)

/** What a request's recall rounds left: the events they add, the reply that ended them, its calls, and the usage summed. */
export interface RecallOutcome {
  /** Each run round's call and result, in order: written before the reply. */
  events: NewMessageEvent[]
  reply: ChatReply
  /** The final reply's calls with their own ids. */
  calls: ToolCall[]
  /** The results of recall calls the final reply made beside client calls: written after it. */
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
  /** A message event of the turn (an assistant one carries the model in its metadata). */
  event: (message: Message) => NewMessageEvent
}

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

/** A recall call's arguments, forgiving what a model may send: a query string, a limit clamped to 1–20, a scope. */
function argumentsOf(call: ToolCall): { query: string; limit: number; scope: RecallScope } {
  try {
    const parsed = JSON.parse(call.arguments) as { query?: unknown; limit?: unknown; scope?: unknown }
    const limit =
      typeof parsed.limit === 'number' && Number.isFinite(parsed.limit) ? Math.trunc(parsed.limit) : RECALL_LIMIT.default
    return {
      query: typeof parsed.query === 'string' ? parsed.query : '',
      limit: Math.min(Math.max(limit, 1), RECALL_LIMIT.max),
      scope: parsed.scope === 'all_sessions' ? 'all_sessions' : 'this_session',
    }
  } catch {
    return { query: '', limit: RECALL_LIMIT.default, scope: 'this_session' }
  }
}

/** The tool event answering recall calls, each with `{ "hits": [...] }` (texts clipped). */
async function recallResults(calls: ToolCall[], deps: RecallDeps): Promise<NewMessageEvent> {
  const toolResponses = []
  for (const call of calls) {
    const { query, limit, scope } = argumentsOf(call)
    const hits = query === '' ? [] : await deps.search(query, limit, scope)
    const data = JSON.stringify({ hits: hits.map((hit) => ({ ...hit, text: hit.text.slice(0, HIT_CHARS) })) })
    toolResponses.push({ id: call.id, name: RECALL_TOOL, data })
  }
  return deps.event({ role: 'tool', content: null, toolResponses })
}

/**
 * The recall rounds of a request: while the model calls `recall_history` (and recall is on), the
 * service runs the calls against the covered events, and calls the model again with the call and
 * its result — at most {@link MAX_RECALL_ROUNDS} rounds, then once more without the tool (a recall
 * call it still makes is stored, not run). A reply that also calls client tools ends the rounds:
 * its recall calls are run and stored after it, and the client's calls are handed over.
 */
export async function withRecall(first: ChatReply, deps: RecallDeps): Promise<RecallOutcome> {
  const events: NewMessageEvent[] = []
  let reply = first
  let usage = first.usage
  for (let rounds = 0; ; rounds++) {
    const calls = deps.own(reply)
    const recalls = calls.filter((call) => call.name === RECALL_TOOL)
    if (!deps.enabled || recalls.length === 0 || rounds === MAX_RECALL_ROUNDS) {
      return { events, reply, calls, after: null, usage }
    }
    const results = await recallResults(recalls, deps)
    if (recalls.length < calls.length) return { events, reply, calls, after: results, usage }
    events.push(deps.event({ role: 'assistant', content: reply.content, toolCalls: calls }), results)
    reply = await deps.again(events, rounds + 1 < MAX_RECALL_ROUNDS)
    usage = sumUsage(usage, reply.usage)
  }
}
