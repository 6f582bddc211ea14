import { describe, expect, it } from 'vitest'
import type { BinaryPart } from './parts'
import { formatBytes, mediaPlaceholder } from './placeholder'

const HASH = '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f809'

describe('mediaPlaceholder', () => {
  it('writes an image with its type, pixel size, size and short hash', () => {
    const part: BinaryPart = {
      type: 'image',
      mediaType: 'image/png',
      blob: `sha256:${HASH}`,
      bytes: 186_000,
      width: 1280,
      height: 720,
    }
    expect(mediaPlaceholder(part)).toBe('[image: image/png, 1280×720, 182 KB, sha256:1a2b3c4d]')
  })

  it('leaves out a pixel size it does not know', () => {
    const part: BinaryPart = { type: 'image', mediaType: 'image/jpeg', blob: `sha256:${HASH}`, bytes: 900 }
    expect(mediaPlaceholder(part)).toBe('[image: image/jpeg, 900 B, sha256:1a2b3c4d]')
    expect(mediaPlaceholder({ ...part, width: 10 })).toBe('[image: image/jpeg, 900 B, sha256:1a2b3c4d]')
  })

  it('writes a document with its title, type, pages, size and short hash', () => {
    const part: BinaryPart = {
      type: 'document',
      mediaType: 'application/pdf',
      blob: `sha256:${HASH}`,
      bytes: 1_500_000,
      pages: 12,
      title: 'Title',
    }
    expect(mediaPlaceholder(part)).toBe('[document: "Title", application/pdf, 12 pages, 1.4 MB, sha256:1a2b3c4d]')
    expect(mediaPlaceholder({ ...part, pages: 1 })).toBe('[document: "Title", application/pdf, 1 page, 1.4 MB, sha256:1a2b3c4d]')
  })

  it('leaves out a title not given and pages not known', () => {
    const part: BinaryPart = { type: 'document', mediaType: 'text/plain', blob: `sha256:${HASH}`, bytes: 4096 }
    expect(mediaPlaceholder(part)).toBe('[document: text/plain, 4 KB, sha256:1a2b3c4d]')
    expect(mediaPlaceholder({ ...part, title: '' })).toBe('[document: text/plain, 4 KB, sha256:1a2b3c4d]')
  })

  it('quotes a title so its quotes and line breaks cannot break the placeholder, and cuts a long one', () => {
    const part: BinaryPart = { type: 'document', mediaType: 'text/plain', blob: `sha256:${HASH}`, bytes: 10, title: 'a "b"\nc' }
    expect(mediaPlaceholder(part)).toBe('[document: "a \\"b\\"\\nc", text/plain, 10 B, sha256:1a2b3c4d]')
    const long = mediaPlaceholder({ ...part, title: '𝒜'.repeat(300) })
    expect(long).toBe(`[document: "${'𝒜'.repeat(200)}…", text/plain, 10 B, sha256:1a2b3c4d]`)
  })

  it('never shows an image’s pages or a document’s pixel size', () => {
    const image: BinaryPart = {
      type: 'image',
      mediaType: 'image/gif',
      blob: `sha256:${HASH}`,
      bytes: 2048,
      width: 1,
      height: 1,
      pages: 3,
      title: 'x',
    }
    expect(mediaPlaceholder(image)).toBe('[image: image/gif, 1×1, 2 KB, sha256:1a2b3c4d]')
    const document: BinaryPart = {
      type: 'document',
      mediaType: 'application/pdf',
      blob: `sha256:${HASH}`,
      bytes: 2048,
      width: 5,
      height: 5,
    }
    expect(mediaPlaceholder(document)).toBe('[document: application/pdf, 2 KB, sha256:1a2b3c4d]')
  })
})

describe('formatBytes', () => {
  it('uses bytes below 1 KB, whole KB below 1024 KB, then MB with one decimal', () => {
    expect(formatBytes(0)).toBe('0 B')
    expect(formatBytes(1023)).toBe('1023 B')
    expect(formatBytes(1024)).toBe('1 KB')
    expect(formatBytes(1535)).toBe('1 KB')
    expect(formatBytes(1536)).toBe('2 KB')
    expect(formatBytes(1023 * 1024)).toBe('1023 KB')
    expect(formatBytes(1024 * 1024 - 1)).toBe('1.0 MB') // rounds to 1024 KB: shown as MB
    expect(formatBytes(20 * 1024 * 1024)).toBe('20.0 MB')
  })
})
