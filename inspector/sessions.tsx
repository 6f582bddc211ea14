import { useEffect, useState } from 'preact/hooks'
import type { Api } from './api'
import { ErrorNote, Loading } from './errors'
import { count, isSessionId, time } from './format'
import { ImportForm } from './portability'
import { AcrossSearch } from './search-across'
import { SessionIdInput } from './session-id-input'
import type { SessionJson, SessionListJson } from './types'

/**
 * The caller's sessions, newest first, a page at a time, each by its title; any id typed in (a new
 * one starts a session); and a search of them all.
 */
export function SessionList(props: {
  api: Api
  selected: string | null
  writes: number
  onSelect: (id: string, seq?: number) => void
}) {
  const { api, selected, writes, onSelect } = props
  const [sessions, setSessions] = useState<SessionJson[] | null>(null)
  const [cursor, setCursor] = useState<string | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [typed, setTyped] = useState('')

  async function more(from: string | null) {
    try {
      const page = await api.get<SessionListJson>(`/v1/sessions?limit=50${from ? `&cursor=${encodeURIComponent(from)}` : ''}`)
      setSessions((shown) => [...(from ? (shown ?? []) : []), ...page.sessions])
      setCursor(page.nextCursor)
    } catch (failure) {
      setError(failure)
    }
  }
  useEffect(() => {
    more(null)
  }, [api, selected, writes])

  return (
    <nav class="sessions" aria-labelledby="sessions-title">
      <h2 id="sessions-title">Sessions</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault()
          if (isSessionId(typed)) onSelect(typed)
        }}
      >
        <label for="open-id">Open or start by id</label>
        <SessionIdInput id="open-id" value={typed} onInput={setTyped} />
        <button type="submit">Open</button>
      </form>
      <ImportForm api={api} onImported={onSelect} />
      <AcrossSearch api={api} onOpen={onSelect} />
      <ErrorNote error={error} />
      {sessions === null && !error && <Loading what="sessions" />}
      {sessions?.length === 0 && <p class="empty">No sessions yet: open one by id and send a turn.</p>}
      <ul>
        {sessions?.map((session) => (
          <li key={session.id}>
            <button
              type="button"
              class="session-link"
              aria-current={session.id === selected ? 'page' : undefined}
              onClick={() => onSelect(session.id)}
            >
              {session.title && <span class="title">{session.title}</span>}
              <span class="id">{session.id}</span>
              <span class="hint">
                {count(session.version)} events · {time(session.createdAt)}
              </span>
            </button>
          </li>
        ))}
      </ul>
      {cursor && (
        <button type="button" onClick={() => more(cursor)}>
          More sessions
        </button>
      )}
    </nav>
  )
}
