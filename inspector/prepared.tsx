import { count, counted, time } from './format'
import type { ContextJson } from './types'

/**
 * What the session has ready for its next pass (round4 §6) and how its provider's prompt cache
 * holds: a summary being prepared, the one prepared (what it covers, whether a pass can still take
 * it), and the share of prompt tokens read from the cache over the last calls.
 */
export function PreparedAndCache({ context }: { context: ContextJson }) {
  const { prepared, cache } = context
  return (
    <>
      {context.preparing && (
        <p class="preparing" role="status">
          Preparing a summary in the background…
        </p>
      )}
      {prepared && (
        <p class={`prepared ${prepared.state}`} data-state={prepared.state}>
          {prepared.state === 'ready' ? 'Summary prepared' : 'Prepared summary out of date'}: it covers events #
          {prepared.covers.fromSeq}–#{prepared.covers.toSeq} ({counted(prepared.covers.events, 'event')},{' '}
          {counted(prepared.tokens, 'token')}, {time(prepared.preparedAt)}).{' '}
          {prepared.state === 'ready'
            ? 'A pass covering them answers without waiting for the summary model.'
            : 'The view moved away from it; the next turn prepares another.'}
        </p>
      )}
      {cache.calls > 0 && (
        <p class="hint cache">
          Provider cache: {Math.round(cache.hitRate * 100)}% of {count(cache.promptTokens)} prompt tokens read from the cache over
          the last {counted(cache.calls, 'call')}.
        </p>
      )}
    </>
  )
}
