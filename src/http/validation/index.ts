import type { Hook } from '@hono/zod-openapi'
import { ServiceError } from '../../contract/errors'
import { describeIssues, issuesCode } from '../../contract/schemas'

/**
 * The default hook of every route's validators: a failed validation becomes a 400
 * `invalid_request` naming each bad field (at most five) and why (`unsupported` when each is a
 * feature of the client's wire format the service does not offer).
 */
// biome-ignore lint/suspicious/noExplicitAny: the hook serves every route and env
export const validationHook: Hook<any, any, any, any> = (result) => {
  if (result.success) return
  // The validator hands the raw input to the hook as `data` too (its types leave it out).
  const input = (result as { data?: unknown }).data
  const { issues } = result.error
  throw new ServiceError(issuesCode(issues), describeIssues(issues, result.target, input))
}
