/**
 * Images and documents for the client tests (issue 47): the files the clients send, and what a
 * session stores of them, read through the service's own API as its user (a client test cannot
 * count the object's blob rows; the jsonl export stands for them: it carries each stored blob's
 * bytes once, in the first event that names it, and nothing else of them).
 */
import { expect, inject } from 'vitest'
import { encodeBase64 } from '../../src/core/media/base64'
import { pdf, png } from '../../src/core/media/fixtures'
import { sha256Hex } from '../../src/core/media/sha256'
import { logOf, upstreamSent } from './helpers'

/** A real 40×30 PNG: a screenshot, small enough that Claude Code and Codex send its bytes as they are. */
export const PNG = png(40, 30)
export const PNG_BASE64 = encodeBase64(PNG)
export const PNG_DATA_URL = `data:image/png;base64,${PNG_BASE64}`
/** A real two-page PDF. */
export const PDF = pdf(2)
export const PDF_BASE64 = encodeBase64(PDF)
export const PDF_DATA_URL = `data:application/pdf;base64,${PDF_BASE64}`

/** The name a session stores bytes by: `sha256:<hex>`. */
export const blobOf = async (bytes: Uint8Array) => `sha256:${await sha256Hex(bytes)}`

/** Where a test reads the service: the `/v1` base and the user's token (the shared served Worker's alice by default). */
export interface ApiAccess {
  apiBase: string
  token: string
}
const defaultAccess = (): ApiAccess => ({ apiBase: inject('apiBase'), token: inject('apiKey') })

const get = async (access: ApiAccess, path: string) => {
  const response = await fetch(`${access.apiBase}${path}`, { headers: { Authorization: `Bearer ${access.token}` } })
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`)
  return response
}

type StoredPart = { type: string; mediaType: string; blob?: string; bytes?: number; data?: string; url?: string }

/**
 * A session's images and documents as its jsonl export holds them, in log order (each message's
 * content, then its tool responses' data): every binary part, and the bytes the export carries
 * (`data`, once per stored blob, beside the first part that names it).
 */
export async function storedMedia(sessionId: string, access: ApiAccess = defaultAccess()) {
  const exported = await (await get(access, `/sessions/${sessionId}/export?format=jsonl`)).text()
  const parts: StoredPart[] = []
  for (const line of exported.trim().split('\n')) {
    const event = JSON.parse(line)
    if (event.type !== 'MESSAGE') continue
    const { content, toolResponses = [] } = event.message
    for (const value of [content, ...toolResponses.map((response: { data: unknown }) => response.data)])
      if (Array.isArray(value)) parts.push(...value.filter((part: StoredPart) => part.type !== 'text'))
  }
  return {
    parts,
    /** Each stored blob the export carries, with its bytes (base64), in the order it first appears. */
    carried: parts.flatMap(({ blob, data }) => (data === undefined ? [] : [{ blob, data }])),
  }
}

/** The bytes the session answers at its blob route. */
export async function blobBytes(sessionId: string, blob: string, access: ApiAccess = defaultAccess()): Promise<Uint8Array> {
  return new Uint8Array(await (await get(access, `/sessions/${sessionId}/blobs/${blob}`)).arrayBuffer())
}

/**
 * Checks that a session stores each of `files` once however often its log names it: every binary
 * part of the log names one of their blobs, the export carries each one's bytes exactly once, and
 * the blob route answers those bytes.
 */
export async function expectStoredOnce(sessionId: string, files: Uint8Array[], access: ApiAccess = defaultAccess()) {
  const blobs = await Promise.all(files.map(blobOf))
  const { parts, carried } = await storedMedia(sessionId, access)
  expect(new Set(parts.map((part) => part.blob))).toEqual(new Set(blobs))
  expect(carried).toEqual(files.map((file, i) => ({ blob: blobs[i], data: encodeBase64(file) })))
  for (const [i, blob] of blobs.entries()) expect(await blobBytes(sessionId, blob, access)).toEqual(files[i])
  return parts
}

/**
 * A conversation of two turns whose first user message held the question, the PNG and the PDF
 * (as the AI SDK's providers send them): the log holds each as a stored part, the blobs once, and
 * the fake upstream was given both in its own format on both turns.
 */
export async function expectImageAndPdfKept(sessionId: string, tag: string) {
  const log = await logOf(sessionId)
  expect(log.map((event) => event.message.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
  expect(log[0]!.message.content).toEqual([
    { type: 'text', text: 'What are these?' },
    { type: 'image', mediaType: 'image/png', blob: await blobOf(PNG), bytes: PNG.byteLength, width: 40, height: 30 },
    {
      type: 'document',
      mediaType: 'application/pdf',
      blob: await blobOf(PDF),
      bytes: PDF.byteLength,
      pages: 2,
      title: 'plan.pdf',
    },
  ])
  await expectStoredOnce(sessionId, [PNG, PDF])
  const sent = await upstreamSent(tag)
  expect(sent).toHaveLength(2)
  for (const { body } of sent)
    expect(body.messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'What are these?' },
        { type: 'image_url', image_url: { url: PNG_DATA_URL } },
        { type: 'file', file: { file_data: PDF_DATA_URL, filename: 'plan.pdf' } },
      ],
    })
}
