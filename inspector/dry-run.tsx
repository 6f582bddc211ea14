import { useState } from 'preact/hooks'
import { type Api, ApiError } from './api'
import { ErrorNote } from './errors'
import { count, sessionPath } from './format'
import type { CompactionResultJson } from './types'
import { useAction } from './use-action'

const WINDOWS = [
  ['lastTurns', 'last turns'],
  ['lastEvents', 'last events'],
  ['tokenBudget', 'tokens'],
] as const

type WindowKind = (typeof WINDOWS)[number][0]

/** The pass a preview shows: the strategy it was asked with, what it would do, and when it was made. */
interface Preview {
  kind: WindowKind
  size: number
  summarize: boolean
  pass: CompactionResultJson
  /** The session's generation it was made in (see {@link DryRunProps.generation}). */
  generation: number
  /** Made again by "Compact now" because the log had changed since the one shown. */
  changed: boolean
}

interface DryRunProps {
  api: Api
  sessionId: string
  /**
   * Counts the session's writes and refreshes seen by the page: a preview made in an earlier
   * generation is stale, so neither it nor its "Compact now" is shown.
   */
  generation: number
  /** The seqs the previewed pass would cover, in the generation it was made in (null: no preview). */
  onPreview: (preview: { generation: number; covered: Set<number> } | null) => void
  /** When "Compact now" found the log changed by someone else: the log is to be read again (the new preview is of it). */
  onLogChanged: () => void
  /** After a real pass was written. */
  onCompacted: () => void
}

const strategyOf = ({ kind, size, summarize }: Pick<Preview, 'kind' | 'size' | 'summarize'>) => ({
  window: { [kind]: size },
  ...(summarize ? { summarizer: {} } : {}),
})

/**
 * A compaction preview: the pass a chosen window would make, nothing written; then, if wanted,
 * that pass itself. "Compact now" runs the strategy shown at the version shown: when the log has
 * changed since, nothing is written and the pass it would make now is shown instead.
 */
export function DryRun({ api, sessionId, generation, onPreview, onLogChanged, onCompacted }: DryRunProps) {
  const [kind, setKind] = useState<WindowKind>('lastTurns')
  const [size, setSize] = useState(2)
  const [summarize, setSummarize] = useState(false)
  const [preview, setPreview] = useState<Preview | null>(null)
  const { busy, error, run } = useAction()
  // A preview from before the session's latest write or refresh is not shown (nor can it be run).
  const shown = preview !== null && preview.generation === generation ? preview : null

  const dryRun = (chosen: Pick<Preview, 'kind' | 'size' | 'summarize'>) =>
    api.post<CompactionResultJson>(sessionPath(sessionId, '/compact'), { strategy: strategyOf(chosen), dryRun: true })

  function show(next: Preview | null) {
    setPreview(next)
    onPreview(next && { generation: next.generation, covered: new Set(next.pass.covered.map((event) => event.seq)) })
  }

  const previewNow = () =>
    run(async () => {
      const at = generation
      const chosen = { kind, size, summarize }
      show({ ...chosen, pass: await dryRun(chosen), generation: at, changed: false })
    })

  // The pass runs only at the version previewed (else a 409, nothing written): the one shown.
  const compactNow = (of: Preview) =>
    run(async () => {
      try {
        await api.post<CompactionResultJson>(sessionPath(sessionId, '/compact'), {
          strategy: strategyOf(of),
          expectedVersion: of.pass.version,
        })
      } catch (failure) {
        if (!(failure instanceof ApiError && failure.code === 'version_conflict')) throw failure
        show({ ...of, pass: await dryRun(of), changed: true })
        onLogChanged()
        return
      }
      show(null)
      onCompacted()
    })

  const windowLabel = shown && WINDOWS.find(([value]) => value === shown.kind)![1]
  return (
    <section class="dry-run" aria-labelledby="dry-run-title">
      <h3 id="dry-run-title">Compaction preview</h3>
      <form
        onSubmit={(event) => {
          event.preventDefault()
          previewNow()
        }}
      >
        <label for="window-size">Keep the</label>
        <input
          id="window-size"
          type="number"
          min={1}
          required
          value={size}
          onInput={(e) => setSize(Math.max(1, Number(e.currentTarget.value) || 1))}
        />
        <label for="window-kind" class="visually-hidden">
          Window
        </label>
        <select id="window-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as WindowKind)}>
          {WINDOWS.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        <label class="check">
          <input type="checkbox" checked={summarize} onChange={(e) => setSummarize(e.currentTarget.checked)} /> summarize what is
          covered
        </label>
        <button type="submit" disabled={busy}>
          Preview
        </button>
      </form>
      <ErrorNote error={error} />
      {shown && (
        <div class="preview" role="status">
          {shown.changed && <p class="changed">The log changed since the preview you saw: this is the pass it would make now.</p>}
          {shown.pass.unchanged ? (
            <p>Nothing would change ({shown.pass.reason?.replaceAll('_', ' ')}).</p>
          ) : (
            <p>
              Would cover <b>{count(shown.pass.covered.length)}</b> events (marked in the log), saving ~
              <b>{count(shown.pass.tokensEstimatedSaved)}</b> tokens{shown.summarize ? ' before the summary' : ''}.
            </p>
          )}
          <p class="hint">
            Window: {windowLabel}, {count(shown.size)}
            {shown.summarize ? '; the covered events summarized' : ''}.
          </p>
          <button type="button" disabled={busy || shown.pass.unchanged} onClick={() => compactNow(shown)}>
            Compact now
          </button>
          <button type="button" class="link" onClick={() => show(null)}>
            Clear preview
          </button>
        </div>
      )}
    </section>
  )
}
