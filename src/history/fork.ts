import type { BlobUpload } from '../contract/blob-upload'
import { newEventId } from '../contract/ids'
import type { ForkedFrom, Policy } from '../contract/schemas'
import type { SessionAddress } from '../contract/session-address'
import {
  allSeqs,
  analyzeView,
  blobRefsOf,
  type Calibration,
  type ClearedEntry,
  clearedById,
  clearedEntry,
  type MessageEvent,
  type Metadata,
  type NewEvent,
  newCompactionEvent,
  type RewindPosition,
} from '../core'
import type { SessionParts } from '../store/log/open-session'
import { viewAsOf } from '../store/log/rewind-plan'
import { type NewSessionInput, newRecord, type SessionRecord } from '../store/log/session-row'
import type { SessionStorage } from '../store/session-storage'
import { newNotice } from '../webhooks'

/** What a fork copies of its source (see {@link forkSourceOf}). */
export interface ForkSource {
  events: MessageEvent[]
  /** Those of `events` pinned at the point: pinned in the fork too. */
  pinned: string[]
  metadata: Metadata
  policy: Policy | null
  calibration: Calibration
  forkedFrom: ForkedFrom
  /** The images and documents `events` name, streamed to the fork (null: none). */
  blobs: BlobUpload | null
  /** Those of `events` the view shows cleared: the fork shows them cleared too. */
  cleared: ClearedEntry[]
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
  const ids = new Set(events.map((event) => event.id))
  const clearing = asOf ? (asOf.named?.boundary.cleared ?? []) : view.clearedOf(record).cleared
  return {
    cleared: clearing.filter((entry) => ids.has(entry.eventId)),
    blobs: parts.blobs.upload([...new Set(events.flatMap((event) => blobRefsOf(event.message)))]),
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

/**
 * A fork's log: the source's view events, the same ids, timestamps and summaries, placed anew —
 * and when the view shows some of them cleared, a COMPACTION after them that clears them the same
 * way (the fork's log keeps them whole, as the source's does).
 */
export function forkEvents(fork: ForkSource, draft: { id: string; timestamp: string }): NewEvent[] {
  const events: NewEvent[] = fork.events.map(({ seq: _seq, ...event }) => event)
  if (fork.cleared.length === 0) return events
  const tokensBefore = analyzeView(fork.events).tokens
  const cleared = clearedById(fork.cleared)
  const tokensAfter = analyzeView(
    fork.events.map((event) => (cleared.has(event.id) ? clearedEntry(event, cleared.get(event.id)!) : event)),
  ).tokens
  const boundary = newCompactionEvent(draft, {
    pinned: [],
    summary: [],
    preserved: fork.events.map((event) => event.id),
    coveredEventCount: 0,
    tokensEstimatedSaved: tokensBefore - tokensAfter,
    tokensBefore,
    tokensAfter,
    cleared: fork.cleared,
  })
  return [...events, boundary]
}

/**
 * What a fork of this storage's session copies (see {@link forkSourceOf}); `SessionMissingError`
 * when there is no session.
 */
export async function forkSource(storage: SessionStorage, at: string | undefined, position: RewindPosition): Promise<ForkSource> {
  return forkSourceOf(storage.parts, await storage.existing(), at, position)
}

/**
 * Creates this storage's session as a fork of another (see {@link forkRecord}), its pinned
 * messages pinned, `session.forked` told of the source; `SessionExistsError` when it exists.
 *
 * @example
 * const record = await createFork(storage, address, await forkSource(source, undefined, 'at'))
 */
export function createFork(
  storage: SessionStorage,
  address: SessionAddress,
  fork: ForkSource & { ttlSeconds?: number },
): Promise<SessionRecord> {
  const creates = storage.creating({
    metadata: fork.metadata,
    policy: fork.policy,
    ...(fork.ttlSeconds ? { ttlSeconds: fork.ttlSeconds } : {}),
  })
  const forked = newNotice('session.forked', fork.forkedFrom.sessionId, { forkId: address.sessionId })
  const options = { pinned: new Set(fork.pinned), copied: true, notices: [forked] }
  const events = forkEvents(fork, { id: newEventId(), timestamp: new Date().toISOString() })
  return storage.createWith(forkRecord(address, fork, creates), events, options, fork.blobs)
}

/**
 * `POST /fork`: the source's view as of `at` (else the view now) handed to the fork's own object
 * (`create`, which writes it: see {@link createFork}), with the input's metadata and ttl else the
 * source's. The source is unchanged.
 */
export async function forkInto<T>(
  source: SessionStorage,
  input: { at?: string; position?: RewindPosition; metadata?: Record<string, unknown>; ttlSeconds?: number },
  create: (fork: ForkSource & { ttlSeconds?: number }) => Promise<T>,
): Promise<T> {
  const fork = await forkSource(source, input.at, input.position ?? 'at')
  return create({
    ...fork,
    ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
    ...(input.ttlSeconds !== undefined ? { ttlSeconds: input.ttlSeconds } : {}),
  })
}
