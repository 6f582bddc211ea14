import { createParser, type EventSourceMessage } from 'eventsource-parser'
import { UpstreamError } from './port'

/**
 * The server-sent events of a streaming body, parsed by eventsource-parser (comments and
 * heartbeats are skipped by the parser). Fails with `timeout` when no chunk arrives for
 * `idleMs`. Reads the body directly (no pipe chain), so a dropped connection surfaces here as
 * an error, not as an unhandled rejection elsewhere.
 */
export async function* sseEvents(body: ReadableStream<Uint8Array>, idleMs: number): AsyncGenerator<EventSourceMessage> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  const ready: EventSourceMessage[] = []
  const parser = createParser({ onEvent: (event) => ready.push(event) })
  try {
    for (;;) {
      let timer: ReturnType<typeof setTimeout> | undefined
      const idle = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new UpstreamError('timeout', `no data from the model for ${idleMs} ms`)), idleMs)
      })
      let next: ReadableStreamReadResult<Uint8Array>
      try {
        next = await Promise.race([reader.read(), idle])
      } finally {
        clearTimeout(timer!)
      }
      if (next.done) {
        parser.feed(decoder.decode())
        yield* ready.splice(0)
        return
      }
      parser.feed(decoder.decode(next.value, { stream: true }))
      yield* ready.splice(0)
    }
  } finally {
    reader.cancel().catch(() => undefined)
  }
}
