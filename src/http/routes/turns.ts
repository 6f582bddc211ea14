import { createRoute } from '@hono/zod-openapi'
import { SessionParamsSchema, TurnRequestSchema, TurnResponseSchema } from '../../contract/schemas'
import { MediaIntake, nativeTurn } from '../../wire/media'
import { type FrameEvents, readTurnAnswer } from '../turn-answer'
import { addressOf, body, errors, routes, SESSION_PATH, sessionOf, streamedJson } from './helpers'

const runTurn = createRoute({
  method: 'post',
  path: `${SESSION_PATH}/turns`,
  summary: 'Run a chat turn (creates the session if needed)',
  description:
    'With `stream: true` the answer is `text/event-stream`: `delta` events `{"text"}` and `tool_call` events (a ToolCall, as each client call is whole), a `compacting` event `{}` while the turn waits for a background pass to make room, then one `done` event (the JSON response) or `error` event. `content` starts a turn; `toolResults` continue the newest one (its pending tool calls).',
  request: { params: SessionParamsSchema, ...body(TurnRequestSchema) },
  responses: {
    200: {
      description: 'The reply, the events written, the compaction result',
      content: { 'application/json': { schema: TurnResponseSchema }, 'text/event-stream': { schema: TurnResponseSchema } },
    },
    ...errors(400, 401, 404, 409, 413, 415, 502, 503),
  },
})

/** How a streamed `/turns` turn writes its frames: `delta`, `compacting`, `tool_call`, then one `done` or `error`. */
export const TURN_EVENTS: FrameEvents = {
  delta: (sse, text) => sse.writeSSE({ event: 'delta', data: JSON.stringify({ text }) }),
  compacting: (sse) => sse.writeSSE({ event: 'compacting', data: '{}' }),
  toolCall: (sse, call) => sse.writeSSE({ event: 'tool_call', data: JSON.stringify(call) }),
  error: (sse, error) => sse.writeSSE({ event: 'error', data: JSON.stringify({ error: error.body }) }),
  async done(sse, frame) {
    // The result's JSON is one line (JSON text holds no raw newline): one `data` field, passed on as it comes.
    await sse.write('event: done\ndata: ')
    for await (const chunk of frame.result) await sse.write(chunk)
    await sse.write('\n\n')
  },
}

/** A chat turn, answered as JSON or streamed as server-sent events. */
export const turnRoutes = routes().openapi(runTurn, async (c) => {
  const body = c.req.valid('json')
  const { id } = c.req.valid('param')
  const media = new MediaIntake()
  const input = await nativeTurn(body, media)
  const answer = await readTurnAnswer(sessionOf(c, id).turn(addressOf(c, id), input, media.upload()))
  if (!body.stream) {
    if (answer.first.type !== 'done') throw new Error('a plain turn answered with a delta')
    return streamedJson<typeof TurnResponseSchema>(c, answer.first.result)
  }
  return answer.stream(c, TURN_EVENTS)
})
