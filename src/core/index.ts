/**
 * The compaction core: pure functions over session logs, no Workers, Hono or fetch imports.
 * It runs in plain Node as well as in workerd.
 */

export {
  type CompactDeps,
  type CompactionResult,
  type CompactRequest,
  compact,
  MAX_REBASES,
  type Strategy,
  type UnchangedReason,
} from './compact'
export { recordPass } from './compact/record'
export { EventText } from './event-text'
export * from './events'
export { type MessageDraft, newCompactionEvent, newMessageEvent } from './events/new-event'
export { type PassCut, type PassOptions, type PassPlan, planPass, splitView, turnSafeCut } from './pass'
export { formatProblem, type Problem } from './problem'
export { extendView, project } from './projection'
export { type RebaseOutcome, rebase } from './rebase'
export { type SessionStore, VersionConflictError, type ViewSnapshot } from './store'
export { ArrayStore } from './store/array-store'
export type { SessionRef, Summarizer, SummaryMessage, SummaryOutcome, SummaryRequest } from './summarizer'
export { countingEstimator, linearCount, MAX_RUN, type TokenEstimator } from './tokens'
export { defaultEstimator, gptTokenizerEstimator } from './tokens/gpt-tokenizer'
export { fires, TRIGGER_LIMITS, type Trigger, type TriggerInput, triggerProblem, triggers } from './triggers'
export { analyzeView, type ViewAnalysis, type ViewEvent, viewTokens } from './view'
export { advanceStats, EMPTY_STATS, statsOf, type ViewStats } from './view/stats'
export { DEFAULT_LAST_EVENTS, DEFAULT_WINDOW, rawCut, type Window, windowProblem, windows } from './windows'
