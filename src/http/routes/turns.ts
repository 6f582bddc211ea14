import { createRoute } from '@hono/zod-openapi'
import { streamSSE } from 'hono/streaming'
import { ServiceError } from '../../contract/errors'
import { SessionParamsSchema, TurnRequestSchema, TurnResponseSchema } from '../../contract/schemas'
import { log } from '../../log'
import { type ReadFrame, turnFrames } from '../../object/frames'
import { limitsOf } from '../../rate-limits'
import { body, errors, routes, SESSION_PATH, sessionOf, streamedJson } from './openapi'

const runTurn = createRoute({
  method: 'post',
  path: `${SESSION_PATH}/turns`,
  summary: 'Run a chat turn (creates the session if needed)',
  description:
    'With `stream: true` the answer is `text/event-stream`: `delta` events `{"text"}` and `tool_call` events (a ToolCall, as each client call is whole), then one `done` event (the JSON response) or `error` event. `content` starts a turn; `toolResults` continue the newest one (its pending tool calls).',
  request: { params: SessionParamsSchema, ...body(TurnRequestSchema) },
  responses: {
    200: {
      description: 'The reply, the events written, the compaction result',
      content: { 'application/json': { schema: TurnResponseSchema }, 'text/event-stream': { schema: TurnResponseSchema } },
    },
    ...errors(400, 401, 404, 409, 413, 415, 502, 503),
  },
})

/** The frames, with a session object that went away mid-turn (restart, abort) reported in the contract's words. */
export async function* interruptible(frames: AsyncGenerator<ReadFrame>): AsyncGenerator<ReadFrame> {
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

/** A chat turn, answered as JSON or streamed as server-sent events. */
export const turnRoutes = routes().openapi(runTurn, async (c) => {
  const input = c.req.valid('json')
  const { id } = c.req.valid('param')
  const address = { userId: c.get('userId'), sessionId: id }
  const frames = interruptible(turnFrames(await sessionOf(c, id).turn(address, input, limitsOf(c.env))))
  const first = (await frames.next()).value
  if (!first) throw new Error('the turn ended without an answer')
  // A failure before anything was sent is an ordinary error response.
  if (first.type === 'error') throw ServiceError.of(first.error)
  if (!input.stream) {
    if (first.type !== 'done') throw new Error('a plain turn answered with a delta')
    return streamedJson<typeof TurnResponseSchema>(c, first.result)
  }
  return streamSSE(c, async (sse) => {
    // A client that goes away stops the forwarding, not the turn: the object stores it anyway.
    sse.onAbort(() => void frames.return(undefined))
    for (let frame: ReadFrame | undefined = first; frame; frame = (await frames.next()).value ?? undefined) {
      if (frame.type === 'delta') await sse.writeSSE({ event: 'delta', data: JSON.stringify({ text: frame.text }) })
      else if (frame.type === 'tool_call') await sse.writeSSE({ event: 'tool_call', data: JSON.stringify(frame.call) })
      else if (frame.type === 'error')
        await sse.writeSSE({ event: 'error', data: JSON.stringify({ error: ServiceError.of(frame.error).body }) })
      else {
        // The result's JSON is one line (JSON text holds no raw newline): one `data` field, passed on as it comes.
        await sse.write('event: done\ndata: ')
        for await (const chunk of frame.result) await sse.write(chunk)
        await sse.write('\n\n')
      }
      if (frame.type === 'error' || frame.type === 'done') break
    }
  })
})
