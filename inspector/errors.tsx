import { ApiError } from './api'

/** What a person should read for a failed request: 429 and 503 told plainly, others by their message. */
export function describeError(error: unknown): string {
  if (!(error instanceof ApiError)) return `Something went wrong: ${error instanceof Error ? error.message : String(error)}`
  if (error.status === 429)
    return `Rate limited: too many requests for now.${error.retryAfter === null ? '' : ` Try again in ${error.retryAfter} s.`}`
  if (error.code === 'not_configured')
    // The service's message already says what to set.
    return `This deployment cannot run turns: ${error.message}.`
  if (error.status === 401) return 'Your token was refused: sign in again.'
  return `${error.message} (${error.status} ${error.code})`
}

/** A failed request, announced to screen readers. */
export function ErrorNote({ error }: { error: unknown }) {
  if (error === null || error === undefined) return null
  return (
    <p class="error" role="alert">
      {describeError(error)}
    </p>
  )
}

/** A request under way. */
export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status" aria-live="polite">
      Loading {what}…
    </p>
  )
}
