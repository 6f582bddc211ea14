import { useState } from 'preact/hooks'
import type { EventJson } from './types'

/**
 * Text that is a JSON object or array, pretty-printed (two spaces); null for anything else
 * (plain text, a bare number or string: shown as written).
 *
 * @example
 * prettyJson('{"city":"Paris"}') // '{\n  "city": "Paris"\n}'
 * prettyJson('18 degrees') // null
 */
export function prettyJson(text: string): string | null {
  const trimmed = text.trim()
  if (!/^[[{]/.test(trimmed)) return null
  try {
    return JSON.stringify(JSON.parse(trimmed), null, 2)
  } catch {
    return null
  }
}

/** A button that copies text with the Clipboard API, and says so (or says it could not). */
export function CopyButton({ text, label, what }: { text: string; label: string; what: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle')
  async function copy() {
    try {
      await navigator.clipboard.writeText(text)
      setState('copied')
    } catch {
      setState('failed')
    }
  }
  return (
    <>
      <button type="button" class="small" onClick={copy}>
        {label}
      </button>
      <span class="copy-state" role="status">
        {state === 'copied' ? `${what} copied` : state === 'failed' ? `Could not copy the ${what}: select it instead` : ''}
      </span>
    </>
  )
}

/** An event's whole stored JSON (as the API answers it), with buttons to copy it and its id. */
export function EventJsonView({ event }: { event: EventJson }) {
  const json = JSON.stringify(event, null, 2)
  return (
    <div class="json-view">
      <div class="json-actions">
        <CopyButton text={json} label="Copy JSON" what="JSON" />
        <CopyButton text={event.id} label="Copy id" what="id" />
      </div>
      <pre class="code json">{json}</pre>
    </div>
  )
}

/** The button that shows or hides an event's JSON. */
export function JsonToggle({ open, onToggle }: { open: boolean; onToggle: () => void }) {
  return (
    <button type="button" class="chip" aria-expanded={open} onClick={onToggle}>
      JSON
    </button>
  )
}
