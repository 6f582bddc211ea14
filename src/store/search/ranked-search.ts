import { type QueryTerm, rankGathered } from '../../core'
import { literalInt, literalLimit, type Sql } from '../../sql'
import { corpusOf, lengthsOf } from './fts-stats'
import { gather, type RankSource } from './gather'
import type { SearchTables } from './search-tables'

/** A ranked match of a session's search: its seq, its score, whether it holds every word. */
export interface RankedMatch {
  seq: number
  score: number
  match: 'all' | 'any'
}

/** A query as a ranking takes it: its ranking terms, its expression (every word), whether those are its words alone. */
export interface RankedQuery {
  terms: readonly QueryTerm[]
  all: string
  allIsEveryTerm: boolean
}

/** Which of a session's events a ranking looks at: a role, seqs in [atLeast, below). */
export interface RankedScope {
  role?: string
  atLeast?: number
  below?: number
}

/**
 * A session's events ranked by any of a query's words (modes `any` and `auto`; see the core's
 * `rankGathered`), found through its index (see `./gather`: the cost follows the bounds there,
 * never the log's length).
 *
 * @example
 * new RankedSearch(sql, tables).rank({ terms, all: ftsExpression(q)!, allIsEveryTerm: false }, record.version, {}, true)
 */
export class RankedSearch {
  constructor(
    private readonly sql: Sql,
    private readonly tables: SearchTables,
  ) {}

  /** The events holding any of `terms`, best first; with `allFirst`, those holding every word (`all`) first. */
  rank(query: RankedQuery, version: number, scope: RankedScope, allFirst: boolean): RankedMatch[] {
    const t = this.tables.read()
    // Newest first is rowid order (rowid = -seq).
    // Written into the statements (see `literalInt`): FTS5 then seeks to the range.
    const [from, to] = [literalInt(-(scope.below ?? Number.MAX_SAFE_INTEGER)), literalInt(-(scope.atLeast ?? 0))]
    const role = scope.role ?? null
    const source: RankSource = {
      corpus: () => corpusOf(this.sql, t),
      span: () => version,
      matching: (expression, limit) =>
        (role === null
          ? this.sql.all<{ rowid: number }>`SELECT rowid FROM ${t}
              WHERE ${t} MATCH ${expression} AND rowid > ${from} AND rowid <= ${to} ORDER BY rowid ${literalLimit(limit)}`
          : this.sql.all<{ rowid: number }>`SELECT ${t}.rowid AS rowid FROM ${t} JOIN events ON events.seq = -${t}.rowid
              WHERE ${t} MATCH ${expression} AND ${t}.rowid > ${from} AND ${t}.rowid <= ${to} AND events.role = ${role}
              ORDER BY ${t}.rowid ${literalLimit(limit)}`
        ).map((row) => row.rowid),
      between: (expression, low, high, limit) =>
        this.sql.all<{ rowid: number }>`SELECT rowid FROM ${t}
            WHERE ${t} MATCH ${expression} AND rowid >= ${literalInt(low)} AND rowid <= ${literalInt(high)}
            ORDER BY rowid ${literalLimit(limit)}`.map((row) => row.rowid),
    }
    const { corpus, dfs, found } = gather(source, query.terms, query.all, query.allIsEveryTerm)
    const rowids = found.map((event) => event.rowid)
    const lengths = found.length > 1 ? lengthsOf(this.sql, t, rowids) : new Map<number, number>()
    const candidates = found.map(({ rowid, holds, all }) => ({
      group: '',
      position: -rowid,
      order: -rowid,
      length: lengths.get(rowid) ?? 0,
      holds,
      all,
    }))
    return rankGathered([{ corpus, dfs, candidates }], allFirst).map(({ candidate, score }) => ({
      seq: candidate.position,
      score,
      match: candidate.all ? 'all' : 'any',
    }))
  }
}
