import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { clearedById } from '../src/core/clearing'
import type { BoundaryEvent, ClearedEntry } from '../src/core/events'
import { viewMembership } from '../src/core/projection'
import { type Api, ApiError } from './api'
import { alternativesAt } from './branch-switch'
import { Branches, useBranches } from './branches'
import { BudgetBar } from './budget'
import { DryRun } from './dry-run'
import { ErrorNote, Loading } from './errors'
import { sessionPath } from './format'
import { ExportButtons } from './portability'
import { Search } from './search'
import { Timeline } from './timeline'
import { TurnBox } from './turn-box'
import type { ContextJson, EventJson } from './types'
import { UsageTotals } from './usage'

/** Events the timeline loads at a time, newest first. */
const PAGE = 200

interface Loaded {
  context: ContextJson
  inView: (event: EventJson) => boolean
  /** What the view shows cleared (its newest boundary's clearing), by event id, and that boundary's seq. */
  cleared: Map<string, ClearedEntry>
  clearedBy: number | null
  events: EventJson[]
  /** The seq the loaded events start after (0: the log's start). */
  after: number
  /** The seq the page was loaded around, to bring into sight once (null: none, or done). */
  scrollTo: number | null
}

/**
 * What the page needs of a session: its context, its newest compaction (which says what is in
 * the view: the page never reads the view, however large) and the newest page of its log.
 */
async function load(api: Api, id: string, focus: number | null): Promise<Loaded> {
  const [context, newest] = await Promise.all([
    api.get<ContextJson>(sessionPath(id, '/context')),
    api.get<{ compactions: { boundary: EventJson }[] }>(sessionPath(id, '/compactions?limit=1')),
  ])
  const version = context.events.log
  // The newest page, or the page around a seq asked for.
  const after = Math.max(0, focus === null ? version - PAGE : Math.min(focus - PAGE / 2, version - PAGE))
  const page = await api.get<{ events: EventJson[] }>(sessionPath(id, `/events?after=${after}&limit=${PAGE}`))
  // The newest boundary names the view: a rewind on the page, else the newest compaction.
  const boundary =
    page.events.findLast((event) => event.type === 'COMPACTION' || event.type === 'REWIND') ??
    newest.compactions[0]?.boundary ??
    null
  const cleared = clearedById(boundary?.boundary?.cleared)
  return {
    context,
    inView: viewMembership(boundary as BoundaryEvent | null),
    cleared,
    clearedBy: cleared.size > 0 ? (boundary?.seq ?? null) : null,
    events: page.events,
    after,
    scrollTo: focus,
  }
}

const NOTHING = new Set<number>()

const absentFrom = (error: unknown) => error instanceof ApiError && error.status === 404

/**
 * One session: its log, budget, compaction preview, search and turn box. `onShowLog` brings the
 * log into sight (on a phone, where one pane shows at a time).
 */
export function SessionPanel(props: {
  api: Api
  sessionId: string
  onWritten: () => void
  onShowLog: () => void
  /** Opens another session (a fork just made). */
  onOpen: (id: string) => void
  /** The event to show first (a hit of a search across sessions); null: the log's top. */
  at?: number | null
}) {
  const { api, sessionId, onWritten, onShowLog, onOpen } = props
  const [loaded, setLoaded] = useState<Loaded | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [preview, setPreview] = useState<{ generation: number; covered: Set<number> } | null>(null)
  const [focus, setFocus] = useState<number | null>(props.at ?? null)
  // The session's generation: one more after each write from the page and each refresh.
  const [reloads, setReloads] = useState(0)
  // Reads of the log that are no new generation: the preview made with them stays.
  const [rereads, setRereads] = useState(0)
  // A preview's marks only in the generation it was made in (a write or a refresh makes it stale).
  const wouldCover = preview !== null && preview.generation === reloads ? preview.covered : NOTHING
  const branches = useBranches(api, sessionId, reloads)
  const pinned = useMemo(() => new Set(loaded?.context.pinned ?? []), [loaded])
  const alternatives = useMemo(() => alternativesAt(branches.branches ?? []), [branches.branches])

  useEffect(() => {
    let current = true
    // What is shown stays until the read answers (no flash of "Loading" on a refresh).
    load(api, sessionId, focus)
      .then((next) => {
        if (!current) return
        setLoaded(next)
        setError(null)
      })
      .catch((failure) => current && setError(failure))
    return () => {
      current = false
    }
  }, [api, sessionId, focus, reloads, rereads])

  // The session followed live: a reply in progress shows as it comes, a written event reads the session again.
  const [live, setLive] = useState<{ turnId: string; text: string } | null>(null)
  const [following, setFollowing] = useState(false)
  const followable = loaded !== null && !absentFrom(error)
  const version = useRef(-1)
  version.current = loaded?.context.events.log ?? -1
  useEffect(() => {
    if (!followable) return
    const stop = new AbortController()
    let reread: ReturnType<typeof setTimeout> | undefined
    void api.follow(
      sessionId,
      version.current,
      {
        open: () => setFollowing(true),
        event: () => {
          setLive(null)
          clearTimeout(reread)
          reread = setTimeout(() => setRereads((n) => n + 1), 50)
        },
        delta: (turnId, text) => setLive((now) => ({ turnId, text: now?.turnId === turnId ? now.text + text : text })),
      },
      stop.signal,
    )
    return () => {
      stop.abort()
      clearTimeout(reread)
      setFollowing(false)
    }
  }, [api, sessionId, followable])

  // While a background pass or preparation runs, the session is read again each second: its end shows by itself.
  const compacting = loaded?.context.compacting === true || loaded?.context.preparing === true
  useEffect(() => {
    if (!compacting) return
    const timer = setTimeout(() => setRereads((n) => n + 1), 1000)
    return () => clearTimeout(timer)
  }, [compacting, loaded])

  async function earlier() {
    if (!loaded) return
    const after = Math.max(0, loaded.after - PAGE)
    try {
      const page = await api.get<{ events: EventJson[] }>(
        sessionPath(sessionId, `/events?after=${after}&limit=${loaded.after - after}`),
      )
      setLoaded({ ...loaded, events: [...page.events, ...loaded.events], after, scrollTo: null })
    } catch (failure) {
      setError(failure)
    }
  }

  const reload = () => {
    setReloads((n) => n + 1)
    onWritten()
  }
  // A session not written yet: the turn box starts it (it keeps its place, so its state, after).
  const absent = absentFrom(error)
  return (
    <article class="session" aria-labelledby="session-title" data-live={following ? 'on' : 'off'}>
      <div class="session-head">
        <h2 id="session-title">{sessionId}</h2>
        {!absent && loaded && <ExportButtons api={api} sessionId={sessionId} />}
        <button type="button" class="secondary" onClick={reload} title="Read the session again (another client may have written)">
          Refresh
        </button>
      </div>
      {!absent && <ErrorNote error={error} />}
      <div class="panes">
        <div class="pane-main">
          {absent && <p class="empty">There is no session “{sessionId}” yet: send a turn to start it.</p>}
          {!loaded && !error && <Loading what="the session" />}
          {live && (
            <p class="live-reply" aria-live="polite" title="A reply in progress">
              {live.text}
            </p>
          )}
          {loaded && !absent && (
            <Timeline
              api={api}
              sessionId={sessionId}
              events={loaded.events}
              inView={loaded.inView}
              cleared={loaded.cleared}
              clearedBy={loaded.clearedBy}
              wouldCover={wouldCover}
              focus={focus}
              scrollTo={loaded.scrollTo}
              earlier={loaded.after > 0 ? earlier : null}
              newest={focus === null ? null : () => setFocus(null)}
              alternatives={alternatives}
              actions={{
                api,
                sessionId,
                pinned,
                onWritten: reload,
                onForked: (id) => {
                  onWritten()
                  onOpen(id)
                },
              }}
            />
          )}
        </div>
        <div class="pane-side">
          {loaded && !absent && <BudgetBar context={loaded.context} />}
          {loaded && !absent && <UsageTotals usage={loaded.context.usage} />}
          <TurnBox api={api} sessionId={sessionId} onChanged={reload} />
          {loaded && !absent && (
            <>
              <DryRun
                api={api}
                sessionId={sessionId}
                generation={reloads}
                onPreview={setPreview}
                onLogChanged={() => setRereads((n) => n + 1)}
                onCompacted={reload}
              />
              <Branches
                api={api}
                sessionId={sessionId}
                branches={branches.branches}
                loadError={branches.error}
                onChanged={reload}
              />
              <Search
                api={api}
                sessionId={sessionId}
                onShow={(seq) => {
                  setFocus(seq)
                  onShowLog()
                }}
              />
            </>
          )}
        </div>
      </div>
    </article>
  )
}
