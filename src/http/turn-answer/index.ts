import type { Context } from 'hono'
import { type SSEStreamingApi, streamSSE } from 'hono/streaming'
import { ServiceError } from '../../contract/errors'
import type { Reasoning, ToolCall } from '../../core'
import { log } from '../../log'
import { type FrameBody, type ReadFrame, turnFrames } from '../../object/frames'

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
  /** A reasoning block of the reply (a wire format that has none leaves it out). */
  reasoning?(sse: SSEStreamingApi, block: Reasoning): Promise<void>
  /** A compaction a request's edit ran, before the reply (a door's; a wire format that has none leaves it out). */
  compaction?(sse: SSEStreamingApi, frame: Extract<ReadFrame, { type: 'compaction' }>): Promise<void>
  error(sse: SSEStreamingApi, error: ServiceError): Promise<void>
  done(sse: SSEStreamingApi, frame: DoneFrame): Promise<void>
  /** Written every `everyMs` while the stream is open, so that clients and proxies know it is alive while the turn waits. */
  keepAlive?: { everyMs: number; write(sse: SSEStreamingApi): Promise<void> }
}

/** A turn's answer as the Worker reads it from the session object (see `object/frames`). */
export interface TurnAnswer {
  /**
   * The first frame of the answer, when it is not an error (a failure before anything was sent is
   * an ordinary error response); `waiting` when none came within `streamAfterMs` (the stream then
   * starts without it, its keep-alives telling the client the turn goes on).
   */
  first: Exclude<ReadFrame, { type: 'error' | 'rewound' | 'reply' }> | { type: 'waiting' }
  /** What a door's rewind abandoned (sent ahead of the answer, for a header); null when it made none. */
  rewound: number | null
  /** The reply's id, when the model was called (a stored answer's is in its result). */
  replyId: string | null
  /** False when the reply will not be stored (a door's passthrough); known before the first frame. */
  stored: boolean
  /** Writes the frames, from the first on, as server-sent events until the one that ends them. */
  stream(c: Context, events: FrameEvents): Response
}

/** The frames, with a session object that went away mid-turn (restart, abort) reported in the contract's words. */
async function* interruptible(body: FrameBody | Promise<FrameBody>): AsyncGenerator<ReadFrame> {
  try {
    // A plain turn's call answers when the turn ends: an object that went away rejects the call itself.
    yield* turnFrames(await body)
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
 * const answer = await readTurnAnswer(sessionOf(c, id).turn(address, input))
 * if (answer.first.type === 'done') return streamedJson(c, answer.first.result)
 */
export async function readTurnAnswer(
  body: FrameBody | Promise<FrameBody>,
  options: { streamAfterMs?: number } = {},
): Promise<TurnAnswer> {
  const frames = interruptible(body)
  const deadline = options.streamAfterMs === undefined ? null : Date.now() + options.streamAfterMs
  let pending = frames.next()
  /** The next frame, or `waiting` once the deadline passed without one. */
  const nextOrWaiting = async (): Promise<ReadFrame | { type: 'waiting' } | undefined> => {
    if (deadline === null) return (await pending).value ?? undefined
    let timer: ReturnType<typeof setTimeout> | undefined
    const late = new Promise<{ type: 'waiting' }>((resolve) => {
      timer = setTimeout(() => resolve({ type: 'waiting' }), Math.max(0, deadline - Date.now()))
    })
    try {
      const next = await Promise.race([pending.then((result) => result.value ?? undefined), late])
      return next
    } finally {
      if (timer !== undefined) clearTimeout(timer)
    }
  }
  const answer: Omit<TurnAnswer, 'first' | 'stream'> = { rewound: null, replyId: null, stored: true }
  /** Takes what a frame says of the answer (its rewind, its reply's id); whether it was such a frame. */
  const noted = (frame: ReadFrame): boolean => {
    if (frame.type === 'rewound') answer.rewound = frame.abandoned
    else if (frame.type === 'reply') ({ id: answer.replyId, stored: answer.stored } = frame)
    else return false
    return true
  }
  let first = await nextOrWaiting()
  while (first && first.type !== 'waiting' && noted(first)) {
    pending = frames.next()
    first = await nextOrWaiting()
  }
  if (!first) throw new Error('the turn ended without an answer')
  if (first.type === 'error') throw ServiceError.of(first.error)
  const start = first as TurnAnswer['first']
  return Object.assign(answer, {
    first: start,
    stream: (c: Context, events: FrameEvents) =>
      streamSSE(c, async (sse) => {
        sse.onAbort(() => void frames.return(undefined))
        await events.start?.(sse)
        const { keepAlive } = events
        const timer = keepAlive && setInterval(() => void keepAlive.write(sse).catch(() => {}), keepAlive.everyMs)
        const firstFrame = start.type === 'waiting' ? ((await pending).value ?? undefined) : start
        for (let frame: ReadFrame | undefined = firstFrame; frame; frame = (await frames.next()).value ?? undefined) {
          if (frame.type === 'rewound' || frame.type === 'reply') {
            noted(frame)
            continue
          }
          if (frame.type === 'delta') await events.delta(sse, frame.text)
          else if (frame.type === 'tool_call') await events.toolCall(sse, frame.call)
          else if (frame.type === 'reasoning') await events.reasoning?.(sse, frame.block)
          else if (frame.type === 'compaction') await events.compaction?.(sse, frame)
          else if (frame.type === 'compacting') await events.compacting?.(sse)
          else {
            await (frame.type === 'error' ? events.error(sse, ServiceError.of(frame.error)) : events.done(sse, frame))
            break
          }
        }
        if (timer !== undefined) clearInterval(timer)
        await events.end?.(sse)
      }),
  })
}
