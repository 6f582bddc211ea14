import { useState } from 'preact/hooks'
import type { Api } from './api'
import { ErrorNote } from './errors'
import { count, isSessionId, sessionPath } from './format'
import { SessionIdInput } from './session-id-input'

/** Saves a blob as a file, the way a link with `download` does. */
function save(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob)
  const link = document.createElement('a')
  link.href = url
  link.download = name
  link.click()
  setTimeout(() => URL.revokeObjectURL(url), 0)
}

/** A session's exports: the durable jsonl file (every event), or the lineage as Markdown to read. */
export function ExportButtons(props: { api: Api; sessionId: string }) {
  const { api, sessionId } = props
  const [error, setError] = useState<unknown>(null)
  const download = async (format: 'jsonl' | 'markdown') => {
    try {
      setError(null)
      save(
        await api.download(sessionPath(sessionId, `/export?format=${format}`)),
        `${sessionId}.${format === 'jsonl' ? 'jsonl' : 'md'}`,
      )
    } catch (failure) {
      setError(failure)
    }
  }
  return (
    <span class="exports">
      <button
        type="button"
        class="secondary"
        onClick={() => download('jsonl')}
        title="Every event of the log, to keep or to import elsewhere"
      >
        Export jsonl
      </button>
      <button type="button" class="secondary" onClick={() => download('markdown')} title="The conversation as it stands, to read">
        Export Markdown
      </button>
      <ErrorNote error={error} />
    </span>
  )
}

/**
 * Imports a file into a session: a jsonl export (events keep their ids: a part imported twice is
 * skipped), or a JSON history from elsewhere (`{ "format": "openai" | "anthropic" | "chatgpt", … }`,
 * into a new session).
 */
export function ImportForm(props: { api: Api; onImported: (id: string) => void }) {
  const { api, onImported } = props
  const [file, setFile] = useState<File | null>(null)
  const [target, setTarget] = useState('')
  const [done, setDone] = useState<string | null>(null)
  const [error, setError] = useState<unknown>(null)
  async function submit(event: Event) {
    event.preventDefault()
    if (!file || !isSessionId(target)) return
    try {
      setError(null)
      const type = file.name.endsWith('.json') ? 'application/json' : 'application/x-ndjson'
      const result = await api.upload<{ imported: number; skipped: number }>(
        sessionPath(target, '/import'),
        await file.text(),
        type,
      )
      setDone(
        `Imported ${count(result.imported)} events into ${target}${result.skipped ? ` (${count(result.skipped)} already there)` : ''}.`,
      )
      onImported(target)
    } catch (failure) {
      setError(failure)
    }
  }
  return (
    <form class="import" onSubmit={submit}>
      <label for="import-file">Import a file</label>
      <input
        id="import-file"
        type="file"
        accept=".jsonl,.ndjson,.json"
        onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
      />
      <label for="import-id">into session</label>
      <SessionIdInput id="import-id" value={target} onInput={setTarget} />
      <button type="submit" disabled={!file || target === ''}>
        Import
      </button>
      {done && <p role="status">{done}</p>}
      <ErrorNote error={error} />
    </form>
  )
}
