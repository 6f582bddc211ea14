import type { McpServer } from '@modelcontextprotocol/server'
import { z } from 'zod'
import type { SessionEvent } from '../core'
import { transcriptMarkdown } from '../reads/transcript'
import { schemaOnce } from './schema'
import { type McpService, ToolFailure } from './service'

/** A tool's answer: text for the model, or the service's error as an `isError` result. */
type ToolAnswer = { content: { type: 'text'; text: string }[]; isError?: boolean }

const text = (value: string): ToolAnswer => ({ content: [{ type: 'text', text: value }] })
const data = (value: unknown): ToolAnswer => text(JSON.stringify(value))

/** Runs a tool's work; a {@link ToolFailure} (the service refused) becomes an `isError` result, as MCP asks. */
const answered =
  <A>(work: (args: A) => Promise<ToolAnswer>) =>
  async (args: A): Promise<ToolAnswer> => {
    try {
      return await work(args)
    } catch (error) {
      if (error instanceof ToolFailure) return { ...text(error.message), isError: true }
      throw error
    }
  }

const query = (params: Record<string, string | number | undefined>) => {
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(params)) if (value !== undefined) search.set(name, String(value))
  return search.toString()
}
const sessionPath = (id: string) => `/v1/sessions/${encodeURIComponent(id)}`

/** A search hit as a route answers it (a session's search, or across sessions with its session named). */
type SearchHit = { event: SessionEvent; snippet: string; covered: boolean; match?: string }

/** A hit as a model is shown it: the event by id, role and time, its snippet, not the event whole. */
const shortHit = (hit: SearchHit) => ({
  eventId: hit.event.id,
  role: hit.event.type === 'MESSAGE' ? hit.event.message.role : hit.event.type,
  timestamp: hit.event.timestamp,
  snippet: hit.snippet,
  covered: hit.covered,
  ...(hit.match ? { match: hit.match } : {}),
})

const SessionIdField = z.string().min(1).max(256).describe('The session’s id, as list_sessions or search_sessions name it.')

/** The read tools every MCP client gets. */
export function registerReadTools(server: McpServer, service: McpService): void {
  server.registerTool(
    'search_sessions',
    {
      description:
        'Search everything said in all of your past sessions, ranked: ask in plain words ("when did we fix the login bug?"). Each hit names its session and event; read_session shows what surrounds it.',
      inputSchema: schemaOnce('search_sessions', () =>
        z.object({
          query: z.string().min(1).max(512).describe('What to look for, in plain words or "a phrase".'),
          mode: z
            .enum(['auto', 'any', 'all'])
            .optional()
            .describe('all: every word; any: ranked by any word; auto (default): every word first, then any.'),
          limit: z.number().int().min(1).max(20).optional().describe('Hits to return (default 10).'),
        }),
      ),
      annotations: { readOnlyHint: true },
    },
    answered(async ({ query: q, mode, limit = 10 }) => {
      type Hit = SearchHit & { sessionId: string; sessionTitle: string | null }
      const page = await service.json<{ hits: Hit[] }>('GET', `/v1/search?${query({ q, mode, limit })}`)
      return data({
        hits: page.hits.map((hit) => ({ sessionId: hit.sessionId, sessionTitle: hit.sessionTitle, ...shortHit(hit) })),
      })
    }),
  )

  server.registerTool(
    'list_sessions',
    {
      description:
        'List your sessions, newest first: each with its id, title and size; q finds them by title or first message. Page on with nextCursor.',
      inputSchema: schemaOnce('list_sessions', () =>
        z.object({
          q: z.string().min(1).max(200).optional().describe('Words of the title or of the first message.'),
          limit: z.number().int().min(1).max(50).optional().describe('Sessions to return (default 20).'),
          cursor: z.string().max(1024).optional().describe('nextCursor of the page before.'),
        }),
      ),
      annotations: { readOnlyHint: true },
    },
    answered(async ({ q, limit = 20, cursor }) => {
      type Listed = {
        id: string
        title?: string | null
        createdAt: string
        metadata: unknown
        stats: { events: number; turns: number }
      }
      const page = await service.json<{ sessions: Listed[]; nextCursor: string | null }>(
        'GET',
        `/v1/sessions?${query({ q, limit, cursor })}`,
      )
      return data({
        sessions: page.sessions.map((session) => ({
          id: session.id,
          title: session.title ?? null,
          createdAt: session.createdAt,
          events: session.stats.events,
          turns: session.stats.turns,
          metadata: session.metadata,
        })),
        nextCursor: page.nextCursor,
      })
    }),
  )

  server.registerTool(
    'read_session',
    {
      description:
        'Read a page of a session’s conversation as it stands (the newest events, or those around, before or after one), marked where a compaction covered or cleared a message.',
      inputSchema: schemaOnce('read_session', () =>
        z.object({
          sessionId: SessionIdField,
          eventId: z
            .string()
            .min(1)
            .max(256)
            .optional()
            .describe('The event to read around (a search hit’s eventId); none: the newest.'),
          position: z.enum(['around', 'before', 'after']).optional().describe('around (default), before or after eventId.'),
          limit: z.number().int().min(1).max(50).optional().describe('Events to return (default 20).'),
          format: z.enum(['markdown', 'json']).optional().describe('markdown (default) or json.'),
        }),
      ),
      annotations: { readOnlyHint: true },
    },
    answered(async ({ sessionId, eventId, position = 'around', limit = 20, format = 'markdown' }) => {
      const page = await service.transcript(sessionId, { ...(eventId ? { eventId } : {}), position, limit })
      return format === 'json' ? data(page) : text(transcriptMarkdown(page))
    }),
  )

  server.registerTool(
    'recall',
    {
      description:
        'Find what was said in one session: by a query (ranked hits), or by an id (a message, or a tool call’s result, whole — also one cleared from the view).',
      inputSchema: schemaOnce('recall', () =>
        z.object({
          sessionId: SessionIdField,
          query: z.string().min(1).max(512).optional().describe('What to look for, in plain words.'),
          id: z.string().min(1).max(256).optional().describe('A message’s id or a tool call’s id.'),
          limit: z.number().int().min(1).max(20).optional().describe('Hits for a query (default 5).'),
        }),
      ),
      annotations: { readOnlyHint: true },
    },
    answered(async ({ sessionId, query: q, id, limit = 5 }) => {
      if ((q === undefined) === (id === undefined)) throw new ToolFailure('400: give exactly one of query and id')
      if (id !== undefined) {
        const hit = await service.recallById(sessionId, id)
        if (!hit) throw new ToolFailure(`404: no message or tool call "${id}" on this session's lineage`)
        return data({ hits: [hit] })
      }
      const page = await service.json<{ hits: SearchHit[] }>('GET', `${sessionPath(sessionId)}/search?${query({ q, limit })}`)
      return data({ hits: page.hits.map(shortHit) })
    }),
  )

  server.registerTool(
    'get_context',
    {
      description:
        'What a session holds and what its model is shown: the budget, the view’s tokens by part, its counts, the compaction policy in force and usage.',
      inputSchema: schemaOnce('get_context', () => z.object({ sessionId: SessionIdField })),
      annotations: { readOnlyHint: true },
    },
    answered(async ({ sessionId }) => data(await service.json('GET', `${sessionPath(sessionId)}/context`))),
  )

  server.registerTool(
    'memory',
    {
      description:
        'Your memory across sessions: text files under /memories. Commands: view (a directory, or a file with line numbers), create, str_replace, insert, delete, rename — as Anthropic’s memory tool.',
      inputSchema: schemaOnce('memory', () =>
        z.object({
          command: z.enum(['view', 'create', 'str_replace', 'insert', 'delete', 'rename']),
          path: z.string().max(1024).optional().describe('The file or directory, starting with /memories.'),
          view_range: z
            .array(z.number().int())
            .length(2)
            .optional()
            .describe('view of a file: first and last line (-1: to the end).'),
          file_text: z.string().optional().describe('create: the new file’s text.'),
          old_str: z.string().optional().describe('str_replace: text that occurs once.'),
          new_str: z.string().optional().describe('str_replace: its replacement.'),
          insert_line: z.number().int().min(0).optional().describe('insert: the line after which (0: the top).'),
          insert_text: z.string().optional().describe('insert: the text.'),
          old_path: z.string().max(1024).optional().describe('rename: from.'),
          new_path: z.string().max(1024).optional().describe('rename: to.'),
        }),
      ),
    },
    answered(async (args) => {
      const answer = await service.memory(args)
      return answer.error ? { ...text(answer.text), isError: true } : text(answer.text)
    }),
  )
}

/** The tools that change a session, offered only with `MCP_WRITE_TOOLS=1`. */
export function registerWriteTools(server: McpServer, service: McpService): void {
  server.registerTool(
    'pin_events',
    {
      description: 'Pin messages of a session so compaction always keeps them in view (or unpin them).',
      inputSchema: schemaOnce('pin_events', () =>
        z.object({
          sessionId: SessionIdField,
          pin: z.array(z.string().min(1)).max(100).optional().describe('Event ids to pin.'),
          unpin: z.array(z.string().min(1)).max(100).optional().describe('Event ids to unpin.'),
        }),
      ),
    },
    answered(async ({ sessionId, pin, unpin }) =>
      data(
        await service.json('POST', `${sessionPath(sessionId)}/pins`, { ...(pin ? { pin } : {}), ...(unpin ? { unpin } : {}) }),
      ),
    ),
  )

  server.registerTool(
    'compact_session',
    {
      description: 'Run a compaction pass on a session now (its own policy’s strategy); answers what it covered.',
      inputSchema: schemaOnce('compact_session', () => z.object({ sessionId: SessionIdField })),
    },
    answered(async ({ sessionId }) => data(await service.json('POST', `${sessionPath(sessionId)}/compact`, {}))),
  )

  server.registerTool(
    'fork_session',
    {
      description:
        'Copy a session up to one of its events (default: all of it) into a new session, to go another way from there.',
      inputSchema: schemaOnce('fork_session', () =>
        z.object({
          sessionId: SessionIdField,
          at: z.string().min(1).max(256).optional().describe('The event the fork ends at (default: the newest).'),
          id: z.string().min(1).max(256).optional().describe('The new session’s id (default: made up).'),
        }),
      ),
    },
    answered(async ({ sessionId, at, id }) =>
      data(await service.json('POST', `${sessionPath(sessionId)}/fork`, { ...(at ? { at } : {}), ...(id ? { id } : {}) })),
    ),
  )
}
