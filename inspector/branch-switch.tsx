import type { BranchesPageJson } from '../src/contract/schemas'
import type { Api } from './api'
import { ErrorNote } from './errors'
import { sessionPath } from './format'
import { useAction } from './use-action'

type Branch = BranchesPageJson['branches'][number]

/** The versions of what follows one point of the conversation, oldest first, and which is shown. */
export interface Alternatives {
  /** Each abandoned version's tip (a rewind to it brings it back); null: the one shown, not yet a branch. */
  tips: (string | null)[]
  /** The index of the version the conversation goes on with now. */
  current: number
}

/**
 * The alternatives at each point of the conversation with branches (by the message they went on
 * from; null: the start), from a page of `GET /branches` (newest first). A version abandoned more
 * than once is one version, its newest tip kept; versions are ordered by when they were first
 * abandoned, which is the order they were written in. The conversation's own continuation is the
 * version brought back (`onLineage`), else a newer one no rewind has left yet.
 *
 * @example
 * alternativesAt(page.branches).get('u1') // { tips: ['x1', 'x2', null], current: 2 }: ‹ 3/3 ›
 */
export function alternativesAt(branches: readonly Branch[]): Map<string | null, Alternatives> {
  const versions = new Map<string | null, Map<string, Branch>>()
  for (const branch of branches) {
    if (!branch.parentOnLineage) continue
    const at = versions.get(branch.parentEventId) ?? new Map<string, Branch>()
    // Newest first: the first seen of a version holds its newest tip.
    if (!at.has(branch.firstEventId)) at.set(branch.firstEventId, branch)
    versions.set(branch.parentEventId, at)
  }
  // Each version's place in the page of its oldest record (the page is newest first: the largest).
  const firstAbandoned = new Map(branches.map((branch, i) => [branch.firstEventId, i]))
  const out = new Map<string | null, Alternatives>()
  for (const [parent, byFirst] of versions) {
    const ordered = [...byFirst.values()].sort(
      (a, b) => firstAbandoned.get(b.firstEventId)! - firstAbandoned.get(a.firstEventId)!,
    )
    const shown = ordered.findIndex((branch) => branch.onLineage)
    const tips: (string | null)[] = ordered.map((branch) => (branch.onLineage ? null : branch.tipEventId))
    if (shown === -1) tips.push(null)
    out.set(parent, { tips, current: shown === -1 ? tips.length - 1 : shown })
  }
  return out
}

/**
 * `‹ k/n ›` after a point of the conversation with several versions of what follows: the arrows
 * bring the previous or next version back (a rewind to its tip; the one shown becomes a branch).
 */
export function BranchSwitch(props: { api: Api; sessionId: string; alternatives: Alternatives; onWritten: () => void }) {
  const { api, sessionId, alternatives, onWritten } = props
  const { tips, current } = alternatives
  const { busy, error, run } = useAction()
  const show = (tip: string | null | undefined) =>
    tip &&
    run(async () => {
      await api.post(sessionPath(sessionId, '/rewind'), { to: tip })
      onWritten()
    })
  return (
    <li class="branch-switch">
      <span class="hint">What follows has {tips.length} versions:</span>
      <button
        type="button"
        class="chip"
        aria-label="Previous version"
        disabled={busy || current === 0}
        onClick={() => show(tips[current - 1])}
      >
        ‹
      </button>
      <span class="version">
        {current + 1}/{tips.length}
      </span>
      <button
        type="button"
        class="chip"
        aria-label="Next version"
        disabled={busy || current === tips.length - 1}
        onClick={() => show(tips[current + 1])}
      >
        ›
      </button>
      <ErrorNote error={error} />
    </li>
  )
}
