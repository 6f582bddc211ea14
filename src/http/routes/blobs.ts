import { createRoute, z } from '@hono/zod-openapi'
import { ServiceError, unwrap } from '../../contract/errors'
import { BlobParamsSchema } from '../../contract/schemas'
import { errors, routes, SESSION_PATH, sessionOf } from './helpers'

const readBlob = createRoute({
  method: 'get',
  path: `${SESSION_PATH}/blobs/{blob}`,
  summary: 'An image’s or document’s bytes, as stored once in the session',
  description:
    'Answered with its media type, `ETag: "<hex>"` (`If-None-Match` → 304) and `Cache-Control: private, max-age=31536000, immutable`: a blob never changes. 404 for one the session does not hold.',
  request: { params: BlobParamsSchema },
  responses: {
    200: {
      description: 'The bytes',
      content: { 'application/octet-stream': { schema: z.string().openapi({ format: 'binary' }) } },
    },
    304: { description: 'The client holds it already (`If-None-Match`)' },
    ...errors(400, 401, 404),
  },
})

/** A blob's bytes never change: a client keeps them as long as it likes, for its user only. */
const CACHING = 'private, max-age=31536000, immutable'

/** A session's blobs: `GET /v1/sessions/:id/blobs/sha256:<hex>`. */
export const blobRoutes = routes().openapi(readBlob, async (c) => {
  const { id, blob } = c.req.valid('param')
  const etag = `"${blob.slice('sha256:'.length)}"`
  const found = unwrap(await sessionOf(c, id).readBlob(blob))
  if (!found) throw new ServiceError('not_found', `blob "${blob}" not found`)
  const headers = { ETag: etag, 'Cache-Control': CACHING }
  if (
    c.req
      .header('If-None-Match')
      ?.split(',')
      .some((tag) => tag.trim() === etag)
  ) {
    await found.body.cancel()
    return c.body(null, 304, headers)
  }
  return c.body(found.body, 200, { ...headers, 'Content-Type': found.mediaType, 'Content-Length': String(found.bytes) })
})
