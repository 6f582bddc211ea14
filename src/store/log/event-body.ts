import { isHighSurrogate, type SessionEvent } from '../../core'

/** Characters of JSON per stored part: at most 6 UTF-8 bytes each, so a part stays under 2 MB. */
export const PART_CHARS = 256 * 1024

/** Cuts a string into parts of at most PART_CHARS, never between the halves of a surrogate pair. */
export function splitParts(text: string): string[] {
  const parts: string[] = []
  for (let at = 0; at < text.length; ) {
    let end = Math.min(at + PART_CHARS, text.length)
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1
    parts.push(text.slice(at, end))
    at = end
  }
  return parts.length > 0 ? parts : ['']
}

/** What an event's body column holds: a message, a pass's boundary, a rewind's boundary and point, or a PINS event's change. */
export const bodyOf = (event: SessionEvent) => {
  switch (event.type) {
    case 'MESSAGE':
      return event.message
    case 'COMPACTION':
      return event.boundary
    case 'REWIND':
      return { boundary: event.boundary, rewind: event.rewind }
    case 'PINS':
      return { pins: event.pins }
  }
}
