import { describe, expect, it } from 'vitest'
import { SearchShard } from '../../src/object/search-shard'
import { append, call, newSessionId, newTag, turn, until, user, wholeLog } from '../helpers'
import { expectNothingLost } from '../support/log-checker'

/** Faults across a user's sessions: a search across them racing a delete; writers of one memory file from several sessions at once. */

let users = 0
const newUser = () => `across-${Date.now().toString(36)}-${++users}`

const search = (q: string, as: string) => call('GET', `/v1/search?${new URLSearchParams({ q })}`, { user: as })

/**
 * Holds every search shard's answer (in this isolate) until `release`: `reached` resolves once a
 * search has its shards' candidates and waits. Undone by `restore`.
 */
function holdShardSearches() {
  const original = SearchShard.prototype.search
  let reached!: () => void
  let release!: () => void
  const held = {
    reached: new Promise<void>((resolve) => {
      reached = resolve
    }),
    gate: new Promise<void>((resolve) => {
      release = resolve
    }),
  }
  SearchShard.prototype.search = async function (this: SearchShard, ...args: Parameters<SearchShard['search']>) {
    const part = original.apply(this, args)
    reached()
    await held.gate
    return part
  } as unknown as SearchShard['search']
  return {
    reached: held.reached,
    release: () => release(),
    restore: () => {
      SearchShard.prototype.search = original
    },
  }
}

/** A session of `as` holding `text` (event `eventId`), found by a search across sessions (its hand-over has run). */
async function searchable(as: string, id: string, eventId: string, word: string) {
  await append(id, [user(`${word} to forget`, eventId)], as)
  await until(async () => (await search(word, as)).body.hits.length === 1, 'the session handed over to its shard')
}

describe('a search across sessions racing a session’s delete', () => {
  it('the session deleted after the shards answered, before the search reads its hits: nothing of it is returned', async () => {
    const as = newUser()
    const word = `racing${newTag()}`
    const id = newSessionId('gone')
    await searchable(as, id, 'doomed', word)
    const shards = holdShardSearches()
    try {
      const searching = search(word, as)
      await shards.reached // the shards hold the deleted session's event as a candidate
      expect((await call('DELETE', `/v1/sessions/${id}`, { user: as })).status).toBe(204)
      shards.release()
      const answer = await searching
      expect(answer.status, answer.text).toBe(200)
      expect(answer.body.hits).toEqual([])
    } finally {
      shards.restore()
    }
    expect((await search(word, as)).body.hits).toEqual([])
  })

  it('the session deleted and created again under its id meanwhile: the old incarnation’s candidate is not answered from the new one', async () => {
    const as = newUser()
    const word = `reborn${newTag()}`
    const id = newSessionId('reborn')
    await searchable(as, id, 'old-event', word)
    const shards = holdShardSearches()
    try {
      const searching = search(word, as)
      await shards.reached
      expect((await call('DELETE', `/v1/sessions/${id}`, { user: as })).status).toBe(204)
      // The same id again, its event at the candidate's seq without the word.
      await append(id, [user('nothing to find here', 'new-event')], as)
      shards.release()
      const answer = await searching
      expect(answer.status, answer.text).toBe(200)
      expect(answer.body.hits).toEqual([])
    } finally {
      shards.restore()
    }
    expectNothingLost(await wholeLog(id, as))
  })
})

/** A user message the fake `memory` model runs as a script of memory commands: one list of commands a round. */
const script = (...rounds: unknown[]) => `Please remember. MEMORY:${JSON.stringify(rounds)}`
const replace = (old_str: string, new_str: string) => ({ command: 'str_replace', path: '/memories/todo.md', old_str, new_str })
const memoryResults = (events: any[]) =>
  events.flatMap((event) => (event.message?.toolResponses ?? []).filter((r: { name: string }) => r.name === 'memory'))

describe('writers of one memory file in several sessions at once', () => {
  it('each model’s str_replace applies to the version it read: every edit of its own line lands, one of two on the same line, no version lost', async () => {
    const as = newUser()
    const lines = ['a', 'b', 'c', 'd', 'e', 'f']
    const created = await call('PUT', '/v1/memories/todo.md', {
      user: as,
      body: { content: `${lines.map((line) => `${line}: todo`).join('\n')}\ncommon: todo\n` },
    })
    expect(created.status, created.text).toBe(200)
    // Six sessions each mark their own line done, and two of them also the common one: all at once.
    const sessions = lines.map((line) => newSessionId(`mem-${line}`))
    const rounds = (line: string, i: number) =>
      i < 2
        ? [[replace(`${line}: todo`, `${line}: done`)], [replace('common: todo', `common: ${line}`)]]
        : [[replace(`${line}: todo`, `${line}: done`)]]
    const answers = await Promise.all(
      sessions.map((id, i) =>
        turn(id, { content: script(...rounds(lines[i]!, i)), model: `memory#${newTag()}`, memory: true, compaction: false }, as),
      ),
    )
    for (const answer of answers) expect(answer.status, answer.text).toBe(200)
    const file = (await call('GET', '/v1/memories/todo.md', { user: as })).body
    const winner = file.content.match(/common: (a|b)/)?.[1]
    expect(winner, file.content).toBeDefined()
    expect(file.content).toBe(`${lines.map((line) => `${line}: done`).join('\n')}\ncommon: ${winner}\n`)
    // One version a landed edit: the first, six lines, the common line once.
    expect(file.version).toBe(1 + 6 + 1)
    const versions = (await call('GET', '/v1/memories/todo.md/versions', { user: as })).body.versions
    expect(versions.map((v: { version: number }) => v.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
    // The loser was told, in the handler's words, and wrote nothing.
    const common = answers.slice(0, 2).map((answer) => memoryResults(answer.body.events).at(-1).data as string)
    expect(common.filter((text) => text.startsWith('Error: No replacement was performed, old_str `common: todo`'))).toHaveLength(
      1,
    )
    for (const id of sessions) expectNothingLost(await wholeLog(id, as))
  })

  it('a REST writer guarded by the version it read, racing a model’s edit: one lands on the other, or is refused as stale — never lost', async () => {
    const as = newUser()
    ok(await call('PUT', '/v1/memories/todo.md', { user: as, body: { content: 'x: todo\n' } }))
    const id = newSessionId('mem-rest')
    const [model, rest] = await Promise.all([
      turn(
        id,
        { content: script([replace('x: todo', 'x: done')]), model: `memory#${newTag()}`, memory: true, compaction: false },
        as,
      ),
      call('PUT', '/v1/memories/todo.md', { user: as, body: { content: 'x: todo\ny: todo\n' }, headers: { 'If-Match': '"1"' } }),
    ])
    expect(model.status, model.text).toBe(200)
    const file = (await call('GET', '/v1/memories/todo.md', { user: as })).body
    const modelResult = memoryResults(model.body.events)[0].data as string
    if (rest.status === 200) {
      // The PUT came first: the model's edit applied to its version.
      expect(rest.body.version).toBe(2)
      expect(file).toMatchObject({ version: 3, content: 'x: done\ny: todo\n' })
    } else {
      // The model's edit came first: the PUT's version was stale.
      expect(rest.status, rest.text).toBe(412)
      expect(file).toMatchObject({ version: 2, content: 'x: done\n' })
    }
    expect(modelResult).toMatch(/^The memory file has been edited/)
    expectNothingLost(await wholeLog(id, as))
  })
})

function ok(answer: { status: number; text: string }) {
  expect(answer.status, answer.text).toBe(200)
  return answer
}
