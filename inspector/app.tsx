import { useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks'
import { type ApiError, createApi } from './api'
import { MemoryPane } from './memory'
import { SessionPanel } from './session'
import { SessionList } from './sessions'
import { SignIn } from './sign-in'

/** Where the token is kept: this tab only, gone when it closes; never a URL or a cookie. */
const TOKEN_KEY = 'durable-sessions.token'

const selectedFromHash = () => {
  const id = new URLSearchParams(location.hash.slice(1)).get('session')
  return id && /^[A-Za-z0-9._:-]{1,128}$/.test(id) ? id : null
}

/** The panes a phone shows one at a time, switched from a bar at the bottom of the screen. */
const TABS = [
  ['sessions', 'Sessions'],
  ['log', 'Log'],
  ['turn', 'Turn'],
  ['budget', 'Budget'],
  ['search', 'Search'],
  ['memory', 'Memory'],
] as const
type Tab = (typeof TABS)[number][0]

/** Whether the page is laid out for a phone (one pane at a time): the width styles.css switches at. */
const narrow = () => matchMedia('(max-width: 52rem)').matches

/**
 * The inspector: sign in, then the caller's sessions and the one opened (its id in the URL's
 * hash). On a desktop every pane shows (the log scrolls, the others stay in place); on a phone,
 * one at a time, each keeping its scroll position.
 */
export function App() {
  const [token, setToken] = useState<string | null>(() => sessionStorage.getItem(TOKEN_KEY))
  const [notice, setNotice] = useState<string | null>(null)
  const [selected, setSelected] = useState<string | null>(selectedFromHash)
  // Counts the writes made from the page: the session list is read again after each.
  const [writes, setWrites] = useState(0)
  const [tab, setTab] = useState<Tab>(selected === null ? 'sessions' : 'log')
  const scrolled = useRef<Partial<Record<Tab, number>>>({})
  const show = (next: Tab) => {
    scrolled.current[tab] = window.scrollY
    setTab(next)
  }
  useLayoutEffect(() => {
    if (narrow()) window.scrollTo(0, scrolled.current[tab] ?? 0)
  }, [tab])

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
  // The event a search across sessions opened the session at (null: its top).
  const [opened, setOpened] = useState<number | null>(null)
  const select = (id: string, seq?: number) => {
    history.replaceState(null, '', `#${new URLSearchParams({ session: id })}`)
    setSelected(id)
    setOpened(seq ?? null)
    show('log')
    scrolled.current.log = 0 // a session opens at its top
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
    <div class="layout" data-tab={tab}>
      <header>
        <h1>durable-sessions inspector</h1>
        <button
          type="button"
          class="secondary"
          aria-pressed={tab === 'memory'}
          onClick={() => show(tab === 'memory' ? (selected === null ? 'sessions' : 'log') : 'memory')}
        >
          Memory
        </button>
        <button type="button" class="secondary" onClick={() => signOut(null)}>
          Sign out
        </button>
      </header>
      <SessionList api={api} selected={selected} writes={writes} onSelect={select} />
      <main>
        {tab === 'memory' ? (
          <MemoryPane api={api} />
        ) : selected === null ? (
          <p class="empty">Choose a session.</p>
        ) : (
          <SessionPanel
            key={`${selected}/${opened ?? ''}`}
            api={api}
            sessionId={selected}
            at={opened}
            onWritten={() => setWrites((n) => n + 1)}
            onShowLog={() => show('log')}
            onOpen={select}
          />
        )}
      </main>
      <nav class="tabbar" aria-label="Panes">
        {TABS.map(([value, label]) => (
          <button
            key={value}
            type="button"
            aria-pressed={tab === value}
            disabled={value !== 'sessions' && value !== 'memory' && selected === null}
            onClick={() => show(value)}
          >
            {label}
          </button>
        ))}
      </nav>
    </div>
  )
}
