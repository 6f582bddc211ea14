/**
 * The event model of a session log.
 *
 * A log is an append-only list of events. `MESSAGE` events carry chat messages; the others are
 * boundaries, each naming the view from then on: `COMPACTION` written by a compaction pass,
 * `REWIND` by a rewind (an edit, a regenerate, a client's diverged history, a branch brought
 * back). Every event carries its token estimate,
 * computed once when the event is created (see `../tokens`), so nothing downstream ever has to
 * run the tokenizer again.
 */

export * from './message'

import type { Message, Metadata, Role } from './message'

/**
 * A message a clearing pass cleared in the view (see `../clearing`): a tool message's results for
 * these calls (`inputs: false`), or an assistant message's arguments to them (`inputs: true`).
 */
export interface ClearedEntry {
  eventId: string
  callIds: string[]
  inputs: boolean
  /** The message's tokens as the view shows it, cleared. */
  tokens: number
  /** Each call's result (or arguments) tokens before it was cleared, as its notice says. */
  callTokens: number[]
}

/** What a boundary records: the view after it, named by event id, in view order. */
export interface Boundary {
  pinned: string[]
  summary: string[]
  preserved: string[]
  coveredEventCount: number
  /** View tokens before the pass minus view tokens after it; negative when a summary is longer. */
  tokensEstimatedSaved: number
  /** The view's tokens before and after the pass (absent from boundaries written before they were recorded). */
  tokensBefore?: number
  tokensAfter?: number
  /** An undo's: the pass it takes back (the view is the one without it). */
  undoes?: string
  /** The ids of `pinned` that are there because of a pin (not the system message, the preamble or a prior summary). */
  held?: string[]
  /** The messages of the view cleared (see {@link ClearedEntry}), in view order; absent: none. */
  cleared?: ClearedEntry[]
  /** A pass that used a prepared summary (see `../prepared`): true; absent otherwise. */
  prepared?: true
}

interface EventBase {
  id: string
  /** ISO-8601 timestamp. */
  timestamp: string
  metadata: Metadata
}

/** An event as it is about to be appended: everything but its position in the log. */
export interface NewMessageEvent extends EventBase {
  type: 'MESSAGE'
  synthetic: boolean
  /** The token estimate of `EventText.of(message)`, computed once. */
  tokens: number
  message: Message
}

export interface NewCompactionEvent extends EventBase {
  type: 'COMPACTION'
  synthetic: false
  tokens: 0
  boundary: Boundary
}

export type RewindPosition = 'at' | 'before'

/** Why a rewind was written: asked for, a turn editing a message, a turn regenerating, a door's diverged history. */
export type RewindReason = 'api' | 'edit' | 'regenerate' | 'divergence'

/**
 * The point a rewind goes back to: the view as of that event (`at`) or as of the event before it
 * (`before`); `to: null` is the empty log.
 */
export interface RewindPoint {
  to: string | null
  position: RewindPosition
}

export interface Rewind extends RewindPoint {
  reason: RewindReason
}

/** A rewind: its boundary names the view as of its point; `coveredEventCount` counts the messages that left the view. */
export interface NewRewindEvent extends EventBase {
  type: 'REWIND'
  synthetic: false
  tokens: 0
  boundary: Boundary
  rewind: Rewind
}

/** What a PINS event changes: ids pinned, ids unpinned. */
export interface PinChange {
  pin: string[]
  unpin: string[]
}

/** Pins and unpins messages: changes nothing else (no boundary, no message). */
export interface NewPinsEvent extends EventBase {
  type: 'PINS'
  synthetic: false
  tokens: 0
  pins: PinChange
}

export type NewBoundaryEvent = NewCompactionEvent | NewRewindEvent
export type NewEvent = NewMessageEvent | NewBoundaryEvent | NewPinsEvent

/** `seq` is the event's 1-based position in the log. */
export type MessageEvent = NewMessageEvent & { seq: number }
export type CompactionEvent = NewCompactionEvent & { seq: number }
export type RewindEvent = NewRewindEvent & { seq: number }
export type PinsEvent = NewPinsEvent & { seq: number }
export type BoundaryEvent = CompactionEvent | RewindEvent
export type SessionEvent = MessageEvent | BoundaryEvent | PinsEvent

export const isMessage = <E extends { type: string }>(event: E): event is Extract<E, { type: 'MESSAGE' }> =>
  event.type === 'MESSAGE'

export const isCompaction = <E extends { type: string }>(event: E): event is Extract<E, { type: 'COMPACTION' }> =>
  event.type === 'COMPACTION'

export const isRewind = <E extends { type: string }>(event: E): event is Extract<E, { type: 'REWIND' }> => event.type === 'REWIND'

/** A boundary (COMPACTION or REWIND): the newest one names the view. */
export const isBoundary = <E extends { type: string }>(event: E): event is Extract<E, { type: 'COMPACTION' | 'REWIND' }> =>
  event.type === 'COMPACTION' || event.type === 'REWIND'

/**
 * What compaction decisions need of a message event — no content. Full events fit it, and so do
 * the small entries a store caches for its view.
 */
export interface MessageSkeleton {
  type: 'MESSAGE'
  id: string
  /** Absent on an event not written yet. */
  seq?: number
  tokens: number
  synthetic: boolean
  message: { role: Role }
  /** Read for `inline` only (see {@link isInline}); a store's cached entries leave it out. */
  metadata?: Metadata
}

/** A message of a view as compaction sees it: a skeleton at its place in the log. Full events fit it. */
export type ViewEvent = MessageSkeleton & { seq: number }

/** What projection needs of a boundary event. */
export interface BoundarySkeleton {
  type: 'COMPACTION' | 'REWIND'
  id: string
  boundary: Boundary
}

/** A turn starts at a user message that compaction did not write. */
export const isTurnStart = (event: Pick<MessageSkeleton, 'synthetic' | 'message'>): boolean =>
  event.message.role === 'user' && !event.synthetic

/**
 * A system message sent in place (`metadata.inline`: an Anthropic client's `role: "system"`
 * message inside `messages`): a conversation message like any other, sent back where it is; it
 * does not replace the session's system prompt.
 */
export const isInline = (event: Pick<MessageSkeleton, 'message' | 'metadata'>): boolean =>
  event.message.role === 'system' && event.metadata?.inline === true

/** The session's system prompt: a system message that is not inline. */
export const isSystem = (event: Pick<MessageSkeleton, 'message' | 'metadata'>): boolean =>
  event.message.role === 'system' && !isInline(event)

/** Every id a boundary names, in view order: pinned, then summary, then preserved. */
export const namedIds = (boundary: Boundary): string[] => [...boundary.pinned, ...boundary.summary, ...boundary.preserved]

/**
 * A message event at its place in the log, its keys in the one order every event is written in
 * (the API's JSON, the log's rows read back). One object shape per event type, built fresh: logs
 * of 100k events are iterated on every pass, and objects made by spreading iterate an order of
 * magnitude slower.
 */
export const messageEventAt = (
  id: string,
  seq: number,
  timestamp: string,
  metadata: Metadata,
  synthetic: boolean,
  tokens: number,
  message: Message,
): MessageEvent => ({ type: 'MESSAGE', id, seq, timestamp, metadata, synthetic, tokens, message })

/** A boundary at its place in the log, in the key order of {@link messageEventAt}. */
export const compactionEventAt = (
  id: string,
  seq: number,
  timestamp: string,
  metadata: Metadata,
  boundary: Boundary,
): CompactionEvent => ({ type: 'COMPACTION', id, seq, timestamp, metadata, synthetic: false, tokens: 0, boundary })

/** A rewind at its place in the log, in the key order of {@link compactionEventAt}, its rewind last. */
export const rewindEventAt = (
  id: string,
  seq: number,
  timestamp: string,
  metadata: Metadata,
  boundary: Boundary,
  rewind: Rewind,
): RewindEvent => ({ type: 'REWIND', id, seq, timestamp, metadata, synthetic: false, tokens: 0, boundary, rewind })

/** A PINS event at its place in the log, in the key order of {@link compactionEventAt}, its pins last. */
export const pinsEventAt = (id: string, seq: number, timestamp: string, metadata: Metadata, pins: PinChange): PinsEvent => ({
  type: 'PINS',
  id,
  seq,
  timestamp,
  metadata,
  synthetic: false,
  tokens: 0,
  pins,
})

/** The event at a position of the log. */
export function atSeq(event: NewMessageEvent, seq: number): MessageEvent
export function atSeq(event: NewCompactionEvent, seq: number): CompactionEvent
export function atSeq(event: NewRewindEvent, seq: number): RewindEvent
export function atSeq(event: NewPinsEvent, seq: number): PinsEvent
export function atSeq(event: NewEvent, seq: number): SessionEvent
export function atSeq(event: NewEvent, seq: number): SessionEvent {
  const { id, timestamp, metadata } = event
  switch (event.type) {
    case 'MESSAGE':
      return messageEventAt(id, seq, timestamp, metadata, event.synthetic, event.tokens, event.message)
    case 'COMPACTION':
      return compactionEventAt(id, seq, timestamp, metadata, event.boundary)
    case 'REWIND':
      return rewindEventAt(id, seq, timestamp, metadata, event.boundary, event.rewind)
    case 'PINS':
      return pinsEventAt(id, seq, timestamp, metadata, event.pins)
  }
}
