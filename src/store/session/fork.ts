import type { ForkedFrom, Policy } from '../../contract/schemas'
import type { SessionAddress } from '../../contract/session-address'
import { allSeqs, type Calibration, type MessageEvent, type Metadata, type RewindPosition } from '../../core'
import type { SessionParts } from './open-session'
import { viewAsOf } from './rewind-plan'
import { type NewSessionInput, newRecord, type SessionRecord } from './session-row'

/** What a fork copies of its source (see {@link forkSourceOf}). */
export interface ForkSource {
  events: MessageEvent[]
  /** Those of `events` pinned at the point: pinned in the fork too. */
  pinned: string[]
  metadata: Metadata
  policy: Policy | null
  calibration: Calibration
  forkedFrom: ForkedFrom
}

/**
 * What a fork of a session copies: the view as of `at` (by default the view now), as whole
 * events in view order, with the session's metadata, policy and calibration, and where it was
 * taken. Its cost follows that view, never the log.
 */
export function forkSourceOf(
  parts: SessionParts,
  record: SessionRecord,
  at: string | undefined,
  position: RewindPosition,
): ForkSource {
  const { log, view, pins } = parts
  const asOf = at === undefined ? null : viewAsOf(log, { to: at, position }, 'at')
  const seqs = asOf ? Int32Array.from(asOf.restored, (entry) => entry.seq) : allSeqs(view.snapshot(record))
  const pinned = asOf ? pins.pinnedAsOf(asOf.end) : new Set(pins.pinned().keys())
  // Without a point, the log's newest event says where it was taken, whatever its type (docs/http-api.md, Forking).
  const eventId = at ?? (record.version === 0 ? null : log.range(record.version, record.version)[0]!.id)
  const events = [...view.eventsOf(seqs)]
  return {
    events,
    pinned: events.flatMap((event) => (pinned.has(event.id) ? [event.id] : [])),
    metadata: record.metadata,
    policy: record.policy,
    calibration: record.calibration,
    forkedFrom: { sessionId: record.id, eventId, position: at === undefined ? 'at' : position, version: record.version },
  }
}

/** A fork's row: a new session's, with the source's calibration and where it was forked. */
export const forkRecord = (address: SessionAddress, fork: ForkSource, creates: NewSessionInput): SessionRecord => ({
  ...newRecord(address, creates),
  calibration: fork.calibration,
  forkedFrom: fork.forkedFrom,
})

/** A fork's log: the source's view events, the same ids, timestamps and summaries, placed anew. */
export const forkEvents = (fork: ForkSource) => fork.events.map(({ seq: _seq, ...event }) => event)
