import type { ErrorWire } from '../../contract/errors'
import type { CompactionBlock } from '../../contract/turn-result'
import type { Reasoning, ToolCall } from '../../core'
import { encodedChunks } from '../../json-stream'

/**
 * The channel from the session object to the Worker for one turn: newline-delimited JSON frames
 * (RPC streams carry bytes only) — text deltas and whole tool calls as they come, then either one `error` frame or a
 * `done` line followed by the turn's result as JSON up to the end of the stream. The result goes
 * last and raw so that it can be as large as it needs to be (a pass may list a whole view) and
 * still be passed on to the client without being parsed or held.
 */
export type TurnFrame =
  | { type: 'delta'; text: string }
  /** A reasoning block of the reply, whole (an Anthropic upstream's thinking), before its text. */
  | { type: 'reasoning'; block: Reasoning }
  /** A client tool call of the reply, whole, with the id it is stored with. */
  | { type: 'tool_call'; call: ToolCall }
  /** A door's rewind to where a diverged history branched off, and the messages it abandons: sent before the model is called. */
  | { type: 'rewound'; abandoned: number }
  /** The id of the reply, sent when the model is first called (a wire format's streamed answer names it); whether it will be stored. */
  | { type: 'reply'; id: string; stored: boolean }
  /** The turn waits for the session's background pass to make room (a streamed `/turns` turn's only). */
  | { type: 'compacting' }
  /** A compaction a request's edit ran, before the reply's pieces, with the id of the reply whose message it opens (a door's). */
  | { type: 'compaction'; replyId: string; block: CompactionBlock }
  | { type: 'error'; error: ErrorWire }

/** A frame as the Worker reads it: `done` carries the rest of the stream, the result's JSON bytes. */
export type ReadFrame = TurnFrame | { type: 'done'; result: ReadableStream<Uint8Array> }

/** A turn's frames as they cross RPC: their text when read whole in the object (see {@link wholeWhenSmall}), else their stream. */
export type FrameBody = string | ReadableStream<Uint8Array>

/** A frame stream being written: nothing here throws, even when the reader went away. */
export interface FrameWriter {
  readable: ReadableStream<Uint8Array>
  send(frame: TurnFrame): void
  /** Writes the `done` line and the result's JSON, as fast as the reader takes it, then closes. */
  finish(result: Iterable<string>): Promise<void>
  close(): void
}

const NEWLINE = 10

function* withDoneLine(result: Iterable<string>): Generator<string> {
  yield '{"type":"done"}\n'
  yield* result
}
const encoder = new TextEncoder()

/**
 * Opens a frame stream.
 *
 * @example
 * const frames = frameWriter()
 * frames.send({ type: 'delta', text: 'Hel' })
 * await frames.finish(['{"reply":', '…', '}'])
 * return frames.readable
 */
export function frameWriter(): FrameWriter {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>()
  const writer = writable.getWriter()
  const close = () => void writer.close().catch(() => undefined)
  return {
    readable,
    // A reader that went away (the client disconnected) must not stop the turn: ignore the failure.
    send: (frame) => void writer.write(encoder.encode(`${JSON.stringify(frame)}\n`)).catch(() => undefined),
    async finish(result) {
      try {
        // One chunk at a time, each made when the reader took the one before; a small result
        // goes in one chunk with the done line.
        for (const chunk of encodedChunks(withDoneLine(result))) await writer.write(chunk)
        close()
      } catch (error) {
        // The reader went away (the turn is stored all the same), or the result could not be
        // read: a reader still there sees a failed stream, never a cut-off one taken as whole.
        void writer.abort(error).catch(() => undefined)
      }
    },
    close,
  }
}

/** Bytes collected until a newline, whatever the chunks split at (a newline byte is never inside a UTF-8 character). */
class LineBuffer {
  private chunks: Uint8Array[] = []

  /** Adds bytes; answers the complete lines now available. */
  push(bytes: Uint8Array): Uint8Array[] {
    const lines: Uint8Array[] = []
    let start = 0
    for (let at = bytes.indexOf(NEWLINE); at >= 0; at = bytes.indexOf(NEWLINE, start)) {
      lines.push(concat([...this.chunks, bytes.subarray(start, at)]))
      this.chunks = []
      start = at + 1
    }
    if (start < bytes.length) this.chunks.push(bytes.subarray(start))
    return lines
  }

  /** The bytes after the last newline, and forgets them. */
  take(): Uint8Array {
    const rest = concat(this.chunks)
    this.chunks = []
    return rest
  }
}

const concat = (chunks: Uint8Array[]): Uint8Array => {
  if (chunks.length === 1) return chunks[0]!
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0))
  let at = 0
  for (const chunk of chunks) {
    out.set(chunk, at)
    at += chunk.length
  }
  return out
}

/** Frames read whole in the object up to this size; a larger answer goes on as a stream. */
const WHOLE_BYTES = 256 * 1024

/**
 * A turn's frames for a caller that needs none of them before the turn ends (a plain request):
 * read to the end in the object and sent as one string, which crosses RPC much faster than a
 * stream of a few chunks (bench/history.md: where the turn's time goes, issue 31's first pass); past 256 KiB, or if the
 * frames fail, the stream from where the reading got to, as it would have come.
 *
 * @example
 * return input.stream ? frames : wholeWhenSmall(frames)
 */
export async function wholeWhenSmall(stream: ReadableStream<Uint8Array>): Promise<FrameBody> {
  const reader = stream.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    let next: ReadableStreamReadResult<Uint8Array>
    try {
      next = await reader.read()
    } catch (error) {
      // The bytes read so far, then the failure (erroring at once would drop what is queued).
      let given = size === 0
      return new ReadableStream<Uint8Array>({
        pull(controller) {
          if (given) return controller.error(error)
          given = true
          controller.enqueue(concat(chunks))
        },
      })
    }
    if (next.done) return new TextDecoder().decode(concat(chunks))
    chunks.push(next.value)
    size += next.value.length
    if (size > WHOLE_BYTES) return restOf(reader, concat(chunks))
  }
}

/**
 * Reads frames (a stream, or their text), whatever bytes a stream's chunks split at. After `done` it stops: the frame's
 * `result` is the rest of the stream, for the caller to pass on or read.
 *
 * @example
 * for await (const frame of turnFrames(stream)) if (frame.type === 'delta') write(frame.text)
 */
export async function* turnFrames(body: FrameBody): AsyncGenerator<ReadFrame> {
  const reader = (typeof body === 'string' ? new Response(body).body! : body).getReader()
  const decoder = new TextDecoder()
  const lines = new LineBuffer()
  let handedOn = false
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      const complete = lines.push(value)
      for (let i = 0; i < complete.length; i++) {
        const text = decoder.decode(complete[i])
        if (text.trim() === '') continue
        const frame = JSON.parse(text) as ReadFrame
        if (frame.type !== 'done') {
          yield frame
          continue
        }
        // What followed the done line in this chunk belongs to the result, with the rest of the stream.
        const after = [...complete.slice(i + 1).flatMap((line) => [line, Uint8Array.of(NEWLINE)]), lines.take()]
        handedOn = true
        yield { type: 'done', result: restOf(reader, concat(after)) }
        return
      }
    }
  } finally {
    if (!handedOn) reader.cancel().catch(() => undefined)
  }
}

/** A stream of `first`, then whatever the reader still has. */
function restOf(reader: ReadableStreamDefaultReader<Uint8Array>, first: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (first.length > 0) controller.enqueue(first)
    },
    async pull(controller) {
      const { done, value } = await reader.read()
      if (done) controller.close()
      else controller.enqueue(value)
    },
    cancel: (reason) => reader.cancel(reason),
  })
}
