import { Fragment } from 'preact'
import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import type { ClearedEntry } from '../src/core/events'
import type { Api } from './api'
import { type Alternatives, BranchSwitch } from './branch-switch'
import { CompactionRow, undoState } from './compaction-row'
import { count, counted, textAlone, time } from './format'
import { EventJsonView, JsonToggle } from './json'
import { MessageText } from './markdown'
import { MarkerRow } from './marker-row'
import { BlobReaderContext, blobReader, MediaParts } from './media'
import { type MessageActions, MessageButtons } from './message-actions'
import { type Marks, type Pairing, pairTools, ToolCard, ToolResultBlock, toolErrorsOf } from './tool-card'
import type { EventJson } from './types'

interface TimelineProps {
  api: Api
  sessionId: string
  events: EventJson[]
  /** Whether the model sees an event now; the others are dimmed. */
  inView: (event: EventJson) => boolean
  /** Seqs a previewed compaction would cover, marked. */
  wouldCover: Set<number>
  /** The seq marked (a search hit shown). */
  focus: number | null
  /** What the view shows cleared, by event id, and the pass that cleared it (its seq). */
  cleared: Map<string, ClearedEntry>
  clearedBy: number | null
  /** The seq to bring into sight once these events are shown (the page was loaded around it). */
  scrollTo: number | null
  earlier: (() => void) | null
  /** Back to the newest page, when the page shown is not it. */
  newest: (() => void) | null
  /** What a message's buttons do (edit, regenerate, fork). */
  actions: Omit<MessageActions, 'regenerable'>
  /** The versions of what follows each point with branches, by the message they follow (null: the start). */
  alternatives: Map<string | null, Alternatives>
}

/**
 * The log as a timeline: each event with its role, tokens and time, those outside the view
 * dimmed; text as Markdown (or raw), each tool call a card with its result(s), any event's JSON on
 * demand; each compaction a folded row (events covered, tokens before → after), its summary on demand.
 */
export function Timeline(props: TimelineProps) {
  const { api, sessionId, events, inView, wouldCover, focus, scrollTo, earlier, newest, alternatives } = props
  const section = useRef<HTMLElement>(null)
  useEffect(() => {
    if (scrollTo !== null) section.current?.querySelector(`[data-seq="${scrollTo}"]`)?.scrollIntoView({ block: 'center' })
  }, [scrollTo, events])
  // Summary events are shown inside their compaction's row, not again in the flow.
  const summaryIds = useMemo(() => new Set(events.flatMap((event) => event.boundary?.summary ?? [])), [events])
  // Pending calls are known only on the newest page (newest === null).
  const pairing = useMemo(() => pairTools(events, newest === null), [events, newest])
  const marks: Marks = { inView, wouldCover, focus, cleared: props.cleared, clearedBy: props.clearedBy }
  // The reply a regenerate replaces: the view's last message, an assistant's, on the newest page.
  const lastInView = newest === null ? events.findLast((event) => event.type === 'MESSAGE' && inView(event)) : undefined
  const regenerable = lastInView?.message?.role === 'assistant' && !lastInView.synthetic ? lastInView.seq : null
  const actions: MessageActions = { ...props.actions, regenerable }
  const undo = useMemo(
    () => (newest === null ? undoState(events) : { undoable: null, undone: new Set<string>() }),
    [events, newest],
  )
  const switchAt = (at: string | null) => {
    const found = alternatives.get(at)
    return found && <BranchSwitch api={api} sessionId={sessionId} alternatives={found} onWritten={actions.onWritten} />
  }
  const blobs = useMemo(() => blobReader(api, sessionId), [api, sessionId])
  return (
    <BlobReaderContext.Provider value={blobs}>
      <section ref={section} class="timeline" aria-labelledby="timeline-title">
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
            {!earlier && switchAt(null)}
            {events
              .filter((event) => !summaryIds.has(event.id) && !pairing.folded.has(event.seq))
              .map((event) => (
                <Fragment key={event.seq}>
                  {event.type === 'COMPACTION' ? (
                    <CompactionRow
                      api={api}
                      sessionId={sessionId}
                      event={event}
                      undone={undo.undone.has(event.id)}
                      onUndone={event.seq === undo.undoable ? actions.onWritten : null}
                    />
                  ) : event.type === 'REWIND' ? (
                    <RewindRow event={event} />
                  ) : event.type === 'PINS' ? (
                    <PinsRow event={event} />
                  ) : (
                    <EventRow event={event} pairing={pairing} marks={marks} actions={actions} />
                  )}
                  {event.type === 'MESSAGE' && switchAt(event.id)}
                </Fragment>
              ))}
          </ol>
        )}
        {newest && (
          <button type="button" class="earlier" onClick={newest}>
            Back to the newest events
          </button>
        )}
      </section>
    </BlobReaderContext.Provider>
  )
}

function EventRow({
  event,
  pairing,
  marks,
  actions,
}: {
  event: EventJson
  pairing: Pairing
  marks: Marks
  actions: MessageActions
}) {
  const [raw, setRaw] = useState(false)
  const [json, setJson] = useState(false)
  const covered = !marks.inView(event)
  const wouldCover = marks.wouldCover.has(event.seq)
  const focused = marks.focus === event.seq
  const message = event.message
  const role = message?.role ?? 'event'
  const content = textAlone(message?.content ?? '')
  const classes = ['event', role, covered && 'covered', wouldCover && 'would-cover', focused && 'focused']
  return (
    <li class={classes.filter(Boolean).join(' ')} data-seq={event.seq}>
      <div class="meta">
        <span class="role">{role}</span>
        <span>#{event.seq}</span>
        <span>{count(event.tokens)} tokens</span>
        <time dateTime={event.timestamp}>{time(event.timestamp)}</time>
        {event.synthetic && <span class="badge">synthetic</span>}
        {actions.pinned.has(event.id) && <span class="badge pinned">pinned</span>}
        {covered && <span class="badge">outside the view</span>}
        {wouldCover && <span class="badge cover">would be covered</span>}
        <span class="row-actions">
          {content !== '' && (
            <button type="button" class="chip" aria-pressed={raw} onClick={() => setRaw(!raw)}>
              Raw text
            </button>
          )}
          <JsonToggle open={json} onToggle={() => setJson(!json)} />
          <MessageButtons event={event} actions={actions} />
        </span>
      </div>
      {json && <EventJsonView event={event} />}
      {content !== '' && <MessageText text={content} raw={raw} />}
      <MediaParts content={message?.content ?? null} />
      {message?.toolCalls?.map((call) => (
        <ToolCard
          key={call.id}
          call={call}
          results={pairing.results.get(call.id) ?? []}
          pending={pairing.pending.has(call.id)}
          marks={marks}
          from={event}
        />
      ))}
      {message?.toolResponses
        ?.filter((response) => !pairing.results.has(response.id))
        .map((response, i) => (
          <ToolResultBlock
            key={i}
            result={{
              event,
              ...response,
              data: textAlone(response.data),
              media: response.data,
              error: toolErrorsOf(event).includes(response.id),
            }}
            orphan
          />
        ))}
    </li>
  )
}

const REASONS = { api: 'asked for', edit: 'an edit', regenerate: 'a regenerate', divergence: 'a client’s changed history' }

/** A rewind: the view taken back to an earlier point; what left it stays in the log. */
function RewindRow({ event }: { event: EventJson }) {
  const { to, position, reason } = event.rewind!
  const point = to === null ? 'the start' : position === 'at' ? to : `before ${to}`
  return (
    <MarkerRow event={event} kind="rewind">
      back to {point} ({REASONS[reason]}): {counted(event.boundary!.coveredEventCount, 'event')} left the view
    </MarkerRow>
  )
}

/** A PINS event: the messages it pinned and unpinned (nothing else changed). */
function PinsRow({ event }: { event: EventJson }) {
  const { pin, unpin } = event.pins!
  const said = [pin.length > 0 && `pinned ${pin.join(', ')}`, unpin.length > 0 && `unpinned ${unpin.join(', ')}`]
  return (
    <MarkerRow event={event} kind="pins">
      {said.filter(Boolean).join('; ')}
    </MarkerRow>
  )
}
