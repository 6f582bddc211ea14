import { ServiceError } from '../contract/errors'

/** What a door does with a history that left the session's. */
export type OnDiverge = 'rewind' | 'reject'

/**
 * The deployment's ON_DIVERGE: `rewind` (the default) or `reject`; anything else is a 503 naming
 * the variable (a deployment error, not the client's).
 */
export function onDivergeOf(value: string | undefined): OnDiverge {
  const text = (value ?? '').trim()
  if (text === '') return 'rewind'
  if (text === 'rewind' || text === 'reject') return text
  throw new ServiceError('not_configured', `ON_DIVERGE: "${text}" is neither rewind nor reject`)
}
