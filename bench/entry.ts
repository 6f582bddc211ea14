/**
 * The Worker the benchmarks run: the real app and Durable Objects, plus bench-only routes that
 * time work inside workerd (so the local dev server's proxy is not in the numbers), a naive
 * baseline, and the closest peer on this platform (the Agents SDK's session storage).
 */
import { DurableObject } from 'cloudflare:workers'
import { Lifecycle } from 'agents/lifecycle'
import { Sessions } from 'agents/sessions'
import { countingEstimator, project, type TokenEstimator } from '../src/core'
import { app } from '../src/http/app'
import { sessionStub } from '../src/store/address'
import { SessionObject } from '../src/store/session'

export { UserIndex } from '../src/store/user-index'

/** The session object with what a benchmark needs to look inside it. */
export class BenchSessionObject extends SessionObject {
  private counting: (TokenEstimator & { calls: number }) | null = null

  protected override async tokenEstimator(): Promise<TokenEstimator> {
    this.counting ??= countingEstimator(await super.tokenEstimator())
    return this.counting
  }

  /** The view the naive way: the whole log read and projected on every call. */
  naiveView(): number {
    return project(this.log.after(0)).length
  }

  /** The view the service's way (cached entries, bodies by seq range). */
  async fastView(): Promise<number> {
    const view = await this.readView()
    return view.ok ? view.value.events.length : -1
  }

  /** Forgets everything held in memory, as a freshly started object would have nothing. */
  forget(): void {
    this.record = undefined
    this.view = null
  }

  /** Token estimates computed by this object since it started, and the messages in its log. */
  estimates(): { calls: number; messages: number } {
    const messages = this.ctx.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM events WHERE type = 'MESSAGE'").one().n
    return { calls: this.counting?.calls ?? 0, messages }
  }
}

type Part = { type: 'text'; text: string }

/** The Agents SDK's session storage on a plain Durable Object, as its docs install it. */
export class AgentsPeer extends DurableObject<Env> {
  readonly sessions = new Sessions()
  readonly lifecycle = Lifecycle.install(this).use(this.sessions)
  readonly session = this.sessions.session()

  /** Imports `count` messages (user/assistant alternating) as history. */
  async seed(count: number, from: number): Promise<number> {
    let parent = (await this.session.getLatestLeaf())?.id ?? null
    for (let i = from; i < from + count; i++) {
      const id = `m${i}`
      await this.session.importMessage(
        { id, role: i % 2 === 0 ? 'user' : 'assistant', parts: [{ type: 'text', text: message(i) }] as Part[] },
        { parentId: parent, createdAt: Date.now() },
      )
      parent = id
    }
    return from + count
  }

  /** One turn's storage work: the user message and the reply appended, then the bounded recent history read. */
  async turn(i: number): Promise<number> {
    await this.session.appendMessage({ id: `t${i}u`, role: 'user', parts: [{ type: 'text', text: message(i) }] })
    await this.session.appendMessage({ id: `t${i}a`, role: 'assistant', parts: [{ type: 'text', text: message(i + 1) }] })
    const recent = await this.session.getRecentHistory(64 * 1024)
    return recent.messages.length
  }

  /** A compaction overlay over the older half of the history. */
  async overlay(upTo: number): Promise<void> {
    await this.session.addCompaction('Summary of the earlier conversation.', 'm0', `m${Math.floor(upTo / 2)}`)
  }
}

const message = (i: number) => `Message ${i}: what did we decide about the rollout plan, and which items are still open?`

/**
 * Runs `fn` `runs` times inside the Worker and returns the mean duration (ms) of each run. The
 * clock here only moves with I/O and in whole milliseconds, so a run repeats `fn` `batch` times
 * and is divided by it.
 */
let op = 0
async function timed(runs: number, fn: (i: number) => Promise<unknown>, batch = 1): Promise<number[]> {
  const samples: number[] = []
  for (let run = 0; run < runs; run++) {
    const start = performance.now()
    for (let b = 0; b < batch; b++) await fn(op++)
    samples.push((performance.now() - start) / batch)
  }
  return samples
}

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url)
    if (!url.pathname.startsWith('/bench/')) return app.fetch(request, env, ctx)
    const q = (name: string) => url.searchParams.get(name) ?? ''
    const n = (name: string) => Number(q(name))
    const batch = Number(url.searchParams.get('batch') ?? 1)
    const session = () => sessionStub(env, q('user'), q('session')) as unknown as DurableObjectStub<BenchSessionObject>
    const peers = (env as unknown as { PEER: DurableObjectNamespace }).PEER
    const peer = () => peers.get(peers.idFromName(q('peer'))) as unknown as DurableObjectStub<AgentsPeer>
    switch (url.pathname) {
      case '/bench/view':
        return Response.json(
          await timed(n('runs'), () => (q('mode') === 'naive' ? session().naiveView() : session().fastView()), batch),
        )
      case '/bench/cold-view':
        return Response.json(
          await timed(
            n('runs'),
            async () => {
              await session().forget()
              return session().fastView()
            },
            batch,
          ),
        )
      case '/bench/append-view':
        // The storage work of a turn without the model: two appends and a view read.
        return Response.json(
          await timed(
            n('runs'),
            async (i) => {
              const ref = { userId: q('user'), sessionId: q('session') }
              await session().append(ref, [{ message: { role: 'user', content: message(i) } }])
              await session().append(ref, [{ message: { role: 'assistant', content: message(i + 1) } }])
              return session().readView()
            },
            batch,
          ),
        )
      case '/bench/turn':
        // A whole chat turn through the object (model = the local stub), its stream drained.
        return Response.json(
          await timed(
            n('runs'),
            async (i) => {
              const stream = await session().turn(
                { userId: q('user'), sessionId: q('session') },
                { content: message(i), compaction: JSON.parse(q('compaction')) },
              )
              const text = await new Response(stream).text()
              if (!text.includes('"type":"done"')) throw new Error(text.slice(0, 300))
            },
            batch,
          ),
        )
      case '/bench/compact':
        return Response.json(
          await timed(1, async () => {
            const result = (await session().compact({ strategy: { window: { lastEvents: n('keep') } } })) as {
              ok: boolean
              value?: { unchanged: boolean }
            }
            if (!result.ok || result.value?.unchanged) throw new Error(JSON.stringify(result).slice(0, 300))
          }),
        )
      case '/bench/get':
        return Response.json(await timed(n('runs'), () => session().get(), batch))
      case '/bench/estimates':
        return Response.json(await session().estimates())
      case '/bench/peer/seed':
        return Response.json(await peer().seed(n('count'), n('from')))
      case '/bench/peer/overlay':
        await peer().overlay(n('upTo'))
        return Response.json({ ok: true })
      case '/bench/peer/turn':
        return Response.json(await timed(n('runs'), (i) => peer().turn(i), batch))
      case '/bench/clock':
        return Response.json(await timed(3, () => scheduler.wait(50)))
    }
    return new Response('no such bench route', { status: 404 })
  },
}
