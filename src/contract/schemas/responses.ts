import { z } from '@hono/zod-openapi'
import { SIZE_LIMITS } from '../limits'
import { Id } from './common'
import { unsupportedIssue } from './issues'

/**
 * `POST /v1/responses`: the OpenAI Responses request as its door takes it. Input items are
 * checked for the fields the door reads; any other request field is ignored.
 */

/** A content part of an item: text, an image or a file; checked for the fields the door reads. */
const Part = z.looseObject({ type: z.string(), text: z.string().optional() })

const TEXT_PARTS = new Set(['input_text', 'output_text', 'text'])

/**
 * An item's content parts: text ones with their text, `input_image` with its `image_url` and
 * `input_file` with `file_data` or `file_url`; a file by id and any other part are refused by name.
 */
function contentParts(parts: unknown[], field: string, ctx: z.RefinementCtx) {
  parts.forEach((value, k) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      ctx.addIssue({ code: 'custom', path: [field, k], message: 'must be a content part (an object with a type)' })
      return
    }
    const part = value as z.output<typeof Part> & Record<string, unknown>
    const issue = (name: string, message: string) => ctx.addIssue({ code: 'custom', path: [field, k, name], message })
    // No type is a malformed part, not one of a type the service does not store.
    if (typeof part.type !== 'string') issue('type', 'is required')
    else if (TEXT_PARTS.has(part.type)) {
      if (typeof part.text !== 'string') issue('text', 'is required')
    } else if (part.type === 'input_image' || part.type === 'input_file') {
      if (part.file_id !== undefined && part.file_id !== null)
        ctx.addIssue(
          unsupportedIssue([field, k, 'file_id'], 'files by id are not supported: send the bytes (image_url, file_data)'),
        )
      else if (part.type === 'input_image' && typeof part.image_url !== 'string') issue('image_url', 'is required')
      else if (part.type === 'input_file' && typeof part.file_data !== 'string' && typeof part.file_url !== 'string')
        issue('file_data', 'is required (or file_url)')
    } else
      ctx.addIssue(
        unsupportedIssue(
          [field, k, 'type'],
          `"${part.type}" parts cannot be stored (input_text, output_text, input_image and input_file only)`,
        ),
      )
  })
}

export const InputItemSchema = z.looseObject({ type: z.string().optional() }).superRefine((item, ctx) => {
  const issue = (path: (string | number)[], text: string) => ctx.addIssue({ code: 'custom', path, message: text })
  const field = (name: string) => (item as Record<string, unknown>)[name]
  const type = item.type ?? 'message'
  switch (type) {
    case 'message': {
      const role = field('role')
      if (!['user', 'assistant', 'system', 'developer'].includes(role as string))
        issue(['role'], 'must be one of user, assistant, system, developer')
      const content = field('content')
      if (typeof content === 'string') return
      if (!Array.isArray(content)) return issue(['content'], 'must be a string or content parts')
      return contentParts(content, 'content', ctx)
    }
    case 'function_call':
      for (const name of ['call_id', 'name', 'arguments'])
        if (typeof field(name) !== 'string' || (name !== 'arguments' && field(name) === '')) issue([name], 'is required')
      return
    case 'function_call_output': {
      if (typeof field('call_id') !== 'string' || field('call_id') === '') issue(['call_id'], 'is required')
      const output = field('output')
      if (typeof output === 'string') return
      if (!Array.isArray(output)) return issue(['output'], 'must be a string or content parts')
      return contentParts(output, 'output', ctx)
    }
    case 'reasoning':
      return
    case 'item_reference':
      if (typeof field('id') !== 'string' || field('id') === '') issue(['id'], 'is required')
      return
    case 'compaction':
      if (typeof field('encrypted_content') !== 'string' || field('encrypted_content') === '')
        issue(['encrypted_content'], 'is required: the compaction item as the service answered it')
      return
    case 'compaction_trigger':
      return
    default:
      ctx.addIssue(unsupportedIssue(['type'], `"${type}" items are not offered`))
  }
})

const FunctionTool = z.looseObject({ type: z.string(), name: z.string().optional() })

const RequestFields = {
  model: z.string().min(1).max(256),
  input: z.union([z.string(), z.array(InputItemSchema).max(SIZE_LIMITS.chatMessages)]),
  instructions: z.string().nullable().optional(),
  stream: z.boolean().nullable().optional(),
  store: z.boolean().nullable().optional(),
  conversation: z
    .union([Id, z.looseObject({ id: Id })])
    .nullable()
    .optional(),
  previous_response_id: z.string().nullable().optional(),
  tools: z.array(FunctionTool).max(SIZE_LIMITS.toolItems).optional(),
  tool_choice: z
    .union([z.enum(['auto', 'none', 'required']), z.looseObject({ type: z.string(), name: z.string().optional() })])
    .optional(),
  parallel_tool_calls: z.boolean().nullable().optional(),
  max_output_tokens: z.int().min(1).max(1_000_000).nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  top_p: z.number().gt(0).max(1).nullable().optional(),
  prompt_cache_key: z.string().min(1).max(1024).nullable().optional(),
  context_management: z
    .array(z.looseObject({ type: z.string(), compact_threshold: z.int().min(1).nullable().optional() }))
    .max(8)
    .nullable()
    .optional(),
}

/** A compaction_trigger item is the request's last. */
const triggerLast = (body: { input: string | { type?: string }[] }, ctx: z.RefinementCtx) => {
  if (typeof body.input === 'string') return
  const trigger = body.input.findIndex((item) => item.type === 'compaction_trigger')
  if (trigger >= 0 && trigger !== body.input.length - 1)
    ctx.addIssue({ code: 'custom', path: ['input', trigger, 'type'], message: 'a compaction_trigger must be the last item' })
}

export const ResponsesRequestSchema = z.looseObject(RequestFields).superRefine(triggerLast).openapi('ResponsesRequest', {
  description:
    'The OpenAI Responses request. Honoured: model, input (message, function_call, function_call_output, reasoning, item_reference and compaction items, a compaction_trigger last), instructions, context_management (a compaction threshold), stream, store, tools (function tools, and those inside a namespace tool offered as `<namespace>__<name>`, their calls answered with `namespace` and `name`; others left out and listed in X-Tools-Omitted), tool_choice, parallel_tool_calls, max_output_tokens, temperature, top_p, prompt_cache_key. Other fields are ignored.',
})

export const CompactResponsesRequestSchema = z
  .looseObject({ ...RequestFields, input: RequestFields.input.default([]) })
  .superRefine(triggerLast)
  .openapi('CompactResponsesRequest', {
    description:
      'A compaction of the session the request names (as for /v1/responses), after storing what its input holds that the session does not.',
  })

export type ResponsesRequest = z.output<typeof ResponsesRequestSchema>

/** A page of items (`GET /v1/responses/{id}/input_items`, `GET /v1/conversations/{id}/items`). */
export const ItemsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  order: z.enum(['asc', 'desc']).default('desc'),
  after: z.string().min(1).max(300).optional().openapi({ description: 'An item id: the page starts after it.' }),
})
export type ItemsQuery = z.output<typeof ItemsQuerySchema>

export const ItemListSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(z.looseObject({ id: z.string(), type: z.string() })),
    first_id: z.string().nullable(),
    last_id: z.string().nullable(),
    has_more: z.boolean(),
  })
  .openapi('ItemList')

export const ResponseParamsSchema = z.object({ id: z.string().min(1).max(600) })

// ── the answers ───────────────────────────────────────────────────────────────────────────────

/** An output or input item: each names the event it comes from (`msg_`, `fc_`, `fco_`, `rs_`, `cmp_`). */
export const ResponseItemSchema = z
  .looseObject({ id: z.string(), type: z.string() })
  .openapi('ResponseItem', { description: 'A message, function_call, function_call_output, reasoning or compaction item.' })

export const ResponseUsageSchema = z
  .object({
    input_tokens: z.int(),
    input_tokens_details: z.object({ cached_tokens: z.int() }),
    output_tokens: z.int(),
    output_tokens_details: z.object({ reasoning_tokens: z.int() }),
    total_tokens: z.int(),
  })
  .openapi('ResponseUsage')

export const ResponseSchema = z
  .object({
    id: z
      .string()
      .openapi({ description: '`resp_<session, base64url>.<reply event id>` (stored), else `resp_<reply event id>`.' }),
    object: z.literal('response'),
    created_at: z.int(),
    model: z.string(),
    status: z.enum(['completed', 'incomplete', 'in_progress', 'failed']),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    incomplete_details: z.object({ reason: z.string() }).nullable(),
    instructions: z.null(),
    conversation: z.object({ id: z.string() }).nullable(),
    previous_response_id: z.string().nullable(),
    store: z.boolean(),
    output: z.array(ResponseItemSchema),
    usage: ResponseUsageSchema.nullable(),
  })
  .openapi('Response', { description: 'An OpenAI response (streamed: its server-sent events).' })

export const ResponseCompactionSchema = z
  .object({
    id: z.string(),
    object: z.literal('response.compaction'),
    created_at: z.int(),
    output: z.array(ResponseItemSchema).openapi({ description: 'The view’s user messages, then the one compaction item.' }),
    usage: ResponseUsageSchema,
  })
  .openapi('ResponseCompaction')

export type ResponseObject = z.output<typeof ResponseSchema>
export type ResponseCompaction = z.output<typeof ResponseCompactionSchema>
export type ResponseUsage = z.output<typeof ResponseUsageSchema>
