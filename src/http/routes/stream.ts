import { createRoute, z } from '@hono/zod-openapi'
import { streamSSE } from 'hono/streaming'
import { sessionNotFound } from '../../contract/errors'
import { SessionParamsSchema, StreamHeadersSchema, StreamQuerySchema } from '../../contract/schemas'
import { sessionStub } from '../../object/address'
import { pipeLive, subscribeTo } from '../live'
import { errors, routes, SESSION_PATH } from './helpers'

const streamSession = createRoute({
  method: 'get',
  path: `${SESSION_PATH}/stream`,
  summary: 'Follow a session live: its events as they are written, and the reply of a turn in progress',
  description:
    'Server-sent events: `event: event` (`id:` the seq, data the Event), `event: delta` (`{ turnId, text }`: a reply in progress; ' +
    'one attaching mid-turn gets the text so far first), a comment at least every 15 s. Reconnect with `Last-Event-ID`.',
  request: { params: SessionParamsSchema, query: StreamQuerySchema, headers: StreamHeadersSchema },
  responses: {
    200: { content: { 'text/event-stream': { schema: z.string() } }, description: 'The session’s events, live' },
    ...errors(400, 401, 404),
  },
})

/** The live stream: the Worker relays the session object's hibernatable WebSocket as server-sent events. */
export const streamRoutes = routes().openapi(streamSession, async (c) => {
  const lastEventId = c.req.valid('header')['last-event-id']
  const { after } = c.req.valid('query')
  const start = lastEventId !== undefined ? Number(lastEventId) : (after ?? -1)
  const stub = sessionStub(c.env, c.get('userId'), c.req.valid('param').id)
  const subscribe = (from: number) => subscribeTo(stub, from)
  const first = await subscribe(start)
  if (!first) throw sessionNotFound()
  return streamSSE(c, (sse) => pipeLive(sse, first, start, subscribe)) as never
})
