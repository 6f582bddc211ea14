import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { latin1, pdf, pdfWithObjectStream, zlib } from './fixtures'
import { pdfPageCount, pdfPageCountDeep } from './pdf-pages'

/** A PDF's bytes as text (one character a byte), to edit a fixture. */
const textOf = (bytes: Uint8Array) => Array.from(bytes, (b) => String.fromCharCode(b)).join('')
const edited = (bytes: Uint8Array, from: string, to: string) => {
  const text = textOf(bytes)
  expect(text).toContain(from)
  return latin1(text.replace(from, to))
}

describe('pdfPageCount', () => {
  it('reads the page tree root of a real 3-page PDF', () => {
    expect(pdfPageCount(pdf(3))).toBe(3)
    expect(pdfPageCount(pdf(1))).toBe(1)
  })

  it('counts /Type /Page objects, with or without white space, when the root has no readable /Count', () => {
    const noCount = (pages: number, separator: string) => edited(pdf(pages, separator), ` /Count ${pages}`, '')
    expect(pdfPageCount(noCount(3, ' '))).toBe(3)
    expect(pdfPageCount(noCount(3, ''))).toBe(3)
    expect(pdfPageCount(noCount(4, '\r\n'))).toBe(4)
    expect(pdfPageCount(edited(pdf(3), '/Count 3', '/Count 7 0 R'))).toBe(3) // a reference it cannot follow
  })

  it('falls back to the page objects when the root /Count is not sane', () => {
    expect(pdfPageCount(edited(pdf(3), '/Count 3', '/Count 0'))).toBe(3)
    expect(pdfPageCount(edited(pdf(3), '/Count 3', '/Count 99999999'))).toBe(3) // more pages than the file has bytes
    expect(pdfPageCount(edited(pdf(3), '/Count 3', '/Count 12345678901234'))).toBe(3)
    expect(pdfPageCount(edited(pdf(3), '/Count 3', '/Count -3'))).toBe(3)
  })

  it('prefers the root /Count to the objects (a tree of intermediate nodes, pages in object streams)', () => {
    const tree = latin1(
      [
        '%PDF-1.4',
        '1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj',
        '2 0 obj << /Type /Pages /Kids [3 0 R 4 0 R] /Count 5 >> endobj',
        '3 0 obj << /Type /Pages /Parent 2 0 R /Kids [5 0 R 6 0 R] /Count 2 >> endobj',
        '4 0 obj << /Type /Pages /Parent 2 0 R /Kids [7 0 R 8 0 R 9 0 R] /Count 3 >> endobj',
        '5 0 obj << /Type /Page /Parent 3 0 R >> endobj',
        '%%EOF',
      ].join('\n'),
    )
    expect(pdfPageCount(tree)).toBe(5)
  })

  it('takes the last root of an incrementally updated file', () => {
    const update = '\n2 0 obj\n<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>\nendobj\n%%EOF\n'
    expect(pdfPageCount(latin1(textOf(pdf(3)) + update))).toBe(2)
  })

  it('does not count /Type /Page in strings, comments or stream data', () => {
    const decoys = [
      '6 0 obj << /Title (about /Type /Page \\) and (nested /Type /Page) objects) >> endobj',
      '% a comment: /Type /Page',
      '7 0 obj << /Length 40 >> stream\n<< /Type /Page >> << /Type /Page >>\nendstream endobj',
      '8 0 obj << /Data <2F54797065202F50616765> >> endobj',
    ].join('\n')
    const bytes = edited(pdf(2), '/Count 2', '')
    expect(pdfPageCount(latin1(`${textOf(bytes)}\n${decoys}\n`))).toBe(2)
  })

  it('does not count /Type /Pages or other types as pages', () => {
    const bytes = latin1(
      '%PDF-1.7\n1 0 obj << /Type /Pages >> endobj 2 0 obj << /Type /PageLabel >> endobj 3 0 obj << /Type /Page >> endobj',
    )
    expect(pdfPageCount(bytes)).toBe(1)
  })

  it('accepts the header after a little junk, as readers do', () => {
    expect(pdfPageCount(latin1(`${' '.repeat(100)}${textOf(pdf(3))}`))).toBe(3)
    expect(pdfPageCount(latin1(`${' '.repeat(1100)}${textOf(pdf(3))}`))).toBeNull()
  })

  it('gives null for what is not a PDF or has no pages it can see', () => {
    expect(pdfPageCount(new TextEncoder().encode('hello'))).toBeNull()
    expect(pdfPageCount(new Uint8Array())).toBeNull()
    expect(pdfPageCount(latin1('%PDF-1.7\n%%EOF'))).toBeNull()
    // PDF 1.5+: the page objects inside a compressed object stream, invisible to one pass.
    expect(
      pdfPageCount(
        latin1(
          '%PDF-1.5\n1 0 obj << /Type /ObjStm /N 3 /First 20 /Filter /FlateDecode /Length 4 >> stream\nx\x9c\x03\x00\nendstream endobj',
        ),
      ),
    ).toBeNull()
  })

  it('never throws on garbage or damaged files: null or a whole number ≥ 1', () => {
    const sane = (n: number | null) => n === null || (Number.isInteger(n) && n >= 1)
    const tokens = fc.constantFrom(
      '%PDF-1.7\n',
      '<<',
      '>>',
      '/Type',
      '/Page',
      '/Pages',
      '/Count',
      ' 3',
      ' 0 R',
      '(',
      ')',
      '\\',
      '<',
      '>',
      'stream\n',
      'endstream',
      '%',
      '\n',
      '/Parent',
      ' ',
    )
    fc.assert(
      fc.property(fc.array(tokens, { maxLength: 60 }), (pieces) => {
        expect(sane(pdfPageCount(latin1(`%PDF-1.4\n${pieces.join('')}`)))).toBe(true)
      }),
      { numRuns: 3000 },
    )
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 8 }),
        (junk, edits) => {
          const bytes = pdf(3).slice()
          for (const [at, value] of edits) bytes[at % bytes.length] = value
          expect(sane(pdfPageCount(bytes))).toBe(true)
          expect(sane(pdfPageCount(Uint8Array.from([...latin1('%PDF-'), ...junk])))).toBe(true)
        },
      ),
      { numRuns: 2000 },
    )
  })

  it('reads 20 MiB in bounded time, whatever the bytes are', () => {
    const size = 20 * 1024 * 1024
    const fill = (piece: string) => {
      const unit = latin1(piece)
      const bytes = new Uint8Array(size)
      bytes.set(unit)
      for (let filled = unit.length; filled < size; filled *= 2) bytes.copyWithin(filled, 0, filled) // the pattern doubled
      bytes.set(latin1('%PDF-1.7\n'))
      return bytes
    }
    const noise = new Uint8Array(size)
    for (let i = 0; i < size; i++) noise[i] = (i * 2654435761) >>> 24
    noise.set(latin1('%PDF-1.7\n'))
    const inputs = [
      noise,
      fill('<<'),
      fill('/Type /Page '),
      fill('stream\nendstrea '),
      fill('/Count 1 '),
      fill('(((('),
      fill('<a'),
      fill('s'),
    ]
    // Linear work is a fraction of a second here; a quadratic step would take hours. The bound is
    // loose for a busy 2-core machine running the other test files at once.
    for (const bytes of inputs) {
      const started = performance.now()
      pdfPageCount(bytes)
      expect(performance.now() - started, textOf(bytes.subarray(9, 30))).toBeLessThan(5000)
    }
    // Every whole dictionary counted once: the header overwrites the first, the last is cut.
    expect(pdfPageCount(fill('<< /Type /Page >> '))).toBe(Math.floor(size / 18) - 1)
  })
})

describe('pdfPageCountDeep', () => {
  it('counts the pages of a PDF 1.5 whose objects are all in a compressed object stream', async () => {
    const bytes = await pdfWithObjectStream(4)
    expect(pdfPageCount(bytes)).toBeNull()
    expect(await pdfPageCountDeep(bytes)).toBe(4)
  })

  it('counts the page objects inside when the stream holds no root /Count', async () => {
    const objects = latin1('4 0 5 40\n<< /Type /Page /Parent 3 0 R >>\n<< /Type /Page /Parent 3 0 R >>\n')
    const stream = await zlib(objects)
    const bytes = Uint8Array.from([
      ...latin1(`%PDF-1.5\n1 0 obj << /Type /ObjStm /N 2 /First 9 /Filter [/FlateDecode] /Length ${stream.length} >>\nstream\n`),
      ...stream,
      ...latin1('\nendstream endobj\n3 0 obj << /Type /Page >> endobj\n%%EOF\n'),
    ])
    expect(pdfPageCount(bytes)).toBe(1)
    expect(await pdfPageCountDeep(bytes)).toBe(3)
  })

  it('answers as pdfPageCount when the root is visible, and null for what is not a PDF', async () => {
    expect(await pdfPageCountDeep(pdf(3))).toBe(3)
    expect(await pdfPageCountDeep(new TextEncoder().encode('hello'))).toBeNull()
  })

  it('leaves alone streams that are not FlateDecode object streams, and survives damaged ones', async () => {
    const pages = latin1('<< /Type /Page >> << /Type /Page >>')
    const stream = await zlib(pages)
    const wrap = (dictionary: string, data: Uint8Array) =>
      Uint8Array.from([...latin1(`%PDF-1.5\n1 0 obj ${dictionary}\nstream\n`), ...data, ...latin1('\nendstream endobj\n%%EOF')])
    expect(await pdfPageCountDeep(wrap('<< /Filter /FlateDecode /Length 9 >>', stream))).toBeNull() // a content stream
    expect(await pdfPageCountDeep(wrap('<< /Type /ObjStm /N 2 /First 0 >>', pages))).toBeNull() // not compressed: raw data is skipped
    expect(await pdfPageCountDeep(wrap('<< /Type /ObjStm /Filter /FlateDecode >>', latin1('garbage')))).toBeNull()
  })
})
