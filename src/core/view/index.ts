import { isSystem, isTurnStart, type MessageSkeleton } from '../events'

/** A view taken apart the way the compaction spec names its parts. */
export interface ViewAnalysis<E extends MessageSkeleton = MessageSkeleton> {
  /** The system message with the highest `seq`: the only one the model is shown. */
  latestSystem: E | null
  /** Every other system message of the view, in view order. */
  superseded: E[]
  /** Synthetic messages left by an earlier pass, in view order. */
  priorSummary: E[]
  /** Non-system, non-synthetic events before the first turn start. */
  preamble: E[]
  /** Everything else, in view order: it starts at the first turn start. */
  conversation: E[]
  /** Indices into `conversation` where a turn starts. */
  turnStarts: number[]
  turns: number
  /** The latest system message plus every non-system event; superseded ones do not count. */
  tokens: number
}

const newer = (a: MessageSkeleton, b: MessageSkeleton) => (a.seq ?? Infinity) >= (b.seq ?? Infinity)

/**
 * Analyses a view in one pass over it.
 *
 * @example
 * const { turns, tokens, latestSystem } = analyzeView(view)
 */
export function analyzeView<E extends MessageSkeleton>(view: readonly E[]): ViewAnalysis<E> {
  const systems: E[] = []
  const priorSummary: E[] = []
  const preamble: E[] = []
  const conversation: E[] = []
  const turnStarts: number[] = []
  let latestSystem: E | null = null
  let tokens = 0

  for (const event of view) {
    if (isSystem(event)) {
      systems.push(event)
      if (!latestSystem || newer(event, latestSystem)) latestSystem = event
      continue
    }
    tokens += event.tokens
    if (event.synthetic) priorSummary.push(event)
    else if (isTurnStart(event)) {
      turnStarts.push(conversation.length)
      conversation.push(event)
    } else if (conversation.length === 0) preamble.push(event)
    else conversation.push(event)
  }
  if (latestSystem) tokens += latestSystem.tokens

  return {
    latestSystem,
    superseded: systems.filter((event) => event !== latestSystem),
    priorSummary,
    preamble,
    conversation,
    turnStarts,
    turns: turnStarts.length,
    tokens,
  }
}

/** The spec's view tokens of a list of events (latest system message + non-system events). */
export const viewTokens = (view: readonly MessageSkeleton[]): number => analyzeView(view).tokens
