import type { Candidate, CorpusCounts } from '../../core'

/** One event as a session hands it to its user's search shard: where it is, who said it, when, and its text. */
export interface ShardEvent {
  seq: number
  role: string
  /** The event's timestamp (ISO 8601). */
  at: string
  text: string
}

/** What a session hands over at once: its incarnation (a session id made anew starts over) and new events. */
export interface ShardBatch {
  sessionId: string
  createdAt: string
  events: ShardEvent[]
}

/** A search of a user's sessions as one shard runs it (see `GET /v1/search`). */
export interface ShardQuery {
  q: string
  mode: 'all' | 'any' | 'auto'
  /** Only these sessions (ids). */
  sessions?: string[]
  role?: string
  /** Events at or after this time, before `until` (ISO 8601). */
  since?: string
  until?: string
  /** How many of its best candidates the shard answers (with their neighbours). */
  want: number
}

/** A candidate as a shard answers it: the ranking's features and where the event is. */
export interface ShardCandidate extends Candidate {
  sessionId: string
  createdAt: string
  seq: number
  at: string
}

/** A shard's answer: its counts, each ranking term's document frequency, its best candidates (`more`: it had more than it answered). */
export interface ShardPart {
  corpus: CorpusCounts
  dfs: number[]
  candidates: ShardCandidate[]
  more: boolean
}
