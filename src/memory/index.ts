/**
 * The memory store, a feature room (round4 §5): a user's versioned text files under `/memories`,
 * their rules, the REST operations over them, and the memory tool the service runs for a model
 * (its definition, the instruction that goes with it, each command answered as the SDK's own
 * handler answers it). Used through this file only; it imports nothing but the contract, the core
 * and the utilities.
 */
export { type MemoryAnswer, runMemoryCommand } from './commands'
export { type IfMatch, MemoryFiles } from './files'
export { isInside, MAX_PATH_CHARS, MEMORY_ROOT, pathProblem } from './paths'
export { maxFilesOf } from './settings'
export { type FileHead, type FileVersion, MemoryTable } from './table'
export { MEMORY_DEFINITION, MEMORY_INSTRUCTION, MEMORY_PROMPT, withMemoryInstruction } from './tool'
export { MEMORY_FILE_BYTES, MemoryTree } from './tree'
