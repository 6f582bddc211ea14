import { log } from '../log'

/** The close code of a subscription whose backlog goes on (the Worker subscribes again after the last event it got). */
export const CATCHING_UP = 4001

/** What the session object sends a subscriber: an event's JSON as the API shows it, or a piece of a reply in progress. */
export type LiveFrame = { type: 'event'; seq: number; json: string } | { type: 'delta'; turnId: string; text: string }

/**
 * A session's live subscribers: hibernatable WebSockets (the Worker turns each into a
 * server-sent event stream), so an idle subscription costs the object nothing — it may leave
 * memory, the sockets stay open, and it is woken only by a write. Each event written is sent to
 * every socket; so is each piece of a reply in progress, whose text so far is kept for a
 * subscriber that attaches mid-turn.
 *
 * @example
 * const hub = new LiveHub(ctx)
 * hub.events(written.map((event) => ({ seq: event.seq, json: JSON.stringify(event) })))
 */
export class LiveHub {
  /** The text of each reply in progress so far, by its turn's id. */
  private readonly replies = new Map<string, string>()

  constructor(private readonly ctx: DurableObjectState) {}

  /** Whether anyone follows the session now, or a reply's text in progress waits for its turn to be written. */
  get watched(): boolean {
    return this.replies.size > 0 || this.ctx.getWebSockets().length > 0
  }

  /** Whether anyone follows the session now (the upstream is then streamed for them). */
  get followed(): boolean {
    return this.ctx.getWebSockets().length > 0
  }

  /**
   * A new subscriber: `backlog` (the events after its point) then the replies in progress so far,
   * sent before anything else can be written. Answers the Worker's end of the socket.
   */
  subscribe(backlog: Iterable<{ seq: number; json: string }>, more: boolean): Response {
    const { 0: client, 1: server } = new WebSocketPair()
    this.ctx.acceptWebSocket(server)
    for (const event of backlog) server.send(frame({ type: 'event', ...event }))
    // A long backlog comes a part at a time: the Worker connects again after the last event sent.
    if (more) server.close(CATCHING_UP, 'more events follow: connect again after the last one')
    else for (const [turnId, text] of this.replies) server.send(frame({ type: 'delta', turnId, text }))
    return new Response(null, { status: 101, webSocket: client })
  }

  /** Sends written events to every subscriber; a turn written (its user or first tool event) has no text in progress any more. */
  events(written: readonly { seq: number; id: string; json: string }[]): void {
    for (const event of written) this.replies.delete(event.id)
    const sockets = this.ctx.getWebSockets()
    if (sockets.length === 0 || written.length === 0) return
    const frames = written.map((event) => frame({ type: 'event', seq: event.seq, json: event.json }))
    for (const socket of sockets) for (const text of frames) send(socket, text)
  }

  /** A piece of a reply in progress: kept, and sent to every subscriber. */
  delta(turnId: string, text: string): void {
    this.replies.set(turnId, (this.replies.get(turnId) ?? '') + text)
    const sockets = this.ctx.getWebSockets()
    if (sockets.length === 0) return
    const sent = frame({ type: 'delta', turnId, text })
    for (const socket of sockets) send(socket, sent)
  }

  /** A turn that ended (its reply written, or failed): its text in progress is dropped. */
  ended(turnId: string): void {
    this.replies.delete(turnId)
  }

  /** Closes every subscription (the session was deleted). */
  closeAll(reason: string): void {
    for (const socket of this.ctx.getWebSockets()) {
      try {
        socket.close(1000, reason)
      } catch {
        // Closed already.
      }
    }
  }
}

const frame = (value: LiveFrame) =>
  value.type === 'event' ? `{"type":"event","seq":${value.seq},"event":${value.json}}` : JSON.stringify(value)

function send(socket: WebSocket, text: string): void {
  try {
    socket.send(text)
  } catch (error) {
    log.warn('a live subscriber could not be sent to', { error: String(error) })
  }
}
