import { useState } from 'preact/hooks'
import type { Api } from './api'
import { ErrorNote, Loading } from './errors'
import { Snippet } from './snippet'
import type { SessionsSearchPageJson } from './types'

/**
 * Search all of the caller's sessions (`GET /v1/search`) from the session list: each hit names its
 * session (its title, else its id), its words marked; choosing one opens that session at the event.
 */
export function AcrossSearch({ api, onOpen }: { api: Api; onOpen: (sessionId: string, seq: number) => void }) {
  const [q, setQ] = useState('')
  const [state, setState] = useState<{ q: string; hits: SessionsSearchPageJson['hits'] } | 'loading' | null>(null)
  const [error, setError] = useState<unknown>(null)
  async function run(event: Event) {
    event.preventDefault()
    setError(null)
    setState('loading')
    try {
      const page = await api.get<SessionsSearchPageJson>(`/v1/search?${new URLSearchParams({ q, limit: '20' })}`)
      setState({ q, hits: page.hits })
    } catch (failure) {
      setState(null)
      setError(failure)
    }
  }
  return (
    <section class="search across" aria-labelledby="across-title">
      <h3 id="across-title">Search all sessions</h3>
      <form onSubmit={run}>
        <label for="across-q">Words or a question</label>
        <input id="across-q" type="search" value={q} maxLength={512} required onInput={(e) => setQ(e.currentTarget.value)} />
        <button type="submit">Find</button>
      </form>
      <ErrorNote error={error} />
      {state === 'loading' && <Loading what="hits" />}
      {state !== null && state !== 'loading' && (
        <div aria-live="polite">
          {state.hits.length === 0 ? (
            <p class="empty">No session holds “{state.q}”.</p>
          ) : (
            <ol class="hits">
              {state.hits.map((hit) => (
                <li key={`${hit.sessionId}/${hit.event.seq}`}>
                  <button type="button" class="link session-hit" onClick={() => onOpen(hit.sessionId, hit.event.seq)}>
                    {hit.sessionTitle ?? hit.sessionId}
                  </button>
                  <div class="meta">
                    <span class="role">{hit.event.message?.role}</span>
                    <span>#{hit.event.seq}</span>
                    {hit.covered && <span class="badge">covered</span>}
                  </div>
                  <Snippet text={hit.snippet} q={state.q} />
                </li>
              ))}
            </ol>
          )}
        </div>
      )}
    </section>
  )
}
