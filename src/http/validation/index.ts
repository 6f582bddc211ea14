import type { Hook } from '@hono/zod-openapi'
import { ServiceError } from '../../contract/errors'
import { describeIssues } from '../../contract/schemas'

/**
 * The default hook of every route's validators: a failed validation becomes a 400
 * `invalid_request` naming each bad field (at most five) and why.
 */
// biome-ignore lint/suspicious/noExplicitAny: the hook serves every route and env
export const validationHook: Hook<any, any, any, any> = (result) => {
  if (result.success) return
  // The validator hands the raw input to the hook as `data` too (its types leave it out).
  const input = (result as { data?: unknown }).data
  throw new ServiceError('invalid_request', describeIssues(result.error.issues, result.target, input))
}
