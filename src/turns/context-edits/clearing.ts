import type { AppliedEdit } from '../../contract/turn-result'
import type { ClearedEntry, CompactionResult } from '../../core'
import type { TurnDeps } from '../session'
import type { ContextEdit, PreparedStep } from '../step'
import type { RunPass } from './edits-run'

type ClearingEdit = Extract<ContextEdit, { kind: 'clearToolUses' }>

/** The tool results the request itself brings (its step's, not stored yet). */
const newResults = (step: PreparedStep) => step.added.reduce((sum, event) => sum + (event.message.toolResponses?.length ?? 0), 0)

/** The calls a view's clearing names (their results or their arguments cleared). */
const clearedCalls = (entries: readonly ClearedEntry[] | undefined) => new Set((entries ?? []).flatMap((entry) => entry.callIds))

/**
 * A `clear_tool_uses_20250919` edit whose trigger fired, as the service's clearing pass (a
 * COMPACTION of the log listing what it cleared): what it wrote and what it reports (the calls it
 * newly cleared, the tokens it saved as the model counts them), or null when it cleared nothing.
 * `keep` counts the prompt's results, the request's own new ones among them: those are not stored
 * yet, so the request they arrive in never clears them.
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
  const { kind: _, trigger: __, ...options } = edit
  const result = await pass({
    clearToolResults: {
      ...options,
      keep: Math.max(0, edit.keep - newResults(step)),
      // The edit counts as the model does; the pass, in estimates.
      clearAtLeast: Math.ceil(edit.clearAtLeast / step.fit.ratio),
    },
  })
  if (result.unchanged || result.boundary?.type !== 'COMPACTION') return null
  const after = clearedCalls(result.boundary.boundary.cleared)
  return {
    result,
    applied: {
      at,
      kind: 'clearToolUses',
      clearedToolUses: [...after].filter((id) => !before.has(id)).length,
      clearedInputTokens: Math.round(result.tokensEstimatedSaved * step.fit.ratio),
    },
  }
}
