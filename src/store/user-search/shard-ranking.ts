import { queryTerms, rankGathered, rankingTerms } from '../../core'
import { literalInt, literalLimit, type Sql } from '../../sql'
import { ftsExpression } from '../search/fts-expression'
import { gather, HOLDING_SCAN, type RankSource } from '../search/gather'
import type { ShardIndex } from './shard-index'
import type { ShardCandidate, ShardPart, ShardQuery } from './shard-types'

const EMPTY: ShardPart = { corpus: { documents: 0, tokens: 0 }, dfs: [], candidates: [], more: false }

type Described = { id: number; session: string; created_at: string; gone: number; seq: number; at: string; length: number }

/**
 * A search of the sessions a shard holds, as the session's own ranking (see `store/search/gather`
 * and the core's `rankGathered`), with the filters of `GET /v1/search`: sessions, a role, a time
 * range. A filter looks at each term's newest {@link HOLDING_SCAN} matches. The shard answers its
 * `want` best candidates and, for each, its neighbours among the candidates (their scores add to
 * its own when the Worker ranks every shard's together), with its counts.
 *
 * @example
 * shardRanking(sql, index, { q: 'login bug', mode: 'auto', want: 20 })
 */
export function shardRanking(sql: Sql, index: ShardIndex, query: ShardQuery): ShardPart {
  const expression = ftsExpression(query.q)
  if (expression === null || !index.exists()) return EMPTY
  const terms = queryTerms(query.q)
  const ranking = rankingTerms(terms)
  const filtered =
    query.sessions !== undefined || query.role !== undefined || query.since !== undefined || query.until !== undefined
  const only = JSON.stringify(query.sessions ?? [])
  const source: RankSource = {
    corpus: () => sql.first<{ documents: number; tokens: number }>`SELECT documents, tokens FROM counts`!,
    span: () => sql.first<{ n: number | null }>`SELECT max(id) AS n FROM docs`?.n ?? 0,
    matching: (match, limit) =>
      (filtered
        ? sql.all<{ rowid: number }>`SELECT m.rowid AS rowid
            FROM (SELECT rowid FROM words WHERE words MATCH ${match} ORDER BY rowid ${literalLimit(HOLDING_SCAN)}) AS m
            JOIN docs ON docs.id = -m.rowid JOIN sessions ON sessions.key = docs.session
            WHERE (${query.sessions === undefined ? 1 : 0} OR sessions.id IN (SELECT value FROM json_each(${only})))
              AND (${query.role ?? null} IS NULL OR docs.role = ${query.role ?? null})
              AND docs.at >= ${query.since ?? ''} AND docs.at < ${query.until ?? '\uffff'}
            ORDER BY m.rowid ${literalLimit(limit)}`
        : sql.all<{ rowid: number }>`SELECT rowid FROM words WHERE words MATCH ${match} ORDER BY rowid ${literalLimit(limit)}`
      ).map((row) => row.rowid),
    between: (match, low, high, limit) =>
      sql.all<{ rowid: number }>`SELECT rowid FROM words
          WHERE words MATCH ${match} AND rowid >= ${literalInt(low)} AND rowid <= ${literalInt(high)}
          ORDER BY rowid ${literalLimit(limit)}`.map((row) => row.rowid),
  }
  const { corpus, dfs, found } = gather(source, ranking, expression, ranking.length === terms.length)
  const described = new Map<number, Described>()
  for (const row of sql.all<Described>`SELECT docs.id, sessions.id AS session, sessions.created_at, sessions.gone,
      docs.seq, docs.at, docs.length FROM docs JOIN sessions ON sessions.key = docs.session
      WHERE docs.id IN (SELECT -value FROM json_each(${JSON.stringify(found.map((event) => event.rowid))}))`) {
    described.set(row.id, row)
  }
  const candidates: ShardCandidate[] = []
  for (const { rowid, holds, all } of found) {
    const doc = described.get(-rowid)
    // A gone session's events wait for their purge: never a candidate.
    if (!doc || doc.gone) continue
    if (query.mode === 'all' && !all) continue
    const group = `${doc.session}\n${doc.created_at}`
    // Ties newest first by the event's time: shards' doc ids are their own.
    candidates.push({ group, position: doc.seq, order: Date.parse(doc.at) || 0, length: doc.length, holds, all, ...where(doc) })
  }
  return { corpus, dfs, candidates: best(candidates, { corpus, dfs }, query), more: candidates.length > query.want }
}

const where = (doc: Described) => ({ sessionId: doc.session, createdAt: doc.created_at, seq: doc.seq, at: doc.at })

/** The `want` best candidates by this shard's own counts, each with its neighbours among the candidates. */
function best(candidates: ShardCandidate[], counts: Pick<ShardPart, 'corpus' | 'dfs'>, query: ShardQuery): ShardCandidate[] {
  if (candidates.length <= query.want) return candidates
  const ranked = rankGathered([{ ...counts, candidates }], query.mode === 'auto')
  const byPlace = new Map(candidates.map((candidate) => [`${candidate.group}\n${candidate.position}`, candidate]))
  const kept = new Set<ShardCandidate>()
  for (const { candidate } of ranked.slice(0, query.want)) {
    kept.add(candidate)
    for (const by of [-1, 1]) {
      const neighbour = byPlace.get(`${candidate.group}\n${candidate.position + by}`)
      if (neighbour) kept.add(neighbour)
    }
  }
  return [...kept]
}
