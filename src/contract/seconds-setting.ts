import { ServiceError } from './errors'

/**
 * A deployment's setting in whole seconds (`RESPONSES_IMPLICIT_TTL_SECONDS`,
 * `SESSION_IDLE_TTL_SECONDS`): `unset` when it is not given; anything but a whole number is a 503
 * naming the variable (a deployment error, not the client's).
 *
 * @example
 * secondsSetting('SESSION_IDLE_TTL_SECONDS', env.SESSION_IDLE_TTL_SECONDS, 0) // 0 when unset
 */
export function secondsSetting(name: string, value: string | undefined, unset: number): number {
  const text = (value ?? '').trim()
  if (text === '') return unset
  if (/^\d{1,10}$/.test(text)) return Number(text)
  throw new ServiceError('not_configured', `${name}: "${text}" is not a whole number of seconds`)
}
