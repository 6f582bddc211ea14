import { z } from '@hono/zod-openapi'
import { SIZE_LIMITS } from '../limits'
import { depthOf } from './common'
import { ContextManagementSchema } from './context-management'
import { unsupportedIssue } from './issues'

/**
 * `POST /v1/messages`: the Anthropic Messages request as its door takes it. The honoured fields
 * are checked; content the service cannot store (images, documents) is refused naming the block;
 * any other field is kept for an Anthropic upstream, which gets it unchanged (and no other does).
 */

/** A JSON object value (a tool's input schema, a call's input), nested no deeper than metadata may be. */
const JsonObject = z
  .record(z.string(), z.unknown())
  .refine((value) => depthOf(value, SIZE_LIMITS.metadataDepth) <= SIZE_LIMITS.metadataDepth, {
    message: `must not be nested deeper than ${SIZE_LIMITS.metadataDepth} levels`,
  })

/** An image's source: its bytes (base64) or an https URL (kept as a reference); a file by id is not taken. */
const ImageSource = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('base64'), media_type: z.string(), data: z.string() }),
  z.looseObject({ type: z.literal('url'), url: z.string() }),
])

/** A document's source: a PDF's bytes (base64), plain text, or an https URL. */
const DocumentSource = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('base64'), media_type: z.string(), data: z.string() }),
  z.looseObject({ type: z.literal('text'), media_type: z.literal('text/plain').optional(), data: z.string() }),
  z.looseObject({ type: z.literal('url'), url: z.string() }),
])

/** The block types a message may hold, by role; each checked for the fields the door reads. */
const BLOCK_FIELDS: Record<string, Record<string, z.ZodType>> = {
  text: { text: z.string() },
  tool_use: {
    id: z.string().min(1).max(SIZE_LIMITS.toolNameChars),
    name: z.string().min(1).max(SIZE_LIMITS.toolNameChars),
    input: JsonObject,
  },
  tool_result: {
    tool_use_id: z.string().min(1).max(SIZE_LIMITS.toolNameChars),
    content: z
      .union([
        z.string(),
        z.array(z.looseObject({ type: z.string(), text: z.string().optional() })).max(SIZE_LIMITS.contentParts),
      ])
      .optional(),
    is_error: z.boolean().optional(),
  },
  thinking: { thinking: z.string(), signature: z.string().optional() },
  image: { source: ImageSource },
  document: { source: DocumentSource, title: z.string().max(500).nullable().optional() },
  redacted_thinking: { data: z.string() },
  // A compaction block the service answered, sent back: its capsule stands for what came before it.
  compaction: {
    content: z.string().min(1).nullable().optional(),
    encrypted_content: z.string().max(65_536).nullable().optional(),
  },
}

const ROLE_BLOCKS: Record<string, readonly string[]> = {
  user: ['text', 'tool_result', 'image', 'document'],
  assistant: ['text', 'tool_use', 'thinking', 'redacted_thinking', 'compaction'],
  system: ['text'],
}

/** Blocks the service cannot store or send on: refused by name. */
const UNSUPPORTED = new Set(['search_result', 'container_upload'])

/** What a tool result may hold: text, images and documents. */
const RESULT_BLOCKS = new Set(['text', 'image', 'document'])

const Block = z.looseObject({ type: z.string() })

export const MessagesMessageSchema = z
  .looseObject({
    role: z.string(),
    content: z.union([z.string(), z.array(Block).max(SIZE_LIMITS.contentParts)]),
  })
  .superRefine((message, ctx) => {
    const issue = (path: (string | number)[], text: string) => ctx.addIssue({ code: 'custom', path, message: text })
    // Own keys only: a role named `valueOf` is no role.
    const allowed = Object.hasOwn(ROLE_BLOCKS, message.role) ? ROLE_BLOCKS[message.role] : undefined
    if (!allowed) {
      issue(['role'], 'must be one of user, assistant, system')
      return
    }
    if (typeof message.content === 'string') return
    message.content.forEach((block, j) => {
      if (UNSUPPORTED.has(block.type)) {
        ctx.addIssue(
          unsupportedIssue(
            ['content', j, 'type'],
            `"${block.type}" blocks cannot be stored (text, image, document, tool_use and tool_result only)`,
          ),
        )
        return
      }
      if (!allowed.includes(block.type)) {
        issue(['content', j, 'type'], `a ${message.role} message cannot hold "${block.type}" blocks (${allowed.join(', ')})`)
        return
      }
      let fieldsValid = true
      for (const [field, schema] of Object.entries(BLOCK_FIELDS[block.type]!)) {
        const checked = schema.safeParse((block as Record<string, unknown>)[field])
        if (checked.success) continue
        fieldsValid = false
        issue(['content', j, field], checked.error.issues[0]?.message ?? 'is invalid')
      }
      // Only a tool result whose content parsed: its parts are objects with a type (a null part was named above).
      if (fieldsValid && block.type === 'tool_result' && Array.isArray(block.content)) {
        ;(block.content as { type: string; source?: unknown }[]).forEach((part, k) => {
          if (!RESULT_BLOCKS.has(part.type))
            ctx.addIssue(unsupportedIssue(['content', j, 'content', k, 'type'], `"${part.type}" blocks in a tool result`))
          else if (part.type !== 'text') {
            const checked = (part.type === 'image' ? ImageSource : DocumentSource).safeParse(part.source)
            if (!checked.success) issue(['content', j, 'content', k, 'source'], checked.error.issues[0]?.message ?? 'is invalid')
          }
        })
      }
    })
  })

export const TextBlocks = z.array(z.looseObject({ type: z.literal('text'), text: z.string() })).max(SIZE_LIMITS.contentParts)

/** A client tool (`input_schema`); a server tool (`type` other than `custom`) is kept for an Anthropic upstream only. */
const ToolSchema = z.looseObject({
  name: z.string().min(1).max(SIZE_LIMITS.toolNameChars),
  type: z.string().optional(),
  description: z.string().max(65_536).optional(),
  input_schema: JsonObject.optional(),
})

const ToolChoiceSchema = z.looseObject({
  type: z.enum(['auto', 'any', 'tool', 'none']),
  name: z.string().min(1).optional(),
  disable_parallel_tool_use: z.boolean().optional(),
})

/** The fields both routes read; `max_tokens` is required on `/v1/messages` only. */
const fields = {
  model: z.string().min(1).max(256),
  messages: z.array(MessagesMessageSchema).min(1).max(SIZE_LIMITS.chatMessages),
  system: z.union([z.string(), TextBlocks]).optional(),
  metadata: z.looseObject({ user_id: z.string().max(4096).nullable().optional() }).optional(),
  stream: z.boolean().optional(),
  stop_sequences: z.array(z.string().min(1)).max(16).optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().gt(0).max(1).optional(),
  tools: z.array(ToolSchema).max(SIZE_LIMITS.toolItems).optional(),
  tool_choice: ToolChoiceSchema.optional(),
  context_management: ContextManagementSchema.optional(),
}
const MaxTokens = z.int().min(1).max(1_000_000)

function toolChecks(
  input: { tools?: z.output<typeof ToolSchema>[]; tool_choice?: z.output<typeof ToolChoiceSchema> },
  ctx: z.RefinementCtx,
) {
  if (input.tool_choice?.type === 'tool' && !input.tool_choice.name)
    ctx.addIssue({ code: 'custom', path: ['tool_choice', 'name'], message: 'is required when type is "tool"' })
  input.tools?.forEach((tool, i) => {
    if ((tool.type === undefined || tool.type === 'custom') && tool.input_schema === undefined)
      ctx.addIssue({ code: 'custom', path: ['tools', i, 'input_schema'], message: 'is required' })
    if (tool.type === 'memory_20250818' && tool.name !== 'memory')
      ctx.addIssue({ code: 'custom', path: ['tools', i, 'name'], message: 'must be "memory" for the memory tool' })
  })
  // The memory tool is the service's: a client tool of its name beside it would be two tools of one name.
  const names = (input.tools ?? []).map((tool) => tool.name)
  const twice = names.findIndex((name, i) => name === 'memory' && names.indexOf(name) !== i)
  if (twice >= 0 && input.tools?.some((tool) => tool.type === 'memory_20250818'))
    ctx.addIssue({ code: 'custom', path: ['tools', twice, 'name'], message: '"memory" is the memory tool’s name' })
}

export const MessagesRequestSchema = z
  .looseObject({ ...fields, max_tokens: MaxTokens })
  .superRefine(toolChecks)
  .openapi('MessagesRequest', {
    description:
      'The Anthropic Messages request. Honoured: model, messages (text, tool_use, tool_result, thinking, image and document blocks, compaction blocks the service answered; inline system messages), max_tokens, system, metadata.user_id, stream, stop_sequences, temperature, top_p, tools, tool_choice, context_management (applied by the service, never forwarded). Other fields go unchanged to an Anthropic upstream only.',
  })

/** `POST /v1/messages/count_tokens`: the same request, `max_tokens` optional. */
export const CountTokensRequestSchema = z
  .looseObject({ ...fields, max_tokens: MaxTokens.optional() })
  .superRefine(toolChecks)
  .openapi('CountTokensRequest', { description: 'A Messages request whose prompt is counted, not sent.' })

export type MessagesRequest = z.output<typeof CountTokensRequestSchema>
export type MessagesMessage = MessagesRequest['messages'][number]

// ── the answer ────────────────────────────────────────────────────────────────────────────────

export const AnthropicUsageSchema = z
  .object({
    input_tokens: z.int(),
    output_tokens: z.int(),
    cache_creation_input_tokens: z.int(),
    cache_read_input_tokens: z.int(),
  })
  .openapi('AnthropicUsage')

export const AnthropicMessageSchema = z
  .object({
    id: z.string().openapi({ description: '`msg_<reply event id>`: the same for a retry, streamed or not.' }),
    type: z.literal('message'),
    role: z.literal('assistant'),
    model: z.string(),
    content: z.array(
      z.union([
        z.object({ type: z.literal('text'), text: z.string() }),
        z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.record(z.string(), z.unknown()) }),
        z.looseObject({ type: z.string() }).openapi({
          description:
            'A thinking or redacted_thinking block, as the model sent it; or, first, the compaction block of a compact_20260112 edit (`content`: the summary, `encrypted_content`: what to send back).',
        }),
      ]),
    ),
    stop_reason: z
      .string()
      .nullable()
      .openapi({ description: '`compaction` when a compact_20260112 edit paused after its compaction.' }),
    stop_sequence: z.string().nullable(),
    usage: AnthropicUsageSchema,
    context_management: z
      .object({ applied_edits: z.array(z.looseObject({ type: z.string() })) })
      .optional()
      .openapi({
        description:
          'When the request had context_management: the edits that changed its prompt (`cleared_tool_uses`, `cleared_thinking_turns`, `cleared_input_tokens`).',
      }),
  })
  .openapi('AnthropicMessage', { description: 'An Anthropic message (streamed: its server-sent events).' })

export type AnthropicMessage = z.output<typeof AnthropicMessageSchema>
