/** Ids the service makes: a prefix naming the kind, then 32 hex digits of a random UUID. */
const newId = (prefix: string) => `${prefix}_${crypto.randomUUID().replaceAll('-', '')}`

/**
 * An event id the server assigns (`evt_…`): 32 hex digits too, the first 12 its time in ms, the
 * rest random (80 bits). Ids made later sort after, so the log's unique index on ids takes each
 * new one at its end: an append touches the same few index pages however long the log, where a
 * random id lands on a page of its own (at 1M events, ~0.6 ms more for a pass writing three
 * events; BENCHMARKS, "Round four at size").
 */
export const newEventId = (): string =>
  `evt_${Date.now().toString(16).padStart(12, '0')}${crypto.randomUUID().replaceAll('-', '').slice(0, 20)}`

/** A session id the server assigns when the client gives none (`ses_…`). */
export const newSessionId = (): string => newId('ses')

/** A tool call id the server mints for a call that came without one, or with one already used (`call_…`). */
export const newToolCallId = (): string => newId('call')

/** The id of a memory call the service runs for the model (`mem_…`: see the core's `isServiceCall`). */
export const newMemoryCallId = (): string => newId('mem')

/** A session id the service names for a Responses or Conversations client (`conv_…`). */
export const newConversationId = (): string => newId('conv')

/** A secret the service keeps (a session's key for what it signs): 256 random bits, hex. */
export const newSecret = (): string =>
  [...crypto.getRandomValues(new Uint8Array(32))].map((byte) => byte.toString(16).padStart(2, '0')).join('')

/** A notice's id (`ntc_…`): what the user's index object counts it once by. */
export const newNoticeId = (): string => newId('ntc')

/** A webhook endpoint's id (`wh_…`). */
export const newWebhookId = (): string => newId('wh')

/** A webhook delivery's id (`msg_…`): its `webhook-id`, the same on every attempt. */
export const newDeliveryId = (): string => newId('msg')
