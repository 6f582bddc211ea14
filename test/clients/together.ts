/**
 * What the "every client together" runs (together.test.ts, together-round4.test.ts) share: the
 * served Worker's API as a user, the script's compactions and edits made through it, and a
 * session's whole log replayed by the log checker and held against what the client believes.
 */
import { expect } from 'vitest'
import { expectNothingLost, lineageOf } from '../support/log-checker'

/** A client's text content: a string, or its parts' text joined. */
export const text = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((part: any) => part.text ?? part.content ?? '').join('')
      : ''

/** The API of the Worker served at `service` (its origin), as the user each call's token names. */
export function servedApi(service: URL | string) {
  /** The service's API as `token`'s user. */
  async function api(token: string, path: string, init: { method?: string; body?: unknown } = {}): Promise<any> {
    const response = await fetch(new URL(`/v1${path}`, service), {
      method: init.method ?? 'GET',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    })
    const body = await response.text()
    if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${response.status} ${body}`)
    return JSON.parse(body)
  }

  /** The session's whole log (every event kind), page by page. */
  async function wholeLog(token: string, sessionId: string): Promise<any[]> {
    const events: any[] = []
    for (let after = 0; ; ) {
      const page = await api(token, `/sessions/${sessionId}/events?after=${after}&limit=1000`)
      events.push(...page.events)
      if (page.nextAfter === null) return events
      after = page.nextAfter
    }
  }

  /**
   * The log replayed by the checker (nothing left the view but through a boundary) and the view
   * the service serves is the one replayed. Answers the log, the view and what passes covered.
   */
  async function replayed(token: string, sessionId: string) {
    const events = await wholeLog(token, sessionId)
    const { view, covered } = expectNothingLost(events)
    const served = (await api(token, `/sessions/${sessionId}/view`)).events
    expect(served.map((e: any) => e.id)).toEqual(view.map((e) => e.id))
    return { events, served: served as any[], covered }
  }

  /** A pass keeping the newest turn, the rest summarized; answers how many summary events it wrote. */
  async function compact(token: string, sessionId: string): Promise<number> {
    const pass = await api(token, `/sessions/${sessionId}/compact`, {
      method: 'POST',
      body: { strategy: { window: { lastTurns: 1 }, summarizer: { model: 'echo' } } },
    })
    expect(pass.unchanged, JSON.stringify(pass)).toBe(false)
    return pass.summary.length
  }

  /** The user's edit of their last question through the API: a turn that rewinds to just before it. */
  async function editThroughApi(token: string, sessionId: string, content: string) {
    const { events } = await api(token, `/sessions/${sessionId}/view`)
    const question = events.findLast((e: any) => e.message.role === 'user' && !e.synthetic && !e.metadata?.inline)
    const edited = await api(token, `/sessions/${sessionId}/turns`, {
      method: 'POST',
      body: { content, model: 'echo', rewind: { to: question.id, position: 'before' } },
    })
    expect(edited.reply.message.content).toBe(`Echo: ${content}`)
  }

  /**
   * The session checked against its log: the replay holds, a pass covered something, every
   * boundary kind the script wrote is there, and the view ends with `last` (the newest question
   * and its answer, as `role:text`). Answers the log.
   */
  async function expectSession(
    token: string,
    sessionId: string,
    expected: { rewinds: string[]; last: string[]; abandoned: string; asked?: string[] },
  ): Promise<any[]> {
    const { events, served, covered } = await replayed(token, sessionId)
    expect(covered.size).toBeGreaterThan(0)
    expect(events.filter((e) => e.type === 'REWIND').map((e) => e.rewind.reason)).toEqual(expected.rewinds)
    const said = served
      .filter((e: any) => e.message.role !== 'system' && !e.synthetic && !e.message.toolCalls && e.message.role !== 'tool')
      .map((e: any) => `${e.message.role}:${e.message.content}`)
    expect(said.slice(-expected.last.length)).toEqual(expected.last)
    // The questions the client holds are the lineage's, in order, each once (covered ones too).
    if (expected.asked) {
      const asked = lineageOf(events)
        .filter((e) => e.type === 'MESSAGE' && e.message.role === 'user' && !e.synthetic && !e.metadata?.inline)
        .map((e) => e.message.content)
      expect(asked).toEqual(expected.asked)
    }
    // What the edit took off the lineage is a branch, there to bring back.
    const { branches } = await api(token, `/sessions/${sessionId}/branches`)
    expect(branches.map((b: any) => b.headline)).toContainEqual(expect.stringContaining(expected.abandoned))
    return events
  }

  return { api, wholeLog, replayed, compact, editThroughApi, expectSession }
}
