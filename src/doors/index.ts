/**
 * The door layer: one reconciliation, one turn path and one way of storing for every wire format.
 * A wire format is a pair of pure translations — its request into a {@link DoorInput}, a
 * {@link DoorAnswer} into its response and stream — plus its route in `http/routes`.
 */
export {
  answeringModel,
  type DoorAnswer,
  doorAnswer,
  requestedCalls,
  type StoredDoorAnswer,
  storedDoorAnswer,
} from './answer'
export { type DoorCompaction, doorCompaction } from './compaction'
export { countPromptTokens } from './count'
export { appendHistory } from './history'
export { type DoorInput, idempotencyOf } from './input'
export { type OnDiverge, onDivergeOf } from './on-diverge'
export { BRANCH_LOOKBACK, doorTurn } from './turn'
