import { describe, expect, it } from 'vitest'
import { gif, jpeg, latin1, pdf, png, webpExtended, webpLossless, webpLossy } from './fixtures'
import { checkMediaType, mediaTypeProblem, normalizeMediaType, sniffMediaType } from './sniff'

const text = (s: string) => new TextEncoder().encode(s)

describe('sniffMediaType', () => {
  it('recognises each supported binary type by its signature', () => {
    expect(sniffMediaType(png(1, 1))).toBe('image/png')
    expect(sniffMediaType(jpeg(8, 8))).toBe('image/jpeg')
    expect(sniffMediaType(gif(1, 1))).toBe('image/gif')
    expect(sniffMediaType(latin1('GIF87a\x01\x00\x01\x00'))).toBe('image/gif')
    expect(sniffMediaType(webpLossy(8, 8))).toBe('image/webp')
    expect(sniffMediaType(webpLossless(8, 8))).toBe('image/webp')
    expect(sniffMediaType(webpExtended(8, 8))).toBe('image/webp')
    expect(sniffMediaType(pdf(1))).toBe('application/pdf')
  })

  it('answers null for text, other formats, truncated signatures and nothing', () => {
    expect(sniffMediaType(text('hello'))).toBeNull()
    expect(sniffMediaType(latin1('BM6\x00\x00\x00'))).toBeNull() // BMP
    expect(sniffMediaType(latin1('RIFF\x24\x00\x00\x00WAVEfmt '))).toBeNull() // a RIFF that is not WebP
    expect(sniffMediaType(png(1, 1).subarray(0, 7))).toBeNull()
    expect(sniffMediaType(Uint8Array.of(0xff, 0xd8))).toBeNull()
    expect(sniffMediaType(latin1('  %PDF-1.4'))).toBeNull()
    expect(sniffMediaType(new Uint8Array())).toBeNull()
  })
})

describe('mediaTypeProblem', () => {
  it('is null when the declared type matches the bytes', () => {
    expect(mediaTypeProblem('image/png', png(2, 2))).toBeNull()
    expect(mediaTypeProblem('IMAGE/JPEG', jpeg(2, 2))).toBeNull()
    expect(mediaTypeProblem('image/webp', webpLossy(2, 2), 'image')).toBeNull()
    expect(mediaTypeProblem('application/pdf', pdf(1), 'document')).toBeNull()
    expect(mediaTypeProblem('text/plain; charset=utf-8', text('notes — ünïcödé'), 'document')).toBeNull()
  })

  it('names the type the bytes really are', () => {
    expect(mediaTypeProblem('image/png', jpeg(2, 2))).toBe('declared image/png but the bytes are a JPEG image')
    expect(mediaTypeProblem('image/gif', webpLossless(2, 2))).toBe('declared image/gif but the bytes are a WebP image')
    expect(mediaTypeProblem('application/pdf', png(1, 1))).toBe('declared application/pdf but the bytes are a PNG image')
    expect(mediaTypeProblem('text/plain', pdf(1))).toBe('declared text/plain but the bytes are a PDF document')
  })

  it('says when the bytes are no known type at all', () => {
    expect(mediaTypeProblem('image/jpeg', text('hello'))).toBe(
      'declared image/jpeg but the bytes are not a JPEG image (its signature is missing)',
    )
    expect(mediaTypeProblem('image/png', new Uint8Array())).toBe('declared image/png but there are no bytes')
  })

  it('names unsupported types and types a kind of part may not carry', () => {
    expect(mediaTypeProblem('image/bmp', latin1('BM'))).toBe('image/bmp is not one of png, jpeg, gif, webp')
    expect(mediaTypeProblem('image/svg+xml', text('<svg/>'), 'image')).toBe('image/svg+xml is not one of png, jpeg, gif, webp')
    expect(mediaTypeProblem('application/pdf', pdf(1), 'image')).toBe(
      'an image must be one of png, jpeg, gif, webp, not application/pdf',
    )
    expect(mediaTypeProblem('image/png', png(1, 1), 'document')).toBe(
      'a document must be application/pdf or text/plain, not image/png',
    )
    expect(mediaTypeProblem('application/zip', latin1('PK\x03\x04'))).toBe(
      'application/zip is not supported: images are png, jpeg, gif, webp; documents application/pdf, text/plain',
    )
    expect(mediaTypeProblem('', png(1, 1))).toBe('the media type is empty')
  })

  it('checks text/plain for UTF-8 and NUL bytes', () => {
    expect(mediaTypeProblem('text/plain', Uint8Array.of(0x61, 0x00))).toBe(
      'declared text/plain but the bytes hold a NUL byte at 1',
    )
    expect(mediaTypeProblem('text/plain', latin1('caf\xe9'))).toBe(
      'declared text/plain but the bytes are not valid UTF-8 (at byte 3)',
    )
    expect(mediaTypeProblem('text/plain', png(1, 1))).toBe('declared text/plain but the bytes are a PNG image')
  })
})

describe('checkMediaType', () => {
  it('is true exactly when there is no problem', () => {
    expect(checkMediaType('image/gif', gif(1, 1))).toBe(true)
    expect(checkMediaType('image/gif', png(1, 1))).toBe(false)
    expect(checkMediaType('text/plain', text('ok'), 'image')).toBe(false)
  })
})

describe('normalizeMediaType', () => {
  it('lowercases and drops parameters', () => {
    expect(normalizeMediaType(' Text/Plain ; charset=UTF-8')).toBe('text/plain')
    expect(normalizeMediaType('image/PNG')).toBe('image/png')
  })
})
