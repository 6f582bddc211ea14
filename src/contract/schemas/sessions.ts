import { z } from '@hono/zod-openapi'
import { SIZE_LIMITS } from '../limits'
import { Limit, MetadataSchema, SessionId, Timestamp } from './common'
import { PolicySchema } from './policy'

export const TtlSeconds = z.int().min(1).max(SIZE_LIMITS.ttlSeconds)
/** The session expires this long after its last append (0 or null: never for being idle). */
export const IdleTtlSeconds = z.int().min(0).max(SIZE_LIMITS.ttlSeconds).nullable().openapi({
  description:
    'The session expires this long after its last append (its creation while it has none); 0 or null: off. With ttlSeconds too, whichever comes first.',
})

/** A session's title: what a person reads in a list. */
export const TITLE_CHARS = 200
export const Title = z.string().trim().min(1, 'must not be blank').max(TITLE_CHARS, `must be at most ${TITLE_CHARS} characters`)

/** Who gave a session its title: its client, the summary model, or the first user message's first line. */
export const TitleSourceSchema = z.enum(['client', 'model', 'first_message'])
export type TitleSource = z.output<typeof TitleSourceSchema>

export const CreateSessionRequestSchema = z
  .strictObject({
    id: SessionId.optional(),
    title: Title.optional(),
    ttlSeconds: TtlSeconds.optional(),
    idleTtlSeconds: IdleTtlSeconds.optional(),
    metadata: MetadataSchema.optional(),
    policy: PolicySchema.nullable().optional(),
  })
  .openapi('CreateSessionRequest')

export const PatchSessionRequestSchema = z
  .strictObject({
    title: Title.nullable()
      .optional()
      .openapi({ description: 'null: no title of the client’s (the first user message’s first line again).' }),
    metadata: MetadataSchema.optional(),
    ttlSeconds: TtlSeconds.nullable().optional(),
    idleTtlSeconds: IdleTtlSeconds.optional(),
    policy: PolicySchema.nullable().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'give at least one of title, metadata, ttlSeconds, idleTtlSeconds, policy')
  .openapi('PatchSessionRequest')

export type CreateSessionInput = Omit<z.output<typeof CreateSessionRequestSchema>, 'id'>
export type PatchSessionInput = z.output<typeof PatchSessionRequestSchema>

export const ForkedFromSchema = z
  .object({
    sessionId: z.string(),
    eventId: z
      .string()
      .nullable()
      .openapi({ description: 'The event the fork took the view as of (null: the source was empty).' }),
    position: z.enum(['at', 'before']),
    version: z.int().openapi({ description: 'The source’s version when it was forked.' }),
  })
  .openapi('ForkedFrom')

export type ForkedFrom = z.output<typeof ForkedFromSchema>

export const SessionSchema = z
  .object({
    id: z.string(),
    userId: z.string(),
    createdAt: z.string(),
    expiresAt: z.string().nullable(),
    idleTtlSeconds: z.int().nullable().openapi({ description: 'Its idle expiry (see `expiresAt`); null: none.' }),
    metadata: z.record(z.string(), z.unknown()),
    version: z.int(),
    policy: PolicySchema.nullable(),
    stats: z.object({ events: z.int(), viewEvents: z.int(), viewTokens: z.int(), turns: z.int() }).optional(),
    forkedFrom: ForkedFromSchema.nullable().openapi({
      description: 'Where this session was forked from; null when it is no fork.',
    }),
    title: z.string().nullable().openapi({
      description:
        'Its title: given by the client, else written by the summary model in the first summarizing pass, else the first user message’s first line (80 characters at most); null until one of them is.',
    }),
    titleSource: TitleSourceSchema.nullable(),
  })
  .openapi('Session')

/** The contract's Session object. */
export type SessionJson = z.output<typeof SessionSchema>

export const SessionListSchema = z
  .object({ sessions: z.array(SessionSchema), nextCursor: z.string().nullable() })
  .openapi('SessionList')

/** `GET /v1/sessions`: a page of the caller's sessions. */
export type SessionListJson = z.output<typeof SessionListSchema>

/** The most `metadata.<key>` filters one listing takes. */
export const MOST_METADATA_FILTERS = 10

const METADATA_PARAM = /^metadata\.(.+)$/s

export const ListQuerySchema = z
  .object({
    limit: Limit(SIZE_LIMITS.sessionsPage),
    cursor: z
      .string()
      .min(1)
      .max(512)
      .optional()
      .openapi({ param: { name: 'cursor', in: 'query' } }),
    q: z
      .string()
      .max(SIZE_LIMITS.searchQueryChars, `must be at most ${SIZE_LIMITS.searchQueryChars} characters`)
      .optional()
      .openapi({
        param: { name: 'q', in: 'query' },
        description:
          'Sessions whose title or first user message holds every word (case and accents folded; a word may begin a longer one).',
      }),
    updatedAfter: Timestamp.optional().openapi({ param: { name: 'updatedAfter', in: 'query' } }),
    updatedBefore: Timestamp.optional().openapi({ param: { name: 'updatedBefore', in: 'query' } }),
    forkedFrom: SessionId.optional().openapi({
      param: { name: 'forkedFrom', in: 'query' },
      description: 'Forks of this session.',
    }),
    order: z
      .enum(['created', 'updated'])
      .optional()
      .openapi({
        param: { name: 'order', in: 'query' },
        description: 'created (default): newest first; updated: most recently appended to first.',
      }),
  })
  // `metadata.<key>=<value>`: sessions whose metadata holds that value at that key (several: all of them).
  .catchall(z.string())
  .superRefine((query, ctx) => {
    const known = new Set(['limit', 'cursor', 'q', 'updatedAfter', 'updatedBefore', 'forkedFrom', 'order'])
    const filters = Object.keys(query).filter((key) => !known.has(key))
    for (const key of filters) {
      const name = METADATA_PARAM.exec(key)?.[1]
      if (name === undefined) ctx.addIssue({ code: 'custom', path: [key], message: 'is not a parameter of this route' })
      else if (name.includes('"') || name.length > 128) {
        ctx.addIssue({ code: 'custom', path: [key], message: 'a metadata key is 1–128 characters, without a double quote' })
      }
    }
    if (filters.length > MOST_METADATA_FILTERS) {
      ctx.addIssue({ code: 'custom', path: ['metadata'], message: `at most ${MOST_METADATA_FILTERS} metadata filters` })
    }
  })

/** The `metadata.<key>` filters of a listing's query, as [key, value] pairs. */
export const metadataFilters = (query: Record<string, unknown>): [string, string][] =>
  Object.entries(query).flatMap(([key, value]) => {
    const name = METADATA_PARAM.exec(key)?.[1]
    return name !== undefined && typeof value === 'string' ? [[name, value] as [string, string]] : []
  })
