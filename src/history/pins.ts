import { ServiceError } from '../contract/errors'
import { newEventId } from '../contract/ids'
import type { PinsInput, PinsJson } from '../contract/schemas'
import { newPinsEvent } from '../core'
import { NOTHING_PINNED, withPinned } from '../store/log/event-json'
import type { SessionStorage } from '../store/session-storage'

/**
 * `POST /pins`: one PINS event pinning and unpinning messages of the log, nothing else written.
 * An id that is no message of the conversation (unknown, a boundary, a summary, a system
 * message) is a 400 naming it. Answers every message pinned on the lineage now.
 *
 * @example
 * const { pinned } = await pin(storage, { pin: ['u1'] })
 */
export async function pin(storage: SessionStorage, input: PinsInput): Promise<PinsJson> {
  const record = await storage.existing()
  const { pins, writer } = storage.parts
  const change = { pin: [...new Set(input.pin ?? [])], unpin: [...new Set(input.unpin ?? [])] }
  for (const [field, ids] of Object.entries(change))
    for (const id of ids) {
      const problem = pins.targetProblem(field, id)
      if (problem) throw new ServiceError('invalid_request', problem)
    }
  const event = newPinsEvent({ id: newEventId(), timestamp: new Date().toISOString() }, change)
  const [written] = writer.commit(record, [event], { expectedVersion: input.expectedVersion })
  const pinned = [...pins.pinned()].sort((a, b) => a[1] - b[1]).map(([id]) => id)
  return { pins: withPinned(written!, NOTHING_PINNED), pinned, version: written!.seq }
}
