import { describe, expect, it } from 'vitest'
import { zlib } from './fixtures'
import { inflateZlib } from './inflate'

describe('inflateZlib', () => {
  it('inflates what the platform compressed', async () => {
    const text = new TextEncoder().encode('<< /Type /Page >> '.repeat(1000))
    expect(await inflateZlib(await zlib(text), 1_000_000)).toEqual(text)
  })

  it('inflates the empty zlib stream of RFC 1950 to nothing', async () => {
    // 78 9C (header), 03 00 (an empty final fixed-Huffman block), 00 00 00 01 (Adler-32 of nothing)
    expect(await inflateZlib(Uint8Array.of(0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01), 10)).toEqual(new Uint8Array())
  })

  it('stops at the limit: a small bomb inflates no further than asked', async () => {
    const bomb = await zlib(new Uint8Array(16 * 1024 * 1024))
    expect(bomb.length).toBeLessThan(100_000)
    const out = await inflateZlib(bomb, 1024 * 1024)
    expect(out.length).toBe(1024 * 1024)
  })

  it('keeps what came out before damage, and gives nothing for garbage, without throwing', async () => {
    const text = new TextEncoder().encode('x'.repeat(100_000))
    const damaged = (await zlib(text)).slice()
    damaged[damaged.length - 1]! ^= 0xff // the Adler-32 checksum
    const out = await inflateZlib(damaged, 1_000_000)
    expect(text.subarray(0, out.length)).toEqual(out)
    expect(await inflateZlib(new TextEncoder().encode('not zlib at all'), 1000)).toEqual(new Uint8Array())
  })
})
