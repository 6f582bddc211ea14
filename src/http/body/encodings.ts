import { brotliDecompress, gunzip, inflate } from 'node:zlib'
import { ServiceError } from '../../contract/errors'

type Decode = typeof gunzip

/** A zlib decoder as a promise, stopping at `maxBytes` of output. */
const decoder =
  (decode: Decode) =>
  (bytes: Uint8Array, maxBytes: number): Promise<Uint8Array> =>
    new Promise((resolve, reject) =>
      decode(bytes, { maxOutputLength: maxBytes }, (error, result) => (error ? reject(error) : resolve(result))),
    )

/** The content codings a request body may come in, each with its decoder (zlib's: workerd's own, native). */
const DECODERS: Record<string, (bytes: Uint8Array, maxBytes: number) => Promise<Uint8Array>> = {
  gzip: decoder(gunzip),
  'x-gzip': decoder(gunzip),
  deflate: decoder(inflate),
  br: decoder(brotliDecompress),
}

/**
 * A request body decoded as its `Content-Encoding` says (codings applied in order are undone in
 * reverse; `identity` is none), at most `maxBytes` decoded.
 *
 * @throws {ServiceError} 415 for a coding other than gzip, deflate, br; 400 for a body that does
 * not decode as it says; 413 beyond `maxBytes` decoded.
 * @example
 * const bytes = await decodedBody(new Uint8Array(await c.req.arrayBuffer()), c.req.header('Content-Encoding'), 8 << 20)
 */
export async function decodedBody(bytes: Uint8Array, encoding: string | undefined, maxBytes: number): Promise<Uint8Array> {
  const codings = (encoding ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity')
  for (const coding of codings) {
    if (!Object.hasOwn(DECODERS, coding)) {
      throw new ServiceError('unsupported_media_type', `Content-Encoding: "${coding}" is not supported (gzip, deflate or br)`)
    }
  }
  let decoded = bytes
  for (const coding of codings.reverse()) {
    try {
      decoded = await DECODERS[coding]!(decoded, maxBytes)
    } catch (error) {
      if (error instanceof RangeError || /maxOutputLength|buffer/i.test(String(error))) {
        throw new ServiceError('payload_too_large', `the request body is larger than ${maxBytes} bytes once decoded`)
      }
      throw new ServiceError('invalid_request', `body: not valid ${coding} (Content-Encoding says it is)`)
    }
  }
  return decoded
}
