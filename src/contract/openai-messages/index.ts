/**
 * The view as OpenAI chat-completions messages: the contract's `GET /view?format=openai`, and the
 * prompt the model adapters send. One rendering for both.
 */
import {
  analyzeView,
  type Content,
  type ImageDetail,
  isInline,
  type MediaPart,
  type Message,
  type Metadata,
  type NewMessageEvent,
  pairToolResults,
  partPlaceholder,
  type Reasoning,
  type ToolCall,
  textOf,
  toDataUrl,
} from '../../core'

/** An OpenAI chat-completions tool call. */
export interface OpenAIToolCall {
  id: string
  type: 'function'
  function: { name: string; arguments: string }
}

/** A part of an OpenAI chat message's content: text, an image (a URL: `data:` for stored bytes), a file (a PDF's bytes as a data URL). */
export type OpenAIContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: ImageDetail } }
  | { type: 'file'; file: { file_data: string; filename?: string } }

/** A message's content on the OpenAI wire: text, or parts. */
export type OpenAIContent = string | OpenAIContentPart[]

/**
 * An OpenAI chat-completions message. A tool message may hold parts here (a tool that returned a
 * screenshot): the OpenAI wire takes none, so its adapter moves them to the user message after
 * (see {@link imagesAfterToolResults}); Anthropic's keeps them in the tool result.
 */
export type OpenAIMessage =
  | { role: 'system' | 'user'; content: OpenAIContent }
  | { role: 'assistant'; content: string | null; tool_calls?: OpenAIToolCall[]; reasoning?: Reasoning[] }
  | { role: 'tool'; tool_call_id: string; content: OpenAIContent }

/**
 * How an image or document goes into an OpenAI message: its bytes (read where they are stored)
 * as a data URL, its URL as it is; or its placeholder text (a model without vision, a reader).
 */
export type MediaRendering = (part: MediaPart) => OpenAIContentPart

/** Every image or document as its placeholder text. */
export const placeholders: MediaRendering = (part) => ({ type: 'text', text: partPlaceholder(part) })

/** A file name for a document the client gave none: `document.pdf`, `document.txt`. */
const fileName = (part: MediaPart) => part.title ?? (part.mediaType === 'text/plain' ? 'document.txt' : 'document.pdf')

/**
 * Images and documents with their bytes: a stored one as a data URL of its bytes (`read` finds
 * them where they are stored), one known by its URL as that URL — an image as `image_url` (with
 * its `detail`), a document as a `file`. One whose bytes cannot be read goes as its placeholder.
 *
 * @example
 * toOpenAIMessages(view, system, withBytes((ref) => blobs.read(ref)))
 */
export function withBytes(read: (ref: string) => Uint8Array | null): MediaRendering {
  return (part) => {
    const detail = part.detail ? { detail: part.detail } : {}
    let url: string
    if ('url' in part) url = part.url
    else {
      const bytes = read(part.blob)
      if (!bytes) return placeholders(part)
      url = toDataUrl(part.mediaType, bytes)
    }
    if (part.type === 'image') return { type: 'image_url', image_url: { url, ...detail } }
    return { type: 'file', file: { file_data: url, filename: fileName(part) } }
  }
}

/**
 * A content on the OpenAI wire: text as it is, parts as parts, each image or document as `media`
 * renders it (placeholders when it renders none).
 *
 * @example
 * openAIContent([{ type: 'text', text: 'Look' }, image], placeholders) // [{ type: 'text', text: 'Look' }, { type: 'text', text: '[image: …]' }]
 */
export function openAIContent(content: Content | null, media: MediaRendering = placeholders): OpenAIContent {
  if (content === null) return ''
  if (typeof content === 'string') return content
  return content.map((part) => (part.type === 'text' ? { type: 'text' as const, text: part.text } : media(part)))
}

/** An OpenAI content's text: a string as it is, parts' text joined with a newline. */
export const openAIText = (content: OpenAIContent): string =>
  typeof content === 'string' ? content : content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n')

/**
 * Messages as an OpenAI chat upstream takes them, which allows only text in a tool message: each
 * tool message keeps its text, and the images and files of a run of tool messages follow at once
 * as one user message after the last of them — for each call that returned some, in call order,
 * the text `[images returned by tool call <id>]`, then its parts. The same bytes on every request.
 *
 * @example
 * imagesAfterToolResults([toolWithScreenshot]) // [{ role: 'tool', content: 'ok' }, { role: 'user', content: [text, image] }]
 */
export function imagesAfterToolResults(messages: readonly OpenAIMessage[]): OpenAIMessage[] {
  const out: OpenAIMessage[] = []
  let held: OpenAIContentPart[] = []
  const flush = () => {
    if (held.length > 0) out.push({ role: 'user', content: held })
    held = []
  }
  for (const message of messages) {
    if (message.role !== 'tool') {
      flush()
      out.push(message)
      continue
    }
    if (typeof message.content === 'string') {
      out.push(message)
      continue
    }
    const media = message.content.filter((part) => part.type !== 'text')
    out.push({ ...message, content: openAIText(message.content) })
    if (media.length > 0) held.push({ type: 'text', text: `[images returned by tool call ${message.tool_call_id}]` }, ...media)
  }
  flush()
  return out
}

/** A tool call on the OpenAI wire (a prompt's, a chat completion's). */
export const toOpenAIToolCall = (call: ToolCall): OpenAIToolCall => ({
  id: call.id,
  type: 'function',
  function: { name: call.name, arguments: call.arguments },
})

/** Whether a call's arguments are a JSON object, as every provider that parses them requires. */
function isJsonObjectText(text: string): boolean {
  if (!text.trimStart().startsWith('{')) return false
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null && !Array.isArray(value)
  } catch {
    return false
  }
}

/**
 * A stored tool call as a prompt sends it: arguments that are not a JSON object (a model's cut-off
 * or malformed output, stored as it came) go as `{"invalid_arguments": "<as stored>"}`, so no
 * provider that parses them refuses every later prompt, and the model still sees what it sent.
 */
export const promptToolCall = (call: ToolCall): OpenAIToolCall =>
  toOpenAIToolCall(
    isJsonObjectText(call.arguments) ? call : { ...call, arguments: JSON.stringify({ invalid_arguments: call.arguments }) },
  )

/** A client's OpenAI tool call as a stored one. */
export const fromOpenAIToolCall = (call: Pick<OpenAIToolCall, 'id' | 'function'>): ToolCall => ({
  id: call.id,
  name: call.function.name,
  arguments: call.function.arguments,
})

/** A prompt message as an OpenAI-wire upstream takes it: reasoning (another provider's) left out. */
export function withoutReasoning(message: OpenAIMessage): OpenAIMessage {
  if (message.role !== 'assistant' || message.reasoning === undefined) return message
  const { reasoning: _, ...rest } = message
  return rest
}

/** The text of the view's latest system message, or null when it has none. */
const latestSystemText = (view: readonly NewMessageEvent[]): string | null => {
  const latest = analyzeView(view).latestSystem
  return latest ? textOf(latest.message.content) : null
}

/**
 * One stored message as OpenAI chat messages: assistant tool calls as `tool_calls` (see
 * {@link promptToolCall}) and, for a prompt (`reasoning`), its reasoning; one `tool` message per tool response, an inline system message in
 * place, nothing for the system prompt (the view's is given first).
 */
export function openAIMessagesOf(
  event: { message: Message; metadata: Metadata },
  options: { reasoning?: boolean; media?: MediaRendering } = {},
): OpenAIMessage[] {
  const { message } = event
  const content = (value: Content | null) => openAIContent(value, options.media)
  switch (message.role) {
    case 'system':
      return isInline(event) ? [{ role: 'system', content: content(message.content) }] : []
    case 'user':
      return [{ role: 'user', content: content(message.content) }]
    case 'assistant':
      return [
        {
          role: 'assistant',
          // A model's reply is text: a stored assistant message with parts shows its text.
          content: message.content === null ? null : textOf(message.content),
          ...(message.toolCalls?.length ? { tool_calls: message.toolCalls.map(promptToolCall) } : {}),
          ...(options.reasoning && message.reasoning?.length ? { reasoning: message.reasoning } : {}),
        },
      ]
    case 'tool':
      return (message.toolResponses ?? []).map((response) => ({
        role: 'tool',
        tool_call_id: response.id,
        content: content(response.data),
      }))
  }
}

/**
 * A view as an OpenAI prompt: one system message first (the view's latest, or `system` when
 * given: a turn's own), the view's other events in order, rendered pairing-safe (see the core's
 * `pairToolResults`): each tool call followed by its result, a placeholder for one never
 * answered, a stored result without its call left out — valid on the wire whatever was appended.
 * An assistant message carries its `reasoning`: an adapter sends it to its provider only, or drops it.
 *
 * @example
 * toOpenAIMessages(view) // [{ role: 'system', ... }, { role: 'user', ... }, ...]
 * toOpenAIMessages(view, 'Be brief.') // the same, with the turn's system message instead
 * toOpenAIMessages(view, undefined, withBytes) // images as data URLs (default: their placeholders)
 */
export function toOpenAIMessages(
  view: readonly NewMessageEvent[],
  system = latestSystemText(view),
  media: MediaRendering = placeholders,
): OpenAIMessage[] {
  const messages: OpenAIMessage[] = system !== null ? [{ role: 'system', content: system }] : []
  for (const item of pairToolResults(view)) {
    if (item.kind === 'result') messages.push({ role: 'tool', tool_call_id: item.id, content: openAIContent(item.data, media) })
    else messages.push(...openAIMessagesOf(item.event, { reasoning: true, media }))
  }
  return messages
}
