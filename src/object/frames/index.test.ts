import { describe, expect, it } from 'vitest'
import { frameWriter, type ReadFrame, type TurnFrame, turnFrames, wholeWhenSmall } from '.'

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
      const received: ReadFrame[] = []
      for await (const frame of turnFrames(await rechunk(frames.readable, size))) received.push(frame)
      expect(received, `chunks of ${size}`).toEqual(sent)
    }
  })

  it('end with done: the rest of the stream is the result, byte for byte, whatever the chunks', async () => {
    const result = ['{"reply":"Grüße 𝒜",', '"events":[', '"x"'.repeat(50_000), ']}']
    for (const size of [7, 4096, 100_000]) {
      const frames = frameWriter()
      frames.send({ type: 'delta', text: 'Hel' })
      const finished = frames.finish(result)
      const received: ReadFrame[] = []
      let body = ''
      for await (const frame of turnFrames(await rechunk(frames.readable, size))) {
        received.push(frame)
        if (frame.type === 'done') body = await new Response(frame.result).text()
      }
      await finished
      expect(
        received.map((frame) => frame.type),
        `chunks of ${size}`,
      ).toEqual(['delta', 'done'])
      expect(body, `chunks of ${size}`).toBe(result.join(''))
    }
  })

  it('fail, never end early, when the result cannot be read to its end', async () => {
    for (const before of ['{"reply":', 'x'.repeat(100_000)]) {
      const frames = frameWriter()
      const broken = (function* () {
        yield before
        throw new Error('storage went away')
      })()
      void frames.finish(broken)
      const readAll = async () => {
        for await (const frame of turnFrames(frames.readable)) if (frame.type === 'done') await new Response(frame.result).text()
      }
      await expect(readAll(), `after ${before.length} characters`).rejects.toThrow()
    }
  })

  it('keep sending without throwing after the reader went away', async () => {
    const frames = frameWriter()
    await frames.readable.cancel()
    expect(() => frames.send({ type: 'delta', text: 'nobody listens' })).not.toThrow()
    frames.close()
  })

  it('cross whole, as one string, when small: read back, the same frames and the same result', async () => {
    const frames = frameWriter()
    frames.send({ type: 'reply', id: 'r1', stored: true })
    frames.send({ type: 'delta', text: 'Grüße 𝒜' })
    void frames.finish(['{"reply":"Grüße 𝒜"}'])
    const body = await wholeWhenSmall(frames.readable)
    expect(typeof body).toBe('string')
    const received: unknown[] = []
    for await (const frame of turnFrames(body))
      received.push(frame.type === 'done' ? { done: await new Response(frame.result).text() } : frame)
    expect(received).toEqual([
      { type: 'reply', id: 'r1', stored: true },
      { type: 'delta', text: 'Grüße 𝒜' },
      { done: '{"reply":"Grüße 𝒜"}' },
    ])
  })

  it('go on as a stream past 256 KiB, byte for byte', async () => {
    const frames = frameWriter()
    const result = ['{"events":[', '"x",'.repeat(100_000), '"y"]}']
    void frames.finish(result)
    const body = await wholeWhenSmall(frames.readable)
    expect(body).toBeInstanceOf(ReadableStream)
    let whole = ''
    for await (const frame of turnFrames(body)) if (frame.type === 'done') whole = await new Response(frame.result).text()
    expect(whole).toBe(result.join(''))
  })

  it('read whole still fail, never end early, when the stream fails: the frames read before it come first', async () => {
    const encoder = new TextEncoder()
    let pulls = 0
    const failing = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulls++ === 0)
          controller.enqueue(encoder.encode('{"type":"reply","id":"r1","stored":true}\n{"type":"done"}\n{"reply":'))
        else controller.error(new Error('storage went away'))
      },
    })
    const body = await wholeWhenSmall(failing)
    const seen: string[] = []
    const readAll = async () => {
      for await (const frame of turnFrames(body)) {
        seen.push(frame.type)
        if (frame.type === 'done') await new Response(frame.result).text()
      }
    }
    await expect(readAll()).rejects.toThrow()
    expect(seen).toEqual(['reply', 'done'])
  })
})
