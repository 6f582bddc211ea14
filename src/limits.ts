/** The service's documented limits (README "Limits"). */
export const LIMITS = {
  /** Largest request body. */
  requestBytes: 8 * 1024 * 1024,
  /** An event's content: the UTF-8 bytes of its text, tool arguments and tool data together. */
  eventContentBytes: 1024 * 1024,
  /** Metadata of an event or a session, serialized as JSON. */
  metadataBytes: 16 * 1024,
  /** Nesting levels of metadata. */
  metadataDepth: 32,
  /** Events in one append. */
  eventsPerAppend: 1000,
  /** Tool calls or tool responses in one message. */
  toolItems: 128,
  /** Tool call ids and names. */
  toolNameChars: 256,
  /** Session ttl: ten years. */
  ttlSeconds: 10 * 365 * 24 * 3600,
  sessionsPage: { default: 20, max: 100 },
  eventsPage: { default: 100, max: 1000 },
} as const

/** Session and event ids. */
export const ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/
