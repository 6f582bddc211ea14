import { createRoute, z } from '@hono/zod-openapi'
import { unwrap } from '../../contract/errors'
import { ExportQuerySchema, SessionParamsSchema } from '../../contract/schemas'
import { errors, routes, SESSION_PATH, sessionOf } from './helpers'

/** Each export format's media type. */
const MEDIA_TYPES = {
  jsonl: 'application/x-ndjson; charset=utf-8',
  openai: 'application/json; charset=utf-8',
  anthropic: 'application/json; charset=utf-8',
  markdown: 'text/markdown; charset=utf-8',
} as const

const exportSession = createRoute({
  method: 'get',
  path: `${SESSION_PATH}/export`,
  summary: 'The session, to keep or to move: every event (jsonl), the view in a wire format, or the lineage as Markdown',
  description:
    'Streamed, of any size. `jsonl` is the durable format (docs/export-format.md): a session line, then every log event as its Event object, one a line.',
  request: { params: SessionParamsSchema, query: ExportQuerySchema },
  responses: {
    200: {
      description: 'The export',
      content: {
        'application/x-ndjson': { schema: z.string() },
        'application/json': { schema: z.object({}).passthrough() },
        'text/markdown': { schema: z.string() },
      },
    },
    ...errors(400, 401, 404),
  },
})

/** Portability: a session's export. */
export const portabilityRoutes = routes().openapi(exportSession, async (c) => {
  const { format } = c.req.valid('query')
  const { id } = c.req.valid('param')
  const body = unwrap(await sessionOf(c, id).exportSession(format))
  const extension = format === 'jsonl' ? 'jsonl' : format === 'markdown' ? 'md' : 'json'
  return c.body(body, 200, {
    'Content-Type': MEDIA_TYPES[format],
    'Content-Disposition': `attachment; filename="${id}.${extension}"`,
  }) as never
})
