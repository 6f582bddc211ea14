/** The API's shapes as the page reads them: the contract's own types (shared/spec/http-api.md). */
export type {
  AcrossSearchPageJson as SessionsSearchPageJson,
  CompactionResultJson,
  ContextJson,
  EventJson,
  MemoryFileJson,
  MemoryListJson,
  MemoryVersionsJson,
  SearchPageJson,
  SessionJson,
  SessionListJson,
  TurnResponseJson,
} from '../src/contract/schemas'
export type { ToolCall } from '../src/core/events'
