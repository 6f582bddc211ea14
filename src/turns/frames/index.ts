import type { ErrorBody } from '../../contract/errors'
import type { TurnResult } from '../session'

/**
 * The channel from the session object to the Worker for one turn: newline-delimited JSON frames
 * (RPC streams carry bytes only) — text deltas as they come, then exactly one `done` or `error`.
 */
export type TurnFrame =
  | { type: 'delta'; text: string }
  | { type: 'done'; result: TurnResult }
  | { type: 'error'; error: ErrorBody }

/** A frame stream being written: `send` never throws, even when the reader went away. */
export interface FrameWriter {
  readable: ReadableStream<Uint8Array>
  send(frame: TurnFrame): void
  close(): void
}

/**
 * Opens a frame stream.
 *
 * @example
 * const frames = frameWriter()
 * frames.send({ type: 'delta', text: 'Hel' })
 * return frames.readable
 */
export function frameWriter(): FrameWriter {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>()
  const writer = writable.getWriter()
  const encoder = new TextEncoder()
  return {
    readable,
    // A reader that went away (the client disconnected) must not stop the turn: ignore the failure.
    send: (frame) => void writer.write(encoder.encode(`${JSON.stringify(frame)}\n`)).catch(() => undefined),
    close: () => void writer.close().catch(() => undefined),
  }
}

/**
 * Reads a frame stream, whatever bytes its chunks split at.
 *
 * @example
 * for await (const frame of turnFrames(stream)) if (frame.type === 'delta') write(frame.text)
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
