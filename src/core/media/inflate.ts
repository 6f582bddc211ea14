/**
 * zlib inflation (RFC 1950, PDF's FlateDecode) with the platform's `DecompressionStream`, which
 * workerd and Node 18+ both have, bounded in what it produces so a small bomb cannot fill memory.
 */

/** The parts of the Compression Streams API used here, typed locally: the core has no DOM types. */
interface Inflater {
  writable: { getWriter(): { write(chunk: Uint8Array): Promise<void>; close(): Promise<void> } }
  readable: { getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(): Promise<void> } }
}
type InflaterClass = new (format: 'deflate') => Inflater

const platformInflater = (): InflaterClass | undefined =>
  (globalThis as unknown as { DecompressionStream?: InflaterClass }).DecompressionStream

/**
 * The bytes a zlib stream inflates to, at most `limit` of them. A damaged stream gives what came
 * out before the damage (PDF writers' streams are often cut or end with a wrong checksum).
 *
 * @example
 * await inflateZlib(Uint8Array.of(0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01), 1024) // Uint8Array []
 */
export async function inflateZlib(data: Uint8Array, limit: number): Promise<Uint8Array> {
  const Decompression = platformInflater()
  if (!Decompression) return new Uint8Array()
  const inflater = new Decompression('deflate')
  const writer = inflater.writable.getWriter()
  // Written without waiting: the reader below drains the output, or the write would wait on it.
  writer
    .write(data)
    .then(() => writer.close())
    .catch(() => {})
  const reader = inflater.readable.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    while (size < limit) {
      const { done, value } = await reader.read()
      if (done || !value) break
      chunks.push(value.subarray(0, limit - size))
      size += Math.min(value.length, limit - size)
    }
  } catch {
    // Damaged data: keep what was inflated before it.
  }
  reader.cancel().catch(() => {})
  return concat(chunks, size)
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) {
    out.set(chunk, at)
    at += chunk.length
  }
  return out
}
