import type { MessageEvent } from '../../core'
import type { ViewEntry } from './log'

/** How much of the view is kept whole in memory (UTF-16 characters of text, tool arguments and data). */
export const VIEW_BODY_LIMITS = { perEvent: 32 * 1024, total: 8 * 1024 * 1024 }

const sizeOf = (event: MessageEvent) => {
  const m = event.message
  let chars = m.content?.length ?? 0
  for (const call of m.toolCalls ?? []) chars += call.arguments.length + call.name.length
  for (const response of m.toolResponses ?? []) chars += response.data.length + response.name.length
  return chars
}

/**
 * The memory budget for the view's small events kept whole on their entries, so a view read
 * mostly skips storage; a big event (a large tool result) keeps only its entry and is read by
 * seq. Events never change, so a kept event is never stale: only the view's shape changes, and
 * that goes through the view cache, which keeps this in step.
 */
export class BodyBudget {
  private chars = 0

  constructor(private readonly limits = VIEW_BODY_LIMITS) {}

  /** Keeps the event on its entry if it is small and the budget allows. */
  keep(entry: ViewEntry, event: MessageEvent): void {
    if (entry.full) return
    const size = sizeOf(event)
    if (size > this.limits.perEvent || this.chars + size > this.limits.total) return
    entry.full = event
    this.chars += size
  }

  /** Recounts after a boundary changed the view: entries that left it free their share. */
  recount(view: readonly ViewEntry[]): void {
    this.chars = 0
    for (const entry of view) if (entry.full) this.chars += sizeOf(entry.full)
  }

  reset(): void {
    this.chars = 0
  }
}
