import { useState } from 'preact/hooks'
import type { Api } from './api'
import { ErrorNote, Loading } from './errors'
import { sessionPath } from './format'
import { Snippet } from './snippet'
import type { SearchPageJson } from './types'

/** Search of the whole log, covered events included; each hit's words marked, shown in the log on demand. */
export function Search({ api, sessionId, onShow }: { api: Api; sessionId: string; onShow: (seq: number) => void }) {
  const [q, setQ] = useState('')
  const [scope, setScope] = useState('all')
  const [state, setState] = useState<{ q: string; hits: SearchPageJson['hits'] } | 'loading' | null>(null)
  const [error, setError] = useState<unknown>(null)
  async function run(event: Event) {
    event.preventDefault()
    setError(null)
    setState('loading')
    try {
      const page = await api.get<SearchPageJson>(
        sessionPath(sessionId, `/search?${new URLSearchParams({ q, scope, limit: '50' })}`),
      )
      setState({ q, hits: page.hits })
    } catch (failure) {
      setState(null)
      setError(failure)
    }
  }
  return (
    <section class="search" aria-labelledby="search-title">
      <h3 id="search-title">Search</h3>
      <form onSubmit={run}>
        <label for="search-q">Words</label>
        <input id="search-q" type="search" value={q} maxLength={512} required onInput={(e) => setQ(e.currentTarget.value)} />
        <label for="search-scope">In</label>
        <select id="search-scope" value={scope} onChange={(e) => setScope(e.currentTarget.value)}>
          <option value="all">everything</option>
          <option value="covered">what compaction hid</option>
          <option value="view">the view</option>
        </select>
        <button type="submit">Search</button>
      </form>
      <ErrorNote error={error} />
      {state === 'loading' && <Loading what="hits" />}
      {state !== null && state !== 'loading' && (
        <div aria-live="polite">
          {state.hits.length === 0 ? (
            <p class="empty">No event matches “{state.q}”.</p>
          ) : (
            <ol class="hits">
              {state.hits.map((hit) => (
                <li key={hit.event.seq} class={hit.covered ? 'covered' : ''}>
                  <div class="meta">
                    <span class="role">{hit.event.message?.role}</span>
                    <span>#{hit.event.seq}</span>
                    {hit.covered && <span class="badge">covered</span>}
                    <button type="button" class="link" onClick={() => onShow(hit.event.seq)}>
                      Show in log
                    </button>
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
