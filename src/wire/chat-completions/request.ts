import type { BlobUpload } from '../../contract/blob-upload'
import { ServiceError } from '../../contract/errors'
import { fromOpenAIToolCall } from '../../contract/openai-messages'
import type { ChatCompletionRequest, ChatMessageInput } from '../../contract/schemas'
import { type ClientMessage, type Content, contentOf, isMediaPart, type Part } from '../../core'
import type { DoorRequest } from '../../doors'
import { type DoorHeaderValues, doorRequestOf, type Translation } from '../door-request'
import { checkMediaCount, MediaIntake } from '../media'

/** A message's text: its content, or its text parts joined with a newline; null ≡ "". */
const textOf = (content: ChatMessageInput['content']): string =>
  typeof content === 'string' ? content : (content ?? []).map((part) => part.text ?? '').join('\n')

/** A user message's content: its text, images (`image_url`: a data URL or https) and files (`file.file_data`), read by `media`. */
async function userContent(field: string, content: ChatMessageInput['content'], media: MediaIntake): Promise<Content> {
  if (!Array.isArray(content)) return content ?? ''
  const parts: Part[] = []
  for (const [j, part] of content.entries()) {
    const where = `${field}.content[${j}]`
    if (part.type === 'image_url') {
      const { url, detail } = part.image_url!
      parts.push(await media.url(`${where}.image_url.url`, 'image', url, detail ? { detail } : {}))
    } else if (part.type === 'file')
      parts.push(await media.file(`${where}.file.file_data`, part.file!.file_data!, part.file!.filename))
    else parts.push({ type: 'text', text: part.text ?? '' })
  }
  checkMediaCount(field, parts.filter(isMediaPart).length)
  return contentOf(parts)
}

/**
 * A validated chat-completions request as the session object takes it: the last system or
 * developer message as the turn's system prompt, the other messages as the client sees them,
 * the sampling fields in the turn's names (`max_completion_tokens` before `max_tokens`).
 *
 * Its images and files are read by `media` (see `MediaIntake`), whose upload goes with the request.
 *
 * @example
 * const translation = await chatCompletionTranslation(body, new MediaIntake())
 */
export async function chatCompletionTranslation(body: ChatCompletionRequest, media: MediaIntake): Promise<Translation> {
  let system: string | undefined
  const messages: ClientMessage[] = []
  const fields: string[] = []
  for (const [at, message] of body.messages.entries()) {
    const text = textOf(message.content)
    if (message.role === 'system' || message.role === 'developer') {
      if (text !== '') system = text
      continue
    }
    fields.push(`messages[${at}]`)
    if (message.role === 'tool') messages.push({ role: 'tool', content: text, toolCallId: message.tool_call_id! })
    else if (message.role === 'user')
      messages.push({ role: 'user', content: await userContent(`messages[${at}]`, message.content, media) })
    else {
      const toolCalls = (message.tool_calls ?? []).map(fromOpenAIToolCall)
      // Its calls alone, with content null (or none): stored with content null, as sent.
      const content = message.content == null && toolCalls.length > 0 ? null : text
      messages.push({ role: 'assistant', content, ...(toolCalls.length > 0 ? { toolCalls } : {}) })
    }
  }
  const maxTokens = body.max_completion_tokens ?? body.max_tokens ?? undefined
  const options = Object.fromEntries(
    Object.entries({
      temperature: body.temperature,
      topP: body.top_p,
      maxTokens,
      stop: body.stop,
      seed: body.seed,
      presencePenalty: body.presence_penalty,
      frequencyPenalty: body.frequency_penalty,
      responseFormat: body.response_format,
      promptCacheKey: body.prompt_cache_key,
    }).filter(([, value]) => value !== undefined && value !== null),
  )
  return {
    messages,
    fields,
    toolCallIdField: 'tool_call_id',
    // Its system messages are the system prompt: a log's inline ones are not shown to it.
    shown: { inline: false },
    request: {
      ...(system !== undefined ? { system } : {}),
      ...(body.model !== undefined ? { model: body.model } : {}),
      stream: body.stream ?? false,
      ...(body.tools ? { tools: body.tools } : {}),
      ...(body.tool_choice !== undefined ? { toolChoice: body.tool_choice } : {}),
      ...(body.parallel_tool_calls !== undefined ? { parallelToolCalls: body.parallel_tool_calls } : {}),
      ...(Object.keys(options).length > 0 ? { options } : {}),
    },
  }
}

/**
 * The session a chat-completions request names (`X-Session-Id`, else the body's `session_id`),
 * or the 400 that says how to name one.
 */
export function chatSessionOf(sessionId: string | undefined): string {
  if (sessionId === undefined)
    throw new ServiceError(
      'invalid_request',
      'X-Session-Id: the header (or the body’s session_id) is required: it names the session',
    )
  return sessionId
}

/**
 * A chat-completions request as its session object takes it (see `doorRequestOf`, which reads
 * `X-Recall` as every door does); `X-Memory: on` offers the model the memory tool.
 *
 * @example
 * const request = await chatCompletionRequest(body, c.req.valid('header'), c.env)
 */
export async function chatCompletionRequest(
  body: ChatCompletionRequest,
  headers: DoorHeaderValues & { 'x-memory'?: 'on' | 'off' | undefined },
  env: Pick<Env, 'ON_DIVERGE'>,
): Promise<{ request: DoorRequest; upload: BlobUpload | null }> {
  const media = new MediaIntake()
  const translation = await chatCompletionTranslation(body, media)
  if (headers['x-memory'] === 'on') translation.request.memory = true
  return { request: await doorRequestOf(translation, body.messages, headers, env), upload: media.upload() }
}
