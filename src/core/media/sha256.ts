/**
 * The SHA-256 a blob is stored by, with Web Crypto (`crypto.subtle`, in workerd and Node 20+).
 */

/** The one Web Crypto call used, typed locally: the core has no DOM or Workers types. */
interface Digester {
  digest(algorithm: 'SHA-256', data: Uint8Array): Promise<ArrayBuffer>
}

const subtle = (): Digester => (globalThis as unknown as { crypto: { subtle: Digester } }).crypto.subtle

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'))

/**
 * The SHA-256 of bytes, as 64 lowercase hex digits.
 *
 * @example
 * await sha256Hex(new TextEncoder().encode('abc'))
 * // 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'
 */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await subtle().digest('SHA-256', bytes))
  let hex = ''
  for (const byte of digest) hex += HEX[byte]
  return hex
}
