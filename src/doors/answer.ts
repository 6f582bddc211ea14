import { type StoredStep, storedResult, type TurnResult } from '../contract/turn-result'
import { isServiceCall, type MessageEvent } from '../core'

/**
 * What the Worker needs of a door turn's result to answer in its wire format: small, whatever its
 * compactions listed. Each wire format's `answer` functions render it.
 */
export interface DoorAnswer {
  reply: TurnResult['reply']
  status: TurnResult['status']
  usage: TurnResult['usage']
  /** As the upstream reported it (OpenAI's names: `stop`, `length`, `tool_calls`); for a stored result, `tool_calls` or `stop`. */
  finishReason: string
  /** The stop sequence a completed reply stopped at, when its upstream said which (an Anthropic upstream). */
  stopSequence?: string
  /** False for an answer the session did not store (see `passthroughTurn`). */
  stored: boolean
}

export function doorAnswer(result: TurnResult): DoorAnswer {
  const stored = result.status === 'requires_action' ? 'tool_calls' : 'stop'
  const finishReason = result.status === 'requires_action' ? 'tool_calls' : (result.finishReason ?? stored)
  return {
    reply: result.reply,
    status: result.status,
    usage: result.usage,
    finishReason,
    ...completedStopSequence(result),
    stored: true,
  }
}

/** A completed reply's stop sequence, when its upstream named one. */
export const completedStopSequence = (result: {
  status: TurnResult['status']
  stopSequence?: string | undefined
}): Pick<DoorAnswer, 'stopSequence'> =>
  result.status === 'completed' && result.stopSequence !== undefined ? { stopSequence: result.stopSequence } : {}

/** The model an answer names: the one the upstream reported (stored with the reply), else the requested one. */
export const answeringModel = (answer: DoorAnswer, requested: string) =>
  typeof answer.reply.metadata.model === 'string' ? answer.reply.metadata.model : requested

/** The calls an answer asks the client to run (none unless it requires action; never the service's own, run beside them). */
export const requestedCalls = (answer: DoorAnswer) =>
  answer.status === 'requires_action' ? (answer.reply.message.toolCalls ?? []).filter((call) => !isServiceCall(call)) : []

/** A stored reply as a door answers it again, with the messages its request added (what came before the reply in its step). */
export interface StoredDoorAnswer {
  answer: DoorAnswer
  input: MessageEvent[]
}

export function storedDoorAnswer(step: StoredStep | null): StoredDoorAnswer | null {
  if (!step) return null
  const input = step.events.filter(
    (event): event is MessageEvent => event.type === 'MESSAGE' && event.seq < step.reply.seq && !event.synthetic,
  )
  return { answer: doorAnswer(storedResult(step)), input }
}
