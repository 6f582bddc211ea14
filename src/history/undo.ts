import { newEventId } from '../contract/ids'
import type { UndoInput, UndoJson } from '../contract/schemas'
import { newCompactionEvent } from '../core'
import { NOTHING_PINNED, withPinned } from '../store/log/event-json'
import type { SessionStorage } from '../store/session-storage'
import { planUndo } from './undo-plan'

/**
 * `POST /compactions/:id/undo`: one COMPACTION naming the view without the pass (see `planUndo`).
 *
 * @example
 * const { boundary } = await undo(storage, 'evt_9', {})
 */
export async function undo(storage: SessionStorage, passId: string, input: UndoInput): Promise<UndoJson> {
  const record = await storage.existing()
  const plan = planUndo(storage.parts, record, passId)
  const event = newCompactionEvent({ id: newEventId(), timestamp: new Date().toISOString() }, plan.boundary)
  const [boundary] = storage.parts.writer.commit(record, [event], {
    expectedVersion: input.expectedVersion,
    undoes: plan.passSeq,
  })
  return { boundary: withPinned(boundary!, NOTHING_PINNED), version: boundary!.seq }
}
