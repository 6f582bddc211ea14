/**
 * The door layer: one reconciliation, one turn path and one way of storing for every wire format.
 * A wire format is a pair of pure translations in the Worker (`src/wire`) — its request into a
 * {@link DoorRequest}, a {@link DoorAnswer} into its response and stream — plus its route in
 * `http/routes`; the door's use case runs in the session object.
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
export { countPromptTokens, type PromptCount } from './count'
export { appendHistory } from './history'
export { type OnDiverge, onDivergeOf } from './on-diverge'
export { type DoorPlan, type DoorPurpose, planDoorTurn } from './plan'
export { createsOf, type DoorMode, type DoorRequest, type DoorSessionInput } from './request'
export { BRANCH_LOOKBACK, doorTurn } from './turn'
