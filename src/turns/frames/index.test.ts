import { describe, expect, it } from 'vitest'
import { frameWriter, type TurnFrame, turnFrames } from '.'

/** The bytes of a stream, re-cut into chunks of `size` bytes. */
async function rechunk(stream: ReadableStream<Uint8Array>, size: number): Promise<ReadableStream<Uint8Array>> {
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer())
  return new ReadableStream({
    start(controller) {
      for (let at = 0; at < bytes.length; at += size) controller.enqueue(bytes.slice(at, at + size))
      controller.close()
    },
  })
}

describe('turn frames', () => {
  it('arrive as sent, whatever bytes the chunks split at (multi-byte text included)', async () => {
    const sent: TurnFrame[] = [
      { type: 'delta', text: 'Grüße 𝒜 ' },
      { type: 'delta', text: 'line\nbreak' },
      { type: 'error', error: { code: 'upstream_error', message: 'the model failed (cut_off)' } },
    ]
    for (const size of [1, 2, 3, 7, 1000]) {
      const frames = frameWriter()
      for (const frame of sent) frames.send(frame)
      frames.close()
      const received: TurnFrame[] = []
      for await (const frame of turnFrames(await rechunk(frames.readable, size))) received.push(frame)
      expect(received, `chunks of ${size}`).toEqual(sent)
    }
  })

  it('keep sending without throwing after the reader went away', async () => {
    const frames = frameWriter()
    await frames.readable.cancel()
    expect(() => frames.send({ type: 'delta', text: 'nobody listens' })).not.toThrow()
    frames.close()
  })
})
