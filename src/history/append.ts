import type { AppendInput } from '../contract/schemas'
import type { SessionAddress } from '../contract/session-address'
import type { SessionEvent } from '../core'
import type { StagedBlob } from '../core/media/blob'
import { withPinned } from '../store/log/event-json'
import { newRecord } from '../store/log/session-row'
import type { SessionStorage } from '../store/session-storage'
import { checkAppendInputs, newEventsOf, planAppend } from './append-input'

export interface AppendResult {
  version: number
  events: (SessionEvent & { pinned: boolean })[]
  /** Whether anything new was written (201) or every event was already stored (200). */
  written: boolean
}

/** Events with their pin state now (a boundary or a PINS event is never pinned). */
export function pinnedNow(storage: SessionStorage, events: readonly SessionEvent[]) {
  const pinned = storage.parts.pins.seqs()
  return events.map((event) => withPinned(event, pinned))
}

/**
 * `POST /events`: appends events all together or not at all, creating the session when it does
 * not exist. Ids already in the log must carry the same message and come back as stored;
 * `expectedVersion` is checked only when something new is to be written.
 *
 * @example
 * const { version, written } = await appendEvents(storage, address, [{ message: { role: 'user', content: 'Hi' } }])
 */
export async function appendEvents(
  storage: SessionStorage,
  address: SessionAddress,
  inputs: AppendInput[],
  expectedVersion?: number,
  blobs?: ReadonlyMap<string, StagedBlob>,
): Promise<AppendResult> {
  checkAppendInputs(inputs)
  const existing = await storage.find()
  const ids = inputs.flatMap((input) => (input.id === undefined ? [] : [input.id]))
  const plan = planAppend(inputs, existing ? storage.parts.log.byIds(ids) : new Map())
  const version = existing?.version ?? 0
  if (plan.fresh.length === 0) return { version, events: pinnedNow(storage, plan.answer([])), written: false }
  const events = newEventsOf(plan.fresh, storage.estimator)
  const pinned = new Set(events.filter((_, i) => plan.fresh[i]!.pinned === true).map((event) => event.id))
  // Nothing was awaited since `existing` was read: no other request ran in between.
  const written = await storage.parts.writer.write(existing ?? newRecord(address, storage.creating({})), events, {
    expectedVersion,
    pinned,
    blobs,
  })
  return { version: written.record.version, events: pinnedNow(storage, plan.answer(written.events)), written: true }
}
