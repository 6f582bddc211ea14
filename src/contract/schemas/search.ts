import { z } from '@hono/zod-openapi'
import { SIZE_LIMITS } from '../limits'
import { Limit, SessionId, Timestamp } from './common'
import { EventSchema } from './events'

/**
 * Where a page of search hits starts. Matches are ranked a window at a time: the newest
 * `SIZE_LIMITS.searchRankWindow` matches with a seq below `below` (null: the whole log), then the window below.
 */
export interface SearchPosition {
  below: number | null
  offset: number
}

export const SEARCH_START: SearchPosition = { below: null, offset: 0 }

/** A search cursor: a position in the ranked matches, as an opaque string. */
export const encodeSearchCursor = ({ below, offset }: SearchPosition) =>
  btoa(`search:${below ?? ''}:${offset}`).replaceAll('=', '')

/** The position a search cursor stands for; null when it is not one this API issued. */
export function decodeSearchCursor(cursor: string): SearchPosition | null {
  try {
    const match = /^search:(?:(\d{1,15})?:)?(\d{1,15})$/.exec(atob(cursor))
    return match ? { below: match[1] === undefined ? null : Number(match[1]), offset: Number(match[2]) } : null
  } catch {
    return null
  }
}

/** How a search matches its words (`GET /search`, `GET /v1/search`). */
export const SearchModeSchema = z
  .enum(['all', 'any', 'auto'])
  .optional()
  .openapi({
    param: { name: 'mode', in: 'query' },
    description:
      'all: every word must occur; any: ranked by any of the words (common words left out of the ranking); auto (default): the hits holding every word first, then the rest of the ranking.',
  })

export const SearchQuerySchema = z.strictObject({
  q: z
    .string()
    .min(1, 'is required')
    .max(SIZE_LIMITS.searchQueryChars, `must be at most ${SIZE_LIMITS.searchQueryChars} characters`)
    .openapi({
      param: { name: 'q', in: 'query' },
      description:
        'Plain text: whole words, case- and accent-insensitive, each also by its English stem (`running` finds "runs"); `word*` is a prefix, `"a phrase"` matches in order; operators mean nothing.',
    }),
  mode: SearchModeSchema,
  limit: Limit(SIZE_LIMITS.searchPage),
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
  branches: z
    .enum(['lineage', 'all'])
    .optional()
    .openapi({
      param: { name: 'branches', in: 'query' },
      description: 'lineage (default): what the view descends from; all: abandoned branches too (their hits `abandoned`).',
    }),
  cursor: z
    .string()
    .transform((cursor, ctx) => {
      const position = decodeSearchCursor(cursor)
      if (position === null) ctx.addIssue({ code: 'custom', message: 'not a cursor this API issued' })
      return position ?? SEARCH_START
    })
    .optional()
    .openapi({ param: { name: 'cursor', in: 'query' }, type: 'string' }),
})

/** Whether a hit holds every word of the query, or only some. */
export const MatchSchema = z
  .enum(['all', 'any'])
  .openapi({ description: 'all: the hit holds every word of the query; any: some of them.' })

export const SearchPageSchema = z
  .object({
    hits: z.array(
      z.object({
        event: EventSchema,
        covered: z.boolean().openapi({ description: 'Not in the view (abandoned events always are).' }),
        abandoned: z.boolean().openapi({ description: 'On a branch a rewind left (found with `branches=all` only).' }),
        snippet: z.string(),
        match: MatchSchema,
      }),
    ),
    nextCursor: z.string().nullable(),
  })
  .openapi('SearchPage', {
    description:
      'Best match first, ties newest first. `all`: ranked ' +
      `${SIZE_LIMITS.searchRankWindow} matches at a time (the newest ${SIZE_LIMITS.searchRankWindow}, then the ${SIZE_LIMITS.searchRankWindow} before them, ...). ` +
      '`any` and `auto`: one ranking by any of the words (`auto`: hits holding every word first).',
  })

/** `GET /search`: a page of hits. */
export type SearchPageJson = z.output<typeof SearchPageSchema>

/** A cursor of a search across sessions: how many ranked hits lie before its page, as an opaque string. */
export const encodeAcrossCursor = (offset: number) => btoa(`across:${offset}`).replaceAll('=', '')

/** The offset an across-sessions cursor stands for; null when it is not one this API issued. */
export function decodeAcrossCursor(cursor: string): number | null {
  try {
    const match = /^across:(\d{1,7})$/.exec(atob(cursor))
    return match ? Number(match[1]) : null
  } catch {
    return null
  }
}

/** The most session ids one search across sessions may name. */
export const MOST_SEARCHED_SESSIONS = 100

export const AcrossSearchQuerySchema = z.strictObject({
  q: SearchQuerySchema.shape.q,
  mode: SearchModeSchema,
  sessions: z
    .string()
    .transform((list) => list.split(',').map((id) => id.trim()))
    .pipe(z.array(SessionId).min(1).max(MOST_SEARCHED_SESSIONS, `must name at most ${MOST_SEARCHED_SESSIONS} sessions`))
    .optional()
    .openapi({
      param: { name: 'sessions', in: 'query' },
      type: 'string',
      description: `Only these sessions: their ids, comma-separated (at most ${MOST_SEARCHED_SESSIONS}).`,
    }),
  since: Timestamp.optional().openapi({
    param: { name: 'since', in: 'query' },
    description: 'Only events at or after this time.',
  }),
  until: Timestamp.optional().openapi({ param: { name: 'until', in: 'query' }, description: 'Only events before this time.' }),
  role: SearchQuerySchema.shape.role,
  limit: Limit(SIZE_LIMITS.searchPage),
  cursor: z
    .string()
    .transform((cursor, ctx) => {
      const offset = decodeAcrossCursor(cursor)
      if (offset === null) ctx.addIssue({ code: 'custom', message: 'not a cursor this API issued' })
      return offset ?? 0
    })
    .optional()
    .openapi({ param: { name: 'cursor', in: 'query' }, type: 'string' }),
})

export const AcrossSearchPageSchema = z
  .object({
    hits: z.array(
      z.object({
        sessionId: z.string(),
        sessionTitle: z.string().nullable().openapi({ description: 'The session’s title (null: it has none).' }),
        event: EventSchema,
        snippet: z.string(),
        covered: z.boolean().openapi({ description: 'Not in its session’s view.' }),
        match: MatchSchema,
      }),
    ),
    nextCursor: z.string().nullable(),
  })
  .openapi('SessionsSearchPage', {
    description: `Best match first across the caller's sessions, ranked by any of the words (see \`mode\`); at most the best 1,000 hits are paged.`,
  })

/** `GET /v1/search`: a page of hits across the caller's sessions. */
export type AcrossSearchPageJson = z.output<typeof AcrossSearchPageSchema>
