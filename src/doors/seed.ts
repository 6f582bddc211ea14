import { ServiceError } from '../contract/errors'
import {
  type ClientMessage,
  isInline,
  type MessageEvent,
  type NewMessageEvent,
  pendingToolCalls,
  type ShownOptions,
  type TokenEstimator,
  type ToolCall,
  textOf,
} from '../core'
import { turnEvent } from '../turns/open-step'

/** How a door stores a history it is given whole: a client seeding a session, or what follows a branch point. */

/** The newest turn's calls by the id the door shows them with (`owed`: only those no tool message has answered yet). */
export function callsAsShown(turn: readonly MessageEvent[], shown: ShownOptions, owed = false): Map<string, ToolCall> {
  const pending = new Set(pendingToolCalls(turn))
  const calls = turn.flatMap((event) => event.message.toolCalls ?? []).filter((call) => !owed || pending.has(call.id))
  return new Map(calls.map((call) => [shown.toolId?.(call.id) ?? call.id, call]))
}

/**
 * A history a client seeds a session with, as events: each message as it is, consecutive tool
 * messages as one tool event (each response named as the call it answers: one of the seed's, or
 * one the session `owed` already).
 */
export function seedEvents(
  messages: readonly ClientMessage[],
  fields: readonly string[],
  estimator: TokenEstimator,
  owed: ReadonlyMap<string, ToolCall> = new Map(),
): { added: NewMessageEvent[]; fields: string[] } {
  const calls = new Map<string, ToolCall>(owed)
  const events: NewMessageEvent[] = []
  const named: string[] = []
  for (const [i, message] of messages.entries()) {
    if (message.role === 'system') {
      events.push(inlineSystemEvent(textOf(message.content), estimator))
      named.push(fields[i]!)
      continue
    }
    if (message.role !== 'tool') {
      for (const call of message.toolCalls ?? []) calls.set(call.id, call)
      events.push(
        turnEvent(
          {
            role: message.role,
            content: message.content,
            ...(message.toolCalls ? { toolCalls: message.toolCalls } : {}),
            ...(message.reasoning ? { reasoning: message.reasoning } : {}),
          },
          estimator,
        ),
      )
      named.push(fields[i]!)
      continue
    }
    const call = calls.get(message.toolCallId!)
    if (!call) throw strayResult(fields[i]!)
    const response = { id: call.id, name: call.name, data: message.content }
    const previous = events.at(-1)
    // A result that is the tool's error is listed in its event's toolErrors, as `toolResults` lists it.
    const errors = (before: unknown) => {
      const ids = [...((before as string[] | undefined) ?? []), ...(message.isError ? [call.id] : [])]
      return ids.length > 0 ? { toolErrors: ids } : {}
    }
    if (previous?.message.role === 'tool' && messages[i - 1]?.role === 'tool') {
      events[events.length - 1] = turnEvent(
        { ...previous.message, toolResponses: [...previous.message.toolResponses!, response] },
        estimator,
        previous.id,
        errors(previous.metadata.toolErrors),
      )
    } else {
      events.push(turnEvent({ role: 'tool', content: null, toolResponses: [response] }, estimator, undefined, errors(undefined)))
      named.push(fields[i]!)
    }
  }
  return { added: events, fields: named }
}

/** An inline system message of a request (see the core's `isInline`). */
export const inlineSystemEvent = (content: string, estimator: TokenEstimator) =>
  turnEvent({ role: 'system', content }, estimator, undefined, { inline: true })

/**
 * How many of a seed's events are history: those before the user messages it ends with (the turn
 * they ask, with any inline system messages among and after them). None when it ends otherwise:
 * its end is then a turn of its own, stored as it is.
 */
export function historyOf(events: readonly NewMessageEvent[]): number {
  let at = events.length
  while (at > 0 && (events[at - 1]!.message.role === 'user' || isInline(events[at - 1]!))) at--
  return at === events.length ? 0 : at
}

export const strayResult = (field: string) =>
  new ServiceError('invalid_request', `${field}: a tool message must follow the assistant message whose call it answers`)
