import { type Message, textOf, utf8Length } from '../../core'
import { ServiceError } from '../errors'

/** The service's sizes and counts a request may reach (docs/http-api.md, "Limits"); rate limits are `rate-limits`. */
export const SIZE_LIMITS = {
  /** Largest request body. */
  requestBytes: 8 * 1024 * 1024,
  /** Largest body of a route that takes images and documents (the Anthropic API's own limit). */
  mediaRequestBytes: 32 * 1024 * 1024,
  /** One image or document, decoded. */
  partBytes: 20 * 1024 * 1024,
  /** Images and documents in one message (its content and its tool results together). */
  mediaParts: 100,
  /** A part's https URL. */
  urlChars: 2048,
  /** A part's bytes as base64 (its decoded limit, `partBytes`, and the padding). */
  partBase64Chars: Math.ceil((20 * 1024 * 1024) / 3) * 4,
  /** An event's content: the UTF-8 bytes of its text, tool arguments and tool data together. */
  eventContentBytes: 1024 * 1024,
  /** Metadata of an event or a session, serialized as JSON. */
  metadataBytes: 16 * 1024,
  /** Nesting levels of metadata. */
  metadataDepth: 32,
  /** Events in one append. */
  eventsPerAppend: 1000,
  /** Events in one import (a larger export goes in parts). */
  importEvents: 20_000,
  /** Tool calls or tool responses in one message. */
  toolItems: 128,
  /** Tool call ids and names. */
  toolNameChars: 256,
  /** Messages in one chat-completions request (the chat-completions door), and content parts in one message. */
  chatMessages: 10_000,
  contentParts: 256,
  /** An `Idempotency-Key` header. */
  idempotencyKeyChars: 128,
  /** Session ttl: ten years. */
  ttlSeconds: 10 * 365 * 24 * 3600,
  sessionsPage: { default: 20, max: 100 },
  compactionsPage: { default: 20, max: 100 },
  searchPage: { default: 20, max: 100 },
  searchQueryChars: 512,
  /**
   * Matches ranked together: relevance orders the newest this many, then the next this many
   * older, so a word in every event costs a window, not the log.
   */
  searchRankWindow: 1000,
  /** A log page: at most `max` events, and it ends after the event that brings it to `bytes` of JSON. */
  eventsPage: { default: 100, max: 1000, bytes: 4 * 1024 * 1024 },
} as const

/** Session and event ids. */
export const ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/

/**
 * An event's size as the contract measures it: the UTF-8 bytes of its text, tool arguments and
 * tool data together (checked against {@link SIZE_LIMITS.eventContentBytes}); its images and
 * documents are stored apart, as blobs, and have limits of their own.
 *
 * @example
 * contentBytes({ role: 'user', content: 'héllo' }) // 6
 */
export function contentBytes(message: Message): number {
  let bytes = utf8Length(textOf(message.content))
  for (const call of message.toolCalls ?? []) bytes += utf8Length(call.arguments)
  for (const response of message.toolResponses ?? []) bytes += utf8Length(textOf(response.data))
  return bytes
}

/** The 413 for a message over the event content limit, naming where it is. */
export function contentTooLarge(where: string, message: Message): ServiceError | null {
  const bytes = contentBytes(message)
  if (bytes <= SIZE_LIMITS.eventContentBytes) return null
  return new ServiceError(
    'payload_too_large',
    `${where}: ${bytes} bytes of content; the limit is ${SIZE_LIMITS.eventContentBytes} bytes per event`,
  )
}
