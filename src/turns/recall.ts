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

/** The built-in tool offered with `recall: true`: the model looks up what compaction hid. */
export const RECALL_DEFINITION: ToolInput = {
  type: 'function',
  function: {
    name: RECALL_TOOL,
    description:
      'Look up earlier parts of this conversation that are no longer in your context (they were summarized or left out). Returns the matching messages.',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Words to look for (every word must occur); "a phrase" in quotes.' },
        limit: { type: 'integer', minimum: 1, maximum: RECALL_LIMIT.max, description: 'How many messages at most.' },
      },
      required: ['query'],
    },
  },
}

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
  /** The covered events matching a query (search with scope `covered`). */
  search: (query: string, limit: number) => Promise<RecallHit[]>
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

/** A recall call's arguments, forgiving what a model may send: a query string, a limit clamped to 1–20. */
function argumentsOf(call: ToolCall): { query: string; limit: number } {
  try {
    const parsed = JSON.parse(call.arguments) as { query?: unknown; limit?: unknown }
    const limit =
      typeof parsed.limit === 'number' && Number.isFinite(parsed.limit) ? Math.trunc(parsed.limit) : RECALL_LIMIT.default
    return { query: typeof parsed.query === 'string' ? parsed.query : '', limit: Math.min(Math.max(limit, 1), RECALL_LIMIT.max) }
  } catch {
    return { query: '', limit: RECALL_LIMIT.default }
  }
}

/** The tool event answering recall calls, each with `{ "hits": [...] }` (texts clipped). */
async function recallResults(calls: ToolCall[], deps: RecallDeps): Promise<NewMessageEvent> {
  const toolResponses = []
  for (const call of calls) {
    const { query, limit } = argumentsOf(call)
    const hits = query === '' ? [] : await deps.search(query, limit)
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
