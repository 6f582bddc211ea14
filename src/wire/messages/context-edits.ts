import type { ContextEditInput } from '../../contract/schemas'
import type { ContextEdit } from '../../turns/step'

/** Anthropic's defaults: clearing at 100,000 input tokens keeping 3 tool uses, thinking kept for 1 turn, compaction at 150,000. */
const EDIT_DEFAULTS = { clearTrigger: 100_000, keepToolUses: 3, keepThinkingTurns: 1, compactTrigger: 150_000 } as const

/**
 * A request's `context_management.edits` in the turn's words, Anthropic's defaults filled in (see
 * the SDK's `BetaContextManagementConfig`): validated by the contract's schema already.
 *
 * @example
 * contextEditsOf([{ type: 'clear_thinking_20251015' }]) // [{ kind: 'clearThinking', keep: 1 }]
 */
export const contextEditsOf = (edits: readonly ContextEditInput[]): ContextEdit[] => edits.map(contextEditOf)

function contextEditOf(edit: ContextEditInput): ContextEdit {
  if (edit.type === 'clear_tool_uses_20250919')
    return {
      kind: 'clearToolUses',
      trigger:
        edit.trigger?.type === 'tool_uses'
          ? { toolUses: edit.trigger.value }
          : { inputTokens: edit.trigger?.value ?? EDIT_DEFAULTS.clearTrigger },
      keep: edit.keep?.value ?? EDIT_DEFAULTS.keepToolUses,
      clearAtLeast: edit.clear_at_least?.value ?? 0,
      excludeTools: edit.exclude_tools ?? [],
      clearInputs: edit.clear_tool_inputs ?? false,
    }
  if (edit.type === 'clear_thinking_20251015') {
    const keep = edit.keep ?? { type: 'thinking_turns', value: EDIT_DEFAULTS.keepThinkingTurns }
    return { kind: 'clearThinking', keep: keep === 'all' || keep.type === 'all' ? 'all' : keep.value }
  }
  return {
    kind: 'compact',
    trigger: { inputTokens: edit.trigger?.value ?? EDIT_DEFAULTS.compactTrigger },
    // Empty or whitespace-only instructions count as absent, as Anthropic's do.
    ...(edit.instructions?.trim() ? { instructions: edit.instructions } : {}),
    pause: edit.pause_after_compaction ?? false,
  }
}
