import { OpenAPIHono, z } from '@hono/zod-openapi'
import type { Context, TypedResponse } from 'hono'
import type { JSONParsed } from 'hono/utils/types'
import { SIZE_LIMITS } from '../../contract/limits'
import { ErrorResponseSchema, SessionId } from '../../contract/schemas'
import { sessionClient } from '../../object/session-client'
import { blobUrl } from '../../wire/blob-url'
import type { BlobsElsewhere } from '../../wire/media'
import type { AppEnv } from '../env'
import { validationHook } from '../validation'

/** A JSON response or request body of a route, for the OpenAPI document. */
export const json = <T extends z.ZodType>(schema: T, description: string) => ({
  content: { 'application/json': { schema } },
  description,
})

export const body = <T extends z.ZodType>(schema: T, required = true) => ({
  body: { content: { 'application/json': { schema } }, required },
})

/** The error answers of a route, all in the contract's error shape; with a token, any route may also be rate limited (429). */
export const errors = (...statuses: (400 | 401 | 404 | 409 | 412 | 413 | 415 | 502 | 503)[]) =>
  Object.fromEntries(
    [...statuses, ...(statuses.includes(401) ? [429] : [])].map((status) => [
      status,
      json(
        ErrorResponseSchema,
        status === 429 ? 'Rate limited (`Retry-After`, `X-RateLimit-*` say which limit)' : `Error (${status})`,
      ),
    ]),
  ) as Record<number, ReturnType<typeof json<typeof ErrorResponseSchema>>>

const OpenAIErrorSchema = z
  .object({ error: z.object({ message: z.string(), type: z.string(), param: z.string().nullable(), code: z.string() }) })
  .openapi('OpenAIError')

/** The error answers of an OpenAI-shaped route (the Responses door, Conversations). */
export const openAIErrors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, json(OpenAIErrorSchema, `Error (${status}), in OpenAI's shape`)]))

export const SESSION_PATH = '/v1/sessions/{id}'

/**
 * `x-stainless-retry-count`, which the OpenAI and Anthropic SDKs send on a request they send
 * again: any text is taken (a client's header is never refused), a count of 1
 * or more says the request is a retry.
 */
export const RetryCountHeader = z.string().optional().openapi({
  description:
    'Sent by the OpenAI and Anthropic SDKs on a retry: 1 or more makes a request that is the whole conversation before the stored reply a retry even when it holds no assistant message (a conversation’s first).',
})

/**
 * The headers every door reads alike (see `wire/door-request`), declared once: each door's
 * `Headers` extends them with its own.
 */
export const DoorHeaders = z.object({
  'x-on-diverge': z.enum(['rewind', 'reject']).optional().openapi({
    description:
      'A history that left the session’s (an edit, a rewrite): `rewind` to where it branched off (the default, or ON_DIVERGE), or `reject` with a 409 `history_diverged`.',
  }),
  'x-regenerate': z.enum(['true', 'false']).optional().openapi({
    description:
      '`true`: a request that repeats an answered one gets a new reply (the old one leaves the view) instead of the stored one.',
  }),
  'idempotency-key': z
    .string()
    .min(1)
    .max(SIZE_LIMITS.idempotencyKeyChars)
    .optional()
    .openapi({ description: 'A repeat with the same key and messages returns the first result without calling the model.' }),
  'x-stainless-retry-count': RetryCountHeader,
  'x-recall': z.enum(['on', 'off', 'all']).optional().openapi({
    description:
      '`on` offers the model the built-in recall_history tool (see /turns `recall`); `all` lets it search all of the user’s sessions too (`recall: { sessions: "all" }`).',
  }),
})

/**
 * Where a client reads a blob of the session `sessionId`: its absolute URL on this service (what a
 * Responses item shows for a stored image or document, and what the doors read back as the blob).
 */
export const blobUrlOf = (c: { req: { url: string } }, sessionId: string) => blobUrl(new URL(c.req.url).origin, sessionId)

/** The address of the caller's session `id`. */
export const addressOf = (c: { get(key: 'userId'): string }, sessionId: string) => ({ userId: c.get('userId'), sessionId })

/** A group of routes, validated with the API's hook. */
export const routes = () => new OpenAPIHono<AppEnv>({ defaultHook: validationHook })

/** The caller's session `id` (validated by the route's path schema), as a typed RPC client. */
export const sessionOf = (c: { env: Env; get(key: 'userId'): string }, id: string) => sessionClient(c.env, c.get('userId'), id)

/**
 * Where a request that writes to the session `sessionId` (null: none) reads the blobs it names by
 * the blob URL of another of the caller's sessions: from that session's object (see
 * `BlobsElsewhere`); none from a session that does not hold it, or that is not the caller's.
 */
export const blobsElsewhere = (c: { env: Env; get(key: 'userId'): string }, sessionId: string | null): BlobsElsewhere => ({
  sessionId,
  async read(other, ref) {
    if (!SessionId.safeParse(other).success) return null
    const found = await sessionOf(c, other).readBlob(ref)
    return found.ok ? found.value : null
  },
})

/**
 * A JSON answer of the session object (`JsonBody`: its text when small, else a stream), passed
 * on as it comes, never parsed here: typed as the route's declared schema, which is what the
 * object writes.
 *
 * @example
 * return streamedJson<typeof LogPageSchema>(c, unwrap(await sessionOf(c, id).readLog(0, 100)))
 */
export const streamedJson = <S extends z.ZodType>(c: Context, body: string | ReadableStream<Uint8Array>) =>
  c.body(body, 200, { 'Content-Type': 'application/json; charset=utf-8' }) as unknown as Response &
    TypedResponse<JSONParsed<z.output<S>>, 200, 'json'>
