/**
 * The compaction core: pure functions over session logs, no Workers, Hono or fetch imports.
 * It runs in plain Node as well as in workerd.
 */
export * from './events'
export { newMessageEvent, newCompactionEvent, type MessageDraft } from './events/new-event'
export { EventText } from './event-text'
export { linearCount, countingEstimator, MAX_RUN, type TokenEstimator } from './tokens'
export { defaultEstimator, gptTokenizerEstimator } from './tokens/gpt-tokenizer'
export { extendView, project } from './projection'
export { analyzeView, viewTokens, type ViewAnalysis, type ViewEvent } from './view'
export { advanceStats, statsOf, EMPTY_STATS, type ViewStats } from './view/stats'
export { triggers, fires, triggerProblem, TRIGGER_LIMITS, type Trigger, type TriggerInput } from './triggers'
export { formatProblem, type Problem } from './problem'
export { windows, rawCut, windowProblem, DEFAULT_WINDOW, DEFAULT_LAST_EVENTS, type Window } from './windows'
export { planPass, splitView, turnSafeCut, type PassCut, type PassOptions, type PassPlan } from './pass'
export { rebase, type RebaseOutcome } from './rebase'
export { recordPass } from './compact/record'
export {
  compact,
  MAX_REBASES,
  type CompactDeps,
  type CompactRequest,
  type CompactionResult,
  type Strategy,
  type UnchangedReason,
} from './compact'
export type { SessionRef, Summarizer, SummaryMessage, SummaryOutcome, SummaryRequest } from './summarizer'
export { VersionConflictError, type SessionStore, type ViewSnapshot } from './store'
export { ArrayStore } from './store/array-store'
