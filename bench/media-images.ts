/**
 * Real images for the media benchmarks, in both runtimes (the bench Worker builds its own, the
 * Node driver the 32 MiB request's): whole, valid PNGs of a chosen pixel size and byte size. A
 * screenshot-like image: a band of random pixels (which nothing compresses: it sets the file's
 * size) above bands of flat colour (which deflate makes almost nothing of), compressed with the
 * platform's `CompressionStream`. The random band makes every image distinct.
 */

/** CRC-32 (ISO 3309, as PNG chunks use), by table. */
const CRC_TABLE = (() => {
  const table = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    table[n] = c >>> 0
  }
  return table
})()

function crc32(pieces: Uint8Array[]): number {
  let crc = 0xffffffff
  for (const bytes of pieces) for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8)
  return (crc ^ 0xffffffff) >>> 0
}

const u32be = (n: number) => Uint8Array.of((n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff)
const ascii = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0))

/** A PNG chunk: length (4, BE, of the data), type, data, CRC-32 of type and data. */
const chunk = (type: string, data: Uint8Array) => [u32be(data.byteLength), ascii(type), data, u32be(crc32([ascii(type), data]))]

function concat(pieces: Uint8Array[]): Uint8Array {
  const all = new Uint8Array(pieces.reduce((sum, piece) => sum + piece.byteLength, 0))
  let at = 0
  for (const piece of pieces) {
    all.set(piece, at)
    at += piece.byteLength
  }
  return all
}

/** Bytes as a zlib stream (RFC 1950), by the platform's `CompressionStream`. */
async function deflate(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const compressed = new Response(new Blob([bytes]).stream().pipeThrough(new CompressionStream('deflate')))
  return new Uint8Array(await compressed.arrayBuffer())
}

/** Random bytes (getRandomValues fills at most 64 KiB a call). */
function randomBytes(length: number): Uint8Array {
  const bytes = new Uint8Array(length)
  for (let at = 0; at < length; at += 65536) crypto.getRandomValues(bytes.subarray(at, Math.min(length, at + 65536)))
  return bytes
}

/**
 * A PNG of `width`×`height` RGB pixels whose first `noiseRows` rows are random (about
 * `width × 3 × noiseRows` bytes of file) and the rest bands of flat colour.
 *
 * @example
 * await screenshotPng(1280, 800, 270) // ~1 MB, a 1280×800 image
 */
export async function screenshotPng(width: number, height: number, noiseRows: number): Promise<Uint8Array> {
  const stride = width * 3 + 1
  const raw = new Uint8Array(stride * height)
  raw.set(randomBytes(stride * Math.min(noiseRows, height)))
  for (let y = 0; y < height; y++) {
    raw[y * stride] = 0 // filter type: none
    if (y < noiseRows) continue
    raw.fill(y % 160 < 40 ? 0xe0 : 0xfa, y * stride + 1, (y + 1) * stride)
  }
  const header = concat([u32be(width), u32be(height), Uint8Array.of(8, 2, 0, 0, 0)])
  return concat([
    Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a),
    ...chunk('IHDR', header),
    ...chunk('IDAT', await deflate(raw)),
    ...chunk('IEND', new Uint8Array(0)),
  ])
}

/**
 * The same image with a `tEXt` chunk (`Comment`: `note`) before its end: other bytes (another
 * SHA-256, so stored anew), the same pixels, made in microseconds — a turn's new images are made
 * without the garbage of making their pixels, which would be collected during the timed turn.
 */
export function withNote(png: Uint8Array, note: string): Uint8Array {
  const end = png.byteLength - 12 // IEND: length, type, no data, CRC
  return concat([png.subarray(0, end), ...chunk('tEXt', ascii(`Comment\0${note}`)), png.subarray(end)])
}

/** The image a client resends on every turn: a 1280×800 screenshot of about 1 MB. */
export const RESENT_IMAGE = { width: 1280, height: 800, noiseRows: 270 } as const
/** Each of the ten images of one turn: 1280×800 screenshots of about 190 KB. */
export const TEN_IMAGE = { width: 1280, height: 800, noiseRows: 50 } as const
/** Noise rows of a flat screenshot of the same size: about 20 KB. */
export const TEN_SMALL_NOISE_ROWS = 5
/** Each of the four images of a 32 MiB request: 2560×1600, about 5.9 MB (7.8 MiB of base64). */
export const LARGE_IMAGE = { width: 2560, height: 1600, noiseRows: 800 } as const
