import { runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { sessionStub } from '../../src/object/address'
import type { SessionStorage } from '../../src/store/session-storage'
import { append, assistant, call, expectError, newSessionId, until, user } from '../helpers'

type Hit = { event: { id: string }; match: 'all' | 'any'; snippet: string; covered: boolean }

const search = async (id: string, params: Record<string, string>) => {
  const result = await call('GET', `/v1/sessions/${id}/search?${new URLSearchParams(params)}`)
  expect(result.status, result.text).toBe(200)
  return result.body as { hits: Hit[]; nextCursor: string | null }
}
const ids = (page: { hits: Hit[] }) => page.hits.map((hit) => hit.event.id)

/** A conversation in which a question asked in a sentence has one answer, worded otherwise. */
async function conversation() {
  const id = newSessionId()
  await append(id, [
    user('Hey, how have you been? Work is crazy this week.', 'greet'),
    assistant('Did you end up going anywhere fun this weekend?', 'prompt'),
    user('I went to an LGBTQ support group yesterday. Hearing the stories was powerful.', 'answer'),
    assistant('I am proud of you. Our group chat has been noisy lately.', 'noise'),
    user('He runs every morning before work.', 'runs'),
    user('The login bug is fixed now.', 'both'),
    assistant('Which bug was that again?', 'bug'),
    user('The login page was slow yesterday too.', 'login'),
    assistant('Lunch was great, thanks.', 'lunch'),
  ])
  return id
}

describe('GET /v1/sessions/:id/search, ranked', () => {
  it('auto (the default): hits holding every word first, then the rest of the ranking, each once, each saying its match', async () => {
    const id = await conversation()
    const page = await search(id, { q: 'login bug' })
    expect(ids(page)[0]).toBe('both')
    expect(page.hits[0]!.match).toBe('all')
    expect(ids(page).slice(1).sort()).toEqual(['bug', 'login'])
    expect(page.hits.slice(1).map((hit) => hit.match)).toEqual(['any', 'any'])
    expect(new Set(ids(page)).size).toBe(page.hits.length)
    // Every hit's snippet shows a word it was found by.
    for (const hit of page.hits) expect(hit.snippet.toLowerCase()).toMatch(/login|bug/)
    // mode all: those holding every word alone, as before.
    expect(ids(await search(id, { q: 'login bug', mode: 'all' }))).toEqual(['both'])
  })

  it('any: a question asked in a sentence finds the turn that answers it, by stems and verb forms, its common words left out', async () => {
    const id = await conversation()
    const question = 'When did Caroline go to the support groups?'
    for (const mode of ['any', 'auto']) {
      const page = await search(id, { q: question, mode })
      expect(ids(page)[0], mode).toBe('answer')
      expect(page.hits[0]!.match).toBe('any')
      // "the", "to", "did", "when" find nothing by themselves: only events holding a word of the question are hits.
      expect(ids(page)).not.toContain('lunch')
    }
    // Every word must occur in mode all: no event names Caroline.
    expect(ids(await search(id, { q: question, mode: 'all' }))).toEqual([])
    // A word's other forms: its stem ("running" finds "runs"), an irregular verb's ("go" finds "went").
    expect(ids(await search(id, { q: 'running', mode: 'all' }))).toEqual(['runs'])
    expect(ids(await search(id, { q: 'go support', mode: 'all' }))).toEqual(['answer'])
  })

  it('searches a query of common words alone by them', async () => {
    const id = await conversation()
    expect(ids(await search(id, { q: 'was that', mode: 'any' }))).toContain('bug')
  })

  it('pages the ranking with the cursor, every hit once, the role and scope filters applied', async () => {
    const id = newSessionId()
    await append(id, [
      ...Array.from({ length: 9 }, (_, i) => user(`deploy note ${i} for friday`, `d${i}`)),
      ...Array.from({ length: 4 }, (_, i) => assistant(`friday plans ${i}`, `f${i}`)),
    ])
    for (const filter of [{}, { role: 'assistant' }, { role: 'user' }] as Record<string, string>[]) {
      const seen: string[] = []
      let cursor: string | null = null
      do {
        const page: { hits: Hit[]; nextCursor: string | null } = await search(id, {
          q: 'deploy friday',
          limit: '4',
          ...filter,
          ...(cursor ? { cursor } : {}),
        })
        expect(page.hits.length).toBeLessThanOrEqual(4)
        seen.push(...ids(page))
        cursor = page.nextCursor
      } while (cursor)
      const expected = [
        ...('role' in filter && filter.role === 'assistant' ? [] : Array.from({ length: 9 }, (_, i) => `d${i}`)),
        ...('role' in filter && filter.role === 'user' ? [] : Array.from({ length: 4 }, (_, i) => `f${i}`)),
      ]
      expect(seen.sort(), JSON.stringify(filter)).toEqual(expected.sort())
    }
    // The deploy notes hold both words: they come first.
    const first = await search(id, { q: 'deploy friday', limit: '9' })
    expect(ids(first).every((hit) => hit.startsWith('d'))).toBe(true)
    // Compaction hides all but the newest turn: covered and view split the hits.
    await call('POST', `/v1/sessions/${id}/compact`, { body: { strategy: { window: { lastTurns: 1 } } } })
    const shown = new Set(((await call('GET', `/v1/sessions/${id}/view`)).body.events as { id: string }[]).map((e) => e.id))
    const covered = await search(id, { q: 'friday plans', scope: 'covered', limit: '100' })
    const view = await search(id, { q: 'friday plans', scope: 'view', limit: '100' })
    expect(ids(view).sort()).toEqual(['d8', 'f0', 'f1', 'f2', 'f3'])
    expect(ids(view).every((hit) => shown.has(hit))).toBe(true)
    expect(covered.hits.every((hit) => hit.covered && !shown.has(hit.event.id))).toBe(true)
    expect(ids(covered).sort()).toEqual(Array.from({ length: 8 }, (_, i) => `d${i}`))
  })

  it('400s an unknown mode, naming it', async () => {
    const id = await conversation()
    const result = await call('GET', `/v1/sessions/${id}/search?q=bug&mode=fuzzy`)
    expectError(result, 400, 'invalid_request')
    expect(result.body.error.message).toContain('mode')
  })
})

describe('a session indexed before stems', () => {
  it('is searched as before until its index is made anew in the background, then by stems', async () => {
    const id = newSessionId()
    await append(id, [user('He runs every morning', 'runs'), ...Array.from({ length: 999 }, (_, i) => user(`note ${i}`))])
    await append(
      id,
      Array.from({ length: 501 }, (_, i) => user(`note ${999 + i}`)),
    )
    const stub = sessionStub(env, 'alice', id)
    // Its storage as migration v17 leaves such a session: the old index of whole words kept, the new one to fill.
    await runInDurableObject(stub, (instance, state) => {
      const sql = state.storage.sql
      sql.exec(`CREATE VIRTUAL TABLE search_exact USING fts5(text, tokenize = 'unicode61 remove_diacritics 2')`)
      sql.exec('INSERT INTO search_exact (rowid, text) SELECT rowid, text FROM search')
      sql.exec('DELETE FROM search')
      sql.exec('INSERT INTO search_rebuild (singleton, below) VALUES (1, 1502)')
      // The object as a new instance finds it: nothing known of its index yet.
      ;(instance as unknown as { storage: SessionStorage }).storage.searchIndex.reset()
    })
    // The first search reads the old index (every event in it, whole words), and sets the filling going.
    expect(ids(await search(id, { q: 'runs', mode: 'all' }))).toEqual(['runs'])
    const rebuilt = () =>
      runInDurableObject(
        stub,
        (_instance, state) =>
          state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'search_exact'").toArray().length === 0,
      )
    await until(rebuilt, 'the index made anew')
    expect(ids(await search(id, { q: 'running', mode: 'all' }))).toEqual(['runs'])
    expect((await search(id, { q: 'note', mode: 'all', limit: '100' })).nextCursor).not.toBeNull()
  })
})
