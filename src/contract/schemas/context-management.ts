import { z } from '@hono/zod-openapi'
import { SIZE_LIMITS } from '../limits'
import { unsupportedIssue } from './issues'

/**
 * Anthropic's `context_management` on a Messages request (the `@anthropic-ai/sdk` beta types are
 * the reference): served by the service for any upstream, never forwarded.
 */

const InputTokens = z.strictObject({ type: z.literal('input_tokens'), value: z.int().min(1) })
const ToolUses = z.strictObject({ type: z.literal('tool_uses'), value: z.int().min(1) })
const ToolNames = z.array(z.string().min(1).max(SIZE_LIMITS.toolNameChars)).max(SIZE_LIMITS.toolItems)

/** `clear_tool_uses_20250919`: a clearing of old tool results when the trigger fires. */
export const ClearToolUsesEditSchema = z.strictObject({
  type: z.literal('clear_tool_uses_20250919'),
  trigger: z.discriminatedUnion('type', [InputTokens, ToolUses]).optional(),
  keep: z.strictObject({ type: z.literal('tool_uses'), value: z.int().min(0).max(10_000) }).optional(),
  clear_at_least: z
    .strictObject({ type: z.literal('input_tokens'), value: z.int().min(0) })
    .nullable()
    .optional(),
  exclude_tools: ToolNames.nullable().optional(),
  clear_tool_inputs: z.union([z.boolean(), ToolNames]).nullable().optional(),
})

/** `clear_thinking_20251015`: the thinking of the newest turns kept, the older left out of the prompt. */
export const ClearThinkingEditSchema = z.strictObject({
  type: z.literal('clear_thinking_20251015'),
  keep: z
    .union([
      z.strictObject({ type: z.literal('thinking_turns'), value: z.int().min(1) }),
      z.strictObject({ type: z.literal('all') }),
      z.literal('all'),
    ])
    .optional(),
})

/** `compact_20260112`: a summarizing pass when the prompt passes the trigger, answered with a compaction block. */
export const CompactEditSchema = z.strictObject({
  type: z.literal('compact_20260112'),
  trigger: InputTokens.nullable().optional(),
  instructions: z
    .string()
    .max(32 * 1024)
    .nullable()
    .optional(),
  pause_after_compaction: z.boolean().optional(),
})

const EDIT_SCHEMAS: Record<string, z.ZodType> = {
  clear_tool_uses_20250919: ClearToolUsesEditSchema,
  clear_thinking_20251015: ClearThinkingEditSchema,
  compact_20260112: CompactEditSchema,
}

export type ContextEditInput =
  | z.output<typeof ClearToolUsesEditSchema>
  | z.output<typeof ClearThinkingEditSchema>
  | z.output<typeof CompactEditSchema>

/**
 * `context_management`: edits the service applies to the session's prompt (never forwarded). An
 * edit of a type it does not serve is a 400 `unsupported` naming it; each type at most once.
 */
export const ContextManagementSchema = z
  .looseObject({
    edits: z
      .array(z.looseObject({ type: z.string() }))
      .max(8)
      .optional()
      .superRefine((edits, ctx) => {
        const seen = new Set<string>()
        edits?.forEach((edit, i) => {
          const schema = Object.hasOwn(EDIT_SCHEMAS, edit.type) ? EDIT_SCHEMAS[edit.type] : undefined
          if (!schema) {
            ctx.addIssue(
              unsupportedIssue([i, 'type'], `"${edit.type}" edits are not supported (${Object.keys(EDIT_SCHEMAS).join(', ')})`),
            )
            return
          }
          if (seen.has(edit.type)) ctx.addIssue({ code: 'custom', path: [i, 'type'], message: `"${edit.type}" is given twice` })
          seen.add(edit.type)
          const checked = schema.safeParse(edit)
          for (const issue of checked.success ? [] : checked.error.issues)
            ctx.addIssue({ ...issue, path: [i, ...issue.path] } as never)
        })
      })
      .transform((edits) => edits as ContextEditInput[] | undefined),
  })
  .nullable()
  .openapi('ContextManagement', {
    description:
      'Anthropic’s context management, served by the service for any upstream and never forwarded: clear_tool_uses_20250919, clear_thinking_20251015, compact_20260112.',
  })
