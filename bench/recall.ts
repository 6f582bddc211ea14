/**
 * Natural-language recall, measured: the generated conversations of ./recall (two people over
 * weeks of sessions) stored in the real Worker, each question searched, and how often the turn
 * that answers it comes first, in the first five, and its reciprocal rank — beside plain
 * any-word BM25 over the same turns (./recall/plain-bm25). Each conversation is searched as one
 * session holding every turn (`GET /v1/sessions/:id/search`), and as a user's sessions, one per
 * conversation session (`GET /v1/search`).
 * `BENCH_RECALL_SEED` picks another set (default 49).
 */
import { rmSync } from 'node:fs'
import { type Conversation, DEFAULT_SET, generateConversations } from './recall/conversations'
import { figures, percent, type RecallFigures } from './recall/metrics'
import { PlainBm25 } from './recall/plain-bm25'
import { startBenchWorker } from './worker/client'

const seed = Number(process.env.BENCH_RECALL_SEED ?? DEFAULT_SET.seed)
const conversations = generateConversations({ ...DEFAULT_SET, seed })
const state = '.bench/recall-state'
rmSync(state, { recursive: true, force: true })
const worker = await startBenchWorker(state)

type Api = (method: string, path: string, body?: unknown) => Promise<any>
type Ranked = { hits: string[]; answers: string[] }

/** A conversation's turns as events: the first speaker the user, the other the assistant, at their session's date. */
const eventsOf = (conversation: Conversation, session: number) =>
  conversation.sessions[session]!.turns.map((turn, i) => ({
    id: turn.id,
    message: { role: turn.speaker === 0 ? 'user' : 'assistant', content: turn.text },
    timestamp: `${conversation.sessions[session]!.date}T10:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}Z`,
  }))

async function appendAll(api: Api, id: string, events: unknown[]) {
  for (let at = 0; at < events.length; at += 1000)
    await api('POST', `/v1/sessions/${id}/events`, { events: events.slice(at, at + 1000) })
}

const results: Record<string, Ranked[]> = { plain: [], any: [], auto: [], across: [] }

/** Waits until a search across the user's sessions finds each session's last turn: every session handed over. */
async function handedOver(api: Api, conversation: Conversation) {
  for (const [s, session] of conversation.sessions.entries()) {
    const last = session.turns.at(-1)!
    const params = new URLSearchParams({ q: last.text, mode: 'all', sessions: `${conversation.id}-s${s}`, limit: '100' })
    for (let polls = 0; ; polls++) {
      const page = await api('GET', `/v1/search?${params}`)
      if (page.hits.some((hit: { event: { id: string } }) => hit.event.id === last.id)) break
      if (polls === 500) throw new Error(`${conversation.id}-s${s} was never handed over`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
}
const started = performance.now()
const timings: number[] = []
try {
  for (const conversation of conversations) {
    const api = await worker.as(`recall-${seed}-${conversation.id}`)
    const whole = `${conversation.id}-whole`
    await appendAll(
      api,
      whole,
      conversation.sessions.flatMap((_, s) => eventsOf(conversation, s)),
    )
    // The same turns as another user's sessions, one per conversation session.
    const sessions = await worker.as(`recall-${seed}-${conversation.id}-sessions`)
    for (const s of conversation.sessions.keys()) await appendAll(sessions, `${conversation.id}-s${s}`, eventsOf(conversation, s))
    const plain = new PlainBm25()
    for (const session of conversation.sessions) for (const turn of session.turns) plain.add(turn.id, turn.text)
    for (const question of conversation.questions) {
      results.plain!.push({ hits: plain.search(question.text, 20), answers: question.answers })
      for (const mode of ['any', 'auto']) {
        const t = performance.now()
        const page = await api(
          'GET',
          `/v1/sessions/${whole}/search?${new URLSearchParams({ q: question.text, mode, limit: '20' })}`,
        )
        timings.push(performance.now() - t)
        results[mode]!.push({ hits: page.hits.map((hit: { event: { id: string } }) => hit.event.id), answers: question.answers })
      }
    }
    await handedOver(sessions, conversation)
    for (const question of conversation.questions) {
      const page = await sessions('GET', `/v1/search?${new URLSearchParams({ q: question.text, limit: '20' })}`)
      results.across!.push({ hits: page.hits.map((hit: { event: { id: string } }) => hit.event.id), answers: question.answers })
    }
  }
} finally {
  await worker.close()
}

const turns = conversations.reduce((sum, c) => sum + c.sessions.reduce((n, s) => n + s.turns.length, 0), 0)
const row = (name: string, f: RecallFigures) =>
  `| ${name} | ${percent(f.hitAt1)} | **${percent(f.hitAt5)}** | ${f.mrr.toFixed(3)} |`
console.log(
  `\nRecall on the generated set (seed ${seed}): ${conversations.length} conversations, ${turns} turns, ` +
    `${results.plain!.length} questions; ${((performance.now() - started) / 1000).toFixed(1)} s; ` +
    `a search over HTTP ${timings.sort((a, b) => a - b)[Math.floor(timings.length / 2)]!.toFixed(2)} ms (median)\n`,
)
console.log('| ranking | hit@1 | hit@5 | MRR |')
console.log('| --- | --- | --- | --- |')
console.log(row('plain any-word BM25 (FTS5 defaults, no stems, no stop words)', figures(results.plain!)))
console.log(row('ours, one session: `mode=any`', figures(results.any!)))
console.log(row('ours, one session: `mode=auto` (the default)', figures(results.auto!)))
console.log(row('ours, across the conversation’s sessions (`GET /v1/search`, `mode=auto`)', figures(results.across!)))
