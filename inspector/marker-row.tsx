import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import { time } from './format'
import { EventJsonView, JsonToggle } from './json'
import type { EventJson } from './types'

/**
 * A one-line row of the log for an event that is no message (a rewind, an undo, a PINS event):
 * its kind, seq, what it did and when, its JSON on demand.
 *
 * @example
 * <MarkerRow event={event} kind="rewind">back to u2: 3 events left the view</MarkerRow>
 */
export function MarkerRow({ event, kind, children }: { event: EventJson; kind: string; children: ComponentChildren }) {
  const [json, setJson] = useState(false)
  return (
    <li class="rewind" data-seq={event.seq}>
      <div class="meta">
        <span class="role">{kind}</span>
        <span>#{event.seq}</span>
        <span>{children}</span>
        <time dateTime={event.timestamp}>{time(event.timestamp)}</time>
        <span class="row-actions">
          <JsonToggle open={json} onToggle={() => setJson(!json)} />
        </span>
      </div>
      {json && <EventJsonView event={event} />}
    </li>
  )
}
