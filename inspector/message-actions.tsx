import { useState } from 'preact/hooks'
import type { Api } from './api'
import { ErrorNote } from './errors'
import { contentText, sessionPath } from './format'
import type { EventJson, SessionJson } from './types'
import { useAction } from './use-action'

/** What the page can do from a message of the log; null while nothing can be written (an older page shown). */
export interface MessageActions {
  api: Api
  sessionId: string
  /** The seq of the reply a regenerate would replace: the view's newest assistant message, when it ends a turn. */
  regenerable: number | null
  /** The messages pinned now. */
  pinned: ReadonlySet<string>
  /** After a write: the session is read again. */
  onWritten: () => void
  /** A fork made: the page opens it. */
  onForked: (id: string) => void
}

/**
 * A message's buttons: "Edit" on a user message (the turn sent again from there, the later ones
 * kept in the log as a branch), "Regenerate" on the reply that ends the newest turn, "Fork" on
 * any message (a new session with the view as of it), "Pin" / "Unpin" on any but a system message.
 */
export function MessageButtons({ event, actions }: { event: EventJson; actions: MessageActions }) {
  const [editing, setEditing] = useState(false)
  const { busy, error, run } = useAction()
  const role = event.message?.role
  if (event.type !== 'MESSAGE' || event.synthetic) return null
  const turns = sessionPath(actions.sessionId, '/turns')
  const regenerate = () =>
    run(async () => {
      await actions.api.post(turns, { regenerate: true })
      actions.onWritten()
    })
  const fork = () =>
    run(async () => {
      const forked = await actions.api.post<SessionJson>(sessionPath(actions.sessionId, '/fork'), { at: event.id })
      actions.onForked(forked.id)
    })
  const isPinned = actions.pinned.has(event.id)
  const togglePin = () =>
    run(async () => {
      await actions.api.post(sessionPath(actions.sessionId, '/pins'), isPinned ? { unpin: [event.id] } : { pin: [event.id] })
      actions.onWritten()
    })
  const edit = (content: string) =>
    run(async () => {
      await actions.api.post(turns, { content, rewind: { to: event.id, position: 'before' } })
      setEditing(false)
      actions.onWritten()
    })

  return (
    <>
      {role === 'user' && (
        <button type="button" class="chip" aria-expanded={editing} disabled={busy} onClick={() => setEditing(!editing)}>
          Edit
        </button>
      )}
      {actions.regenerable === event.seq && (
        <button type="button" class="chip" disabled={busy} onClick={regenerate}>
          Regenerate
        </button>
      )}
      <button type="button" class="chip" disabled={busy} onClick={fork} title="A new session with the view as of this message">
        Fork
      </button>
      {role !== 'system' && (
        <button
          type="button"
          class="chip"
          aria-pressed={isPinned}
          disabled={busy}
          onClick={togglePin}
          title={isPinned ? 'Let compaction cover it again' : 'Never let compaction cover it'}
        >
          {isPinned ? 'Unpin' : 'Pin'}
        </button>
      )}
      {editing && (
        <EditBox text={contentText(event.message?.content ?? '')} busy={busy} onSend={edit} onCancel={() => setEditing(false)} />
      )}
      {error !== null && (
        <span class="row-error">
          <ErrorNote error={error} />
        </span>
      )}
    </>
  )
}

/** The edit of a user message: its text to change, then sent as the turn again from there. */
function EditBox(props: { text: string; busy: boolean; onSend: (text: string) => void; onCancel: () => void }) {
  const [text, setText] = useState(props.text)
  return (
    <form
      class="edit-box"
      onSubmit={(e) => {
        e.preventDefault()
        if (text.trim() !== '') props.onSend(text)
      }}
    >
      <label for="edit-text" class="visually-hidden">
        Edited message
      </label>
      <textarea id="edit-text" rows={3} value={text} onInput={(e) => setText(e.currentTarget.value)} />
      <p class="hint">Sent as the turn again from here; what followed stays in the log as a branch.</p>
      <button type="submit" disabled={props.busy || text.trim() === ''}>
        Send edit
      </button>
      <button type="button" class="link" onClick={props.onCancel}>
        Cancel
      </button>
    </form>
  )
}
