import { z } from '@hono/zod-openapi'
import { ID_PATTERN, SIZE_LIMITS } from '../limits'

export const ID_RULE = 'must be 1–128 characters of A-Z a-z 0-9 . _ : -'

/** Session and event ids. */
export const Id = z.string().regex(ID_PATTERN, ID_RULE).openapi({ example: 'chat-42' })

/** Session ids appear in URL paths, where `.` and `..` are dot segments no client can send as a name. */
export const SessionId = Id.refine((id) => id !== '.' && id !== '..', 'must not be "." or ".." (URL dot segments)')

/** Nesting depth of a JSON value (0 for a primitive), measured level by level without recursion. */
export function depthOf(value: unknown, limit: number): number {
  const isObject = (item: unknown): item is object => typeof item === 'object' && item !== null
  let depth = 0
  let level: unknown[] = [value]
  while (depth <= limit) {
    const next: unknown[] = []
    for (const item of level) if (isObject(item)) for (const child of Object.values(item)) next.push(child)
    if (!level.some(isObject)) return depth
    depth += 1
    level = next
  }
  return depth
}

/** A JSON object (not an array, not null), taken as it is: a record schema would rebuild it and drop a `__proto__` key. */
const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** Metadata: any JSON object, kept exactly as sent (every key, `__proto__` included). */
export const MetadataSchema = z
  .custom<Record<string, unknown>>(isJsonObject, 'must be a JSON object')
  .superRefine((value, ctx) => {
    // Depth first: serializing a very deep value would overflow the stack.
    if (depthOf(value, SIZE_LIMITS.metadataDepth) > SIZE_LIMITS.metadataDepth) {
      ctx.addIssue({ code: 'custom', message: `must not be nested deeper than ${SIZE_LIMITS.metadataDepth} levels` })
    } else if (new TextEncoder().encode(JSON.stringify(value)).length > SIZE_LIMITS.metadataBytes) {
      ctx.addIssue({ code: 'custom', message: `must serialize to at most ${SIZE_LIMITS.metadataBytes} bytes of JSON` })
    }
  })
  .openapi('Metadata', { type: 'object', additionalProperties: true, example: { channel: 'web' } })

export const Timestamp = z.iso.datetime({ offset: true }).openapi({ example: '2026-01-01T00:00:00.000Z' })

/** `limit`: 1..max, larger values clamped, zero/negative/non-numbers refused. */
export const Limit = (defaults: { default: number; max: number }) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a positive integer')
    .transform(Number)
    .refine((n) => n >= 1, 'must be at least 1')
    .transform((n) => Math.min(n, defaults.max))
    .optional()
    .openapi({ param: { name: 'limit', in: 'query' }, example: String(defaults.default), type: 'integer' })

export const SessionParamsSchema = z.object({ id: SessionId.openapi({ param: { name: 'id', in: 'path' } }) })

export const ErrorResponseSchema = z
  .object({ error: z.object({ code: z.string(), message: z.string() }) })
  .openapi('Error', { example: { error: { code: 'not_found', message: 'session not found' } } })

/** A page's `before` query parameter: an exclusive seq ≥ 1, what the page's items come before. */
export const BeforeSeq = (what: string) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a sequence number ≥ 1')
    .transform(Number)
    .refine((n) => Number.isSafeInteger(n) && n >= 1, 'must be a sequence number ≥ 1')
    .optional()
    .openapi({ param: { name: 'before', in: 'query' }, type: 'integer', description: `Exclusive: ${what} with a lower seq.` })
