/**
 * Webhooks: what a session tells (its notices, written with the change in the session row's
 * outbox, `store/log/outbox`), taken once by the user's index object (its inbox), fanned out to
 * the user's endpoints as deliveries, signed (Standard Webhooks) and sent by the index object's
 * alarm, retried for three days. The Durable Objects compose these; the routes are
 * `http/routes/webhooks.ts`, the wire shapes `contract/schemas/webhooks.ts`.
 */
export { Webhooks } from './deliveries'
export { WebhookEndpoints } from './endpoints'
export { NoticeInbox } from './inbox'
export { boundaryNotices, type Notice, newNotice, subscribes, turnNotice, usageEntry } from './notices'
export { sendDue } from './sender'
export { webhookSignature } from './sign'
