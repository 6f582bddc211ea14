import { z } from '@hono/zod-openapi'
import { MEMORY_ROOT, pathProblem } from '../memory-path'
import { Timestamp } from './common'

/** A memory file's full path, as the store takes it (see `pathProblem`). */
export const MemoryPath = z
  .string()
  .superRefine((path, ctx) => {
    const problem = pathProblem(path)
    if (problem) ctx.addIssue({ code: 'custom', message: problem })
  })
  .openapi({ example: '/memories/notes/preferences.md' })

export const MemoryListQuerySchema = z.object({
  prefix: z
    .string()
    .max(512)
    .refine((prefix) => prefix.startsWith(MEMORY_ROOT), 'must start with /memories')
    .optional()
    .openapi({
      param: { name: 'prefix', in: 'query' },
      description: 'Only files whose path starts with it (default `/memories/`: all).',
      example: '/memories/notes/',
    }),
})

export const MemoryReadQuerySchema = z.object({
  version: z
    .string()
    .regex(/^\d+$/, 'must be a version number ≥ 1')
    .transform(Number)
    .refine((n) => Number.isSafeInteger(n) && n >= 1, 'must be a version number ≥ 1')
    .optional()
    .openapi({
      param: { name: 'version', in: 'query' },
      type: 'integer',
      description: 'An earlier version (default: the newest).',
    }),
})

export const MemoryPutSchema = z
  .strictObject({ content: z.string().openapi({ description: 'The whole text (at most 100 KiB of UTF-8).' }) })
  .openapi('MemoryPut')

const Replace = z.strictObject({
  old: z.string().openapi({ description: 'Text that occurs exactly once in the file.' }),
  new: z.string(),
})
const Insert = z.strictObject({
  line: z.int().min(0).openapi({ description: 'The line after which the text goes (0: at the top), as the tool’s insert_line.' }),
  text: z.string(),
})

// One object with both optional rather than a union: a union's failure names no field ("Invalid input").
export const MemoryPatchSchema = z
  .strictObject({ replace: Replace.optional(), insert: Insert.optional() })
  .refine((edit) => (edit.replace === undefined) !== (edit.insert === undefined), 'give exactly one of replace and insert')
  .transform((edit) => edit as { replace: z.output<typeof Replace> } | { insert: z.output<typeof Insert> })
  .openapi('MemoryPatch', {
    description: 'Exactly one of `replace` and `insert`.',
    oneOf: [{ required: ['replace'] }, { required: ['insert'] }],
  })

export type MemoryEdit = z.output<typeof MemoryPatchSchema>

export const MemoryRenameSchema = z.strictObject({ from: MemoryPath, to: MemoryPath }).openapi('MemoryRename')

export const MemoryListSchema = z
  .object({
    files: z.array(
      z.object({
        path: z.string(),
        size: z.int().openapi({ description: 'UTF-8 bytes.' }),
        version: z.int(),
        updatedAt: Timestamp,
      }),
    ),
  })
  .openapi('MemoryList')

export const MemoryFileSchema = z
  .object({ path: z.string(), content: z.string(), version: z.int(), updatedAt: Timestamp })
  .openapi('MemoryFile')

export const MemoryVersionsSchema = z
  .object({
    versions: z.array(
      z.object({
        version: z.int(),
        size: z.int(),
        deleted: z.boolean(),
        createdAt: Timestamp,
        movedFrom: z.string().optional().openapi({ description: 'A rename brought this version from that path.' }),
        movedTo: z
          .string()
          .optional()
          .openapi({ description: 'A rename took the file to that path (this version is its delete).' }),
      }),
    ),
  })
  .openapi('MemoryVersions')

export const MemoryWriteSchema = z
  .object({
    path: z.string(),
    version: z.int().openapi({ description: 'The file’s new version (also the `ETag`).' }),
    size: z.int(),
    deleted: z.boolean(),
    updatedAt: Timestamp,
  })
  .openapi('MemoryWrite')

export const MemoryWritesSchema = z
  .object({ path: z.string(), files: z.array(MemoryWriteSchema) })
  .openapi('MemoryWrites', { description: 'A directory deleted or renamed: the new version of each file in it.' })

export type MemoryListJson = z.output<typeof MemoryListSchema>
export type MemoryFileJson = z.output<typeof MemoryFileSchema>
export type MemoryVersionsJson = z.output<typeof MemoryVersionsSchema>
export type MemoryWriteJson = z.output<typeof MemoryWriteSchema>
export type MemoryWritesJson = z.output<typeof MemoryWritesSchema>
