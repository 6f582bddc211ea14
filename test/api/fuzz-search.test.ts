/**
 * Search across sessions fuzzed (round4.md §3): random queries (words of the sessions, operators,
 * quotes, stars, odd Unicode, long ones) with random modes, session lists, times, roles, limits,
 * cursors and stray parameters. Never a 5xx; a 400 names the parameter; a page holds at most
 * `limit` hits, each once, each from the caller's own sessions and within the filters asked for.
 */

import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { append, assistant, call, newSessionId, until, user } from '../helpers'

/** A user of this file's own, and another whose sessions hold the same words. */
const AS = `search-fuzz-${Date.now().toString(36)}`
const OTHER = `${AS}-other`
const WORDS = ['zurich', 'budget', 'lighthouse', 'café', 'running', 'deploy', 'login', 'walrus']
const TEXTS: [string, string][] = [
  ['the zurich budget was approved', 'running the numbers on the café budget'],
  ['where is the lighthouse keeper?', 'on the island, near the walrus colony'],
  ['the deploy broke the login page', 'roll back the deploy, then fix login'],
]

let mine: string[]
let theirs: string

/** A session of `as` holding these turns. */
async function sessionOf(as: string, turns: [string, string][]) {
  const id = newSessionId('fuzz-search')
  await append(
    id,
    turns.flatMap(([question, answer], i) => [user(question, `u${i}`), assistant(answer, `a${i}`)]),
    as,
  )
  return id
}

beforeAll(async () => {
  mine = [await sessionOf(AS, [TEXTS[0]!]), await sessionOf(AS, [TEXTS[1]!]), await sessionOf(AS, [TEXTS[2]!])]
  theirs = await sessionOf(OTHER, TEXTS)
  // Each session hands its events to the search shards on its own alarm (within 2 s): wait for all of them.
  const found = async (as: string, count: number) =>
    (await call('GET', `/v1/search?q=${WORDS.join('+')}&mode=any&limit=100`, { user: as })).body?.hits?.length >= count
  await until(() => found(AS, 6), 'the sessions handed over')
  await until(() => found(OTHER, 6), "the other user's session handed over")
}, 30_000)

const token = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...WORDS, 'the', 'when', 'did', 'runs', 'Zürich', 'CAFE', 'ＺＵＲＩＣＨ') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'OR',
      'AND',
      'NOT',
      'NEAR',
      'NEAR(a b)',
      '"',
      '""',
      '*',
      'zur*',
      '^',
      ':',
      'text:',
      '(',
      ')',
      '-',
      '{text}:',
      "';",
      '--',
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom('\u0000', '\ud800', '\u202e', '🙂', 'e\u0301', '\t', '\n', '%', '+', '&', '=') },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
)
const query = fc.oneof(
  // A word the sessions hold among the others, so that most queries find something.
  {
    weight: 6,
    arbitrary: fc
      .tuple(fc.constantFrom(...WORDS), fc.array(token, { maxLength: 7 }), fc.nat())
      .map(([word, tokens, at]) => tokens.toSpliced(at % (tokens.length + 1), 0, word).join(' ')),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', '***', 'x'.repeat(512), 'x'.repeat(513), `${'zurich '.repeat(80)}`) },
)
/** Parameters the route takes, each in range: the search runs. */
const valid = fc.record(
  {
    q: query,
    mode: fc.constantFrom('auto', 'any', 'all'),
    sessions: fc.subarray(['MINE0', 'MINE1', 'MINE2', 'THEIRS'], { minLength: 1 }).map((ids) => ids.join(',')),
    since: fc.constantFrom('2020-01-01T00:00:00Z', '2020-01-01T00:00:00+02:00', new Date(Date.now() - 3600_000).toISOString()),
    until: fc.constantFrom('2999-01-01T00:00:00Z', new Date(Date.now() + 3600_000).toISOString()),
    role: fc.constantFrom('user', 'assistant', 'system', 'tool'),
    limit: fc.integer({ min: 1, max: 100 }).map(String),
    cursor: fc.constant('PREVIOUS'),
  },
  { requiredKeys: ['q'] },
)
/** A parameter out of range, unknown, or odd. */
const hostile = fc.oneof(
  fc.record({ mode: fc.oneof(fc.constantFrom('fuzzy', 'ALL', ''), fc.string({ maxLength: 5 })) }),
  fc.record({
    sessions: fc.oneof(
      fc.constantFrom(
        '',
        ',',
        'MINE0,,MINE1',
        'nope',
        '..',
        'MINE0,MINE0',
        Array.from({ length: 101 }, (_, i) => `s${i}`).join(','),
      ),
      fc.string({ maxLength: 12 }),
    ),
  }),
  fc.record({
    since: fc.oneof(
      fc.constantFrom('2020-01-01', 'yesterday', '2020-13-01T00:00:00Z', '0', ''),
      fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
    ),
  }),
  fc.record({ until: fc.constantFrom('2020-01-01', 'tomorrow', '2999-02-30T00:00:00Z', '') }),
  fc.record({ role: fc.constantFrom('robot', 'USER', '') }),
  fc.record({ limit: fc.constantFrom('0', '-1', '101', '1e3', 'abc', '2.5', '') }),
  fc.record({ cursor: fc.oneof(fc.constantFrom('nope', '', 'eyJ4IjoxfQ'), fc.string({ maxLength: 12 })) }),
  fc.record({ scope: fc.constantFrom('all', 'view'), branches: fc.constant('all') }, { requiredKeys: [] }),
  // q given twice.
  fc.constant({ twice: 'walrus' }),
)
const params = fc
  .tuple(valid, fc.oneof({ weight: 2, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: hostile }))
  .map(([sent, odd]): Record<string, string> => ({ ...sent, ...odd }))

/** The parameters as a query string, placeholders resolved; `twice`: q given twice. */
function queryString(sent: Record<string, string>, previous: string | null) {
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(sent)) {
    // The cursor of the page before, when there was one.
    if (name === 'twice' || (value === 'PREVIOUS' && previous === null)) continue
    const resolved = value
      .replace(/MINE(\d)/g, (_, i) => mine[Number(i)]!)
      .replace('THEIRS', theirs)
      .replace('PREVIOUS', previous ?? '')
    search.append(name, resolved)
  }
  if (sent.twice) search.append('q', sent.twice)
  return search.toString()
}

describe('GET /v1/search, fuzzed', () => {
  it('never answers 5xx; a 400 names the parameter; a page is the caller’s own hits, within its filters, at most limit, each once', async () => {
    let previous: string | null = null
    await fc.assert(
      fc.asyncProperty(params, async (sent) => {
        const path = `/v1/search?${queryString(sent, previous)}`
        const result = await call('GET', path, { user: AS })
        const what = `${decodeURIComponent(path).slice(0, 400)} → ${result.status} ${result.text.slice(0, 300)}`
        expect(result.status, what).toBeLessThan(500)
        if (result.status >= 400) {
          expect(result.status, what).toBe(400)
          expect(Object.keys(result.body.error).sort(), what).toEqual(['code', 'message'])
          expect(result.body.error.message, what).toMatch(
            /^(query\.)?(q|mode|sessions|since|until|role|limit|cursor|scope|branches)(\[\d+\])?: /,
          )
          return
        }
        const { hits, nextCursor } = result.body as { hits: any[]; nextCursor: string | null }
        previous = nextCursor
        const limit = sent.limit === undefined ? 20 : Number(sent.limit)
        expect(hits.length, what).toBeLessThanOrEqual(limit)
        const keys = hits.map((hit) => `${hit.sessionId}/${hit.event.id}`)
        expect(new Set(keys).size, what).toBe(keys.length)
        const asked = sent.sessions === undefined ? mine : queryString({ s: sent.sessions }, null).slice(2).split('%2C')
        for (const hit of hits) {
          expect(mine, what).toContain(hit.sessionId)
          expect(asked.map(decodeURIComponent), what).toContain(hit.sessionId)
          expect(['all', 'any'], what).toContain(hit.match)
          if (sent.role !== undefined) expect(hit.event.message.role, what).toBe(sent.role)
          if (sent.since !== undefined)
            expect(Date.parse(hit.event.timestamp), what).toBeGreaterThanOrEqual(Date.parse(sent.since))
          if (sent.until !== undefined) expect(Date.parse(hit.event.timestamp), what).toBeLessThan(Date.parse(sent.until))
        }
      }),
      { numRuns: 400, seed: 3 },
    )
  })
})
