/**
 * History edits: the use cases that change a session's log other than a turn or a pass —
 * appends, imports, rewinds, undos, pins and forks — each over the session's storage
 * (`store/session-storage`), through its one writer. Each checks its request and says what is
 * wrong in the contract's words; storage's own failures are mapped once (`contract/errors`).
 */
export { type AppendResult, appendEvents, pinnedNow } from './append'
export { createFork, type ForkSource, forkInto, forkSource } from './fork'
export { importJsonl } from './import-events'
export { pin } from './pins'
export { rewind } from './rewind'
export { undo } from './undo'
