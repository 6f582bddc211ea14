import { useEffect, useState } from 'preact/hooks'
import type { Api } from './api'
import { ErrorNote, Loading } from './errors'
import { count, time } from './format'
import { type DiffLine, lineDiff } from './line-diff'
import type { MemoryFileJson, MemoryListJson, MemoryVersionsJson } from './types'

type Version = MemoryVersionsJson['versions'][number]

/** A memory file's route: its path under /memories in one escaped segment (a name such as `versions` included). */
const memoryPath = (path: string, rest = '') => `/v1/memories/${encodeURIComponent(path.slice('/memories/'.length))}${rest}`

/** What a version is, in a few words: its size, or that it is a delete; where a rename took it from or to. */
function describeVersion(version: Version): string {
  const what = version.deleted ? 'deleted' : `${count(version.size)} bytes`
  const moved = version.movedFrom ? ` · from ${version.movedFrom}` : version.movedTo ? ` · to ${version.movedTo}` : ''
  return `v${version.version} · ${what}${moved} · ${time(version.createdAt)}`
}

/**
 * The caller's memory: the files their agents keep across sessions (`/v1/memories`), a file's
 * versions, and what changed between two of them.
 */
export function MemoryPane({ api }: { api: Api }) {
  const [files, setFiles] = useState<MemoryListJson['files'] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [open, setOpen] = useState<string | null>(null)
  const [reads, setReads] = useState(0)
  useEffect(() => {
    setError(null)
    api.get<MemoryListJson>('/v1/memories').then((list) => setFiles(list.files), setError)
  }, [api, reads])
  return (
    <section class="memory" aria-labelledby="memory-title">
      <div class="session-head">
        <h2 id="memory-title">Memory</h2>
        <button type="button" class="secondary" onClick={() => setReads((n) => n + 1)}>
          Refresh
        </button>
      </div>
      <p class="hint">The files your agents keep across sessions, under /memories. Every version is kept.</p>
      <ErrorNote error={error} />
      {files === null && !error && <Loading what="memory" />}
      {files?.length === 0 && <p class="empty">No memory yet: a turn that offers the memory tool writes here.</p>}
      <ul class="memory-files">
        {files?.map((file) => (
          <li key={file.path}>
            <button
              type="button"
              class="session-link"
              aria-current={file.path === open ? 'page' : undefined}
              onClick={() => setOpen(file.path)}
            >
              <span class="id">{file.path}</span>
              <span class="hint">
                v{file.version} · {count(file.size)} bytes · {time(file.updatedAt)}
              </span>
            </button>
          </li>
        ))}
      </ul>
      {open !== null && <MemoryFile key={`${open}@${reads}`} api={api} path={open} />}
    </section>
  )
}

/** A file's versions, and the lines that changed from one to another (the newest against the one before, at first). */
function MemoryFile({ api, path }: { api: Api; path: string }) {
  const [versions, setVersions] = useState<Version[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [from, setFrom] = useState(0)
  const [to, setTo] = useState(0)
  const [diff, setDiff] = useState<DiffLine[] | null>(null)
  useEffect(() => {
    api.get<MemoryVersionsJson>(memoryPath(path, '/versions')).then((list) => {
      setVersions(list.versions)
      const newest = list.versions.at(-1)?.version ?? 0
      setTo(newest)
      setFrom(Math.max(0, newest - 1))
    }, setError)
  }, [api, path])
  useEffect(() => {
    if (!versions || to === 0) return
    // A delete, or "nothing" (version 0), reads as no text.
    const text = async (version: number) =>
      version === 0 || versions.find((v) => v.version === version)?.deleted
        ? ''
        : (await api.get<MemoryFileJson>(memoryPath(path, `?version=${version}`))).content
    setDiff(null)
    Promise.all([text(from), text(to)]).then(([before, after]) => setDiff(lineDiff(before, after)), setError)
  }, [api, path, versions, from, to])
  const choice = (id: string, label: string, value: number, set: (v: number) => void, nothing: boolean) => (
    <>
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(event) => set(Number(event.currentTarget.value))}>
        {nothing && <option value={0}>nothing</option>}
        {versions?.map((version) => (
          <option key={version.version} value={version.version}>
            v{version.version}
            {version.deleted ? ' (deleted)' : ''}
          </option>
        ))}
      </select>
    </>
  )
  return (
    <article class="memory-file" aria-labelledby="memory-file-title">
      <h3 id="memory-file-title">{path}</h3>
      <ErrorNote error={error} />
      {versions === null && !error && <Loading what="versions" />}
      <ol class="memory-versions" aria-label="Versions">
        {versions?.map((version) => (
          <li key={version.version} class={version.deleted ? 'deleted' : undefined}>
            {describeVersion(version)}
          </li>
        ))}
      </ol>
      {versions && (
        <form class="memory-compare" onSubmit={(event) => event.preventDefault()}>
          {choice('memory-from', 'Changes from', from, setFrom, true)}
          {choice('memory-to', 'to', to, setTo, false)}
        </form>
      )}
      {diff && (
        <pre class="memory-diff">
          {diff.length === 0 && <span class="hint">(both empty)</span>}
          {diff.map((line, i) => (
            <span key={i} class={`diff-${line.kind}`}>
              {line.kind === 'added' ? '+ ' : line.kind === 'removed' ? '- ' : '  '}
              {line.text}
              {'\n'}
            </span>
          ))}
        </pre>
      )}
    </article>
  )
}
