import { useState } from 'preact/hooks'

/** Asks for a bearer token; the page keeps it in this tab's sessionStorage only. */
export function SignIn({ onToken, notice }: { onToken: (token: string) => void; notice: string | null }) {
  const [token, setToken] = useState('')
  return (
    <main class="sign-in">
      <h1>durable-sessions inspector</h1>
      {notice && (
        <p class="error" role="alert">
          {notice}
        </p>
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault()
          const value = token.trim().replace(/^Bearer\s+/i, '')
          if (value !== '') onToken(value)
        }}
      >
        <label for="token">Bearer token</label>
        <input
          id="token"
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={token}
          onInput={(event) => setToken(event.currentTarget.value)}
          required
        />
        <button type="submit">Sign in</button>
      </form>
      <p class="hint">
        The token stays in this tab (sessionStorage) and is sent only to this service. Locally:{' '}
        <code>npm run token -- alice</code>.
      </p>
    </main>
  )
}
