import { createRoute, z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { ServiceError, unwrap } from '../../contract/errors'
import { MEMORY_ROOT, pathProblem } from '../../contract/memory-path'
import {
  MemoryFileSchema,
  MemoryListQuerySchema,
  MemoryListSchema,
  MemoryPatchSchema,
  MemoryPutSchema,
  MemoryReadQuerySchema,
  MemoryRenameSchema,
  MemoryVersionsSchema,
  MemoryWriteSchema,
  MemoryWritesSchema,
} from '../../contract/schemas'
import type { IfMatch } from '../../memory'
import { memoryStub } from '../../object/address'
import type { AppEnv } from '../env'
import { body, errors, json, routes, streamedJson } from './helpers'

/**
 * A route on a memory file: Hono matches its `{path}` across slashes (`/v1/memories/a/b.md`),
 * the OpenAPI document shows it as `{path}` (set once the handler is registered).
 */
const FILE_PATH = '/v1/memories/{path{.+}}'
/** A GET of a path ending in `/versions` is its versions (a file named so is read with that slash encoded: `%2F`). */
const READ_PATH = '/v1/memories/{path{.+(?<!/versions)}}'

const FileParams = z.object({
  path: z.string().openapi({
    param: { name: 'path', in: 'path' },
    description: 'The file’s path under /memories, slashes included (`notes/a.md` for `/memories/notes/a.md`).',
    example: 'notes/preferences.md',
  }),
})

const IfMatchHeader = z.object({
  'if-match': z.string().max(256).optional().openapi({
    description:
      'The version the change applies to (`3` or `"3"`, as the `ETag`; `*`: any live file): else 412, nothing written.',
  }),
})

const writeAnswer = json(z.union([MemoryWriteSchema, MemoryWritesSchema]), 'The new version (a directory: each file’s)')

const list = createRoute({
  method: 'get',
  path: '/v1/memories',
  summary: 'The caller’s memory files (live ones), in path order',
  request: { query: MemoryListQuerySchema },
  responses: { 200: json(MemoryListSchema, 'The files'), ...errors(400, 401) },
})

const rename = createRoute({
  method: 'post',
  path: '/v1/memories/rename',
  summary: 'Move a file or a directory to a free path (full paths); each file moved is a new version there',
  request: body(MemoryRenameSchema),
  responses: { 200: writeAnswer, ...errors(400, 401, 404, 409, 415) },
})

const versions = createRoute({
  method: 'get',
  path: `${FILE_PATH}/versions`,
  summary: 'Every version of a file, deletes included, oldest first',
  request: { params: FileParams },
  responses: { 200: json(MemoryVersionsSchema, 'The versions'), ...errors(400, 401, 404) },
})

const read = createRoute({
  method: 'get',
  path: READ_PATH,
  summary: 'A memory file, or one of its versions (`?version=n`)',
  request: { params: FileParams, query: MemoryReadQuerySchema },
  responses: { 200: json(MemoryFileSchema, 'The file (its version also as `ETag`)'), ...errors(400, 401, 404) },
})

const put = createRoute({
  method: 'put',
  path: FILE_PATH,
  summary: 'Create or replace a memory file (a new version)',
  request: { params: FileParams, headers: IfMatchHeader, ...body(MemoryPutSchema) },
  responses: { 200: json(MemoryWriteSchema, 'The new version (also as `ETag`)'), ...errors(400, 401, 409, 412, 413, 415) },
})

const patch = createRoute({
  method: 'patch',
  path: FILE_PATH,
  summary: 'Edit a memory file: replace text that occurs exactly once, or insert after a line (a new version)',
  request: { params: FileParams, headers: IfMatchHeader, ...body(MemoryPatchSchema) },
  responses: { 200: json(MemoryWriteSchema, 'The new version (also as `ETag`)'), ...errors(400, 401, 404, 412, 413, 415) },
})

const remove = createRoute({
  method: 'delete',
  path: FILE_PATH,
  summary: 'Delete a memory file (a version too: its history stays readable), or a directory and every file in it',
  request: { params: FileParams, headers: IfMatchHeader },
  responses: { 200: writeAnswer, ...errors(400, 401, 404, 412) },
})

/** The full path of a file route's `{path}`, or a 400 naming what is wrong with it. */
function filePath(param: string): string {
  const path = `${MEMORY_ROOT}/${param}`
  const problem = pathProblem(path)
  if (problem) throw new ServiceError('invalid_request', `path: ${path} ${problem}`)
  return path
}

/** An `If-Match` header as the store compares it: `*`, or versions (`3`, `"3"`, `W/"3"`, comma-separated). */
export function ifMatchOf(header: string | undefined): IfMatch | null {
  if (header === undefined) return null
  const tags = header.split(',').map((tag) => tag.trim())
  if (tags.length === 1 && tags[0] === '*') return { any: true }
  const versions = tags.map((tag) => /^(?:W\/)?"?(\d{1,15})"?$/.exec(tag)?.[1])
  if (versions.some((version) => version === undefined || Number(version) < 1))
    throw new ServiceError('invalid_request', `If-Match: "${header}" is not a file version (such as "3") nor *`)
  return { versions: versions.map(Number) }
}

/** A write's answer: its JSON, and the file's new version as `ETag` (a directory's change has none). */
function written(c: Context<AppEnv>, answer: z.output<typeof MemoryWriteSchema> | z.output<typeof MemoryWritesSchema>) {
  if ('version' in answer) c.header('ETag', `"${answer.version}"`)
  return answer
}

const storeOf = (c: Context<AppEnv>) => memoryStub(c.env, c.get('userId'))

/** A file route registered under Hono's pattern, kept out of the document (documented below with `{path}`). */
const hidden = <R extends object>(route: R): R => ({ ...route, hide: true })

/** The caller's memory store (round4 §5): files under `/memories`, every version kept, in the user's memory object. */
export const memoryRoutes = routes()
  .openapi(list, async (c) => {
    const { prefix = `${MEMORY_ROOT}/` } = c.req.valid('query')
    return streamedJson<typeof MemoryListSchema>(c, unwrap(await storeOf(c).list(prefix)))
  })
  .openapi(rename, async (c) => {
    const { from, to } = c.req.valid('json')
    return c.json(written(c, unwrap(await storeOf(c).rename(from, to))), 200)
  })
  .openapi(hidden(versions), async (c) => c.json(unwrap(await storeOf(c).versions(filePath(c.req.valid('param').path))), 200))
  .openapi(hidden(read), async (c) => {
    const file = unwrap(await storeOf(c).read(filePath(c.req.valid('param').path), c.req.valid('query').version))
    c.header('ETag', `"${file.version}"`)
    return c.json(file, 200)
  })
  .openapi(hidden(put), async (c) => {
    const path = filePath(c.req.valid('param').path)
    const ifMatch = ifMatchOf(c.req.valid('header')['if-match'])
    const answer = unwrap(await storeOf(c).put(path, c.req.valid('json').content, ifMatch))
    return c.json(written(c, answer) as z.output<typeof MemoryWriteSchema>, 200)
  })
  .openapi(hidden(patch), async (c) => {
    const path = filePath(c.req.valid('param').path)
    const ifMatch = ifMatchOf(c.req.valid('header')['if-match'])
    const answer = unwrap(await storeOf(c).patch(path, c.req.valid('json'), ifMatch))
    return c.json(written(c, answer) as z.output<typeof MemoryWriteSchema>, 200)
  })
  .openapi(hidden(remove), async (c) => {
    const path = filePath(c.req.valid('param').path)
    const ifMatch = ifMatchOf(c.req.valid('header')['if-match'])
    return c.json(written(c, unwrap(await storeOf(c).delete(path, ifMatch))), 200)
  })

// The document shows each file route with a plain `{path}`: the pattern that lets it hold slashes is Hono's alone.
for (const route of [versions, read, put, patch, remove])
  memoryRoutes.openAPIRegistry.registerPath({ ...route, path: route.path.replace(/\{path\{[^}]*\}\}/, '{path}') })
