import { useMemo, useState } from 'preact/hooks'
import { type ApiError, createApi } from './api'
import { SessionPanel } from './session'
import { SessionList } from './sessions'
import { SignIn } from './sign-in'

/** Where the token is kept: this tab only, gone when it closes; never a URL or a cookie. */
const TOKEN_KEY = 'durable-sessions.token'

const selectedFromHash = () => {
  const id = new URLSearchParams(location.hash.slice(1)).get('session')
  return id && /^[A-Za-z0-9._:-]{1,128}$/.test(id) ? id : null
}

/** The inspector: sign in, then the caller's sessions and the one opened (its id in the URL's hash). */
export function App() {
  const [token, setToken] = useState<string | null>(() => sessionStorage.getItem(TOKEN_KEY))
  const [notice, setNotice] = useState<string | null>(null)
  const [selected, setSelected] = useState<string | null>(selectedFromHash)
  // Counts the writes made from the page: the session list is read again after each.
  const [writes, setWrites] = useState(0)

  const signOut = (why: string | null) => {
    sessionStorage.removeItem(TOKEN_KEY)
    setNotice(why)
    setToken(null)
  }
  const api = useMemo(
    () =>
      token === null
        ? null
        : createApi(token, (error: ApiError) => signOut(`Your token was refused (${error.message}): sign in again.`)),
    [token],
  )
  const select = (id: string) => {
    history.replaceState(null, '', `#${new URLSearchParams({ session: id })}`)
    setSelected(id)
  }

  if (api === null)
    return (
      <SignIn
        notice={notice}
        onToken={(value) => {
          sessionStorage.setItem(TOKEN_KEY, value)
          setNotice(null)
          setToken(value)
        }}
      />
    )
  return (
    <div class="layout">
      <header>
        <h1>durable-sessions inspector</h1>
        <button type="button" onClick={() => signOut(null)}>
          Sign out
        </button>
      </header>
      <SessionList api={api} selected={selected} writes={writes} onSelect={select} />
      <main>
        {selected === null ? (
          <p class="empty">Choose a session.</p>
        ) : (
          <SessionPanel key={selected} api={api} sessionId={selected} onWritten={() => setWrites((n) => n + 1)} />
        )}
      </main>
    </div>
  )
}
