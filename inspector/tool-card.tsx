import type { JSX } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { clearedNotice } from '../src/core/clearing'
import type { ClearedEntry, Content } from '../src/core/events'
import { pendingToolCalls } from '../src/core/tool-pairs'
import { count, textAlone, time } from './format'
import { EventJsonView, JsonToggle, prettyJson } from './json'
import { MediaParts } from './media'
import type { EventJson, ToolCall } from './types'

/** One stored result of a tool call: the response, the tool event holding it, and whether it was sent as an error. */
export interface ToolResult {
  event: EventJson
  id: string
  name: string
  /** Its text (images and documents apart, in `media`). */
  data: string
  media: Content
  error: boolean
}

/** The tool calls of a page of the log and their results, paired by call id. */
export interface Pairing {
  /** A call's results in log order (usually one), by call id. */
  results: Map<string, ToolResult[]>
  /** The seqs of tool events shown inside their calls' cards (not again as rows of their own). */
  folded: Set<number>
  /** The calls the newest turn still waits for (known only when the page holds the log's newest events). */
  pending: Set<string>
}

/** The ids of the calls whose results an event holds as errors (the service lists them in its metadata). */
export const toolErrorsOf = (event: EventJson): string[] => {
  const errors = event.metadata.toolErrors
  return Array.isArray(errors) ? errors.filter((id): id is string => typeof id === 'string') : []
}

/**
 * Pairs the calls on a page with the results that answer them. A tool event folds into its calls'
 * cards when each of its responses answers a call on the page and it has no text of its own;
 * otherwise it stays a row, its responses shown as results of calls not on the page.
 *
 * @example
 * const { results, folded } = pairTools(page.events, true)
 * results.get('call_1') // [{ event, id: 'call_1', name: 'get_weather', data: '{"temp":21}', error: false }]
 */
export function pairTools(events: EventJson[], newestLoaded: boolean): Pairing {
  const calls = new Set(events.flatMap((event) => event.message?.toolCalls?.map((call) => call.id) ?? []))
  const results = new Map<string, ToolResult[]>()
  const folded = new Set<number>()
  for (const event of events) {
    const responses = event.message?.toolResponses ?? []
    if (responses.length === 0) continue
    const errors = new Set(toolErrorsOf(event))
    for (const response of responses) {
      if (!calls.has(response.id)) continue
      const list = results.get(response.id) ?? []
      list.push({ event, ...response, data: textAlone(response.data), media: response.data, error: errors.has(response.id) })
      results.set(response.id, list)
    }
    if (responses.every((response) => calls.has(response.id)) && !event.message?.content) folded.add(event.seq)
  }
  const messages = events.flatMap((event) => (event.message ? [{ message: event.message, synthetic: event.synthetic }] : []))
  return { results, folded, pending: new Set(newestLoaded ? pendingToolCalls(messages) : []) }
}

/** How a result block of a tool event is marked in the log (as the rows are). */
export interface Marks {
  inView: (event: EventJson) => boolean
  wouldCover: Set<number>
  focus: number | null
  /** What the view shows cleared (the newest boundary's clearing), by event id; and that boundary's seq. */
  cleared: Map<string, ClearedEntry>
  clearedBy: number | null
}

/** The clearing of one call's result (or, `inputs`, its arguments) in the view, when the view clears it. */
export function clearingOf(marks: Marks, event: EventJson, callId: string, inputs: boolean): ClearedEntry | null {
  const entry = marks.cleared.get(event.id)
  return entry && entry.inputs === inputs && entry.callIds.includes(callId) && marks.inView(event) ? entry : null
}

const brief = (text: string, max = 60) => {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

/**
 * A tool call and its result(s) as one foldable card: the tool's name and arguments, then each
 * result matched by the call's id, or "pending" (the turn waits for it) or "no result".
 */
export function ToolCard({
  call,
  results,
  pending,
  marks,
  from,
}: {
  call: ToolCall
  results: ToolResult[]
  pending: boolean
  marks: Marks
  /** The assistant event making the call (for whether the view clears its arguments). */
  from: EventJson
}) {
  const inputCleared = clearingOf(marks, from, call.id, true)
  const focused = results.some((result) => result.event.seq === marks.focus)
  const [open, setOpen] = useState(focused)
  useEffect(() => {
    if (focused) setOpen(true)
  }, [focused])
  const status =
    results.length === 0
      ? pending
        ? ['pending', 'pending']
        : ['none', 'no result']
      : results.some((result) => result.error)
        ? ['failed', 'error']
        : ['done', results.length === 1 ? 'result' : `${results.length} results`]
  const args = prettyJson(call.arguments)
  return (
    <details
      class={`tool-card ${status[0]}`}
      data-call-id={call.id}
      open={open}
      onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}
    >
      <summary>
        <span class="tool-label">tool call</span> <code class="tool-name">{call.name}</code>{' '}
        <code class="tool-brief">{brief(call.arguments)}</code> <span class={`badge status ${status[0]}`}>{status[1]}</span>
      </summary>
      {open && (
        <div class="tool-body">
          <p class="tool-part">
            Arguments <span class="hint">· call id</span> <code class="call-id">{call.id}</code>
            {inputCleared && (
              <>
                {' '}
                <span class="badge cleared" title="The view sends {} and a notice in their place">
                  cleared in the view
                </span>
              </>
            )}
          </p>
          <pre class={`code tool-args${args === null ? '' : ' json'}`}>{args ?? call.arguments}</pre>
          <p class="tool-part">{results.length > 1 ? 'Results' : 'Result'}</p>
          {results.length === 0 &&
            (pending ? (
              <p class="tool-missing pending">Pending: the turn waits for this call’s result.</p>
            ) : (
              <p class="tool-missing">No result: none was recorded for this call.</p>
            ))}
          {results.map((result) => (
            <ToolResultBlock key={`${result.event.seq}-${result.id}`} result={result} marks={marks} />
          ))}
        </div>
      )}
    </details>
  )
}

/**
 * A stored tool result: JSON pretty-printed, other text as written. In a card, its event is
 * marked as the log's rows are; an `orphan` (a result whose call is not on the page) is shown in
 * its own event's row, which carries the marks.
 */
export function ToolResultBlock({ result, marks, orphan = false }: { result: ToolResult; marks?: Marks; orphan?: boolean }) {
  const pretty = prettyJson(result.data)
  const body = (
    <>
      {(result.data !== '' || typeof result.media === 'string') && (
        <pre class={pretty === null ? 'tool-text' : 'code json'}>{pretty ?? result.data}</pre>
      )}
      <MediaParts content={result.media} />
    </>
  )
  if (orphan || !marks)
    return (
      <div class={`tool-result orphan${result.error ? ' failed' : ''}`}>
        <p class="tool-part">
          Result of <code class="tool-name">{result.name}</code>, call <code class="call-id">{result.id}</code>{' '}
          <span class="hint">(the call is not on this page)</span>
          {result.error && <span class="badge failed">sent as an error</span>}
        </p>
        {body}
      </div>
    )
  const clearing = clearingOf(marks, result.event, result.id, false)
  return (
    <MarkedResult
      result={result}
      marks={marks}
      body={clearing ? <ClearedBody result={result} entry={clearing} body={body} /> : body}
    />
  )
}

/** A result the view shows cleared: the notice the model is given, the stored result on demand. */
function ClearedBody({ result, entry, body }: { result: ToolResult; entry: ClearedEntry; body: JSX.Element }) {
  const [whole, setWhole] = useState(false)
  const tokens = entry.callTokens[entry.callIds.indexOf(result.id)] ?? 0
  return (
    <div class="cleared">
      <p class="cleared-notice">
        <span class="badge cleared">cleared</span> <code>{clearedNotice('result', result.id, result.name, tokens)}</code>{' '}
        <button type="button" class="chip" aria-pressed={whole} onClick={() => setWhole(!whole)}>
          Full result
        </button>
      </p>
      {whole && body}
    </div>
  )
}

function MarkedResult({ result, marks, body }: { result: ToolResult; marks: Marks; body: JSX.Element }) {
  const { event } = result
  const [json, setJson] = useState(false)
  const ref = useRef<HTMLDivElement>(null)
  const covered = !marks.inView(event)
  const wouldCover = marks.wouldCover.has(event.seq)
  const focused = marks.focus === event.seq
  useEffect(() => {
    if (focused) ref.current?.scrollIntoView({ block: 'center' })
  }, [focused])
  const classes = [
    'tool-result',
    covered && 'covered',
    wouldCover && 'would-cover',
    focused && 'focused',
    result.error && 'failed',
  ]
  return (
    <div ref={ref} class={classes.filter(Boolean).join(' ')} data-seq={event.seq}>
      <div class="meta">
        <span class="role">tool</span>
        <span>#{event.seq}</span>
        <span>{count(event.tokens)} tokens</span>
        <time dateTime={event.timestamp}>{time(event.timestamp)}</time>
        {result.error && <span class="badge failed">sent as an error</span>}
        {event.synthetic && <span class="badge">synthetic</span>}
        {covered && <span class="badge">outside the view</span>}
        {wouldCover && <span class="badge cover">would be covered</span>}
        <span class="row-actions">
          <JsonToggle open={json} onToggle={() => setJson(!json)} />
        </span>
      </div>
      {json && <EventJsonView event={event} />}
      {body}
    </div>
  )
}
