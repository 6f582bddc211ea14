import { describe, expect, it } from 'vitest'
import { parseDataUrl, toDataUrl } from './data-url'

/** The first 8 bytes of every PNG file (PNG spec §5.2). */
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

describe('parseDataUrl', () => {
  it('reads the media type and decodes the data', () => {
    // btoa('\x89PNG\r\n\x1a\n') = 'iVBORw0KGgo='
    expect(parseDataUrl('data:image/png;base64,iVBORw0KGgo=')).toEqual({
      ok: true,
      mediaType: 'image/png',
      data: Uint8Array.from(PNG_SIGNATURE),
    })
  })

  it('lowercases the type, drops parameters and matches scheme and base64 in any case', () => {
    expect(parseDataUrl('DATA:Text/Plain;charset=UTF-8;BASE64,aGk=')).toEqual({
      ok: true,
      mediaType: 'text/plain',
      data: new TextEncoder().encode('hi'),
    })
    expect(parseDataUrl('data:application/pdf;name=report.pdf;base64,JVBERi0=')).toMatchObject({
      ok: true,
      mediaType: 'application/pdf',
    })
  })

  it('accepts empty data (the caller decides whether an empty part is allowed)', () => {
    expect(parseDataUrl('data:text/plain;base64,')).toEqual({ ok: true, mediaType: 'text/plain', data: new Uint8Array() })
  })

  it('refuses a data URL that is not base64', () => {
    expect(parseDataUrl('data:text/plain,hello')).toEqual({
      ok: false,
      code: 'not_base64',
      message: 'a data: URL must be base64 (…;base64,…)',
    })
    expect(parseDataUrl('data:image/png;base64x,aGk=')).toMatchObject({ ok: false, code: 'not_base64' })
  })

  it('refuses what is not a data URL at all', () => {
    expect(parseDataUrl('https://example.com/a.png')).toMatchObject({ ok: false, code: 'not_data_url' })
    expect(parseDataUrl('data:image/png;base64')).toMatchObject({ ok: false, code: 'not_data_url' })
    expect(parseDataUrl('')).toMatchObject({ ok: false, code: 'not_data_url' })
  })

  it('refuses a data URL without a media type, or with a malformed one', () => {
    expect(parseDataUrl('data:;base64,aGk=')).toMatchObject({ ok: false, code: 'no_media_type' })
    expect(parseDataUrl('data:png;base64,aGk=')).toMatchObject({
      ok: false,
      code: 'no_media_type',
      message: `a data: URL's media type must be type/subtype, not "png"`,
    })
  })

  it('names a base64 problem by its position in the whole URL', () => {
    const url = 'data:image/png;base64,iVBO Rw0KGgo='
    expect(url.indexOf(' ')).toBe(26)
    expect(parseDataUrl(url)).toEqual({
      ok: false,
      code: 'invalid_character',
      message: 'invalid base64 in the data: URL at character 26: a space is not a base64 character',
    })
    expect(parseDataUrl('data:image/png;base64,iVBORw0KGgo==')).toMatchObject({ ok: false, code: 'bad_padding' })
  })
})

describe('toDataUrl', () => {
  it('writes a base64 data URL that reads back to the same type and bytes', () => {
    const bytes = Uint8Array.from(PNG_SIGNATURE)
    expect(toDataUrl('image/png', bytes)).toBe('data:image/png;base64,iVBORw0KGgo=')
    expect(parseDataUrl(toDataUrl('image/png', bytes))).toEqual({ ok: true, mediaType: 'image/png', data: bytes })
  })
})
