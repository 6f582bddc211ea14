import { describe, expect, it } from 'vitest'
import { MessagesRequestSchema } from '../../contract/schemas'
import { contextEditsOf } from './context-edits'

/** A request's edits through the contract's schema, as the door gets them. */
const parsed = (edits: unknown[]) =>
  MessagesRequestSchema.safeParse({
    model: 'm',
    max_tokens: 10,
    messages: [{ role: 'user', content: 'Hi' }],
    context_management: { edits },
  })

const editsOf = (edits: unknown[]) => {
  const result = parsed(edits)
  if (!result.success) throw new Error(result.error.message)
  return contextEditsOf(result.data.context_management!.edits!)
}

describe('contextEditsOf', () => {
  it('fills in Anthropic’s defaults for each edit given bare', () => {
    expect(
      editsOf([{ type: 'clear_tool_uses_20250919' }, { type: 'clear_thinking_20251015' }, { type: 'compact_20260112' }]),
    ).toEqual([
      {
        kind: 'clearToolUses',
        trigger: { inputTokens: 100_000 },
        keep: 3,
        clearAtLeast: 0,
        excludeTools: [],
        clearInputs: false,
      },
      { kind: 'clearThinking', keep: 1 },
      { kind: 'compact', trigger: { inputTokens: 150_000 }, pause: false },
    ])
  })

  it('reads every field the SDK’s beta types give', () => {
    expect(
      editsOf([
        {
          type: 'clear_tool_uses_20250919',
          trigger: { type: 'tool_uses', value: 5 },
          keep: { type: 'tool_uses', value: 2 },
          clear_at_least: { type: 'input_tokens', value: 1000 },
          exclude_tools: ['memory'],
          clear_tool_inputs: ['bash'],
        },
        { type: 'clear_thinking_20251015', keep: { type: 'all' } },
        {
          type: 'compact_20260112',
          trigger: { type: 'input_tokens', value: 50_000 },
          instructions: 'Keep names.',
          pause_after_compaction: true,
        },
      ]),
    ).toEqual([
      {
        kind: 'clearToolUses',
        trigger: { toolUses: 5 },
        keep: 2,
        clearAtLeast: 1000,
        excludeTools: ['memory'],
        clearInputs: ['bash'],
      },
      { kind: 'clearThinking', keep: 'all' },
      { kind: 'compact', trigger: { inputTokens: 50_000 }, instructions: 'Keep names.', pause: true },
    ])
    expect(editsOf([{ type: 'clear_thinking_20251015', keep: 'all' }])).toEqual([{ kind: 'clearThinking', keep: 'all' }])
    // Blank instructions count as absent.
    expect(editsOf([{ type: 'compact_20260112', instructions: '  ' }])).toEqual([
      { kind: 'compact', trigger: { inputTokens: 150_000 }, pause: false },
    ])
  })

  it('refuses an unknown type as unsupported, an unknown or bad field, and a type given twice, each by its path', () => {
    const issues = (edits: unknown[]) => {
      const result = parsed(edits)
      return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
    }
    expect(issues([{ type: 'clear_everything_20990101' }])).toEqual([
      expect.stringMatching(/^context_management\.edits\.0\.type: "clear_everything_20990101" edits are not supported/),
    ])
    // The HTTP layer names the unknown key in the path (`…edits[0].pause: unknown field`).
    expect(issues([{ type: 'compact_20260112', pause: true }])).toEqual(['context_management.edits.0: Unrecognized key: "pause"'])
    expect(issues([{ type: 'clear_thinking_20251015', keep: { type: 'thinking_turns', value: 0 } }])).toEqual([
      'context_management.edits.0.keep.value: Too small: expected number to be >=1',
    ])
    expect(issues([{ type: 'clear_thinking_20251015' }, { type: 'clear_thinking_20251015' }])).toEqual([
      'context_management.edits.1.type: "clear_thinking_20251015" is given twice',
    ])
  })
})
