import { createRoute, z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { ServiceError, unwrap } from '../../contract/errors'
import {
  describeIssues,
  EraseAllRequestSchema,
  EraseAllResponseSchema,
  ExportQuerySchema,
  ImportResultSchema,
  issuesCode,
  JsonImportSchema,
  parseImportLines,
  SessionParamsSchema,
} from '../../contract/schemas'
import { memoryStub, userIndexStub } from '../../object/address'
import type { MemoryExportCursor } from '../../object/memory-store'
import type { SessionIndexCursor } from '../../store/user-index/session-index'
import { importedHistory, jsonlMedia } from '../../wire/import'
import { MediaIntake } from '../../wire/media'
import { isJsonLines } from '../body'
import { body, errors, json, routes, SESSION_PATH, sessionOf } from './helpers'

/** Each export format's media type. */
const MEDIA_TYPES = {
  jsonl: 'application/x-ndjson; charset=utf-8',
  openai: 'application/json; charset=utf-8',
  anthropic: 'application/json; charset=utf-8',
  markdown: 'text/markdown; charset=utf-8',
} as const

const exportSession = createRoute({
  method: 'get',
  path: `${SESSION_PATH}/export`,
  summary: 'The session, to keep or to move: every event (jsonl), the view in a wire format, or the lineage as Markdown',
  description:
    'Streamed, of any size. `jsonl` is the durable format (docs/export-format.md): a session line, then every log event as its Event object, one a line.',
  request: { params: SessionParamsSchema, query: ExportQuerySchema },
  responses: {
    200: {
      description: 'The export',
      content: {
        'application/x-ndjson': { schema: z.string() },
        'application/json': { schema: z.object({}).passthrough() },
        'text/markdown': { schema: z.string() },
      },
    },
    ...errors(400, 401, 404),
  },
})

const importSession = createRoute({
  method: 'post',
  path: `${SESSION_PATH}/import`,
  summary: 'Imports a jsonl export, whole or in parts, or a history from elsewhere (creates the session when it does not exist)',
  description:
    'A jsonl export (application/x-ndjson): events keep their ids, timestamps, metadata and boundaries; those the log holds already are skipped, so a large export goes in in parts, each starting at its first line or at an event line. All of one request or nothing; errors name the line. Or a history from elsewhere as JSON (application/json, the JsonImport schema: OpenAI messages, Anthropic Messages, a ChatGPT conversation), into an absent or empty session only.',
  request: {
    params: SessionParamsSchema,
    // Read by the handler (a jsonl body, or a JSON one: JsonImport), not by a validator that would parse both as JSON.
    body: { content: { 'application/x-ndjson': { schema: z.string() } }, required: true },
  },
  responses: { 200: json(ImportResultSchema, 'What was imported'), ...errors(400, 401, 409, 413, 415) },
})

const exportAll = createRoute({
  method: 'get',
  path: '/v1/export',
  summary:
    'All of the caller’s data as one jsonl stream: each session’s line, then its events; then every version of their memory files',
  responses: {
    200: { description: 'The export', content: { 'application/x-ndjson': { schema: z.string() } } },
    ...errors(401),
  },
})

const eraseAll = createRoute({
  method: 'delete',
  path: '/v1/sessions',
  summary:
    'Erases all of the caller’s sessions and memory: none can be read or listed from this answer on; session storage is wiped in the background',
  request: body(EraseAllRequestSchema),
  responses: { 202: json(EraseAllResponseSchema, 'Erased'), ...errors(400, 401, 415) },
})

const SESSIONS_PAGE = 50

/** The user's memory as export lines: every version of every file, in path then version order (`docs/export-format.md`). */
async function* memoryLines(c: Context, userId: string): AsyncGenerator<string> {
  const store = memoryStub(c.env, userId)
  for (let after: MemoryExportCursor | null = null; ; ) {
    const page = await store.exportPage(after)
    if (page.versions.length === 0) return
    for (const { path, version, deleted, createdAt, content, movedFrom, movedTo } of page.versions) {
      const moved = { ...(movedFrom ? { movedFrom } : {}), ...(movedTo ? { movedTo } : {}) }
      yield `${JSON.stringify({ type: 'memory', path, version, deleted, createdAt, content, ...moved })}\n`
    }
    after = page.next
  }
}

/**
 * Every session of the user, newest first, each exported as `jsonl` one after the other, then the
 * user's memory, streamed with back-pressure.
 */
function exportAllOf(c: Context, userId: string): ReadableStream<Uint8Array> {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>()
  const index = userIndexStub(c.env, userId)
  const encoder = new TextEncoder()
  const writeText = async (text: string) => {
    const writer = writable.getWriter()
    await writer.write(encoder.encode(text))
    writer.releaseLock()
  }
  const write = async () => {
    const now = new Date().toISOString()
    for (let cursor: SessionIndexCursor | null = null, first = true; first || cursor; first = false) {
      const page = await index.page(SESSIONS_PAGE, cursor, now)
      cursor = page.next
      for (const entry of page.entries) {
        const outcome = await sessionOf(c, entry.id).exportSession('jsonl')
        if (!outcome.ok) continue // gone since it was listed
        if (typeof outcome.value !== 'string') await outcome.value.pipeTo(writable, { preventClose: true })
        else await writeText(outcome.value)
      }
    }
    for await (const line of memoryLines(c, userId)) await writeText(line)
    await writable.close()
  }
  c.executionCtx.waitUntil(write().catch((error) => writable.abort(error)))
  return readable
}

/** Portability: a session's export and import. */
export const portabilityRoutes = routes()
  .openapi(importSession, async (c) => {
    const { id } = c.req.valid('param')
    const address = { userId: c.get('userId'), sessionId: id }
    const type = c.req.header('Content-Type')
    if (isJsonLines(type)) {
      const lines = parseImportLines(await c.req.text())
      const media = new MediaIntake()
      await jsonlMedia(lines, media)
      return c.json(unwrap(await sessionOf(c, id).importSession(address, { lines }, media.upload())), 200)
    }
    if (!/^application\/json\s*(;|$)/i.test(type ?? ''))
      throw new ServiceError(
        'unsupported_media_type',
        'an import is a jsonl export (application/x-ndjson) or a JSON history (application/json)',
      )
    let value: unknown
    try {
      value = JSON.parse(await c.req.text())
    } catch {
      throw new ServiceError('invalid_request', 'body: not valid JSON')
    }
    const parsed = JsonImportSchema.safeParse(value)
    if (!parsed.success)
      throw new ServiceError(issuesCode(parsed.error.issues), describeIssues(parsed.error.issues, 'json', value))
    const media = new MediaIntake()
    const history = await importedHistory(parsed.data, media)
    return c.json(unwrap(await sessionOf(c, id).importSession(address, { history }, media.upload())), 200)
  })
  .openapi(
    exportAll,
    async (c) =>
      c.body(exportAllOf(c, c.get('userId')), 200, {
        'Content-Type': 'application/x-ndjson; charset=utf-8',
        'Content-Disposition': 'attachment; filename="sessions.jsonl"',
      }) as never,
  )
  .openapi(eraseAll, async (c) => {
    const userId = c.get('userId')
    const index = userIndexStub(c.env, userId)
    await index.eraseAll(userId, new Date().toISOString())
    // The user's memory goes at once, every version of it.
    await memoryStub(c.env, userId).eraseAll()
    // Swept here, so that none can be read from this answer on; the index's alarm finishes what this does not.
    let erased = 0
    for (
      let after = '', batch = await index.erased(SESSIONS_PAGE);
      batch.length > 0;
      batch = await index.erased(SESSIONS_PAGE, after)
    ) {
      const done = await Promise.allSettled(
        batch.map(async (entry) => unwrap(await sessionOf(c, entry.id).erase(entry.createdAt))),
      )
      const swept = batch.filter((_, i) => done[i]!.status === 'fulfilled')
      await index.forget(swept)
      erased += swept.length
      after = batch.at(-1)!.createdAt // one that failed is the alarm's to sweep again
    }
    return c.json({ erased }, 202)
  })
  .openapi(exportSession, async (c) => {
    const { format } = c.req.valid('query')
    const { id } = c.req.valid('param')
    const body = unwrap(await sessionOf(c, id).exportSession(format))
    const extension = format === 'jsonl' ? 'jsonl' : format === 'markdown' ? 'md' : 'json'
    return c.body(body, 200, {
      'Content-Type': MEDIA_TYPES[format],
      'Content-Disposition': `attachment; filename="${id}.${extension}"`,
    }) as never
  })
