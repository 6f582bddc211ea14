import { z } from '@hono/zod-openapi'
import {
  type KindValue,
  type Problem,
  TRIGGER_KINDS,
  TRIGGER_LIMITS,
  type Trigger,
  triggerProblem,
  WINDOW_KINDS,
  type Window,
  windowProblem,
} from '../../core'
import { describeIssues } from './issues'

/** A schema checked by one of the core's validators, so the API and the core agree on every rule. */
function checkedBy<T>(name: string, problemOf: (value: unknown) => Problem | null, doc: object) {
  return z
    .unknown()
    .superRefine((value, ctx) => {
      const problem = problemOf(value)
      if (problem) ctx.addIssue({ code: 'custom', path: problem.path, message: problem.message })
    })
    .transform((value) => value as T)
    .openapi(name, doc)
}

const TRIGGER_REF = { $ref: '#/components/schemas/Trigger' }

/** The JSON Schema of one kind's value, from the core's table of kinds. */
const valueSchema: Record<KindValue, object> = {
  positiveInteger: { type: 'integer', minimum: 1 },
  fraction: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
  true: { type: 'boolean', enum: [true] },
  triggers: { type: 'array', items: TRIGGER_REF, minItems: 1, maxItems: TRIGGER_LIMITS.items },
}

/** `oneOf` single-key objects, one per kind, documented with what the kind means. */
const oneKeyOf = (kinds: Record<string, { value: KindValue; means: string }>) =>
  Object.entries(kinds).map(([key, kind]) => ({
    type: 'object',
    description: kind.means,
    properties: { [key]: valueSchema[kind.value] },
    required: [key],
    additionalProperties: false,
  }))

export const WindowSchema = checkedBy<Window>('Window', windowProblem, {
  description: 'How much of the conversation a pass keeps; the kept part always starts at a turn.',
  oneOf: oneKeyOf(WINDOW_KINDS),
  example: { lastTurns: 8 },
})

export const TriggerSchema = checkedBy<Trigger>('Trigger', (value) => triggerProblem(value), {
  description: `When a compaction pass runs. anyOf/allOf take 1–${TRIGGER_LIMITS.items} triggers, nested at most ${TRIGGER_LIMITS.depth} deep.`,
  oneOf: oneKeyOf(TRIGGER_KINDS),
  example: { anyOf: [{ turnCount: 20 }, { tokenCount: 6000 }] },
})

export const SummarizerSchema = z
  .strictObject({
    model: z.string().min(1).max(256).optional(),
    overlapSize: z.int().min(0).max(100).optional(),
    systemPrompt: z
      .string()
      .min(1)
      .max(32 * 1024)
      .optional(),
    shadowPrompt: z
      .string()
      .min(1)
      .max(4 * 1024)
      .optional(),
    instructions: z.string().min(1).max(4000).optional().openapi({
      description: 'A focus for this pass’s summary (what to keep): sent in the summarization request only, never stored.',
    }),
  })
  .openapi('Summarizer')

export const ClearToolResultsSchema = z
  .strictObject({
    keep: z.int().min(0).max(10_000).optional().openapi({ description: 'The newest calls whose results stay (default 3).' }),
    clearAtLeast: z
      .int()
      .min(0)
      .optional()
      .openapi({ description: 'A clearing that would save fewer tokens does not happen (default 0).' }),
    excludeTools: z
      .array(z.string().min(1).max(256))
      .max(128)
      .optional()
      .openapi({ description: 'Tools whose results are never cleared.' }),
    clearInputs: z
      .union([z.boolean(), z.array(z.string().min(1).max(256)).max(128)])
      .optional()
      .openapi({ description: 'Clear the calls’ arguments too (default false): all of them, or those of the tools named.' }),
  })
  .openapi('ClearToolResults', {
    description:
      'Clear old tool results: each older than the newest `keep` calls’ is replaced in the view by a notice naming the call, its tool and its size and how to get it back (recall_history with its id); the log keeps it whole.',
  })

export const StrategySchema = z
  .strictObject({
    window: WindowSchema.optional(),
    summarizer: SummarizerSchema.nullable().optional(),
    clearToolResults: ClearToolResultsSchema.optional().openapi({
      description:
        'Clear old tool results first. Alone, a clearing pass; with a window or a summarizer, the window cuts in the same pass when the trigger still fires.',
    }),
  })
  .openapi('Strategy')

export const PolicySchema = z
  .strictObject({
    trigger: TriggerSchema,
    strategy: StrategySchema.default({}),
    prepare: z
      .union([z.strictObject({ at: z.number().gt(0).max(1).optional() }), z.literal(false)])
      .optional()
      .openapi({
        description:
          'Prepare the summary in the background once the view passes `at` (default 0.8) of the trigger’s tokens (of the context window when the trigger counts none), so that a pass asked for later answers without waiting for the summary model; false: never. Only with a summarizer.',
      }),
    background: z.boolean().optional().openapi({
      description:
        'Run the pass after the turn is answered, in the session object (default: COMPACTION_BACKGROUND, which is true for the doors and false for /turns).',
    }),
  })
  .openapi('Policy')

/** A compaction strategy as stored and sent as JSON. */
export type StrategySpec = z.output<typeof StrategySchema>
/** A session's (or the deployment's) compaction policy. */
export type Policy = z.output<typeof PolicySchema>

/**
 * Reads a policy given as JSON text (the `COMPACTION_POLICY` variable) with the schema the API
 * validates `policy` with, so the two accept exactly the same policies.
 *
 * @example
 * parsePolicyJson('{"trigger":{"tokenCount":6000},"strategy":{"window":{"tokenBudget":3000}}}', 'COMPACTION_POLICY')
 */
export function parsePolicyJson(json: string, name: string): { policy: Policy } | { problem: string } {
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch {
    return { problem: `${name}: not valid JSON` }
  }
  const parsed = PolicySchema.safeParse(value)
  return parsed.success ? { policy: parsed.data } : { problem: describeIssues(parsed.error.issues, name, value) }
}
