import { z } from '@hono/zod-openapi'
import { SIZE_LIMITS } from '../limits'
import { depthOf } from './common'
import { ContentInputSchema } from './parts'

/** OpenAI's rule for function names. */
const FUNCTION_NAME = /^[A-Za-z0-9_-]{1,64}$/

/** A JSON object value (a tool's parameters, a response format's schema), nested no deeper than metadata may be. */
const JsonObject = z
  .record(z.string(), z.unknown())
  .refine((value) => depthOf(value, SIZE_LIMITS.metadataDepth) <= SIZE_LIMITS.metadataDepth, {
    message: `must not be nested deeper than ${SIZE_LIMITS.metadataDepth} levels`,
  })

export const ToolSchema = z
  .strictObject({
    type: z.literal('function'),
    function: z.strictObject({
      name: z.string().regex(FUNCTION_NAME, 'must be 1–64 characters of A-Z a-z 0-9 _ -'),
      description: z.string().max(8192).optional(),
      parameters: JsonObject.optional(),
      strict: z.boolean().optional(),
    }),
  })
  .openapi('Tool', { description: 'An OpenAI function tool, sent to the model on this request (not stored).' })

export type ToolInput = z.output<typeof ToolSchema>

export const ToolChoiceSchema = z
  .union([
    z.enum(['auto', 'none', 'required']),
    z.strictObject({ type: z.literal('function'), function: z.strictObject({ name: z.string().regex(FUNCTION_NAME) }) }),
  ])
  .openapi('ToolChoice')

export type ToolChoiceInput = z.output<typeof ToolChoiceSchema>

export const ChatOptionsSchema = z
  .strictObject({
    temperature: z.number().min(0).max(2).optional(),
    topP: z.number().gt(0).max(1).optional(),
    maxTokens: z.int().min(1).max(1_000_000).optional(),
    stop: z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(4)]).optional(),
    seed: z.int().optional(),
    presencePenalty: z.number().min(-2).max(2).optional(),
    frequencyPenalty: z.number().min(-2).max(2).optional(),
    /** Forwarded to an OpenAI-wire upstream as `prompt_cache_key`: requests sharing it share a prompt cache. */
    promptCacheKey: z.string().min(1).max(1024).optional(),
    responseFormat: z
      .union([
        z.strictObject({ type: z.enum(['text', 'json_object']) }),
        z.strictObject({
          type: z.literal('json_schema'),
          json_schema: z.object({
            name: z.string().min(1).max(64),
            schema: JsonObject.optional(),
            strict: z.boolean().optional(),
          }),
        }),
      ])
      .optional(),
  })
  .openapi('ChatOptions', {
    description: 'Sampling options, passed to the model in OpenAI names (top_p, max_tokens, …; Workers AI gets the ones it has).',
  })

export type ChatOptions = z.output<typeof ChatOptionsSchema>

export const ToolResultSchema = z
  .strictObject({
    id: z.string().min(1).max(SIZE_LIMITS.toolNameChars),
    name: z.string().min(1).max(SIZE_LIMITS.toolNameChars).optional(),
    data: ContentInputSchema.optional().openapi({ description: 'What the tool returned: text, or parts (a screenshot).' }),
    error: z.string().optional(),
  })
  .refine((result) => (result.data === undefined) !== (result.error === undefined), {
    message: 'needs exactly one of data and error',
  })
  .openapi('ToolResult', {
    description:
      'A client tool’s result for a pending call: `data`, or `error` (stored as its text, listed in the event’s `toolErrors`).',
  })

/** The tool fields of a turn request, with the checks that span them. */
export const toolFields = {
  tools: z.array(ToolSchema).min(1).max(SIZE_LIMITS.toolItems).optional(),
  toolChoice: ToolChoiceSchema.optional(),
  parallelToolCalls: z.boolean().optional(),
  options: ChatOptionsSchema.optional(),
}

/** What is wrong across the tool fields (a field path and a reason), or null. */
export function toolFieldsProblem(
  input: { tools?: ToolInput[]; toolChoice?: ToolChoiceInput },
  recall = false,
  memory = false,
): { path: (string | number)[]; message: string } | null {
  const names = (input.tools ?? []).map((tool) => tool.function.name)
  const own = names.indexOf('recall_history')
  if (recall && own >= 0) {
    return { path: ['tools', own, 'function', 'name'], message: 'is the service’s own tool while recall is on' }
  }
  const memoryTool = names.indexOf('memory')
  if (memory && memoryTool >= 0) {
    return { path: ['tools', memoryTool, 'function', 'name'], message: 'is the service’s own tool while memory is on' }
  }
  const twice = names.findIndex((name, i) => names.indexOf(name) !== i)
  if (twice >= 0) return { path: ['tools', twice, 'function', 'name'], message: `"${names[twice]}" is named by an earlier tool` }
  const choice = input.toolChoice
  // The memory tool is offered too: a choice may name it.
  const offered = memory ? [...names, 'memory'] : names
  if (choice === 'required' && offered.length === 0) return { path: ['toolChoice'], message: 'requires tools' }
  if (typeof choice === 'object' && !offered.includes(choice.function.name)) {
    return { path: ['toolChoice', 'function', 'name'], message: `names no tool of this request ("${choice.function.name}")` }
  }
  return null
}
