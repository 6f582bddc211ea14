import { z } from '@hono/zod-openapi'
import { MetadataSchema } from './common'
import { PolicySchema } from './policy'
import { ForkedFromSchema } from './sessions'

/** The durable export format's name and version (docs/export-format.md). */
export const EXPORT_FORMAT = 'durable-sessions/1'

export const ExportQuerySchema = z.object({
  format: z.enum(['jsonl', 'openai', 'anthropic', 'markdown']).default('jsonl').openapi({
    description:
      '`jsonl` (default): the session line, then every log event; `openai` / `anthropic`: the view in that wire shape; `markdown`: the lineage, readable.',
  }),
})

export type ExportFormat = z.output<typeof ExportQuerySchema>['format']

/** The first line of a `jsonl` export. */
export const SessionExportHeaderSchema = z
  .object({
    type: z.literal('session'),
    format: z.literal(EXPORT_FORMAT),
    id: z.string(),
    createdAt: z.string(),
    metadata: MetadataSchema,
    policy: PolicySchema.nullable(),
    forkedFrom: ForkedFromSchema.nullable(),
    exportedAt: z.string(),
    version: z.int(),
  })
  .openapi('SessionExportHeader')

export type SessionExportHeader = z.output<typeof SessionExportHeaderSchema>

export const EraseAllRequestSchema = z
  .strictObject({ all: z.literal(true, 'must be true: this erases every session of the caller') })
  .openapi('EraseAllRequest')

export const EraseAllResponseSchema = z
  .object({
    erased: z.int().openapi({ description: 'Sessions erased (absent from now on; their storage wiped in the background).' }),
  })
  .openapi('EraseAllResponse')
