/**
 * Minimal real files for the media tests, written byte by byte from their format specifications
 * (each layout spelled out beside its builder), so the readers are tested against the formats and
 * not against themselves. Checked by hand with libmagic's `file`, which reads the same headers.
 */

const ascii = (text: string): number[] => Array.from(text, (c) => c.charCodeAt(0))
const u16be = (n: number) => [(n >> 8) & 0xff, n & 0xff]
const u16le = (n: number) => [n & 0xff, (n >> 8) & 0xff]
const u24le = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff]
const u32be = (n: number) => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]
const u32le = (n: number) => [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff]

/** CRC-32 (ISO 3309, as PNG chunks use), bit by bit: slow and obviously right. */
function crc32(bytes: number[]): number {
  let crc = 0xffffffff
  for (const byte of bytes) {
    crc ^= byte
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1
  }
  return (crc ^ 0xffffffff) >>> 0
}

/** Adler-32 (RFC 1950), the zlib stream's checksum. */
function adler32(bytes: number[]): number {
  let a = 1
  let b = 0
  for (const byte of bytes) {
    a = (a + byte) % 65521
    b = (b + a) % 65521
  }
  return ((b << 16) | a) >>> 0
}

/** A PNG chunk: length (4, BE, of the data), type (4 ASCII), data, CRC-32 of type + data. */
const pngChunk = (type: string, data: number[]) => [
  ...u32be(data.length),
  ...ascii(type),
  ...data,
  ...u32be(crc32([...ascii(type), ...data])),
]

/**
 * A whole, valid PNG of `width`×`height` black RGB pixels:
 * signature `89 50 4E 47 0D 0A 1A 0A`; IHDR (width 4 BE, height 4 BE, bit depth 8, colour type 2 =
 * RGB, compression 0, filter 0, interlace 0); IDAT holding a zlib stream (header `78 01`, one
 * stored deflate block: `01`, LEN and ~LEN as 2 LE each, the raw scanlines — a filter byte 0 and
 * 3 bytes a pixel — then Adler-32 BE); IEND. Keep width × height small: one stored block holds
 * at most 65,535 bytes.
 */
export function png(width: number, height: number): Uint8Array {
  const raw: number[] = []
  for (let y = 0; y < height; y++) raw.push(0, ...new Array<number>(width * 3).fill(0))
  const zlib = [0x78, 0x01, 0x01, ...u16le(raw.length), ...u16le(~raw.length & 0xffff), ...raw, ...u32be(adler32(raw))]
  return Uint8Array.from([
    0x89,
    0x50,
    0x4e,
    0x47,
    0x0d,
    0x0a,
    0x1a,
    0x0a,
    ...pngChunk('IHDR', [...u32be(width), ...u32be(height), 8, 2, 0, 0, 0]),
    ...pngChunk('IDAT', zlib),
    ...pngChunk('IEND', []),
  ])
}

/** Only the head of a PNG: the signature and its IHDR chunk, for sizes too large to fill with pixels. */
export const pngHeader = (width: number, height: number): Uint8Array =>
  Uint8Array.from([
    0x89,
    0x50,
    0x4e,
    0x47,
    0x0d,
    0x0a,
    0x1a,
    0x0a,
    ...pngChunk('IHDR', [...u32be(width), ...u32be(height), 8, 2, 0, 0, 0]),
  ])

/** A JPEG marker segment: `FF`, the marker, length (2 BE, counting itself), payload. */
const segment = (marker: number, payload: number[]) => [0xff, marker, ...u16be(payload.length + 2), ...payload]

/** APP0 JFIF: "JFIF\0", version 1.01, density units 0, density 1×1, no thumbnail. */
const JFIF = segment(0xe0, [...ascii('JFIF'), 0, 1, 1, 0, ...u16be(1), ...u16be(1), 0, 0])
/** DQT: one 8-bit table 0 of 64 ones. */
const DQT = segment(0xdb, [0x00, ...new Array<number>(64).fill(1)])
/** DHT: DC table 0 with one code of length 1 for the symbol 0. */
const DHT = segment(0xc4, [0x00, 1, ...new Array<number>(15).fill(0), 0])

/**
 * A frame header (SOFn): precision 8, height (2 BE), width (2 BE), 3 components each
 * (id, sampling 0x11, quantisation table 0).
 */
export const sof = (marker: number, width: number, height: number) =>
  segment(marker, [8, ...u16be(height), ...u16be(width), 3, 1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0])

/**
 * The head of a baseline JPEG up to its frame header: SOI `FF D8`, APP0 JFIF, DQT, DHT (whose
 * marker C4 lies inside the SOF range and must be skipped), SOF0 with the size, then SOS and the
 * EOI the size reader never needs to reach. `frame` swaps the SOF marker (C2: progressive).
 */
export function jpeg(width: number, height: number, frame = 0xc0): Uint8Array {
  const sos = segment(0xda, [3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 63, 0])
  return Uint8Array.from([0xff, 0xd8, ...JFIF, ...DQT, ...DHT, ...sof(frame, width, height), ...sos, 0x00, 0xff, 0xd9])
}

/** Raw JPEG pieces for the tests that build odd marker sequences. */
export const JPEG_PARTS = { JFIF, DQT, DHT, segment }

/**
 * A whole GIF89a of one black pixel: header "GIF89a"; logical screen descriptor (width 2 LE,
 * height 2 LE, packed 0x80 = a global colour table of 2 entries, background 0, aspect 0); the
 * table (black, white); an image descriptor `2C` at 0,0 of 1×1; LZW minimum code size 2 and one
 * data sub-block (clear, 0, end); trailer `3B`. The logical screen is what the size reader reads.
 */
export function gif(width: number, height: number): Uint8Array {
  return Uint8Array.from([
    ...ascii('GIF89a'),
    ...u16le(width),
    ...u16le(height),
    0x80,
    0,
    0,
    ...[0, 0, 0, 255, 255, 255],
    0x2c,
    ...u16le(0),
    ...u16le(0),
    ...u16le(1),
    ...u16le(1),
    0,
    2,
    2,
    0x44,
    0x01,
    0,
    0x3b,
  ])
}

/** A RIFF WebP container around one chunk: "RIFF", size (4 LE: everything after it), "WEBP", chunk. */
function riffWebp(fourcc: string, data: number[]): Uint8Array {
  const padded = data.length % 2 ? [...data, 0] : data
  const chunk = [...ascii(fourcc), ...u32le(data.length), ...padded]
  return Uint8Array.from([...ascii('RIFF'), ...u32le(4 + chunk.length), ...ascii('WEBP'), ...chunk])
}

/**
 * A lossy WebP ("VP8 " chunk) head (RFC 6386 §9.1): a 3-byte frame tag (bit 0 = 0 for a key
 * frame, version 0, show_frame bit 4 set, first partition size 0), the start code `9D 01 2A`,
 * then width and height as 2 LE each (14 bits of size, 2 of scaling, here 0).
 */
export const webpLossy = (width: number, height: number) =>
  riffWebp('VP8 ', [0x10, 0x00, 0x00, 0x9d, 0x01, 0x2a, ...u16le(width), ...u16le(height)])

/**
 * A lossless WebP ("VP8L" chunk) head: the signature byte `2F`, then 32 bits LE holding
 * width − 1 (14 bits), height − 1 (14 bits), alpha_is_used (1) and version (3, zero).
 */
export function webpLossless(width: number, height: number): Uint8Array {
  const bits = ((width - 1) | ((height - 1) << 14)) >>> 0
  return riffWebp('VP8L', [0x2f, ...u32le(bits)])
}

/**
 * An extended WebP ("VP8X" chunk, 10 bytes): flags (1) and 3 reserved bytes, then the canvas
 * width − 1 and height − 1 as 3 LE each.
 */
export const webpExtended = (width: number, height: number) =>
  riffWebp('VP8X', [0, 0, 0, 0, ...u24le(width - 1), ...u24le(height - 1)])

/**
 * A whole PDF 1.4 of `pages` empty US-letter pages (ISO 32000-1 §7.5): the header and a binary
 * comment line, the catalog (1), the page tree root (2: /Kids, /Count), one /Page object each
 * (3…), the cross-reference table (10-digit offsets, 5-digit generations, 20 bytes an entry),
 * the trailer and startxref. `pageSeparator` is what stands between /Type and /Page in the page
 * objects (the reader must accept `/Type/Page` and `/Type /Page` alike).
 */
export function pdf(pages: number, pageSeparator = ' '): Uint8Array {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${Array.from({ length: pages }, (_, i) => `${i + 3} 0 R`).join(' ')}] /Count ${pages} >>`,
    ...Array.from({ length: pages }, () => `<< /Type${pageSeparator}/Page /Parent 2 0 R /MediaBox [0 0 612 792] >>`),
  ]
  let text = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n'
  const offsets: number[] = []
  objects.forEach((body, i) => {
    offsets.push(text.length)
    text += `${i + 1} 0 obj\n${body}\nendobj\n`
  })
  const xref = text.length
  text += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`
  for (const offset of offsets) text += `${String(offset).padStart(10, '0')} 00000 n \n`
  text += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  return latin1(text)
}

/** A string of code points below 256 as one byte each. */
export const latin1 = (text: string): Uint8Array => Uint8Array.from(text, (c) => c.charCodeAt(0))

/** The parts of the Compression Streams API the fixtures use, typed locally (the core has no DOM types). */
type Compressor = new (
  format: 'deflate',
) => {
  readable: { getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }> } }
  writable: { getWriter(): { write(chunk: Uint8Array): Promise<void>; close(): Promise<void> } }
}

/** Bytes compressed as a zlib stream (RFC 1950) by the platform's `CompressionStream`. */
export async function zlib(bytes: Uint8Array): Promise<Uint8Array> {
  const Compression = (globalThis as unknown as { CompressionStream: Compressor }).CompressionStream
  const stream = new Compression('deflate')
  const writer = stream.writable.getWriter()
  writer.write(bytes).then(() => writer.close())
  const reader = stream.readable.getReader()
  const out: number[] = []
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) out.push(...chunk.value!)
  return Uint8Array.from(out)
}

/**
 * A whole PDF 1.5 whose objects are all in one compressed object stream, as pdfTeX writes them
 * (ISO 32000-1 §7.5.7–7.5.8): the header; object 1, the /Type /ObjStm (/N objects, /First the
 * offset of the first after the header of "number offset" pairs, FlateDecode) holding the
 * catalog (2), the page tree root (3, /Count) and the pages (4…); then a cross-reference stream
 * (/Type /XRef, /W [1 2 1]: type 0 free, 1 at an offset, 2 in object stream 1 at an index) with
 * /Root; startxref. No /Type /Page is visible without inflating object 1.
 */
export async function pdfWithObjectStream(pages: number): Promise<Uint8Array> {
  const inner = [
    '<< /Type /Catalog /Pages 3 0 R >>',
    `<< /Type /Pages /Kids [${Array.from({ length: pages }, (_, i) => `${i + 4} 0 R`).join(' ')}] /Count ${pages} >>`,
    ...Array.from({ length: pages }, () => '<< /Type /Page /Parent 3 0 R /MediaBox [0 0 612 792] >>'),
  ]
  let body = ''
  const pairs: string[] = []
  inner.forEach((object, i) => {
    pairs.push(`${i + 2} ${body.length}`)
    body += `${object}\n`
  })
  const header = `${pairs.join(' ')}\n`
  const compressed = await zlib(latin1(header + body))
  const head = `%PDF-1.5\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /ObjStm /N ${inner.length} /First ${header.length} /Filter /FlateDecode /Length ${compressed.length} >>\nstream\n`
  const afterStream = '\nendstream\nendobj\n'
  const xrefAt = head.length + compressed.length + afterStream.length
  const xrefNumber = inner.length + 2
  const entry = (type: number, field2: number, field3: number) => [type, (field2 >> 8) & 0xff, field2 & 0xff, field3]
  const entries = [
    ...entry(0, 0, 255),
    ...entry(1, '%PDF-1.5\n%\xe2\xe3\xcf\xd3\n'.length, 0),
    ...inner.flatMap((_, i) => entry(2, 1, i)),
    ...entry(1, xrefAt, 0),
  ]
  const xref = `${xrefNumber} 0 obj\n<< /Type /XRef /Size ${xrefNumber + 1} /W [1 2 1] /Root 2 0 R /Length ${entries.length} >>\nstream\n`
  const tail = `\nendstream\nendobj\nstartxref\n${xrefAt}\n%%EOF\n`
  return Uint8Array.from([...latin1(head), ...compressed, ...latin1(afterStream + xref), ...entries, ...latin1(tail)])
}
