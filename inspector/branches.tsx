import { useEffect, useState } from 'preact/hooks'
import type { BranchesPageJson } from '../src/contract/schemas'
import type { Api } from './api'
import { ErrorNote } from './errors'
import { counted, sessionPath, time } from './format'
import { useAction } from './use-action'

/**
 * The branches rewinds left (edits, regenerates, a client's changed history), newest first, each
 * with "Bring back": a rewind to its tip, which makes it the conversation again (the one it
 * replaces becomes a branch in turn). Read again with each of the session's generations.
 */
export function Branches(props: { api: Api; sessionId: string; generation: number; onChanged: () => void }) {
  const { api, sessionId, generation, onChanged } = props
  const [branches, setBranches] = useState<BranchesPageJson['branches'] | null>(null)
  const [loadError, setLoadError] = useState<unknown>(null)
  const { busy, error: actionError, run } = useAction()
  const error = actionError ?? loadError
  useEffect(() => {
    let current = true
    api
      .get<BranchesPageJson>(sessionPath(sessionId, '/branches?limit=20'))
      .then((page) => current && setBranches(page.branches))
      .catch((failure) => current && setLoadError(failure))
    return () => {
      current = false
    }
  }, [api, sessionId, generation])

  const bringBack = (tip: string) =>
    run(async () => {
      await api.post(sessionPath(sessionId, '/rewind'), { to: tip })
      onChanged()
    })

  if (branches === null || branches.length === 0) return error === null ? null : <ErrorNote error={error} />
  return (
    <section class="branches" aria-labelledby="branches-title">
      <h3 id="branches-title">Branches</h3>
      <ErrorNote error={error} />
      <ol>
        {branches.map((branch) => (
          <li key={branch.rewindEventId}>
            <p class="branch-headline">{branch.headline || '(no text)'}</p>
            <p class="hint">
              {counted(branch.events, 'message')}, left <time dateTime={branch.abandonedAt}>{time(branch.abandonedAt)}</time>
            </p>
            <button type="button" class="small" disabled={busy} onClick={() => bringBack(branch.tipEventId)}>
              Bring back
            </button>
          </li>
        ))}
      </ol>
    </section>
  )
}
