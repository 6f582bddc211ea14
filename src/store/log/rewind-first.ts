import {
  type NewEvent,
  type NewRewindEvent,
  newRewindEvent,
  PackedColumns,
  type RewindPoint,
  RewindPointError,
  type RewindReason,
  type ViewColumns,
} from '../../core'
import type { Branch, SessionBranches } from './branches'
import type { SessionLog } from './log'
import { planRewind } from './rewind-plan'
import type { SessionRecord } from './session-row'
import type { ViewCache } from './view-cache'

/** A rewind the request's first write begins with; until then the session reads as its view. */
export interface PendingRewind {
  event: NewRewindEvent
  view: ViewColumns
  branch: Branch | null
}

/**
 * A request's rewind held until its first write (`OpenSession.rewindFirst`): that write begins
 * with the REWIND, so nothing is written if the request writes nothing; until then its reads see
 * the view as of the point.
 *
 * @example
 * const rewind = new RewindFirst({ log, view, branches }, () => memo.clear())
 * rewind.begin(record, { to: 'evt_3', position: 'before' }, 'edit', 'rewind.to', newEventId())
 * await rewind.carrying(events, (all, branch) => writer.write(record, all, { branch }))
 */
export class RewindFirst {
  private rewind: PendingRewind | null = null

  constructor(
    private readonly parts: { log: SessionLog; view: ViewCache; branches: SessionBranches },
    /** Called whenever what the request reads changes (a rewind begun, or written): its kept reads are stale. */
    private readonly changed: () => void,
  ) {}

  /** The rewind the request's first write begins with (null: none). */
  get pending(): PendingRewind | null {
    return this.rewind
  }

  /**
   * Takes the view back to a point of `record`'s log (see `planRewind`; `field` names the point in
   * a `RewindPointError`); answers what the rewind abandons, or null when the view would not
   * change (no REWIND then).
   */
  begin(
    record: SessionRecord | null,
    point: RewindPoint,
    reason: RewindReason,
    field: string,
    id: string,
  ): { abandoned: number } | null {
    if (!record) {
      if (point.to === null) return null
      throw new RewindPointError(`${field}: no event ${JSON.stringify(point.to)} in this session`)
    }
    const plan = planRewind(this.parts, record, point, field)
    if (plan.boundary === null) return null
    const view = new PackedColumns()
    for (const entry of plan.restored) view.push(entry)
    const event = newRewindEvent({ id, timestamp: new Date().toISOString() }, plan.boundary, { ...point, reason })
    this.rewind = { event, view: view.prefix(), branch: plan.branch }
    this.changed()
    return { abandoned: plan.abandoned }
  }

  /** A write of these events, the pending rewind first (with its branch); then the session reads as stored again. */
  async carrying<T>(events: NewEvent[], write: (events: NewEvent[], branch: Branch | null) => T | Promise<T>) {
    const pending = this.rewind
    const result = await write(pending ? [pending.event, ...events] : events, pending?.branch ?? null)
    this.rewind = null
    this.changed()
    return result
  }

  /** The view a read of this request sees: the pending rewind's, else the session's. */
  viewOf(record: SessionRecord): ViewColumns {
    return this.rewind?.view ?? this.parts.view.snapshot(record)
  }
}
