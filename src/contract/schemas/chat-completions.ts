import { z } from '@hono/zod-openapi'
import { SIZE_LIMITS } from '../limits'
import { Id } from './common'
import { ChatOptionsSchema, ToolChoiceSchema, ToolSchema, toolFieldsProblem } from './tools'

/**
 * `POST /v1/chat/completions`: the OpenAI Chat Completions request as the chat-completions door takes it.
 * The honoured fields are checked; the ones it cannot honour are refused by name (a client
 * asking for them would get something other than it asked for); any other field is ignored.
 */

/** Message content: text, or parts — text, and in a user message images (`image_url`) and files (`file`). */
const Content = z.union([
  z.string(),
  z
    .array(
      z.looseObject({
        type: z.string(),
        text: z.string().optional(),
        image_url: z.looseObject({ url: z.string(), detail: z.enum(['low', 'high', 'auto']).optional() }).optional(),
        file: z
          .looseObject({
            file_data: z.string().optional(),
            file_id: z.string().optional(),
            filename: z.string().max(500).optional(),
          })
          .optional(),
      }),
    )
    .max(SIZE_LIMITS.contentParts),
])

/** The part types each role may send. */
const PART_TYPES: Record<string, string[]> = {
  user: ['text', 'image_url', 'file'],
  system: ['text'],
  developer: ['text'],
  assistant: ['text'],
  tool: ['text'],
}

const ToolCallSchema = z.looseObject({
  id: z.string().min(1).max(SIZE_LIMITS.toolNameChars),
  type: z.literal('function'),
  function: z.looseObject({ name: z.string().min(1).max(SIZE_LIMITS.toolNameChars), arguments: z.string() }),
})

export const ChatMessageSchema = z
  .looseObject({
    role: z.string(),
    content: Content.nullable().optional(),
    tool_calls: z.array(ToolCallSchema).min(1).max(SIZE_LIMITS.toolItems).optional(),
    tool_call_id: z.string().min(1).max(SIZE_LIMITS.toolNameChars).optional(),
  })
  .superRefine((message, ctx) => {
    const issue = (path: (string | number)[], text: string) => ctx.addIssue({ code: 'custom', path, message: text })
    const roles = ['system', 'developer', 'user', 'assistant', 'tool']
    if (!roles.includes(message.role)) {
      issue(
        ['role'],
        message.role === 'function'
          ? 'role "function" is not supported: use tools and tool messages'
          : `must be one of ${roles.join(', ')}`,
      )
      return
    }
    if (Array.isArray(message.content)) {
      const allowed = PART_TYPES[message.role]!
      message.content.forEach((part, j) => {
        if (!allowed.includes(part.type))
          issue(['content', j, 'type'], `a ${message.role} message's parts are ${allowed.join(', ')}, not "${part.type}"`)
        else if (part.type === 'text' && part.text === undefined) issue(['content', j, 'text'], 'is required')
        else if (part.type === 'image_url' && !part.image_url) issue(['content', j, 'image_url'], 'is required')
        else if (part.type === 'file' && !part.file) issue(['content', j, 'file'], 'is required')
        else if (part.type === 'file' && part.file!.file_id !== undefined)
          issue(['content', j, 'file', 'file_id'], 'files by id are not supported: send file_data')
        else if (part.type === 'file' && part.file!.file_data === undefined)
          issue(['content', j, 'file', 'file_data'], 'is required')
      })
    }
    const hasContent = message.content !== undefined && message.content !== null
    if (message.role !== 'assistant' && !hasContent) issue(['content'], 'is required')
    if (message.role === 'assistant' && !hasContent && !message.tool_calls) issue(['content'], 'is required without tool_calls')
    if (message.tool_calls && message.role !== 'assistant') issue(['tool_calls'], 'only assistant messages carry tool calls')
    if (message.role === 'tool' && message.tool_call_id === undefined) issue(['tool_call_id'], 'is required')
  })

/** A field the chat-completions door cannot honour, refused with a reason. */
const refused = (reason: string) =>
  z
    .unknown()
    .refine(() => false, reason)
    .optional()

export const ChatCompletionRequestSchema = z
  .looseObject({
    model: z.string().min(1).max(256).optional(),
    messages: z.array(ChatMessageSchema).min(1).max(SIZE_LIMITS.chatMessages),
    stream: z.boolean().optional(),
    stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
    session_id: Id.optional(),
    tools: z.array(ToolSchema).min(1).max(SIZE_LIMITS.toolItems).optional(),
    tool_choice: ToolChoiceSchema.optional(),
    parallel_tool_calls: z.boolean().optional(),
    temperature: ChatOptionsSchema.shape.temperature.nullable(),
    top_p: ChatOptionsSchema.shape.topP.nullable(),
    max_tokens: ChatOptionsSchema.shape.maxTokens.nullable(),
    max_completion_tokens: ChatOptionsSchema.shape.maxTokens.nullable(),
    stop: ChatOptionsSchema.shape.stop.nullable(),
    seed: ChatOptionsSchema.shape.seed.nullable(),
    presence_penalty: ChatOptionsSchema.shape.presencePenalty.nullable(),
    frequency_penalty: ChatOptionsSchema.shape.frequencyPenalty.nullable(),
    response_format: ChatOptionsSchema.shape.responseFormat,
    prompt_cache_key: ChatOptionsSchema.shape.promptCacheKey.nullable(),
    n: z.literal(1, 'only 1 choice is supported').nullable().optional(),
    logprobs: z.literal(false, 'log probabilities are not supported').nullable().optional(),
    top_logprobs: refused('log probabilities are not supported'),
    audio: refused('audio output is not supported'),
    modalities: z
      .array(z.literal('text', 'only text output is supported'))
      .refine((list) => list.length === 1, 'only ["text"] is supported')
      .nullable()
      .optional(),
    prediction: refused('predicted outputs are not supported'),
  })
  .superRefine((input, ctx) => {
    const problem = toolFieldsProblem({ tools: input.tools, toolChoice: input.tool_choice })
    if (problem) {
      const path = problem.path.map((part) => (part === 'toolChoice' ? 'tool_choice' : part))
      ctx.addIssue({ code: 'custom', path, message: problem.message })
    }
  })
  .openapi('ChatCompletionRequest', {
    description:
      'The OpenAI Chat Completions request. Honoured: model, messages, stream, stream_options.include_usage, tools, tool_choice, parallel_tool_calls, temperature, top_p, max_tokens / max_completion_tokens, stop, seed, presence_penalty, frequency_penalty, response_format, prompt_cache_key. Refused (400): n ≠ 1, logprobs, top_logprobs, audio, modalities other than ["text"], prediction, audio parts, files by id, role function. A user message may hold images (`image_url`: a data URL or https) and files (`file.file_data`: a PDF or text as a data URL). Other fields are ignored.',
  })

export type ChatCompletionRequest = z.output<typeof ChatCompletionRequestSchema>
export type ChatMessageInput = ChatCompletionRequest['messages'][number]

// ── the answers ───────────────────────────────────────────────────────────────────────────────

const AnswerToolCallSchema = z.object({
  id: z.string(),
  type: z.literal('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
})

export const ChatCompletionUsageSchema = z
  .object({
    prompt_tokens: z.int(),
    completion_tokens: z.int(),
    total_tokens: z.int(),
    prompt_tokens_details: z.object({ cached_tokens: z.int() }).optional(),
  })
  .openapi('ChatCompletionUsage')

export const ChatCompletionSchema = z
  .object({
    id: z.string().openapi({ description: '`chatcmpl-<reply event id>`: the same for a retry, streamed or not.' }),
    object: z.literal('chat.completion'),
    created: z.int(),
    model: z.string(),
    choices: z.array(
      z.object({
        index: z.literal(0),
        message: z.object({
          role: z.literal('assistant'),
          content: z.string().nullable(),
          tool_calls: z.array(AnswerToolCallSchema).optional(),
        }),
        finish_reason: z.string(),
      }),
    ),
    usage: ChatCompletionUsageSchema.optional(),
  })
  .openapi('ChatCompletion', { description: 'An OpenAI chat.completion (streamed: chat.completion.chunk frames, then [DONE]).' })

export const ChatCompletionChunkSchema = z
  .object({
    id: z.string(),
    object: z.literal('chat.completion.chunk'),
    created: z.int(),
    model: z.string(),
    choices: z.array(
      z.object({ index: z.literal(0), delta: z.record(z.string(), z.unknown()), finish_reason: z.string().nullable() }),
    ),
    usage: ChatCompletionUsageSchema.nullable().optional(),
  })
  .openapi('ChatCompletionChunk')

export type ChatCompletion = z.output<typeof ChatCompletionSchema>
export type ChatCompletionUsage = z.output<typeof ChatCompletionUsageSchema>
export type ChatCompletionChunk = z.output<typeof ChatCompletionChunkSchema>
