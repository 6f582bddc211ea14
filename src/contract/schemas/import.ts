import { z } from '@hono/zod-openapi'
import { ServiceError } from '../errors'
import { SIZE_LIMITS } from '../limits'
import { ChatMessageSchema } from './chat-completions'
import { Id, MetadataSchema, Timestamp } from './common'
import { BoundarySchema, RewindSchema, StoredMessageSchema } from './events'
import { EXPORT_FORMAT } from './export'
import { describeIssues } from './issues'
import { MessagesMessageSchema, TextBlocks } from './messages'
import { PolicySchema } from './policy'

/**
 * `POST /v1/sessions/:id/import` with a `jsonl` export (docs/export-format.md): each line an
 * event as exported (its `seq`, `tokens` and `pinned` are recomputed or derived), the session
 * line first when the part holds it.
 */

const Ids = z.array(Id).max(SIZE_LIMITS.eventsPerAppend * 10)
const ImportBoundary = z
  .strictObject({
    ...BoundarySchema.shape,
    pinned: Ids,
    summary: Ids,
    preserved: Ids,
    held: Ids.optional(),
  })
  .superRefine((boundary, ctx) => {
    const named = new Set([...boundary.pinned, ...boundary.summary, ...boundary.preserved])
    boundary.cleared?.forEach((entry, i) => {
      if (!named.has(entry.eventId))
        ctx.addIssue({ code: 'custom', path: ['cleared', i, 'eventId'], message: 'must be an id the boundary names' })
    })
  })

const line = {
  id: Id,
  seq: z.int().min(1).optional(),
  timestamp: Timestamp,
  synthetic: z.boolean().default(false),
  tokens: z.int().min(0).optional(),
  metadata: MetadataSchema.default({}),
  pinned: z.boolean().optional(),
}

export const ImportEventSchema = z.discriminatedUnion('type', [
  z.strictObject({ ...line, type: z.literal('MESSAGE'), message: StoredMessageSchema }),
  z.strictObject({ ...line, type: z.literal('COMPACTION'), boundary: ImportBoundary }),
  z.strictObject({ ...line, type: z.literal('REWIND'), boundary: ImportBoundary, rewind: RewindSchema }),
  z.strictObject({ ...line, type: z.literal('PINS'), pins: z.strictObject({ pin: Ids, unpin: Ids }) }),
])
export type ImportEvent = z.output<typeof ImportEventSchema>

/** The session line: what it says applies when the import creates the session. */
export const ImportHeaderSchema = z.looseObject({
  type: z.literal('session'),
  format: z.literal(EXPORT_FORMAT, `must be "${EXPORT_FORMAT}"`),
  metadata: MetadataSchema.default({}),
  policy: PolicySchema.nullable().default(null),
})
export type ImportHeader = z.output<typeof ImportHeaderSchema>

export const ImportResultSchema = z
  .object({
    imported: z.int().openapi({ description: 'Events written.' }),
    skipped: z.int().openapi({ description: 'Events the log held already (the same id and content).' }),
    version: z.int(),
  })
  .openapi('ImportResult')
export type ImportResultJson = z.output<typeof ImportResultSchema>

/** A `jsonl` import as read: its session line (when the part starts with it) and its events, each with its line number. */
export interface ImportLines {
  header: ImportHeader | null
  events: { line: number; event: ImportEvent }[]
}

/**
 * Reads a `jsonl` import: blank lines skipped, every other line JSON, the session line first or
 * not at all, each event as `ImportEventSchema` says; a problem is a 400 naming its line.
 *
 * @example
 * parseImportLines('{"type":"session","format":"durable-sessions/1"}\n{"type":"MESSAGE",…}')
 */
export function parseImportLines(text: string): ImportLines {
  const result: ImportLines = { header: null, events: [] }
  const refused = (line: number, message: string) => new ServiceError('invalid_request', `line ${line}: ${message}`)
  for (const [index, raw] of text.split('\n').entries()) {
    const line = index + 1
    if (raw.trim() === '') continue
    let value: unknown
    try {
      value = JSON.parse(raw)
    } catch {
      throw refused(line, 'not JSON')
    }
    const isHeader = (value as { type?: unknown } | null)?.type === 'session'
    if (isHeader && (result.header !== null || result.events.length > 0))
      throw refused(line, 'the session line comes first, once')
    const parsed = (isHeader ? ImportHeaderSchema : ImportEventSchema).safeParse(value)
    if (!parsed.success) throw refused(line, describeIssues(parsed.error.issues, 'json', value))
    if (isHeader) result.header = parsed.data as ImportHeader
    else result.events.push({ line, event: parsed.data as ImportEvent })
  }
  if (result.events.length === 0 && result.header === null) throw new ServiceError('invalid_request', 'body: no lines to import')
  if (result.events.length > SIZE_LIMITS.importEvents)
    throw new ServiceError(
      'payload_too_large',
      `body: at most ${SIZE_LIMITS.importEvents} events an import: send the file in parts`,
    )
  return result
}

/** One conversation of a ChatGPT export (`conversations.json`): its message tree, and the node it ends at now. */
const ChatGPTConversationSchema = z.looseObject({
  title: z.string().nullable().optional(),
  current_node: z.string(),
  mapping: z.record(
    z.string(),
    z.looseObject({
      parent: z.string().nullable().optional(),
      message: z
        .looseObject({
          author: z.looseObject({ role: z.string() }),
          content: z.looseObject({
            content_type: z.string(),
            parts: z.array(z.unknown()).optional(),
            text: z.string().optional(),
          }),
          create_time: z.number().nullable().optional(),
          metadata: z.looseObject({}).optional(),
        })
        .nullable()
        .optional(),
    }),
  ),
})
export type ChatGPTConversation = z.output<typeof ChatGPTConversationSchema>

/** A history without event ids, as JSON: into an absent or empty session only. */
export const JsonImportSchema = z
  .discriminatedUnion('format', [
    z.looseObject({ format: z.literal('openai'), messages: z.array(ChatMessageSchema).min(1).max(SIZE_LIMITS.chatMessages) }),
    z.looseObject({
      format: z.literal('anthropic'),
      system: z.union([z.string(), TextBlocks]).optional(),
      messages: z.array(MessagesMessageSchema).min(1).max(SIZE_LIMITS.chatMessages),
    }),
    z.looseObject({ format: z.literal('chatgpt'), conversation: ChatGPTConversationSchema }),
  ])
  .openapi('JsonImport', {
    description:
      'A history from elsewhere: OpenAI chat messages, Anthropic Messages, or one conversation of a ChatGPT export (its current path).',
  })
export type JsonImport = z.output<typeof JsonImportSchema>
