/** The API's shapes as the page reads them (the contract: shared/spec/http-api.md). */

import type { Boundary, Message, ToolCall } from '../src/core/events'

export type { ToolCall }

/** An event as the API sends it: a MESSAGE (with `message`) or a COMPACTION (with `boundary`). */
export interface ApiEvent {
  id: string
  seq: number
  type: 'MESSAGE' | 'COMPACTION'
  timestamp: string
  synthetic: boolean
  tokens: number
  metadata: Record<string, unknown>
  message?: Message
  boundary?: Boundary
}

export interface Session {
  id: string
  createdAt: string
  version: number
  metadata: Record<string, unknown>
  stats?: { events: number; viewEvents: number; viewTokens: number; turns: number }
}

export interface Context {
  budget: { contextTokens: number; replyTokens: number; promptTokens: number }
  tokens: { system: number; summary: number; preamble: number; conversation: number; total: number }
  calibration: { ratio: number; samples: number }
  events: { log: number; view: number; covered: number }
  turns: number
  pendingToolCalls: string[]
  compactions: number
}

export interface CompactionResult {
  unchanged: boolean
  reason: string | null
  covered: ApiEvent[]
  summary: ApiEvent[]
  tokensEstimatedSaved: number
  dryRun?: true
}

export interface TurnResult {
  status: 'completed' | 'requires_action'
  reply: ApiEvent
  toolCalls: ToolCall[]
  usage: { totalTokens: number } | null
}

export interface SearchHit {
  event: ApiEvent
  covered: boolean
  snippet: string
}
