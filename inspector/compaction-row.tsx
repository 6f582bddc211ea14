import { useState } from 'preact/hooks'
import type { Api } from './api'
import { ErrorNote, Loading } from './errors'
import { contentText, count, counted, sessionPath, time } from './format'
import { EventJsonView, JsonToggle } from './json'
import { MessageText } from './markdown'
import { MarkerRow } from './marker-row'
import type { EventJson } from './types'
import { useAction } from './use-action'

/**
 * Which pass of a page of the newest events may be undone (its seq: the newest pass no undo among
 * them names; null: none) and which are undone. The service has the last word (a pass a rewind
 * abandoned is refused).
 */
export function undoState(events: readonly EventJson[]): { undoable: number | null; undone: Set<string> } {
  const undone = new Set<string>()
  let undoable: number | null = null
  for (const event of events.toReversed()) {
    if (event.type !== 'COMPACTION') continue
    const undoes = event.boundary!.undoes
    if (undoes !== undefined) undone.add(undoes)
    else if (undoable === null && !undone.has(event.id)) undoable = event.seq
  }
  return { undoable, undone }
}

/**
 * A compaction as a folded row: events covered, tokens before → after; unfolded, its summary and
 * what it kept; on the pass that may be undone, "Undo". An undo is a row of its own.
 */
export function CompactionRow(props: {
  api: Api
  sessionId: string
  event: EventJson
  undone: boolean
  /** Set on the pass that may be undone: what follows an undo. */
  onUndone: (() => void) | null
}) {
  const { api, sessionId, event, undone, onUndone } = props
  const boundary = event.boundary!
  const [summary, setSummary] = useState<EventJson[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [json, setJson] = useState(false)
  const undoing = useAction()
  const undo = () =>
    undoing.run(async () => {
      await api.post(sessionPath(sessionId, `/compactions/${event.id}/undo`), {})
      onUndone?.()
    })
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
  if (boundary.undoes !== undefined) return <UndoRow event={event} />
  return (
    <li class={undone ? 'compaction undone' : 'compaction'} data-seq={event.seq}>
      <details onToggle={(e) => (e.currentTarget as HTMLDetailsElement).open && open()}>
        <summary>
          Compaction #{event.seq}: {count(boundary.coveredEventCount)} events covered
          {boundary.cleared?.length ? `, ${clearedWords(boundary.cleared)} cleared` : ''}, {tokens}
          <time dateTime={event.timestamp}> · {time(event.timestamp)}</time>
          {undone && <span class="badge">undone</span>}
          {boundary.prepared && (
            <span class="badge prepared" title="Its summary was prepared ahead: the pass did not wait for the summary model">
              prepared summary
            </span>
          )}
        </summary>
        <div class="compaction-body">
          <ErrorNote error={error} />
          {summary === null && !error && <Loading what="the summary" />}
          {summary?.length === 0 && <p class="empty">No summary: the covered events were left out of the view.</p>}
          {summary?.map((part) => (
            <SummaryPart key={part.seq} part={part} />
          ))}
          <div class="meta">
            <span class="hint">
              Kept: {boundary.pinned.length} pinned, {boundary.preserved.length} preserved; ~
              {count(boundary.tokensEstimatedSaved)} tokens saved.
            </span>
            <span class="row-actions">
              <JsonToggle open={json} onToggle={() => setJson(!json)} />
            </span>
          </div>
          {json && <EventJsonView event={event} />}
        </div>
      </details>
      {onUndone && (
        <div class="compaction-actions">
          <button
            type="button"
            class="small"
            disabled={undoing.busy}
            onClick={undo}
            title="What it covered comes back, its summary leaves"
          >
            Undo
          </button>
          <ErrorNote error={undoing.error} />
        </div>
      )}
    </li>
  )
}

/** An undo: a COMPACTION whose view is the one without a pass. */
function UndoRow({ event }: { event: EventJson }) {
  const boundary = event.boundary!
  return (
    <MarkerRow event={event} kind="undo">
      of compaction {boundary.undoes}: {counted(boundary.coveredEventCount, 'event')} left the view, tokens{' '}
      {count(boundary.tokensBefore ?? 0)} → {count(boundary.tokensAfter ?? 0)}
    </MarkerRow>
  )
}

/** One event of a compaction's summary: its text as Markdown (or raw), its JSON on demand. */
function SummaryPart({ part }: { part: EventJson }) {
  const [raw, setRaw] = useState(false)
  const [json, setJson] = useState(false)
  return (
    <div class="summary-part" data-seq={part.seq}>
      <MessageText text={contentText(part.message?.content ?? '')} raw={raw} class="summary-text" />
      <div class="meta">
        <span>
          summary #{part.seq} · {count(part.tokens)} tokens
        </span>
        <span class="row-actions">
          <button type="button" class="chip" aria-pressed={raw} onClick={() => setRaw(!raw)}>
            Raw text
          </button>
          <JsonToggle open={json} onToggle={() => setJson(!json)} />
        </span>
      </div>
      {json && <EventJsonView event={part} />}
    </div>
  )
}

/** What a clearing cleared, in words: results, then calls' arguments. */
function clearedWords(cleared: { callIds: string[]; inputs: boolean }[]): string {
  const calls = (inputs: boolean) =>
    cleared.filter((entry) => entry.inputs === inputs).reduce((sum, entry) => sum + entry.callIds.length, 0)
  const inputs = calls(true)
  return `${counted(calls(false), 'tool result')}${inputs > 0 ? ` and the arguments of ${counted(inputs, 'call')}` : ''}`
}
