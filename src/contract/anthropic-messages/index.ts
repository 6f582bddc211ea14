import { anthropicToolId } from '../anthropic-tool-id'
import type { OpenAIContent, OpenAIContentPart, OpenAIMessage } from '../openai-messages'

/**
 * Messages in the OpenAI shape as Anthropic Messages: tool results as `tool_result` blocks of one
 * user message (consecutive ones together), tool calls as `tool_use` blocks, tool ids made safe,
 * Anthropic's own reasoning first in its message (no other provider's). What the Anthropic
 * upstream sends and an `anthropic` export writes.
 */

export type AnthropicBlock = Record<string, unknown> & { type: string }
export type AnthropicRequestMessage = { role: 'user' | 'assistant' | 'system'; content: AnthropicBlock[] }

/** The name reasoning from Anthropic is kept under. */
export const ANTHROPIC = 'anthropic'

/** A call's arguments as a `tool_use` input: its JSON object, else what it sent kept under `invalid_arguments`. */
function inputOf(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text)
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>
  } catch {}
  return { invalid_arguments: text }
}

/** Anthropic refuses empty text blocks: an empty message says so instead. */
export const textBlock = (text: string | null): AnthropicBlock => ({
  type: 'text',
  text: text === null || text.trim() === '' ? '(empty)' : text,
})

/** A `data:` URL's type and base64 text (null: another URL). */
function dataUrlParts(url: string): { mediaType: string; data: string } | null {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url)
  return match ? { mediaType: match[1]!, data: match[2]! } : null
}

/** A text/plain document's base64 bytes as its text. */
const base64Text = (data: string) => new TextDecoder().decode(Uint8Array.from(atob(data), (c) => c.charCodeAt(0)))

/** An OpenAI content part as Anthropic's block: an image by its bytes or its URL, a file as a document. */
function anthropicBlock(part: OpenAIContentPart): AnthropicBlock {
  if (part.type === 'text') return textBlock(part.text)
  if (part.type === 'image_url') {
    const inline = dataUrlParts(part.image_url.url)
    return {
      type: 'image',
      source: inline
        ? { type: 'base64', media_type: inline.mediaType, data: inline.data }
        : { type: 'url', url: part.image_url.url },
    }
  }
  const inline = dataUrlParts(part.file.file_data)
  const title = part.file.filename ? { title: part.file.filename } : {}
  if (inline?.mediaType === 'text/plain')
    return { type: 'document', source: { type: 'text', media_type: 'text/plain', data: base64Text(inline.data) }, ...title }
  return {
    type: 'document',
    source: inline
      ? { type: 'base64', media_type: inline.mediaType, data: inline.data }
      : { type: 'url', url: part.file.file_data },
    ...title,
  }
}

/** A content as Anthropic's blocks (an empty text says so: Anthropic refuses empty text blocks). */
export const anthropicBlocks = (content: OpenAIContent): AnthropicBlock[] =>
  typeof content === 'string' || content.length === 0
    ? [textBlock(typeof content === 'string' ? content : '')]
    : content.map(anthropicBlock)

/** One message other than a tool result, as Anthropic's. */
function anthropicMessage(message: Exclude<OpenAIMessage, { role: 'tool' }>): AnthropicRequestMessage {
  if (message.role !== 'assistant') return { role: message.role, content: anthropicBlocks(message.content) }
  const calls = (message.tool_calls ?? []).map((call) => ({
    type: 'tool_use',
    id: anthropicToolId(call.id),
    name: call.function.name,
    input: inputOf(call.function.arguments),
  }))
  const text = message.content ?? ''
  // Its own reasoning goes back first, as it came (no other provider's is ever sent).
  const thinking = (message.reasoning ?? [])
    .filter((block) => block.provider === ANTHROPIC)
    .map(({ provider: _, ...block }) => block as AnthropicBlock)
  return {
    role: 'assistant',
    content: [...thinking, ...(text.trim() !== '' || calls.length === 0 ? [textBlock(text)] : []), ...calls],
  }
}

/**
 * Messages as Anthropic's, one at a time as they are taken (consecutive tool results wait for
 * the message after them): a system message stays a `system` message in place.
 *
 * @example
 * [...anthropicMessages([{ role: 'tool', tool_call_id: 'c1', content: 'ok' }])] // [{ role: 'user', content: [tool_result] }]
 */
export function* anthropicMessages(messages: Iterable<OpenAIMessage>): Generator<AnthropicRequestMessage> {
  let results: AnthropicRequestMessage | null = null
  for (const message of messages) {
    if (message.role === 'tool') {
      // A tool's images and documents stay in its result, as Anthropic takes them.
      const content = typeof message.content === 'string' ? message.content : anthropicBlocks(message.content)
      const result = { type: 'tool_result', tool_use_id: anthropicToolId(message.tool_call_id), content }
      if (results) results.content.push(result)
      else results = { role: 'user', content: [result] }
      continue
    }
    if (results) yield results
    results = null
    yield anthropicMessage(message)
  }
  if (results) yield results
}
