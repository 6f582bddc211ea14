import type { TurnFrame } from '../store/session/turn'

/**
 * The frames of a turn as the session object streams them: newline-delimited JSON, split across
 * chunks at any byte.
 */
export async function* turnFrames(stream: ReadableStream<Uint8Array>): AsyncGenerator<TurnFrame> {
  const reader = stream.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  try {
    for (;;) {
      const { done, value } = await reader.read()
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true })
      for (let newline = buffer.indexOf('\n'); newline >= 0; newline = buffer.indexOf('\n')) {
        const line = buffer.slice(0, newline)
        buffer = buffer.slice(newline + 1)
        if (line.trim() !== '') yield JSON.parse(line) as TurnFrame
      }
      if (done) return
    }
  } finally {
    reader.cancel().catch(() => undefined)
  }
}
