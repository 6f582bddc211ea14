/**
 * The agent-loop benchmarks' Worker side (routed from bench/entry.ts under /bench/loops): one step
 * of a long agent loop through `/turns` (the app in workerd: auth, routing, the session object, the
 * stub model), with the session object's rows; and a clearing pass against an ordinary append,
 * timed inside the object (see `BenchSessionObject.loopClearings`).
 */
import { type Context, Hono } from 'hono'
import { app } from '../src/http/app'
import { sessionStub } from '../src/object/address'
import type { BenchSessionObject } from './entry'
import { loopResult, type Measured } from './shared'

type BenchContext = Context<{ Bindings: Env }>
const query = (c: BenchContext, name: string) => c.req.query(name) ?? ''
const numberOf = (c: BenchContext, name: string) => Number(c.req.query(name) ?? 1)
const sessionOf = (c: BenchContext) =>
  sessionStub(c.env, query(c, 'user'), query(c, 'session')) as unknown as DurableObjectStub<BenchSessionObject>

/** The loop's one tool, offered on every step as an agent does. */
const TOOLS = [{ type: 'function', function: { name: 'read_file', parameters: { type: 'object', properties: {} } } }]
export const LOOP_QUESTION = 'Read every file and report.'

/** What a step's answer asks next: the next call's step, or 0 once the model answered. */
function nextOf(answer: { status?: string; toolCalls?: { id: string }[]; reply?: { message?: { content?: unknown } } }): number {
  if (answer.status === 'requires_action') {
    const step = /^step_(\d+)$/.exec(answer.toolCalls?.[0]?.id ?? '')
    if (step) return Number(step[1])
  }
  if (answer.status === 'completed' && /^Done after \d+ steps$/.test(String(answer.reply?.message?.content))) return 0
  throw new Error(`an unexpected step answer: ${JSON.stringify(answer).slice(0, 300)}`)
}

/** The agent-loop routes of the bench Worker. */
export const loopsBench = new Hono<{ Bindings: Env }>()
  /**
   * Step `step` of the loop through /turns (0: the question; k: the result of call `step_k`), timed
   * here around the app; the session object's rows of it; `next`, the call the model made next.
   */
  .get('/step', async (c) => {
    const step = numberOf(c, 'step')
    const body =
      step === 0
        ? { model: query(c, 'model'), content: LOOP_QUESTION, tools: TOOLS }
        : { model: query(c, 'model'), tools: TOOLS, toolResults: [{ id: `step_${step}`, data: loopResult(step) }] }
    const request = new Request(`http://bench/v1/sessions/${query(c, 'session')}/turns`, {
      method: 'POST',
      headers: { Authorization: c.req.header('Authorization') ?? '', 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    })
    const session = sessionOf(c)
    // The step before it done with its work after the answer, as a model's time between steps allows.
    await session.settled()
    await session.takeRows()
    const start = performance.now()
    const response = await app.fetch(request, c.env, c.executionCtx)
    const text = await response.text()
    const ms = performance.now() - start
    const rows = await session.takeRows()
    if (!response.ok) throw new Error(`step ${step}: ${response.status} ${text.slice(0, 300)}`)
    const answer = JSON.parse(text)
    // The passes the request wrote: the fit check's, before the model call, and the policy's, after it.
    const written = (pass: { unchanged?: boolean } | null | undefined) => (pass?.unchanged === false ? 1 : 0)
    const fitPasses = ((answer.context?.compactions ?? []) as { unchanged?: boolean }[]).reduce(
      (sum, pass) => sum + written(pass),
      0,
    )
    return c.json<Measured>({
      samples: [ms],
      rows,
      counts: { next: nextOf(answer), fitPasses, policyPasses: written(answer.compaction), answerBytes: text.length },
    })
  })
  .get('/clearing', async (c) =>
    c.json(
      await sessionOf(c).loopClearings(
        { userId: query(c, 'user'), sessionId: query(c, 'session') },
        numberOf(c, 'from'),
        numberOf(c, 'batch'),
        query(c, 'answered') === '1',
      ),
    ),
  )
