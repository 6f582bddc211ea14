import type { Hook } from '@hono/zod-openapi'
import type { z } from 'zod'
import { formatProblem } from '../core'
import { ApiHttpError } from './errors'

/** Body fields are named from the body's root (`events[0].id`); query and path fields by where they are. */
function where(target: string, path: (string | number)[], message: string): string {
  const prefix = target === 'json' ? (path.length === 0 ? 'body' : '') : target === 'param' ? 'path' : target
  return formatProblem(prefix, { path, message })
}

/** One zod issue in words: the field's path and why. */
function describe(issue: z.core.$ZodIssue, target: string): string {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol')
  if (issue.code === 'unrecognized_keys')
    return issue.keys.map((key) => where(target, [...path, key], 'unknown field')).join('; ')
  if (issue.code === 'invalid_type' && issue.input === undefined) return where(target, path, 'is required')
  return where(target, path, issue.message)
}

/**
 * The default hook of every route's validators: a failed validation becomes a 400
 * `invalid_request` naming each bad field (at most five) and why.
 */
// biome-ignore lint/suspicious/noExplicitAny: the hook serves every route and env
export const validationHook: Hook<any, any, any, any> = (result) => {
  if (result.success) return
  const issues = result.error.issues.slice(0, 5).map((issue) => describe(issue, result.target))
  const more = result.error.issues.length > 5 ? ` (and ${result.error.issues.length - 5} more)` : ''
  throw new ApiHttpError(400, 'invalid_request', issues.join('; ') + more)
}
