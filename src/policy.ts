import type { Trigger, Window } from './core'

/** The summarizer options a strategy may carry (the HTTP contract's shape). */
export interface SummarizerSpec {
  model?: string
  overlapSize?: number
  systemPrompt?: string
  shadowPrompt?: string
}

/** A compaction strategy as stored and sent as JSON. */
export interface StrategySpec {
  window?: Window
  summarizer?: SummarizerSpec | null
}

/** A session's (or the deployment's) compaction policy. */
export interface Policy {
  trigger: Trigger
  strategy: StrategySpec
}
