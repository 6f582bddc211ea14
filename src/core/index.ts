/**
 * The compaction core: pure functions over session logs, no Workers, Hono or fetch imports.
 * It runs in plain Node as well as in workerd. This is its public surface; the steps inside a
 * pass (the split, the raw cut, turn safety, the events a pass records) stay internal.
 */
export { absorb, type Calibration, RATIO_BOUNDS, UNCALIBRATED } from './calibration'
export {
  type ClearingPlan,
  type ClearToolResults,
  clearedById,
  clearedEntry,
  clearedEvent,
  clearedMessage,
  clearedNotice,
  DEFAULT_CLEARING,
  planClearing,
  sameClearing,
  viewEvents,
} from './clearing'
export { clearOlderThinking, type ThinkingCleared } from './clearing/thinking'
export {
  type CompactDeps,
  type CompactionResult,
  type CompactRequest,
  compact,
  inTurnNote,
  type PrepareRequest,
  passDue,
  prepareSummaries,
  type Strategy,
  type UnchangedReason,
  unchangedResult,
} from './compact'
export { EventText } from './event-text'
export * from './events'
export { type MessageDraft, newCompactionEvent, newMessageEvent, newPinsEvent, newRewindEvent } from './events/new-event'
export {
  type LineageEvent,
  leftBehind,
  lineage,
  lineageRuns,
  onLineage,
  prefixEnd,
  type RememberedSteps,
  type RewindStep,
  type RewindTarget,
  type Run,
  rememberedSteps,
  rewindBoundary,
  rewindTargetProblem,
  viewBoundary,
} from './lineage'
export { lineageWindow, type WindowPosition } from './lineage/window'
export * from './media'
export {
  blobRefsOf,
  contentKey,
  contentOf,
  isMediaPart,
  isStoredPart,
  isUrlPart,
  type MediaPart,
  mediaOf,
  partsOf,
  renderText,
  textOf,
} from './parts'
export { partPlaceholder } from './parts/placeholder'
export { applyPins, NO_PINS, type ViewPins, viewPins } from './pins'
export { bestPrepared, type PreparedSummary, pastMark, preparedPrefix, triggerTokens } from './prepared'
export { formatProblem, type Problem } from './problem'
export { extendView, project, viewAfter, viewMembership } from './projection'
export { type FitState, type FitStep, type PromptParts, planPromptFit, promptTokens } from './prompt-fit'
export {
  asksTurn,
  branchPoint,
  type ClientMessage,
  clientMessagesOf,
  messageKey,
  type Reconciled,
  reconcile,
  type ShownMessage,
  type ShownOptions,
} from './reconcile'
export { type DocumentText, folded, type QueryTerm, queryTerms, type RecallHit, searchTextOf, WORD } from './search'
export {
  type Candidate,
  type CorpusCounts,
  type Gathered,
  idf,
  MOST_RANKING_TERMS,
  type RankedHit,
  rankGathered,
  rankingTerms,
} from './search/bm25'
export { verbBaseOf, verbFormsOf } from './search/irregular'
export { porterStem } from './search/porter'
export { MARK_CLOSE, MARK_OPEN, type MarkedMatch, rankWindow } from './search/rank'
export { isStopWord } from './search/stop-words'
export {
  MissingBlobError,
  RewindPointError,
  SessionEndedError,
  SessionExistsError,
  SessionMissingError,
  type SessionStore,
  SessionWipingError,
  VersionConflictError,
  type ViewSnapshot,
} from './session-store'
export { ArrayStore } from './session-store/array-store'
export type { SessionInfo, Summarizer, SummaryMessage, SummaryOutcome, SummaryRequest } from './summarizer'
export { isHighSurrogate, utf8Length } from './text'
export { countingEstimator, type TokenEstimator } from './tokens'
export { defaultEstimator, gptTokenizerEstimator } from './tokens/gpt-tokenizer'
export {
  isServiceCall,
  MEMORY_CALL_PREFIX,
  MEMORY_TOOL,
  NO_RESULT,
  type PairedMessage,
  type Placement,
  pairToolResults,
  pendingToolCalls,
  RECALL_TOOL,
  ResultPlacement,
  type ResultRef,
} from './tool-pairs'
export {
  INTERRUPTED_RESULT,
  interruptedResults,
  planToolResults,
  type ToolResultInput,
  type ToolResultsPlan,
  type ToolResultsRefusal,
} from './tool-results'
export {
  calibrated,
  fires,
  isFraction,
  type KindValue,
  type ModelFit,
  TRIGGER_KINDS,
  TRIGGER_LIMITS,
  type Trigger,
  triggerProblem,
  triggers,
} from './triggers'
export { undoablePass, undoBoundary } from './undo'
export { addUsage, NO_USAGE, type UsageEntry, type UsageTotals } from './usage'
export { analyzeColumns, analyzeView, type ColumnsAnalysis, type ViewAnalysis, viewTokens } from './view'
export {
  allSeqs,
  columnsOf,
  concatColumns,
  newestTurnSeqs,
  newestTurnStartOf,
  PackedColumns,
  type PackedEvent,
  type Positions,
  pickColumns,
  seqsAt,
  summaryInNewestTurn,
  type ViewColumns,
  type ViewEntry,
  viewEntryOf,
} from './view/columns'
export { advanceStats, EMPTY_STATS, statsOf, statsOfColumns, type ViewStats } from './view/stats'
export { type CutWindow, cutWindow, DEFAULT_WINDOW, WINDOW_KINDS, type Window, windowProblem, windows } from './windows'
