import { createRoute, z } from '@hono/zod-openapi'
import { modelSettings } from '../../models/config'
import { errors, json, routes } from './helpers'

const OpenAIModelListSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(z.object({ id: z.string(), object: z.literal('model'), owned_by: z.string() })),
  })
  .openapi('ModelList')

const AnthropicModelListSchema = z
  .object({
    data: z.array(z.object({ type: z.literal('model'), id: z.string(), display_name: z.string(), created_at: z.string() })),
    has_more: z.boolean(),
    first_id: z.string().nullable(),
    last_id: z.string().nullable(),
  })
  .openapi('AnthropicModelList')

const models = createRoute({
  method: 'get',
  path: '/v1/models',
  summary: 'The models turns can use (OpenAI’s list; Anthropic’s when the request sends `anthropic-version`)',
  responses: {
    200: json(z.union([OpenAIModelListSchema, AnthropicModelListSchema]), 'The configured chat model'),
    ...errors(401),
  },
})

/** When the service does not know a model's date: the list's `created_at` must be one. */
const UNKNOWN_DATE = '1970-01-01T00:00:00Z'

/** `/v1/models`, in the shape of the client asking: OpenAI's, or Anthropic's. */
export const modelRoutes = routes().openapi(models, (c) => {
  const settings = modelSettings(c.env)
  const ids = settings.model ? [settings.chatModel] : []
  if (c.req.header('anthropic-version') !== undefined) {
    const data = ids.map((id) => ({ type: 'model' as const, id, display_name: id, created_at: UNKNOWN_DATE }))
    return c.json({ data, has_more: false, first_id: ids[0] ?? null, last_id: ids.at(-1) ?? null }, 200)
  }
  return c.json(
    { object: 'list' as const, data: ids.map((id) => ({ id, object: 'model' as const, owned_by: 'durable-sessions' })) },
    200,
  )
})
