import { z } from '@hono/zod-openapi'
import { SIZE_LIMITS } from '../limits'
import { MetadataSchema, SessionId } from './common'
import { InputItemSchema } from './responses'

/**
 * The OpenAI Conversations API over sessions: a conversation is a session (`conv_…`), its items
 * the lineage's messages as Responses items.
 */

const Items = z.array(InputItemSchema).max(SIZE_LIMITS.eventsPerAppend)

export const CreateConversationSchema = z
  .looseObject({ items: Items.nullable().optional(), metadata: MetadataSchema.nullable().optional() })
  .openapi('CreateConversationRequest')

export const UpdateConversationSchema = z.looseObject({ metadata: MetadataSchema }).openapi('UpdateConversationRequest')

export const AppendItemsSchema = z.looseObject({ items: Items.min(1) }).openapi('AppendConversationItemsRequest')

export const ConversationSchema = z
  .object({
    id: z.string(),
    object: z.literal('conversation'),
    created_at: z.int().openapi({ description: 'Unix seconds.' }),
    metadata: z.record(z.string(), z.unknown()),
  })
  .openapi('Conversation')

export const ConversationDeletedSchema = z
  .object({ id: z.string(), object: z.literal('conversation.deleted'), deleted: z.literal(true) })
  .openapi('ConversationDeleted')

export const ConversationParamsSchema = z.object({ id: SessionId })
export const ConversationItemParamsSchema = z.object({ id: SessionId, itemId: z.string().min(1).max(300) })
