import { EventText } from '../event-text'
import { mediaOf } from '../parts'
import { partTokens } from '../parts/tokens'
import type { TokenEstimator } from '../tokens'
import type {
  Boundary,
  Message,
  Metadata,
  NewCompactionEvent,
  NewMessageEvent,
  NewPinsEvent,
  NewRewindEvent,
  PinChange,
  Rewind,
} from '.'

export interface MessageDraft {
  id: string
  message: Message
  timestamp: string
  metadata?: Metadata
  synthetic?: boolean
}

/**
 * Makes a `MESSAGE` event ready to append, with its token estimate: the only place an event is
 * estimated, so every event is counted exactly once in its life. Its images and documents must
 * carry what was read of them (pixels, pages): a blob named by reference is estimated once the
 * session has filled it in.
 */
export function newMessageEvent(draft: MessageDraft, estimator: TokenEstimator): NewMessageEvent {
  return {
    type: 'MESSAGE',
    id: draft.id,
    timestamp: draft.timestamp,
    metadata: draft.metadata ?? {},
    synthetic: draft.synthetic ?? false,
    // Images and documents by the providers' rules, not by their placeholders' text.
    tokens:
      estimator.count(EventText.of(draft.message, () => '')) +
      mediaOf(draft.message).reduce((sum, part) => sum + partTokens(part), 0),
    message: draft.message,
  }
}

export function newCompactionEvent(
  draft: { id: string; timestamp: string; metadata?: Metadata },
  boundary: Boundary,
): NewCompactionEvent {
  return {
    type: 'COMPACTION',
    id: draft.id,
    timestamp: draft.timestamp,
    metadata: draft.metadata ?? {},
    synthetic: false,
    tokens: 0,
    boundary,
  }
}

export function newRewindEvent(
  draft: { id: string; timestamp: string; metadata?: Metadata },
  boundary: Boundary,
  rewind: Rewind,
): NewRewindEvent {
  return {
    type: 'REWIND',
    id: draft.id,
    timestamp: draft.timestamp,
    metadata: draft.metadata ?? {},
    synthetic: false,
    tokens: 0,
    boundary,
    rewind,
  }
}

/** A PINS event: the ids it pins and unpins; it changes nothing else. */
export function newPinsEvent(draft: { id: string; timestamp: string; metadata?: Metadata }, pins: PinChange): NewPinsEvent {
  return {
    type: 'PINS',
    id: draft.id,
    timestamp: draft.timestamp,
    metadata: draft.metadata ?? {},
    synthetic: false,
    tokens: 0,
    pins,
  }
}
