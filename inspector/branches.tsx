import { useEffect, useState } from 'preact/hooks'
import type { BranchesPageJson } from '../src/contract/schemas'
import type { Api } from './api'
import { ErrorNote } from './errors'
import { counted, sessionPath, time } from './format'
import { useAction } from './use-action'

export type BranchList = BranchesPageJson['branches']

/** The newest branches of a session (a page of 100), read again with each of its generations. */
export function useBranches(api: Api, sessionId: string, generation: number) {
  const [branches, setBranches] = useState<BranchList | null>(null)
  const [error, setError] = useState<unknown>(null)
  useEffect(() => {
    let current = true
    api
      .get<BranchesPageJson>(sessionPath(sessionId, '/branches?limit=100'))
      .then((page) => current && setBranches(page.branches))
      .catch((failure) => current && setError(failure))
    return () => {
      current = false
    }
  }, [api, sessionId, generation])
  return { branches, error }
}

/**
 * The branches rewinds left (edits, regenerates, a client's changed history), newest first, each
 * with "Bring back": a rewind to its tip, which makes it the conversation again (the one it
 * replaces becomes a branch in turn).
 */
export function Branches(props: {
  api: Api
  sessionId: string
  branches: BranchList | null
  loadError: unknown
  onChanged: () => void
}) {
  const { api, sessionId, branches, loadError, onChanged } = props
  const { busy, error: actionError, run } = useAction()
  const error = actionError ?? loadError

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
        {branches.slice(0, 20).map((branch) => (
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
