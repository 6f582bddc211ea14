import { createRoute } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { ServiceError, unwrap } from '../../contract/errors'
import { newConversationId } from '../../contract/ids'
import {
  AppendItemsSchema,
  ConversationDeletedSchema,
  ConversationItemParamsSchema,
  ConversationParamsSchema,
  ConversationSchema,
  CreateConversationSchema,
  ItemListSchema,
  type ItemsQuery,
  ItemsQuerySchema,
  type SessionJson,
  UpdateConversationSchema,
} from '../../contract/schemas'
import type { MessageEvent } from '../../core'
import { MediaIntake } from '../../wire/media'
import { type Item, messagesOf } from '../../wire/responses/input'
import { type BlobUrl, itemList, itemsOf, itemTarget, type ResponseItem } from '../../wire/responses/items'
import { addressOf, blobsElsewhere, blobUrlOf, body, json, openAIErrors, routes, sessionOf } from './helpers'

const PATH = '/v1/conversations/{id}'

const conversationRoute = <M extends 'get' | 'post' | 'delete'>(method: M, path: string, summary: string) =>
  ({ method, path, summary, responses: { ...openAIErrors(400, 401, 404) } }) as const

const create = createRoute({
  ...conversationRoute('post', '/v1/conversations', 'A new conversation: a session (`conv_…`), holding the items given'),
  request: body(CreateConversationSchema, false),
  responses: { 200: json(ConversationSchema, 'The conversation'), ...openAIErrors(400, 401, 413) },
})
const get = createRoute({
  ...conversationRoute('get', PATH, 'A conversation'),
  request: { params: ConversationParamsSchema },
  responses: { 200: json(ConversationSchema, 'The conversation'), ...openAIErrors(400, 401, 404) },
})
const update = createRoute({
  ...conversationRoute('post', PATH, 'Replaces a conversation’s metadata'),
  request: { params: ConversationParamsSchema, ...body(UpdateConversationSchema) },
  responses: { 200: json(ConversationSchema, 'The conversation'), ...openAIErrors(400, 401, 404) },
})
const remove = createRoute({
  ...conversationRoute('delete', PATH, 'Deletes a conversation (its session, everything it stored)'),
  request: { params: ConversationParamsSchema },
  responses: { 200: json(ConversationDeletedSchema, 'Deleted'), ...openAIErrors(400, 401, 404) },
})
const appendItems = createRoute({
  ...conversationRoute('post', `${PATH}/items`, 'Stores items in a conversation (no model call)'),
  request: { params: ConversationParamsSchema, ...body(AppendItemsSchema) },
  responses: { 200: json(ItemListSchema, 'The items stored, with their ids'), ...openAIErrors(400, 401, 404, 413) },
})
const listItems = createRoute({
  ...conversationRoute('get', `${PATH}/items`, 'The lineage’s messages as items, in pages'),
  request: { params: ConversationParamsSchema, query: ItemsQuerySchema },
  responses: { 200: json(ItemListSchema, 'A page of items'), ...openAIErrors(400, 401, 404) },
})
const getItem = createRoute({
  ...conversationRoute('get', `${PATH}/items/{itemId}`, 'One item of a conversation'),
  request: { params: ConversationItemParamsSchema },
  responses: { 200: json(ItemListSchema.shape.data.element, 'The item'), ...openAIErrors(400, 401, 404) },
})
const deleteItem = createRoute({
  ...conversationRoute('delete', `${PATH}/items/{itemId}`, 'Takes the newest item back: a rewind to before it'),
  request: { params: ConversationItemParamsSchema },
  responses: { 200: json(ConversationSchema, 'The conversation'), ...openAIErrors(400, 401, 404) },
})

/** A session as OpenAI's conversation object. */
const conversation = (session: SessionJson) => ({
  id: session.id,
  object: 'conversation' as const,
  created_at: Math.floor(Date.parse(session.createdAt) / 1000),
  metadata: session.metadata,
})

/** A conversation's items as messages to store (system and developer messages in place); references are refused. */
function itemMessages(items: readonly Item[], media: MediaIntake) {
  const refused = items.findIndex((item) => ['item_reference', 'compaction', 'compaction_trigger'].includes(item.type ?? ''))
  if (refused >= 0)
    throw new ServiceError(
      'unsupported',
      `items[${refused}].type: a ${items[refused]!.type} item cannot be stored in a conversation`,
    )
  return messagesOf(items, { field: 'items', systemMessages: 'inline' }, media)
}

/** Items of events in a page's order: newest first also within an event. */
const itemsInOrder = (events: readonly MessageEvent[], order: ItemsQuery['order'], blobUrl: BlobUrl): ResponseItem[] =>
  events.flatMap((event) => (order === 'asc' ? itemsOf(event, blobUrl) : itemsOf(event, blobUrl).reverse()))

/** A page of a conversation's items, read by events from the one holding `after`. */
async function itemsPage(c: Context, id: string, query: ItemsQuery) {
  const fromId = query.after === undefined ? undefined : itemTarget(query.after)?.eventId
  if (query.after !== undefined && fromId === undefined)
    throw new ServiceError('invalid_request', `after: no item "${query.after}" in this conversation`)
  // One event more than items asked for: the event of `after` is read again.
  const page = unwrap(
    await sessionOf(c, id).readLineage({ order: query.order, limit: query.limit + 1, ...(fromId ? { fromId } : {}) }),
  )
  if (!page) throw new ServiceError('invalid_request', `after: no item "${query.after}" in this conversation`)
  const listed = itemList(itemsInOrder(page.events, query.order, blobUrlOf(c, id)), { ...query, order: 'asc' })
  return { ...listed, has_more: listed.has_more || page.more }
}

/** The Conversations API: a conversation is a session; its items, the lineage's messages. */
export const conversationsRoutes = routes()
  .openapi(create, async (c) => {
    const request = c.req.valid('json') ?? {}
    const id = newConversationId()
    const metadata = request.metadata ?? {}
    const session = sessionOf(c, id)
    const address = { userId: c.get('userId'), sessionId: id }
    const media = new MediaIntake(new URL(c.req.url).origin, blobsElsewhere(c, id))
    const { messages, fields } = await itemMessages(request.items ?? [], media)
    const creates = { metadata }
    if (messages.length > 0) unwrap(await session.appendHistory(address, { messages, fields, creates }, media.upload()))
    else unwrap(await session.create(address, { metadata }))
    return c.json(conversation(unwrap(await session.get())), 200)
  })
  .openapi(get, async (c) => c.json(conversation(unwrap(await sessionOf(c, c.req.valid('param').id).get())), 200))
  .openapi(update, async (c) => {
    const session = sessionOf(c, c.req.valid('param').id)
    return c.json(conversation(unwrap(await session.patch({ metadata: c.req.valid('json').metadata }))), 200)
  })
  .openapi(remove, async (c) => {
    const { id } = c.req.valid('param')
    unwrap(await sessionOf(c, id).destroy())
    return c.json({ id, object: 'conversation.deleted' as const, deleted: true as const }, 200)
  })
  .openapi(appendItems, async (c) => {
    const { id } = c.req.valid('param')
    const media = new MediaIntake(new URL(c.req.url).origin, blobsElsewhere(c, id))
    const { messages, fields } = await itemMessages(c.req.valid('json').items, media)
    const written = unwrap(await sessionOf(c, id).appendHistory(addressOf(c, id), { messages, fields }, media.upload()))
    const items = written.flatMap((event) => (event.type === 'MESSAGE' ? itemsOf(event, blobUrlOf(c, id)) : []))
    return c.json(itemList(items, { order: 'asc', limit: items.length }), 200)
  })
  .openapi(listItems, async (c) => c.json(await itemsPage(c, c.req.valid('param').id, c.req.valid('query')), 200))
  .openapi(getItem, async (c) => {
    const { id, itemId } = c.req.valid('param')
    const target = itemTarget(itemId)
    const events = target ? unwrap(await sessionOf(c, id).messagesByIds([target.eventId])) : []
    const item = events.flatMap((event) => itemsOf(event, blobUrlOf(c, id))).find((found) => found.id === itemId)
    if (!item) throw new ServiceError('not_found', `Item with id '${itemId}' not found.`)
    return c.json(item, 200)
  })
  .openapi(deleteItem, async (c) => {
    const { id, itemId } = c.req.valid('param')
    const session = sessionOf(c, id)
    const page = unwrap(await session.readLineage({ order: 'desc', limit: 1 }))
    const newest = page?.events[0]
    if (!page || !newest || itemsOf(newest, blobUrlOf(c, id)).at(-1)?.id !== itemId)
      throw new ServiceError(
        'unsupported',
        `itemId: only the conversation's newest item can be deleted (a rewind to before it); "${itemId}" is not`,
      )
    // As of the version read: a write landing in between is a 409, not taken back with it.
    unwrap(await session.rewind({ to: newest.id, position: 'before', expectedVersion: page.version }))
    return c.json(conversation(unwrap(await session.get())), 200)
  })
