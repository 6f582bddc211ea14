import { z } from '@hono/zod-openapi'
import { SIZE_LIMITS } from '../limits'
import { SessionId } from './common'

/**
 * A message's content as the API takes and shows it: text, or an array of parts — text, images
 * and documents (round4.md §1). A client sends a binary part with exactly one source: `data`
 * (base64), `url` (https, kept as a reference; a `data:` URL is read as data) or `blob` (one this
 * session holds). An Event shows it by its blob, never its bytes.
 */

const MEDIA_TYPES = ['image', 'document'] as const
const Detail = z.enum(['low', 'high', 'auto']).openapi({ description: 'How an image is to be seen (OpenAI’s `detail`), kept.' })
const Title = z.string().min(1).max(500)
export const BlobRef = z
  .string()
  .regex(/^sha256:[0-9a-f]{64}$/, 'must be sha256: and 64 lowercase hex digits')
  .openapi({ example: `sha256:${'1a2b3c4d'.repeat(8)}` })

export const TextPartSchema = z.strictObject({ type: z.literal('text'), text: z.string() }).openapi('TextPart')

/** A stored image or document, as an Event shows it. */
export const StoredPartSchema = z
  .strictObject({
    type: z.enum(MEDIA_TYPES),
    mediaType: z.string(),
    blob: BlobRef,
    bytes: z.int().openapi({ description: 'Its decoded size.' }),
    width: z.int().optional(),
    height: z.int().optional(),
    pages: z.int().optional().openapi({ description: 'A PDF’s page count, when it could be read.' }),
    title: Title.optional(),
    detail: Detail.optional(),
  })
  .openapi('StoredPart', { description: 'Its bytes: `GET /v1/sessions/{id}/blobs/{blob}`.' })

/** An image or document kept as its https URL (never fetched by the service). */
export const UrlPartSchema = z
  .strictObject({
    type: z.enum(MEDIA_TYPES),
    url: z.string().url().max(SIZE_LIMITS.urlChars),
    mediaType: z.string().optional(),
    title: Title.optional(),
    detail: Detail.optional(),
  })
  .openapi('UrlPart')

export const PartSchema = z.union([TextPartSchema, StoredPartSchema, UrlPartSchema]).openapi('Part')

/** Content as an Event shows it. */
export const ContentSchema = z.union([z.string(), z.array(PartSchema)])

/** A part a client sends (see the file's comment). */
export const PartInputSchema = z
  .strictObject({
    type: z.enum(['text', ...MEDIA_TYPES]),
    text: z.string().optional(),
    mediaType: z.string().max(100).optional(),
    title: Title.optional(),
    detail: Detail.optional(),
    data: z.string().optional().openapi({ description: 'The bytes, base64.' }),
    url: z
      .string()
      .max(SIZE_LIMITS.urlChars + SIZE_LIMITS.partBase64Chars)
      .optional(),
    blob: BlobRef.optional(),
  })
  .superRefine((part, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message })
    const sources = (['data', 'url', 'blob'] as const).filter((source) => part[source] !== undefined)
    if (part.type === 'text') {
      if (part.text === undefined) issue('text', 'a text part needs its text')
      for (const extra of ['mediaType', 'title', 'detail', ...sources] as const)
        if (part[extra] !== undefined) issue(extra, 'a text part carries its text only')
      return
    }
    if (part.text !== undefined) issue('text', `an ${part.type} part carries no text (add a text part)`)
    if (sources.length !== 1) issue('data', `an ${part.type} part needs exactly one source: data, url or blob`)
    if (part.detail !== undefined && part.type !== 'image') issue('detail', 'only an image has a detail')
    if (part.data !== undefined && part.mediaType === undefined)
      issue('mediaType', 'a part given by its data needs its mediaType')
    const url = part.url
    if (url !== undefined && !url.startsWith('https://') && !url.startsWith('data:'))
      issue('url', 'must be an https: URL (kept as a reference) or a data: URL')
  })
  .openapi('PartInput')

export type PartInput = z.output<typeof PartInputSchema>

/** Parts as a client sends them: at least one. */
export const PartsInputSchema = z.array(PartInputSchema).min(1).max(SIZE_LIMITS.contentParts)

/** Content as a client sends it: text, or parts. */
export const ContentInputSchema = z.union([z.string(), PartsInputSchema])
export type ContentInput = z.output<typeof ContentInputSchema>

/** A stored part as an export writes it: the first event that names a blob carries its bytes too (`data`, base64). */
export const ExportPartSchema = z.union([TextPartSchema, StoredPartSchema.extend({ data: z.string().optional() }), UrlPartSchema])

/** Content as an export writes it (see {@link ExportPartSchema}). */
export type ExportContent = string | z.output<typeof ExportPartSchema>[]

export const BlobParamsSchema = z.object({
  id: SessionId.openapi({ param: { name: 'id', in: 'path' } }),
  blob: BlobRef.openapi({ param: { name: 'blob', in: 'path' } }),
})
