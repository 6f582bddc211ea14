import type { SSEStreamingApi } from 'hono/streaming'
import { CATCHING_UP, type LiveFrame } from '../../object/live-hub'

/** A comment line this often keeps proxies from closing an idle stream. */
const KEEP_ALIVE_MS = 15_000

/** A live subscription to one session object (its `fetch` with `Upgrade: websocket`). */
export type Subscribe = (after: number) => Promise<WebSocket | null>

type Received = Extract<LiveFrame, { type: 'delta' }> | { type: 'event'; seq: number; event: unknown }

/**
 * Connects to a session object's live subscription: the Worker's end of a hibernatable WebSocket,
 * or null when the session does not exist.
 *
 * @example
 * const socket = await subscribeTo(sessionStub(env, userId, id), 41)
 */
export async function subscribeTo(stub: { fetch(url: string, init: RequestInit): Promise<Response> }, after: number) {
  const response = await stub.fetch(`https://session/stream?after=${after}`, { headers: { Upgrade: 'websocket' } })
  if (response.status === 404) return null
  const socket = response.webSocket
  if (!socket) throw new Error(`the session object answered ${response.status} to a subscription`)
  socket.accept()
  return socket
}

/**
 * Writes a subscription as server-sent events — `event: event` (`id:` the seq, data the Event)
 * and `event: delta` — with a comment every 15 s, until the client goes away or the object
 * closes it; a backlog sent in parts is followed by connecting again after its last event.
 */
export async function pipeLive(sse: SSEStreamingApi, first: WebSocket, start: number, subscribe: Subscribe): Promise<void> {
  let after = start
  let socket: WebSocket | null = first
  const timer = setInterval(() => void sse.write(': keep-alive\n\n').catch(() => {}), KEEP_ALIVE_MS)
  sse.onAbort(() => socket?.close(1000, 'the client went away'))
  try {
    while (socket && !sse.aborted) {
      const code = await relay(socket, sse, (seq) => {
        after = seq
      })
      socket = code === CATCHING_UP && !sse.aborted ? await subscribe(after) : null
      // The client left while it connected: nobody reads this one.
      if (sse.aborted) socket?.close(1000, 'the client went away')
    }
  } finally {
    clearInterval(timer)
  }
}

/** Writes one socket's frames in order until it closes; answers its close code. */
function relay(socket: WebSocket, sse: SSEStreamingApi, sent: (seq: number) => void): Promise<number> {
  let written = Promise.resolve()
  socket.addEventListener('message', (message) => {
    const frame = JSON.parse(String(message.data)) as Received
    written = written.then(async () => {
      if (frame.type === 'event') {
        await sse.writeSSE({ event: 'event', id: String(frame.seq), data: JSON.stringify(frame.event) })
        sent(frame.seq)
      } else await sse.writeSSE({ event: 'delta', data: JSON.stringify({ turnId: frame.turnId, text: frame.text }) })
    })
  })
  return new Promise((resolve) => {
    socket.addEventListener('close', (event) => void written.then(() => resolve(event.code)))
    socket.addEventListener('error', () => void written.then(() => resolve(1011)))
  })
}
