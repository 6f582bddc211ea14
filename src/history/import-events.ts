import { ServiceError, serviceErrorOf } from '../contract/errors'
import type { ImportEvent, ImportLines, ImportResultJson } from '../contract/schemas'
import type { SessionAddress } from '../contract/session-address'
import {
  type Message,
  type NewEvent,
  newCompactionEvent,
  newMessageEvent,
  newPinsEvent,
  newRewindEvent,
  type SessionEvent,
  type TokenEstimator,
} from '../core'
import type { StagedBlob } from '../core/media/blob'
import type { SessionParts } from '../store/log/open-session'
import { planRewind } from '../store/log/rewind-plan'
import { type NewSessionInput, newRecord, type SessionRecord } from '../store/log/session-row'
import type { WriteOptions } from '../store/log/session-writer'
import type { SessionStorage } from '../store/session-storage'

/**
 * A `jsonl` import (docs/export-format.md) into a session: events keep their ids, timestamps,
 * metadata and boundaries, in file order; those the log holds already (same id, same content) are
 * skipped, so a large export goes in in parts; every id an event names must be in the log or in
 * the import. All of it is written, or nothing: every check comes before the first write, and the
 * writes are one synchronous run (the object commits them together).
 */
export function importEvents(
  parts: SessionParts,
  existing: SessionRecord | null,
  address: SessionAddress,
  { events }: ImportLines,
  estimator: TokenEstimator,
  creates: NewSessionInput,
  blobs: ReadonlyMap<string, StagedBlob> = new Map(),
): ImportResultJson & { created: boolean } {
  const { log, writer, row } = parts
  const stored = existing ? log.byIds(events.map(({ event }) => event.id)) : new Map<string, SessionEvent>()
  const fresh: ImportLines['events'] = []
  const seen = new Map<string, number>()
  for (const item of events) {
    const { line, event } = item
    const twice = seen.get(event.id)
    if (twice !== undefined) throw refused(line, `"${event.id}" is also the id of line ${twice}`)
    seen.set(event.id, line)
    const found = stored.get(event.id)
    if (!found) {
      fresh.push(item)
      continue
    }
    if (canonical(contentOf(found)) !== canonical(contentOf(event)))
      throw new ServiceError('id_conflict', `line ${line}: "${event.id}" is in the log with other content`)
    if (fresh.length > 0)
      throw refused(line, `"${event.id}" is in the log already, after events that are not: import in file order`)
  }
  // A session not yet stored has no tables to look in.
  const typesInLog = (ids: string[]) =>
    new Map<string, string>(existing ? [...log.byIds(ids).values()].map((event) => [event.id, event.type]) : [])
  checkNames(fresh, typesInLog)
  const skipped = events.length - fresh.length
  if (fresh.length === 0 && existing) return { imported: 0, skipped, version: existing.version, created: false }

  // The writes: a run of events after each boundary, as the service writes them itself; all or none.
  const version = writer.atomically(() => {
    let record = existing ?? newRecord(address, creates)
    if (fresh.length === 0) writer.commit(record, [])
    for (const run of runsAtBoundaries(fresh)) {
      const events = run.map(({ event }) => newEventOf(event, estimator))
      inLine(
        run[0]!.line,
        () => writer.commit(record, events, { ...runOptions(parts, record, run), blobs }),
        'what it names does not make a view here',
      )
      record = row.stored()!
    }
    return record.version
  })
  return { imported: fresh.length, skipped, version, created: existing === null }
}

/** How a run is written: a REWIND's branch recorded, an undo's pass, the messages appended pinned. */
function runOptions(parts: SessionParts, record: SessionRecord, run: ImportLines['events']): WriteOptions {
  const { line, event } = run[0]!
  const options: WriteOptions = { copied: true }
  if (event.type === 'REWIND') {
    const { to, position } = event.rewind
    options.branch = inLine(line, () => planRewind(parts, record, { to, position }, 'rewind.to')).branch
  }
  if (event.type === 'COMPACTION' && event.boundary.undoes) options.undoes = parts.log.placeOf(event.boundary.undoes)?.seq ?? 0
  const pinned = run.filter(({ event: e }) => e.type === 'MESSAGE' && e.pinned && e.message.role !== 'system')
  options.pinned = new Set(pinned.map(({ event: e }) => e.id))
  return options
}

const refused = (line: number, message: string) => new ServiceError('invalid_request', `line ${line}: ${message}`)

/** A check's 400 named by the line it is about; any other failure too, when `otherwise` says what it means. */
function inLine<T>(line: number, work: () => T, otherwise?: string): T {
  try {
    return work()
  } catch (error) {
    const known = serviceErrorOf(error)
    if (known?.code === 'invalid_request') throw refused(line, known.message)
    if (otherwise && !known) throw refused(line, `${otherwise} (${(error as Error).message})`)
    throw error
  }
}

/** What an event is, for comparing an imported one with the stored one: all but where it stands and what is derived. */
const contentOf = (event: SessionEvent | ImportEvent) => {
  const { seq: _seq, tokens: _tokens, pinned: _pinned, ...content } = event as Record<string, unknown>
  return content
}

/** JSON with every object's keys sorted: the same for the same content. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  )
}

/** The ids an event names, with the kind of event each must be: a boundary's view, a REWIND's point and a PINS event's ids are messages, an undo's pass a COMPACTION. */
function namesOf(event: ImportEvent): [string, 'MESSAGE' | 'COMPACTION'][] {
  const messages = (ids: string[]) => ids.map((id): [string, 'MESSAGE'] => [id, 'MESSAGE'])
  switch (event.type) {
    case 'MESSAGE':
      return []
    case 'PINS':
      return messages([...event.pins.pin, ...event.pins.unpin])
    default: {
      const { pinned, summary, preserved, held = [], undoes, cleared = [] } = event.boundary
      const to = event.type === 'REWIND' && event.rewind.to !== null ? [event.rewind.to] : []
      const pass: [string, 'COMPACTION'][] = undoes ? [[undoes, 'COMPACTION']] : []
      const clearedIds = cleared.map((entry) => entry.eventId)
      return [...messages([...pinned, ...summary, ...preserved, ...held, ...clearedIds, ...to]), ...pass]
    }
  }
}

/**
 * Every id the import's events name is an event of the kind it must be, in the import or in the
 * log (`typesInLog`: the types of those of these ids it holds), else a 400 naming the line.
 */
function checkNames(fresh: ImportLines['events'], typesInLog: (ids: string[]) => Map<string, string>): void {
  const imported = new Map<string, string>(fresh.map(({ event }) => [event.id, event.type]))
  const wanted = new Map<string, { line: number; kind: string }>()
  for (const { line, event } of fresh)
    for (const [id, kind] of namesOf(event)) {
      const type = imported.get(id)
      if (type !== undefined && type !== kind) throw refused(line, `names "${id}" as a ${kind}, which it is not`)
      if (type === undefined && !wanted.has(id)) wanted.set(id, { line, kind })
    }
  if (wanted.size === 0) return
  const found = typesInLog([...wanted.keys()])
  for (const [id, { line, kind }] of wanted) {
    const type = found.get(id)
    if (type === undefined) throw refused(line, `names "${id}", which is neither in the log nor in this import`)
    if (type !== kind) throw refused(line, `names "${id}" as a ${kind}, which it is not`)
  }
}

/** The events in runs, each starting at a boundary (the first may not). */
function runsAtBoundaries(events: ImportLines['events']): ImportLines['events'][] {
  const runs: ImportLines['events'][] = []
  for (const item of events) {
    if (runs.length === 0 || item.event.type === 'COMPACTION' || item.event.type === 'REWIND') runs.push([])
    runs.at(-1)!.push(item)
  }
  return runs
}

/** An imported event as it is written: as it was, its tokens estimated again. */
function newEventOf(event: ImportEvent, estimator: TokenEstimator): NewEvent {
  const draft = { id: event.id, timestamp: event.timestamp, metadata: event.metadata }
  switch (event.type) {
    case 'MESSAGE':
      return newMessageEvent({ ...draft, synthetic: event.synthetic, message: event.message as Message }, estimator)
    case 'COMPACTION':
      return newCompactionEvent(draft, event.boundary)
    case 'REWIND':
      return newRewindEvent(draft, event.boundary, event.rewind)
    case 'PINS':
      return newPinsEvent(draft, event.pins)
  }
}

/**
 * `POST /import` of a `jsonl` export (see {@link importEvents}), creating the session when it does
 * not exist, with the export header's metadata and policy.
 *
 * @example
 * const { imported, skipped } = await importJsonl(storage, address, lines)
 */
export async function importJsonl(
  storage: SessionStorage,
  address: SessionAddress,
  lines: ImportLines,
  blobs: ReadonlyMap<string, StagedBlob> = new Map(),
): Promise<ImportResultJson> {
  const creates = storage.creating({ metadata: lines.header?.metadata ?? {}, policy: lines.header?.policy ?? null })
  const found = await storage.find()
  const { created, ...result } = importEvents(storage.parts, found, address, lines, storage.estimator, creates, blobs)
  if (created) await storage.parts.writer.created(storage.parts.row.stored()!)
  return result
}
