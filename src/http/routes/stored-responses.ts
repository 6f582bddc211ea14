import { createRoute } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { ServiceError, unwrap } from '../../contract/errors'
import { ItemListSchema, ItemsQuerySchema, ResponseParamsSchema, ResponseSchema, SessionId } from '../../contract/schemas'
import { answeringModel } from '../../doors'
import { responseObject, responseTarget } from '../../wire/responses/answer'
import { itemList, itemsOf } from '../../wire/responses/items'
import { blobUrlOf, json, openAIErrors, routes, sessionOf } from './helpers'

const getResponse = createRoute({
  method: 'get',
  path: '/v1/responses/{id}',
  summary: 'A stored response',
  request: { params: ResponseParamsSchema },
  responses: { 200: json(ResponseSchema, 'The response, as it was answered'), ...openAIErrors(400, 401, 404) },
})

const listInputItems = createRoute({
  method: 'get',
  path: '/v1/responses/{id}/input_items',
  summary: 'The input items a stored response answered (what its request added to the session)',
  request: { params: ResponseParamsSchema, query: ItemsQuerySchema },
  responses: { 200: json(ItemListSchema, 'A page of its input items'), ...openAIErrors(400, 401, 404) },
})

/** A stored response by its id: its session's reply and the messages its request added; 404 when there is none. */
async function storedResponse(c: Context, id: string) {
  const target = responseTarget(id)
  const found =
    target && SessionId.safeParse(target.sessionId).success
      ? unwrap(await sessionOf(c, target.sessionId).storedAnswer(target.replyId))
      : null
  if (!target || !found) throw new ServiceError('not_found', `Response with id '${id}' not found.`)
  return { ...found, sessionId: target.sessionId }
}

/** Stored responses: `GET /v1/responses/{id}` and its input items. */
export const storedResponsesRoutes = routes()
  .openapi(getResponse, async (c) => {
    const { answer, sessionId } = await storedResponse(c, c.req.valid('param').id)
    const model = answeringModel(answer, 'unknown')
    return c.json(responseObject(answer, { model, conversation: sessionId, store: true }), 200)
  })
  .openapi(listInputItems, async (c) => {
    const found = await storedResponse(c, c.req.valid('param').id)
    const { input, sessionId } = found
    return c.json(
      itemList(
        input.flatMap((event) => itemsOf(event, blobUrlOf(c, sessionId))),
        c.req.valid('query'),
      ),
      200,
    )
  })
