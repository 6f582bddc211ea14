import { createRoute } from '@hono/zod-openapi'
import { unwrap } from '../../contract/errors'
import {
  DeliveriesQuerySchema,
  DeliveriesSchema,
  WebhookCreatedSchema,
  WebhookCreateSchema,
  WebhookListSchema,
  WebhookParamsSchema,
  WebhookPatchSchema,
  WebhookSchema,
  WebhookTestSchema,
} from '../../contract/schemas'
import { userIndexStub } from '../../object/address'
import { body, errors, json, routes } from './helpers'

const WEBHOOK_PATH = '/v1/webhooks/{id}'

const createWebhook = createRoute({
  method: 'post',
  path: '/v1/webhooks',
  summary: 'Register a webhook endpoint (Standard Webhooks signatures; the secret is shown only in this answer)',
  request: body(WebhookCreateSchema),
  responses: { 201: json(WebhookCreatedSchema, 'The endpoint, with its secret'), ...errors(400, 401, 415) },
})

const listWebhooks = createRoute({
  method: 'get',
  path: '/v1/webhooks',
  summary: "The caller's webhook endpoints (no secrets)",
  responses: { 200: json(WebhookListSchema, 'Every endpoint, oldest first'), ...errors(401) },
})

const getWebhook = createRoute({
  method: 'get',
  path: WEBHOOK_PATH,
  summary: 'Read a webhook endpoint',
  request: { params: WebhookParamsSchema },
  responses: { 200: json(WebhookSchema, 'The endpoint'), ...errors(400, 401, 404) },
})

const patchWebhook = createRoute({
  method: 'patch',
  path: WEBHOOK_PATH,
  summary: 'Change an endpoint’s events or description, or enable it again',
  request: { params: WebhookParamsSchema, ...body(WebhookPatchSchema) },
  responses: { 200: json(WebhookSchema, 'The endpoint'), ...errors(400, 401, 404, 415) },
})

const deleteWebhook = createRoute({
  method: 'delete',
  path: WEBHOOK_PATH,
  summary: 'Delete an endpoint and its deliveries (nothing more is sent to it)',
  request: { params: WebhookParamsSchema },
  responses: { 204: { description: 'Deleted' }, ...errors(400, 401, 404) },
})

const testWebhook = createRoute({
  method: 'post',
  path: `${WEBHOOK_PATH}/test`,
  summary: 'Send the endpoint a `webhook.test` event, whatever events it subscribes to',
  request: { params: WebhookParamsSchema },
  responses: { 202: json(WebhookTestSchema, 'The delivery is on its way'), ...errors(400, 401, 404) },
})

const listDeliveries = createRoute({
  method: 'get',
  path: `${WEBHOOK_PATH}/deliveries`,
  summary: 'An endpoint’s deliveries, newest first (`failed`: given up, or the endpoint disabled)',
  request: { params: WebhookParamsSchema, query: DeliveriesQuerySchema },
  responses: { 200: json(DeliveriesSchema, 'Deliveries of the last week'), ...errors(400, 401, 404) },
})

/** Webhook endpoints: each user's own, kept in their index object, which sends and retries the deliveries. */
export const webhookRoutes = routes()
  .openapi(createWebhook, async (c) => {
    const created = unwrap(await userIndexStub(c.env, c.get('userId')).createWebhook(c.req.valid('json')))
    return c.json(created, 201)
  })
  .openapi(listWebhooks, async (c) => c.json({ webhooks: await userIndexStub(c.env, c.get('userId')).listWebhooks() }, 200))
  .openapi(getWebhook, async (c) =>
    c.json(unwrap(await userIndexStub(c.env, c.get('userId')).getWebhook(c.req.valid('param').id)), 200),
  )
  .openapi(patchWebhook, async (c) => {
    const index = userIndexStub(c.env, c.get('userId'))
    return c.json(unwrap(await index.patchWebhook(c.req.valid('param').id, c.req.valid('json'))), 200)
  })
  .openapi(deleteWebhook, async (c) => {
    unwrap(await userIndexStub(c.env, c.get('userId')).deleteWebhook(c.req.valid('param').id))
    return c.body(null, 204)
  })
  .openapi(testWebhook, async (c) =>
    c.json(unwrap(await userIndexStub(c.env, c.get('userId')).testWebhook(c.req.valid('param').id)), 202),
  )
  .openapi(listDeliveries, async (c) => {
    const { status, limit = 100 } = c.req.valid('query')
    const index = userIndexStub(c.env, c.get('userId'))
    return c.json({ deliveries: unwrap(await index.webhookDeliveries(c.req.valid('param').id, status, limit)) }, 200)
  })
