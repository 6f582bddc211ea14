import { newEventId } from '../contract/ids'
import type { RewindInput, RewindJson } from '../contract/schemas'
import { newRewindEvent } from '../core'
import { NOTHING_PINNED, withPinned } from '../store/log/event-json'
import { planRewind } from '../store/log/rewind-plan'
import type { SessionStorage } from '../store/session-storage'

/**
 * `POST /rewind`: one REWIND naming the view as of the point (see `planRewind`); nothing written
 * when the view would not change.
 *
 * @example
 * const { abandoned } = await rewind(storage, { to: 'evt_3', position: 'before' })
 */
export async function rewind(storage: SessionStorage, input: RewindInput): Promise<RewindJson> {
  const record = await storage.existing()
  const point = { to: input.to, position: input.position ?? 'at' }
  const plan = planRewind(storage.parts, record, point)
  if (plan.boundary === null) return { rewind: null, abandoned: 0, version: record.version }
  const event = newRewindEvent({ id: newEventId(), timestamp: new Date().toISOString() }, plan.boundary, {
    ...point,
    reason: 'api',
  })
  const [written] = storage.parts.writer.commit(record, [event], { expectedVersion: input.expectedVersion, branch: plan.branch })
  return { rewind: withPinned(written!, NOTHING_PINNED), abandoned: plan.abandoned, version: written!.seq }
}
