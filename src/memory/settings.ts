import { ServiceError } from '../contract/errors'
import { DEFAULT_MAX_FILES } from './tree'

/**
 * The files a user may have (`MEMORY_MAX_FILES`, default 1,000): a whole number ≥ 1, else a 503
 * naming the variable (a deployment error, not the client's).
 *
 * @example
 * maxFilesOf({ MEMORY_MAX_FILES: '50' }) // 50
 */
export function maxFilesOf(env: Pick<Env, 'MEMORY_MAX_FILES'>): number {
  const text = (env.MEMORY_MAX_FILES ?? '').trim()
  if (text === '') return DEFAULT_MAX_FILES
  if (/^\d{1,9}$/.test(text) && Number(text) >= 1) return Number(text)
  throw new ServiceError('not_configured', `MEMORY_MAX_FILES must be a whole number ≥ 1, not "${text}"`)
}
