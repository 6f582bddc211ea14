/**
 * Issue 30, events out: what a webhook costs a turn (its notice is written by every turn; a user
 * with an endpoint adds the fan-out and the delivery, after the answer), how soon the receiver
 * has it, and how soon a live subscriber sees a write.
 */
import { createServer } from 'node:http'
import { sign } from 'hono/jwt'
import type { Measured } from '../shared'
import type { BenchWorker } from './client'
import { NO_COMPACTION, RUN, SECRET } from './config'
import type { Key, Measurement } from './runner'

/** The two users compared: one with a webhook endpoint (every event type), one without. */
const HOOKED = `bench-hooked-${RUN}`
const PLAIN = `bench-plain-${RUN}`

interface Events {
  as(user: string, method: string, path: string, body?: unknown): Promise<any>
  authorization(user: string): string
  /** When the receiver got each reply's turn.completed, by reply id (performance.now()). */
  received: Map<string, number>
  /** The turns a user's usage counts: the notices handed over to the user's object. */
  turnsCounted(user: string): Promise<number>
}

let started: Promise<Events> | null = null

/** The receiver (it answers 200 at once) and the hooked user's endpoint, made once. */
function eventsOf(worker: BenchWorker): Promise<Events> {
  started ??= (async () => {
    const received = new Map<string, number>()
    const server = createServer(async (req, res) => {
      let body = ''
      for await (const chunk of req) body += chunk
      const event = JSON.parse(body)
      if (event.type === 'turn.completed') received.set(event.data.replyId, performance.now())
      res.writeHead(200).end()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    server.unref()
    const tokens = new Map<string, string>()
    for (const user of [HOOKED, PLAIN])
      tokens.set(user, await sign({ sub: user, exp: Math.floor(Date.now() / 1000) + 24 * 3600 }, SECRET, 'HS256'))
    const authorization = (user: string) => `Bearer ${tokens.get(user)}`
    const as = async (user: string, method: string, path: string, body?: unknown) => {
      const response = await fetch(new URL(path, worker.url), {
        method,
        headers: { Authorization: authorization(user), ...(body ? { 'Content-Type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      })
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`)
      return response.json()
    }
    const { port } = server.address() as { port: number }
    await as(HOOKED, 'POST', '/v1/webhooks', { url: `http://127.0.0.1:${port}/hook`, events: ['*'] })
    const turnsCounted = async (user: string) =>
      ((await as(user, 'GET', '/v1/usage')).usage as { turns: number }[]).reduce((total, row) => total + row.turns, 0)
    return { as, authorization, received, turnsCounted }
  })()
  return started
}

const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 1))
}

/** A webhook-enabled turn against one without (in workerd, 10 a sample), the delivery after the answer, a live frame after a write. */
export function eventsMeasurements(worker: BenchWorker) {
  const session = (user: string) => `events-${user}`
  const userOf = (key: Key) => (key === 'with a webhook' ? HOOKED : PLAIN)
  const turnAs = (user: string, batch: number) =>
    worker.bench('turn', { user, session: session(user), batch, compaction: JSON.stringify(NO_COMPACTION) })
  let delivered = 0
  let framed = 0
  return {
    // One turn a sample; then, untimed, its notice handed over and, with an endpoint, its delivery received.
    webhookTurn: {
      rounds: 40,
      keys: ['without a webhook', 'with a webhook'],
      setup: () => eventsOf(worker),
      async sample(key): Promise<Measured> {
        const user = userOf(key)
        const events = await eventsOf(worker)
        // Every turn of the hooked user is delivered: the receiver has one per turn counted.
        const settled = async () => {
          const counted = await events.turnsCounted(HOOKED)
          await until(() => events.received.size >= counted)
          return events.turnsCounted(user)
        }
        const before = await settled()
        const measured = await turnAs(user, 1)
        while ((await events.turnsCounted(user)) <= before) await new Promise((resolve) => setTimeout(resolve, 2))
        await settled()
        return measured
      },
    },
    // Ten turns back to back: each turn's hand-over and delivery run while the next turns do (on
    // the one workerd thread every object shares here).
    webhookTurnBackToBack: {
      rounds: 20,
      keys: ['without a webhook', 'with a webhook'],
      setup: () => eventsOf(worker),
      sample: (key) => turnAs(userOf(key), 10),
    },
    // Over HTTP: the turn's answer, then the receiver's POST (its time after the answer, in the second key).
    webhookDelivery: {
      rounds: 20,
      keys: ['the turn answered', 'its webhook received after the answer'],
      setup: () => eventsOf(worker),
      async sample(key): Promise<Measured> {
        if (key !== 'the turn answered') return { samples: [delivered] }
        const events = await eventsOf(worker)
        const started = performance.now()
        const answer = await events.as(HOOKED, 'POST', `/v1/sessions/${session(HOOKED)}-http/turns`, {
          content: 'a turn whose webhook is timed',
          compaction: NO_COMPACTION,
        })
        const answered = performance.now()
        await until(() => events.received.has(answer.reply.id))
        delivered = events.received.get(answer.reply.id)! - answered
        return { samples: [answered - started] }
      },
    },
    // Over HTTP: an append's answer, and the frame a subscriber of the session got for it.
    liveFrame: {
      rounds: 40,
      keys: ['the append answered', 'its frame received'],
      async sample(key, round): Promise<Measured> {
        if (key !== 'the append answered') return { samples: [framed] }
        const events = await eventsOf(worker)
        const id = `${session(PLAIN)}-live`
        if (round === 0)
          await events.as(PLAIN, 'POST', `/v1/sessions/${id}/events`, {
            events: [{ message: { role: 'user', content: 'start' } }],
          })
        const frames = await subscribe(new URL(`/v1/sessions/${id}/stream`, worker.url), events.authorization(PLAIN))
        const started = performance.now()
        const written = await events.as(PLAIN, 'POST', `/v1/sessions/${id}/events`, {
          events: [{ message: { role: 'user', content: `live ${round}` } }],
        })
        const answered = performance.now()
        const seq = written.events[0].seq
        const arrived = await frames.until(seq)
        framed = arrived - started
        return { samples: [answered - started] }
      },
    },
  } satisfies Record<string, Measurement>
}

/** A live stream, read as it comes: `until(seq)` answers when the event of that seq arrived (performance.now()); the stream is then closed. */
async function subscribe(url: URL, authorization: string) {
  const controller = new AbortController()
  const response = await fetch(url, { headers: { Authorization: authorization }, signal: controller.signal })
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let text = ''
  return {
    async until(seq: number): Promise<number> {
      while (!text.includes(`\nid: ${seq}\n`) && !text.startsWith(`id: ${seq}\n`)) {
        const { done, value } = await reader.read()
        if (done) throw new Error('the stream ended')
        text += value
      }
      const at = performance.now()
      controller.abort()
      return at
    },
  }
}
