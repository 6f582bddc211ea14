import { z } from '@hono/zod-openapi'
import { LIMITS } from '../limits'
import { Limit } from './common'
import { EventSchema } from './events'

/** A search cursor: where in the ranked matches the next page starts, as an opaque string. */
export const encodeSearchCursor = (offset: number) => btoa(`search:${offset}`).replaceAll('=', '')

/** The offset a search cursor stands for; null when it is not one this API issued. */
export function decodeSearchCursor(cursor: string): number | null {
  try {
    const match = /^search:(\d{1,15})$/.exec(atob(cursor))
    return match ? Number(match[1]) : null
  } catch {
    return null
  }
}

export const SearchQuerySchema = z.strictObject({
  q: z
    .string()
    .min(1, 'is required')
    .max(LIMITS.searchQueryChars, `must be at most ${LIMITS.searchQueryChars} characters`)
    .openapi({
      param: { name: 'q', in: 'query' },
      description:
        'Plain text: every word must occur (whole words, case- and accent-insensitive); `word*` is a prefix, `"a phrase"` matches in order; operators mean nothing.',
    }),
  limit: Limit(LIMITS.searchPage),
  scope: z
    .enum(['all', 'covered', 'view'])
    .optional()
    .openapi({
      param: { name: 'scope', in: 'query' },
      description: 'covered: only what compaction hid; view: only what the model sees.',
    }),
  role: z
    .enum(['system', 'user', 'assistant', 'tool'])
    .optional()
    .openapi({ param: { name: 'role', in: 'query' } }),
  cursor: z
    .string()
    .transform((cursor, ctx) => {
      const offset = decodeSearchCursor(cursor)
      if (offset === null) ctx.addIssue({ code: 'custom', message: 'not a cursor this API issued' })
      return offset ?? 0
    })
    .optional()
    .openapi({ param: { name: 'cursor', in: 'query' }, type: 'string' }),
})

export const SearchPageSchema = z
  .object({
    hits: z.array(z.object({ event: EventSchema, covered: z.boolean(), snippet: z.string() })),
    nextCursor: z.string().nullable(),
  })
  .openapi('SearchPage', { description: 'Best match first (full-text relevance), ties newest first.' })
