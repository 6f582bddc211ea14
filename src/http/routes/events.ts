import { createRoute } from '@hono/zod-openapi'
import { unwrap } from '../../contract/errors'
import { SIZE_LIMITS } from '../../contract/limits'
import {
  AppendRequestSchema,
  AppendResponseSchema,
  LogPageSchema,
  LogQuerySchema,
  OpenAIViewSchema,
  SessionParamsSchema,
  ViewQuerySchema,
  ViewSchema,
} from '../../contract/schemas'
import { MediaIntake, nativeMessage } from '../../wire/media'
import { addressOf, body, errors, json, routes, SESSION_PATH, sessionOf, streamedJson } from './helpers'

const appendEvents = createRoute({
  method: 'post',
  path: `${SESSION_PATH}/events`,
  summary: 'Append events (creates the session if needed)',
  request: { params: SessionParamsSchema, ...body(AppendRequestSchema) },
  responses: {
    201: json(AppendResponseSchema, 'Appended'),
    200: json(AppendResponseSchema, 'Every event was already in the log: returned as stored'),
    ...errors(400, 401, 409, 413, 415),
  },
})

const readLog = createRoute({
  method: 'get',
  path: `${SESSION_PATH}/events`,
  summary: 'Read the log, COMPACTION events included',
  request: { params: SessionParamsSchema, query: LogQuerySchema },
  responses: {
    200: json(
      LogPageSchema,
      `A page of the log: at most \`limit\` events, fewer when they are large (a page ends after the event that brings it to ${SIZE_LIMITS.eventsPage.bytes / 1024 / 1024} MiB of JSON); \`nextAfter\` continues, null at the end`,
    ),
    ...errors(400, 401, 404),
  },
})

const readView = createRoute({
  method: 'get',
  path: `${SESSION_PATH}/view`,
  summary: 'Read the view: what the model is shown',
  request: { params: SessionParamsSchema, query: ViewQuerySchema },
  responses: { 200: json(ViewSchema.or(OpenAIViewSchema), 'The view'), ...errors(400, 401, 404) },
})

/** The log and the view: append, read a page of the log, read the view. */
export const eventRoutes = routes()
  .openapi(appendEvents, async (c) => {
    const { events, expectedVersion } = c.req.valid('json')
    const { id } = c.req.valid('param')
    const media = new MediaIntake()
    const inputs = []
    // `type` and `synthetic` may only restate the defaults (the schema checks): drop them.
    for (const [i, { type: _type, synthetic: _synthetic, message, ...event }] of events.entries())
      inputs.push({ ...event, message: await nativeMessage(`events[${i}].message`, message, media) })
    const result = unwrap(await sessionOf(c, id).append(addressOf(c, id), inputs, expectedVersion, media.upload()))
    return c.json({ version: result.version, events: result.events }, result.written ? 201 : 200)
  })
  .openapi(readLog, async (c) => {
    const { after = 0, limit = SIZE_LIMITS.eventsPage.default } = c.req.valid('query')
    return streamedJson<typeof LogPageSchema>(c, unwrap(await sessionOf(c, c.req.valid('param').id).readLog(after, limit)))
  })
  .openapi(readView, async (c) => {
    const format = c.req.valid('query').format === 'openai' ? 'openai' : 'events'
    return streamedJson<typeof ViewSchema>(c, unwrap(await sessionOf(c, c.req.valid('param').id).readView(format)))
  })
