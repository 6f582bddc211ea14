import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { gif, JPEG_PARTS, jpeg, latin1, png, pngHeader, sof, webpExtended, webpLossless, webpLossy } from './fixtures'
import { imageSize } from './image-size'

const { JFIF, DQT, DHT, segment } = JPEG_PARTS
const SOI = [0xff, 0xd8]

describe('imageSize', () => {
  it('reads a PNG from its IHDR chunk', () => {
    expect(imageSize(png(3, 2), 'image/png')).toEqual({ width: 3, height: 2 })
    expect(imageSize(pngHeader(1280, 720), 'image/png')).toEqual({ width: 1280, height: 720 })
    expect(imageSize(pngHeader(0x7fffffff, 1), 'image/png')).toEqual({ width: 0x7fffffff, height: 1 })
  })

  it('refuses a PNG whose first chunk is not IHDR, whose side is 0 or beyond 2³¹ − 1', () => {
    const renamed = pngHeader(10, 10)
    renamed.set(latin1('IDAT'), 12)
    expect(imageSize(renamed, 'image/png')).toBeNull()
    expect(imageSize(pngHeader(0, 10), 'image/png')).toBeNull()
    expect(imageSize(pngHeader(0x80000000, 10), 'image/png')).toBeNull()
  })

  it('reads a JPEG from its first frame header, baseline or progressive', () => {
    expect(imageSize(jpeg(640, 480), 'image/jpeg')).toEqual({ width: 640, height: 480 })
    expect(imageSize(jpeg(1, 65535, 0xc2), 'image/jpeg')).toEqual({ width: 1, height: 65535 })
    expect(imageSize(jpeg(4032, 3024, 0xcf), 'image/jpeg')).toEqual({ width: 4032, height: 3024 })
  })

  it('skips DHT, JPG and DAC, whose markers lie in the frame range, and fill bytes before a marker', () => {
    const dac = segment(0xcc, [0x00, 0x10])
    const jpg = segment(0xc8, [1, 2, 3, 4, 5, 6, 7])
    const bytes = Uint8Array.from([...SOI, ...JFIF, ...DHT, ...jpg, ...dac, 0xff, 0xff, 0xff, ...sof(0xc1, 300, 200)])
    expect(imageSize(bytes, 'image/jpeg')).toEqual({ width: 300, height: 200 })
  })

  it('skips an EXIF segment even when its thumbnail holds a frame header of its own', () => {
    const thumbnail = [...SOI, ...sof(0xc0, 160, 120), 0xff, 0xd9]
    const app1 = segment(0xe1, [...latin1('Exif\0\0'), ...thumbnail])
    const bytes = Uint8Array.from([...SOI, ...app1, ...DQT, ...sof(0xc0, 4000, 3000)])
    expect(imageSize(bytes, 'image/jpeg')).toEqual({ width: 4000, height: 3000 })
  })

  it('steps over markers that stand alone (RSTn, TEM)', () => {
    const bytes = Uint8Array.from([...SOI, 0xff, 0xd0, 0xff, 0x01, ...sof(0xc0, 50, 60)])
    expect(imageSize(bytes, 'image/jpeg')).toEqual({ width: 50, height: 60 })
  })

  it('gives null for a JPEG with a scan or the end before any frame, a height left to DNL, or garbage where a marker belongs', () => {
    const sos = segment(0xda, [1, 1, 0, 0, 63, 0])
    expect(imageSize(Uint8Array.from([...SOI, ...JFIF, ...sos, ...sof(0xc0, 5, 5)]), 'image/jpeg')).toBeNull()
    expect(imageSize(Uint8Array.from([...SOI, ...JFIF, 0xff, 0xd9]), 'image/jpeg')).toBeNull()
    expect(imageSize(Uint8Array.from([...SOI, ...sof(0xc0, 640, 0)]), 'image/jpeg')).toBeNull()
    expect(imageSize(Uint8Array.from([...SOI, ...JFIF, 0x12, 0x34, ...sof(0xc0, 5, 5)]), 'image/jpeg')).toBeNull()
    expect(imageSize(Uint8Array.from([...SOI, 0xff, 0xe0, 0x00, 0x01]), 'image/jpeg')).toBeNull() // a length below 2
  })

  it('reads a GIF from its logical screen', () => {
    expect(imageSize(gif(300, 200), 'image/gif')).toEqual({ width: 300, height: 200 })
    expect(imageSize(latin1('GIF87a\xff\xff\x01\x00'), 'image/gif')).toEqual({ width: 65535, height: 1 })
    expect(imageSize(gif(0, 200), 'image/gif')).toBeNull()
  })

  it('reads a lossy WebP, ignoring the scaling bits', () => {
    expect(imageSize(webpLossy(400, 301), 'image/webp')).toEqual({ width: 400, height: 301 })
    const scaled = webpLossy(400, 301)
    scaled[27]! |= 0xc0 // width's two scaling bits
    expect(imageSize(scaled, 'image/webp')).toEqual({ width: 400, height: 301 })
    const interframe = webpLossy(400, 301)
    interframe[20]! |= 1
    expect(imageSize(interframe, 'image/webp')).toBeNull()
  })

  it('reads a lossless WebP (sizes stored minus one, 14 bits each)', () => {
    expect(imageSize(webpLossless(1000, 16383), 'image/webp')).toEqual({ width: 1000, height: 16383 })
    expect(imageSize(webpLossless(16384, 16384), 'image/webp')).toEqual({ width: 16384, height: 16384 })
    expect(imageSize(webpLossless(1, 1), 'image/webp')).toEqual({ width: 1, height: 1 })
  })

  it('reads an extended WebP from its canvas (24 bits each, minus one)', () => {
    expect(imageSize(webpExtended(5000, 7000), 'image/webp')).toEqual({ width: 5000, height: 7000 })
    expect(imageSize(webpExtended(2 ** 24, 1), 'image/webp')).toEqual({ width: 2 ** 24, height: 1 })
  })

  it('gives null for a type it does not read, or bytes of another type', () => {
    expect(imageSize(png(1, 1), 'application/pdf')).toBeNull()
    expect(imageSize(png(1, 1), 'image/jpeg')).toBeNull()
    expect(imageSize(jpeg(1, 1), 'image/webp')).toBeNull()
    expect(imageSize(latin1('RIFF\x10\x00\x00\x00WEBPALPH\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00'), 'image/webp')).toBeNull()
  })

  const types = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const
  const valid = [
    png(3, 2),
    jpeg(640, 480),
    jpeg(9, 9, 0xc2),
    gif(300, 200),
    webpLossy(40, 30),
    webpLossless(99, 77),
    webpExtended(5, 6),
  ]

  /** What any answer must look like: null, or whole sides from 1 up to 2³¹ − 1. */
  const sane = (size: { width: number; height: number } | null) =>
    size === null ||
    (Number.isInteger(size.width) &&
      Number.isInteger(size.height) &&
      size.width >= 1 &&
      size.height >= 1 &&
      size.width <= 0x7fffffff &&
      size.height <= 0x7fffffff)

  it('never throws on garbage: null or a sane size', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.constantFrom(...types), (bytes, type) => {
        expect(sane(imageSize(bytes, type))).toBe(true)
      }),
      { numRuns: 3000 },
    )
  })

  it('gives null or the right size on every truncation of a real header, and never throws on corrupted ones', () => {
    for (const bytes of valid) {
      const type = types.find((t) => imageSize(bytes, t) !== null)!
      const full = imageSize(bytes, type)
      for (let cut = 0; cut < bytes.length; cut++) {
        const size = imageSize(bytes.subarray(0, cut), type)
        if (size !== null) expect(size).toEqual(full)
      }
    }
    fc.assert(
      fc.property(
        fc.constantFrom(...valid),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 6 }),
        fc.constantFrom(...types),
        (original, edits, type) => {
          const bytes = original.slice()
          for (const [at, value] of edits) bytes[at % bytes.length] = value
          expect(sane(imageSize(bytes, type))).toBe(true)
        },
      ),
      { numRuns: 3000 },
    )
  })

  it('ends quickly on a JPEG of nothing but fill bytes or empty segments', () => {
    const fill = new Uint8Array(5_000_000).fill(0xff)
    fill[1] = 0xd8
    const empties = new Uint8Array(5_000_000)
    empties.set(SOI)
    for (let i = 2; i + 4 <= empties.length; i += 4) empties.set([0xff, 0xfe, 0x00, 0x02], i)
    const started = performance.now()
    expect(imageSize(fill, 'image/jpeg')).toBeNull()
    expect(imageSize(empties, 'image/jpeg')).toBeNull()
    expect(performance.now() - started).toBeLessThan(1000)
  })
})
