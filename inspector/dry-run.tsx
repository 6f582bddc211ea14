import { useState } from 'preact/hooks'
import type { Api } from './api'
import { ErrorNote } from './errors'
import { count, sessionPath } from './format'
import type { CompactionResultJson } from './types'

const WINDOWS = [
  ['lastTurns', 'last turns'],
  ['lastEvents', 'last events'],
  ['tokenBudget', 'tokens'],
] as const

interface DryRunProps {
  api: Api
  sessionId: string
  /** The seqs the previewed pass would cover (empty when the preview is cleared). */
  onPreview: (covered: Set<number>) => void
  /** After a real pass was written. */
  onCompacted: () => void
}

/** A compaction preview: the pass a chosen window would make, nothing written; then, if wanted, the pass itself. */
export function DryRun({ api, sessionId, onPreview, onCompacted }: DryRunProps) {
  const [kind, setKind] = useState<(typeof WINDOWS)[number][0]>('lastTurns')
  const [size, setSize] = useState(2)
  const [summarize, setSummarize] = useState(false)
  const [result, setResult] = useState<CompactionResultJson | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const strategy = () => ({ window: { [kind]: size }, ...(summarize ? { summarizer: {} } : {}) })
  async function compact(dryRun: boolean) {
    setBusy(true)
    setError(null)
    try {
      const pass = await api.post<CompactionResultJson>(sessionPath(sessionId, '/compact'), { strategy: strategy(), dryRun })
      if (dryRun) {
        setResult(pass)
        onPreview(new Set(pass.covered.map((event) => event.seq)))
      } else {
        setResult(null)
        onPreview(new Set())
        onCompacted()
      }
    } catch (failure) {
      setError(failure)
    } finally {
      setBusy(false)
    }
  }
  return (
    <section class="dry-run" aria-labelledby="dry-run-title">
      <h3 id="dry-run-title">Compaction preview</h3>
      <form
        onSubmit={(event) => {
          event.preventDefault()
          compact(true)
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
        <select id="window-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as typeof kind)}>
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
      {result && (
        <div class="preview" role="status">
          {result.unchanged ? (
            <p>Nothing would change ({result.reason?.replaceAll('_', ' ')}).</p>
          ) : (
            <p>
              Would cover <b>{count(result.covered.length)}</b> events (marked in the log), saving ~
              <b>{count(result.tokensEstimatedSaved)}</b> tokens{summarize ? ' before the summary' : ''}.
            </p>
          )}
          <button type="button" disabled={busy || result.unchanged} onClick={() => compact(false)}>
            Compact now
          </button>
          <button
            type="button"
            class="link"
            onClick={() => {
              setResult(null)
              onPreview(new Set())
            }}
          >
            Clear preview
          </button>
        </div>
      )}
    </section>
  )
}
