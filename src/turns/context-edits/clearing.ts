import type { AppliedEdit } from '../../contract/turn-result'
import type { ClearedEntry, CompactionResult, NewMessageEvent } from '../../core'
import type { TurnDeps } from '../session'
import type { ContextEdit, PreparedStep } from '../step'
import type { RunPass } from './edits-run'

type ClearingEdit = Extract<ContextEdit, { kind: 'clearToolUses' }>

/**
 * The clearing pass's strategy for an edit. `keep` counts the prompt's results, the request's own
 * new ones among them (`added`): those are not stored yet, so the request they arrive in never
 * clears them. The edit counts tokens as the model does; the pass, in estimates (`ratio`).
 */
export function clearingStrategy(edit: ClearingEdit, added: readonly NewMessageEvent[], ratio: number) {
  const { kind: _, trigger: __, ...options } = edit
  const newResults = added.reduce((sum, event) => sum + (event.message.toolResponses?.length ?? 0), 0)
  return {
    clearToolResults: {
      ...options,
      keep: Math.max(0, edit.keep - newResults),
      clearAtLeast: Math.ceil(edit.clearAtLeast / ratio),
    },
  }
}

/** What a clearing pass saves, as the model counts it (the pass counts in estimates). */
export const savedModelTokens = (result: Pick<CompactionResult, 'tokensEstimatedSaved'>, ratio: number) =>
  Math.round(result.tokensEstimatedSaved * ratio)

/** The calls a view's clearing names (their results or their arguments cleared). */
const clearedCalls = (entries: readonly ClearedEntry[] | undefined) => new Set((entries ?? []).flatMap((entry) => entry.callIds))

/**
 * A `clear_tool_uses_20250919` edit whose trigger fired, as the service's clearing pass (a
 * COMPACTION of the log listing what it cleared): what it wrote and what it reports (the calls it
 * newly cleared, the tokens it saved as the model counts them), or null when it cleared nothing
 * (its strategy: {@link clearingStrategy}).
 *
 * @example
 * const cleared = await clearingEdit(0, edit, step, deps, pass)
 */
export async function clearingEdit(
  at: number,
  edit: ClearingEdit,
  step: PreparedStep,
  deps: TurnDeps,
  pass: RunPass,
): Promise<{ result: CompactionResult; applied: AppliedEdit } | null> {
  const before = clearedCalls((await deps.session.readView()).cleared)
  const result = await pass(clearingStrategy(edit, step.added, step.fit.ratio))
  if (result.unchanged || result.boundary?.type !== 'COMPACTION') return null
  const after = clearedCalls(result.boundary.boundary.cleared)
  return {
    result,
    applied: {
      at,
      kind: 'clearToolUses',
      clearedToolUses: [...after].filter((id) => !before.has(id)).length,
      clearedInputTokens: savedModelTokens(result, step.fit.ratio),
    },
  }
}
