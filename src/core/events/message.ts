/** A chat message as the log keeps it: its role, its content (text, or parts of text, images and documents), its tool calls and results, its reasoning. */

import type { BinaryPart } from '../media/parts'
import type { ImageDetail } from '../media/tokens'

export type Role = 'system' | 'user' | 'assistant' | 'tool'

/** Text among a message's parts. */
export interface TextPart {
  type: 'text'
  text: string
}

/** An image or document stored in the session (see {@link BinaryPart}), with how it is to be seen. */
export type StoredPart = BinaryPart & { detail?: ImageDetail }

/** An image or document known by its https URL: kept as a reference and sent upstream as the URL, never fetched. */
export interface UrlPart {
  type: 'image' | 'document'
  url: string
  mediaType?: string
  title?: string
  detail?: ImageDetail
}

/** One part of a message's content. */
export type Part = TextPart | StoredPart | UrlPart

/**
 * A message's content: text, or parts when it holds an image or a document (text alone is always
 * a string: parts of text only are joined with a newline).
 */
export type Content = string | Part[]

export interface ToolCall {
  id: string
  name: string
  /** The call's arguments as the model produced them (usually a JSON string). */
  arguments: string
}

export interface ToolResponse {
  id: string
  name: string
  /** What the tool returned: text, or parts (a screenshot). */
  data: Content
}

/**
 * Reasoning a model returned with its reply (Anthropic's `thinking` and `redacted_thinking`
 * blocks), kept as its provider gave it under the provider's name: sent back verbatim to that
 * provider only, never rendered to another; neither estimated nor searched as part of the message.
 */
export interface Reasoning {
  provider: string
  type: string
  [field: string]: unknown
}

export interface Message {
  role: Role
  content: Content | null
  /** Assistant messages only. */
  toolCalls?: ToolCall[]
  /** Tool messages only. */
  toolResponses?: ToolResponse[]
  /** Assistant messages only (see {@link Reasoning}). */
  reasoning?: Reasoning[]
}

export type Metadata = Record<string, unknown>
