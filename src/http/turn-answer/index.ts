import type { Context } from 'hono'
import { type SSEStreamingApi, streamSSE } from 'hono/streaming'
import { ServiceError } from '../../contract/errors'
import type { ToolCall } from '../../core'
import { log } from '../../log'
import { type ReadFrame, turnFrames } from '../../object/frames'

/** The frame that ends a turn's answer: its result, the rest of the stream. */
export type DoneFrame = Extract<ReadFrame, { type: 'done' }>

/** How a route writes each kind of frame as server-sent events (and what goes before and after them). */
export interface FrameEvents {
  start?(sse: SSEStreamingApi): Promise<void>
  end?(sse: SSEStreamingApi): Promise<void>
  delta(sse: SSEStreamingApi, text: string): Promise<void>
  /** The turn waits for a background pass (sent on a streamed `/turns` turn only). */
  compacting?(sse: SSEStreamingApi): Promise<void>
  toolCall(sse: SSEStreamingApi, call: ToolCall): Promise<void>
  error(sse: SSEStreamingApi, error: ServiceError): Promise<void>
  done(sse: SSEStreamingApi, frame: DoneFrame): Promise<void>
}

/** A turn's answer as the Worker reads it from the session object (see `object/frames`). */
export interface TurnAnswer {
  /** The first frame of the answer, when it is not an error (a failure before anything was sent is an ordinary error response). */
  first: Exclude<ReadFrame, { type: 'error' | 'rewound' }>
  /** What a door's rewind abandoned (sent ahead of the answer, for a header); null when it made none. */
  rewound: number | null
  /** Writes the frames, from the first on, as server-sent events until the one that ends them. */
  stream(c: Context, events: FrameEvents): Response
}

/** The frames, with a session object that went away mid-turn (restart, abort) reported in the contract's words. */
async function* interruptible(frames: AsyncGenerator<ReadFrame>): AsyncGenerator<ReadFrame> {
  try {
    yield* frames
  } catch (error) {
    log.error('turn interrupted', { error: String(error) })
    yield {
      type: 'error',
      error: { code: 'internal', message: 'the session was interrupted before the turn finished; retry it with the same id' },
    }
  }
}

/**
 * Reads a turn's frames up to the first: the one reader of the object's turn stream for every
 * route that runs a turn. A client that goes away while the answer streams stops the reading,
 * not the turn: the object stores it anyway.
 *
 * @throws {ServiceError} the turn's error, when it failed before its first frame.
 * @example
 * const answer = await readTurnAnswer(await sessionOf(c, id).turn(address, input))
 * if (answer.first.type === 'done') return streamedJson(c, answer.first.result)
 */
export async function readTurnAnswer(stream: ReadableStream<Uint8Array>): Promise<TurnAnswer> {
  const frames = interruptible(turnFrames(stream))
  let rewound: number | null = null
  let first = (await frames.next()).value
  for (; first?.type === 'rewound'; first = (await frames.next()).value) rewound = first.abandoned
  if (!first) throw new Error('the turn ended without an answer')
  if (first.type === 'error') throw ServiceError.of(first.error)
  return {
    first,
    rewound,
    stream: (c, events) =>
      streamSSE(c, async (sse) => {
        sse.onAbort(() => void frames.return(undefined))
        await events.start?.(sse)
        for (let frame: ReadFrame | undefined = first; frame; frame = (await frames.next()).value ?? undefined) {
          if (frame.type === 'delta') await events.delta(sse, frame.text)
          else if (frame.type === 'tool_call') await events.toolCall(sse, frame.call)
          else if (frame.type === 'rewound') continue
          else if (frame.type === 'compacting') await events.compacting?.(sse)
          else {
            await (frame.type === 'error' ? events.error(sse, ServiceError.of(frame.error)) : events.done(sse, frame))
            break
          }
        }
        await events.end?.(sse)
      }),
  }
}
