import { describe, expect, it } from 'vitest'
import { sha256Hex } from './sha256'

const ascii = (text: string) => new TextEncoder().encode(text)

describe('sha256Hex', () => {
  it('gives the FIPS 180-2 test vectors in lowercase hex', async () => {
    expect(await sha256Hex(ascii(''))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')
    expect(await sha256Hex(ascii('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
    expect(await sha256Hex(ascii('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'))).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    )
    expect(await sha256Hex(new Uint8Array(1_000_000).fill(0x61))).toBe(
      'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0',
    )
  })

  it('hashes only the view it is given, not the whole buffer beneath', async () => {
    const buffer = ascii('xxabcxx')
    expect(await sha256Hex(buffer.subarray(2, 5))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
  })
})
