import { createRoute } from '@hono/zod-openapi'
import { UsageQuerySchema, UsageReportSchema } from '../../contract/schemas'
import { userIndexStub } from '../../object/address'
import { errors, json, routes } from './helpers'

const DAY_MS = 24 * 3600 * 1000
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10)

const readUsage = createRoute({
  method: 'get',
  path: '/v1/usage',
  summary: "The caller's usage per UTC day and model, as the upstreams reported it",
  request: { query: UsageQuerySchema },
  responses: { 200: json(UsageReportSchema, 'One row per day and model, oldest first'), ...errors(400, 401) },
})

/** Usage a team can bill: summed in the user's index object as their sessions hand their notices over (within seconds). */
export const usageRoutes = routes().openapi(readUsage, async (c) => {
  const query = c.req.valid('query')
  const to = query.to ?? dayOf(Date.now())
  const from = query.from ?? dayOf(Date.parse(`${to}T00:00:00Z`) - 30 * DAY_MS)
  return c.json({ usage: await userIndexStub(c.env, c.get('userId')).usage(from, to) }, 200)
})
