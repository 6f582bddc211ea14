/** A text field for a session id, checked as the API checks one. */
export function SessionIdInput(props: { id: string; value: string; onInput: (value: string) => void }) {
  return (
    <input
      id={props.id}
      value={props.value}
      pattern="[A-Za-z0-9._:\-]{1,128}"
      title="1–128 letters, digits and . _ : -"
      onInput={(e) => props.onInput(e.currentTarget.value)}
    />
  )
}
