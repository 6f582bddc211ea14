import type { Context } from 'hono'
import type { SSEStreamingApi } from 'hono/streaming'
import { type Reasoning, type ToolCall, textOf } from '../../core'
import { type DoorAnswer, requestedCalls } from '../../doors'
import type { FrameBody } from '../../object/frames'
import type { DoorEvents } from '../../wire/door-events'
import { type DoneFrame, readTurnAnswer, type TurnAnswer } from '../turn-answer'

/** A door turn's answer as a route reads it. */
export interface DoorTurnAnswer extends Omit<TurnAnswer, 'stream'> {
  /** The answer when it came whole (a plain one, a retry's), read at once; null when it streams. */
  whole: DoorAnswer | null
  /** Writes the answer as server-sent events: the pieces as they come, or a whole answer's as its pieces. */
  stream(c: Context, events: DoorEvents): Response
}

/** Reads a `done` frame's answer: small by design (see `doorAnswer`). */
const answerOf = async (frame: DoneFrame) => JSON.parse(await new Response(frame.result).text()) as DoorAnswer

/**
 * Reads a door turn's answer (see `readTurnAnswer`): the one reader for every door's route. Its
 * `replyId` is known as soon as the answer is: from the frame that names it, or from the whole
 * answer (a retry's, which no frame named).
 *
 * @example
 * const answer = await readDoorAnswer(sessionOf(c, id).door(address, input))
 * if (!request.stream) return c.json(render(answer.whole!), 200)
 */
export async function readDoorAnswer(
  body: FrameBody | Promise<FrameBody>,
  options: { streamAfterMs?: number } = {},
): Promise<DoorTurnAnswer> {
  const answer = await readTurnAnswer(body, options)
  const frames = answer.stream
  const whole = answer.first.type === 'done' ? await answerOf(answer.first) : null
  if (whole && answer.replyId === null) answer.replyId = whole.reply.id
  return Object.assign(answer, {
    whole,
    stream(c: Context, events: DoorEvents) {
      let streamed = false
      const piece =
        <T>(write: ((sse: SSEStreamingApi, value: T) => Promise<void>) | undefined) =>
        async (sse: SSEStreamingApi, value: T) => {
          streamed = true
          await write?.(sse, value)
        }
      return frames(c, {
        // The door's stream is an object with state: its methods are called on it.
        start: events.start && ((sse) => events.start!(sse)),
        end: events.end && ((sse) => events.end!(sse)),
        keepAlive: events.keepAlive,
        delta: piece((sse, text: string) => events.text(sse, text)),
        toolCall: piece((sse, call: ToolCall) => events.toolCall(sse, call)),
        ...(events.reasoning ? { reasoning: piece((sse, block: Reasoning) => events.reasoning!(sse, block)) } : {}),
        error: (sse, error) => events.error(sse, error),
        async done(sse, frame) {
          const done = whole ?? (await answerOf(frame))
          if (answer.replyId === null) answer.replyId = done.reply.id
          // A stored answer (a retry) comes whole: its reply goes out as its pieces.
          if (!streamed) {
            for (const block of done.reply.message.reasoning ?? []) await events.reasoning?.(sse, block)
            const text = textOf(done.reply.message.content)
            if (text) await events.text(sse, text)
            for (const call of requestedCalls(done)) await events.toolCall(sse, call)
          }
          await events.finish(sse, done)
        },
      })
    },
  })
}

/** A plain (not streamed) request's answer: whole, since nothing streams without `stream: true`. */
export function wholeOf(answer: DoorTurnAnswer): DoorAnswer {
  if (!answer.whole) throw new Error('a plain door request answered with a delta')
  return answer.whole
}
