/**
 * An image's pixel size, read from its header alone. Every reader checks each offset against the
 * length before reading, and the JPEG marker walk moves forward by at least two bytes a step, so
 * garbage or a cut file gives null — never an exception, never a loop that does not end.
 */

export interface ImageSize {
  width: number
  height: number
}

/**
 * The width and height of an image of a supported type, or null when the header is missing,
 * cut short, malformed, or says a side is 0.
 *
 * @example
 * imageSize(pngBytes, 'image/png') // { width: 1280, height: 720 }
 * imageSize(new Uint8Array(10), 'image/png') // null
 */
export function imageSize(bytes: Uint8Array, mediaType: string): ImageSize | null {
  const size = readerOf(mediaType)?.(bytes) ?? null
  return size && size.width >= 1 && size.height >= 1 ? size : null
}

function readerOf(mediaType: string): ((bytes: Uint8Array) => ImageSize | null) | null {
  switch (mediaType) {
    case 'image/png':
      return pngSize
    case 'image/jpeg':
      return jpegSize
    case 'image/gif':
      return gifSize
    case 'image/webp':
      return webpSize
    default:
      return null
  }
}

const u16be = (b: Uint8Array, i: number) => (b[i]! << 8) | b[i + 1]!
const u16le = (b: Uint8Array, i: number) => b[i]! | (b[i + 1]! << 8)
const u24le = (b: Uint8Array, i: number) => b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16)
const u32be = (b: Uint8Array, i: number) => ((b[i]! << 24) | (b[i + 1]! << 16) | (b[i + 2]! << 8) | b[i + 3]!) >>> 0
/** Whether the bytes at `i` spell an ASCII text. */
function is(b: Uint8Array, i: number, text: string): boolean {
  if (b.length < i + text.length) return false
  for (let k = 0; k < text.length; k++) if (b[i + k] !== text.charCodeAt(k)) return false
  return true
}

/**
 * PNG: the signature (8 bytes), then the IHDR chunk, which must come first: length 13 (4 BE),
 * "IHDR", width and height (4 BE each, at most 2³¹ − 1).
 */
function pngSize(b: Uint8Array): ImageSize | null {
  if (b.length < 24 || b[0] !== 0x89 || !is(b, 1, 'PNG\r\n\x1a\n') || u32be(b, 8) !== 13 || !is(b, 12, 'IHDR')) return null
  const width = u32be(b, 16)
  const height = u32be(b, 20)
  return width <= 0x7fffffff && height <= 0x7fffffff ? { width, height } : null
}

/** GIF: "GIF87a" or "GIF89a", then the logical screen's width and height (2 LE each). */
function gifSize(b: Uint8Array): ImageSize | null {
  if (b.length < 10 || !(is(b, 0, 'GIF87a') || is(b, 0, 'GIF89a'))) return null
  return { width: u16le(b, 6), height: u16le(b, 8) }
}

/**
 * The start-of-frame markers that carry the size: SOF0–SOF15 (C0–CF) except DHT (C4), JPG (C8)
 * and DAC (CC), which share the range but are tables and a reserved marker.
 */
const isFrameMarker = (marker: number) =>
  marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc

/** Markers with no length after them: TEM (01) and RST0–RST7 (D0–D7). */
const standsAlone = (marker: number) => marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)

/**
 * JPEG (ITU T.81 §B.1): SOI `FF D8`, then marker segments (`FF`, the marker, a length of 2 BE
 * that counts itself) up to the first frame header, whose payload is the precision (1), the
 * height (2 BE) and the width (2 BE). Any number of `FF` fill bytes may precede a marker. A scan
 * (SOS) or the end (EOI) before a frame header, a byte that is not a marker where one must be, or
 * a height of 0 (given later by a DNL segment) gives null.
 */
function jpegSize(b: Uint8Array): ImageSize | null {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return null
  let i = 2
  while (i < b.length) {
    if (b[i] !== 0xff) return null
    while (i < b.length && b[i] === 0xff) i++ // fill bytes
    if (i >= b.length) return null
    const marker = b[i]!
    i++
    if (standsAlone(marker)) continue
    if (marker === 0xd9 || marker === 0xda || marker === 0xd8 || marker === 0x00) return null
    if (i + 2 > b.length) return null
    const length = u16be(b, i)
    if (length < 2) return null
    if (isFrameMarker(marker)) {
      if (length < 7 || i + 7 > b.length) return null
      return { width: u16be(b, i + 5), height: u16be(b, i + 3) }
    }
    i += length
  }
  return null
}

/**
 * WebP: "RIFF", a size (4 LE), "WEBP", then the first chunk (fourcc, size 4 LE, data at 20):
 * - "VP8 " (lossy, RFC 6386 §9.1): a 3-byte frame tag whose bit 0 is 0 on a key frame, the
 *   start code `9D 01 2A`, then width and height in the low 14 bits of 2 LE each;
 * - "VP8L" (lossless): the byte `2F`, then 32 bits LE of width − 1 (14 bits) and height − 1 (14);
 * - "VP8X" (extended): flags and reserved (4 bytes), then canvas width − 1 and height − 1 (3 LE each).
 */
function webpSize(b: Uint8Array): ImageSize | null {
  if (!is(b, 0, 'RIFF') || !is(b, 8, 'WEBP')) return null
  if (is(b, 12, 'VP8 ')) {
    if (b.length < 30 || (b[20]! & 1) !== 0 || b[23] !== 0x9d || b[24] !== 0x01 || b[25] !== 0x2a) return null
    return { width: u16le(b, 26) & 0x3fff, height: u16le(b, 28) & 0x3fff }
  }
  if (is(b, 12, 'VP8L')) {
    if (b.length < 25 || b[20] !== 0x2f) return null
    const bits = (b[21]! | (b[22]! << 8) | (b[23]! << 16) | (b[24]! << 24)) >>> 0
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 }
  }
  if (is(b, 12, 'VP8X') && b.length >= 30) return { width: u24le(b, 24) + 1, height: u24le(b, 27) + 1 }
  return null
}
