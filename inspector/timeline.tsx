import { useState } from 'preact/hooks'
import type { Api } from './api'
import { ErrorNote, Loading } from './errors'
import { count, eventText, sessionPath, time } from './format'
import type { EventJson } from './types'

interface TimelineProps {
  api: Api
  sessionId: string
  events: EventJson[]
  /** Whether the model sees an event now; the others are dimmed. */
  inView: (event: EventJson) => boolean
  /** Seqs a previewed compaction would cover, marked. */
  wouldCover: Set<number>
  /** The seq to bring into sight (a search hit shown). */
  focus: number | null
  earlier: (() => void) | null
  /** Back to the newest page, when the page shown is not it. */
  newest: (() => void) | null
}

/**
 * The log as a timeline: each event with its role, tokens and time, those outside the view dimmed;
 * each compaction a folded row (events covered, tokens before → after), its summary on demand.
 */
export function Timeline({ api, sessionId, events, inView, wouldCover, focus, earlier, newest }: TimelineProps) {
  // Summary events are shown inside their compaction's row, not again in the flow.
  const summaryIds = new Set(events.flatMap((event) => event.boundary?.summary ?? []))
  return (
    <section class="timeline" aria-labelledby="timeline-title">
      <h3 id="timeline-title">Log</h3>
      {earlier && (
        <button type="button" class="earlier" onClick={earlier}>
          Load earlier events
        </button>
      )}
      {events.length === 0 ? (
        <p class="empty">This session has no events yet.</p>
      ) : (
        <ol>
          {events
            .filter((event) => !summaryIds.has(event.id))
            .map((event) =>
              event.type === 'COMPACTION' ? (
                <CompactionRow key={event.seq} api={api} sessionId={sessionId} event={event} />
              ) : (
                <EventRow
                  key={event.seq}
                  event={event}
                  covered={!inView(event)}
                  wouldCover={wouldCover.has(event.seq)}
                  focused={focus === event.seq}
                />
              ),
            )}
        </ol>
      )}
      {newest && (
        <button type="button" class="earlier" onClick={newest}>
          Back to the newest events
        </button>
      )}
    </section>
  )
}

function EventRow({
  event,
  covered,
  wouldCover,
  focused,
}: {
  event: EventJson
  covered: boolean
  wouldCover: boolean
  focused: boolean
}) {
  const role = event.message?.role ?? 'event'
  const classes = ['event', role, covered ? 'covered' : '', wouldCover ? 'would-cover' : '', focused ? 'focused' : '']
  return (
    <li
      class={classes.filter(Boolean).join(' ')}
      data-seq={event.seq}
      ref={(element) => {
        if (focused) element?.scrollIntoView({ block: 'center' })
      }}
    >
      <div class="meta">
        <span class="role">{role}</span>
        <span>#{event.seq}</span>
        <span>{count(event.tokens)} tokens</span>
        <time dateTime={event.timestamp}>{time(event.timestamp)}</time>
        {event.synthetic && <span class="badge">synthetic</span>}
        {covered && <span class="badge">outside the view</span>}
        {wouldCover && <span class="badge cover">would be covered</span>}
      </div>
      <pre class="text">{eventText(event)}</pre>
    </li>
  )
}

function CompactionRow({ api, sessionId, event }: { api: Api; sessionId: string; event: EventJson }) {
  const boundary = event.boundary!
  const [summary, setSummary] = useState<EventJson[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const tokens =
    boundary.tokensBefore == null || boundary.tokensAfter == null
      ? `~${count(boundary.tokensEstimatedSaved)} tokens saved`
      : `${count(boundary.tokensBefore)} → ${count(boundary.tokensAfter)} tokens`
  async function open() {
    if (summary !== null) return
    try {
      const page = await api.get<{ compactions: { summary: EventJson[] }[] }>(
        sessionPath(sessionId, `/compactions?before=${event.seq + 1}&limit=1`),
      )
      setSummary(page.compactions[0]?.summary ?? [])
    } catch (failure) {
      setError(failure)
    }
  }
  return (
    <li class="compaction" data-seq={event.seq}>
      <details onToggle={(e) => (e.currentTarget as HTMLDetailsElement).open && open()}>
        <summary>
          Compaction #{event.seq}: {count(boundary.coveredEventCount)} events covered, {tokens}
          <time dateTime={event.timestamp}> · {time(event.timestamp)}</time>
        </summary>
        <div class="compaction-body">
          <ErrorNote error={error} />
          {summary === null && !error && <Loading what="the summary" />}
          {summary?.length === 0 && <p class="empty">No summary: the covered events were left out of the view.</p>}
          {summary?.map((part) => (
            <pre key={part.seq} class="text summary-text">
              {part.message?.content ?? ''}
            </pre>
          ))}
          <p class="hint">
            Kept: {boundary.pinned.length} pinned, {boundary.preserved.length} preserved; ~{count(boundary.tokensEstimatedSaved)}{' '}
            tokens saved.
          </p>
        </div>
      </details>
    </li>
  )
}
