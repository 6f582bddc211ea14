import type { z } from '@hono/zod-openapi'
import { formatProblem } from '../../core'

/** Where a field is: body fields from the body's root (`events[0].id`), others by their part. */
function where(target: string, path: (string | number)[], message: string): string {
  const prefix = target === 'json' ? (path.length === 0 ? 'body' : '') : target === 'param' ? 'path' : target
  return formatProblem(prefix, { path, message })
}

/** The value at a path inside the input, or undefined when there is none. */
function valueAt(input: unknown, path: readonly (string | number)[]): unknown {
  let value = input
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined
    value = (value as Record<string | number, unknown>)[key]
  }
  return value
}

/** One zod issue in words: the field's path and why (zod's issues do not say whether a value was there). */
function describe(issue: z.core.$ZodIssue, target: string, input: unknown): string {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol')
  if (issue.code === 'unrecognized_keys')
    return issue.keys.map((key) => where(target, [...path, key], 'unknown field')).join('; ')
  if (issue.code === 'invalid_type' && valueAt(input, path) === undefined) return where(target, path, 'is required')
  if (issue.code === 'invalid_union' && issue.errors.length > 0) return describeUnion(issue.errors, path, target, input)
  return where(target, path, issue.message)
}

/**
 * A value no branch of a union took: the issues of the one branch whose type it has (text or
 * parts: the parts' own faults), else the types it may have.
 */
function describeUnion(branches: z.core.$ZodIssue[][], path: (string | number)[], target: string, input: unknown): string {
  const wrongType = (branch: z.core.$ZodIssue[]) =>
    branch.some((inner) => inner.code === 'invalid_type' && inner.path.length === 0)
  const typed = branches.filter((branch) => !wrongType(branch))
  if (typed.length === 1)
    return describeIssues(
      typed[0]!.map((inner) => ({ ...inner, path: [...path, ...inner.path] })),
      target,
      input,
    )
  const expected = [
    ...new Set(
      branches.flatMap((branch) =>
        branch.flatMap((inner) => (inner.code === 'invalid_type' && inner.path.length === 0 ? [inner.expected] : [])),
      ),
    ),
  ]
  if (expected.length === 0) return where(target, path, 'Invalid input')
  const value = valueAt(input, path)
  const received = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value
  return where(target, path, `Invalid input: expected ${expected.join(' or ')}, received ${received}`)
}

/**
 * A failed validation of `input` in words, naming each bad field (at most five) and why. `target`
 * is where the value came from: `json` (a request body), `query`, `param`, or a name such as a
 * variable's.
 *
 * @example
 * describeIssues(PolicySchema.safeParse(value).error!.issues, 'COMPACTION_POLICY', value)
 * // 'COMPACTION_POLICY.strategy.summarizer.overlapSize: Invalid input: expected int, received string'
 */
/** An issue about a feature the service does not offer (see {@link unsupportedIssue}). */
const isUnsupported = (issue: z.core.$ZodIssue) =>
  issue.code === 'custom' && (issue as { params?: { code?: string } }).params?.code === 'unsupported'

/** A refinement's issue for a feature of a client's wire format the service does not offer: a 400 `unsupported`. */
export const unsupportedIssue = (path: (string | number)[], message: string) =>
  ({ code: 'custom', path, message, params: { code: 'unsupported' } }) as const

/** The contract's code for a failed validation: `unsupported` when every issue is about such a feature. */
export const issuesCode = (issues: readonly z.core.$ZodIssue[]): 'unsupported' | 'invalid_request' =>
  issues.length > 0 && issues.every(isUnsupported) ? 'unsupported' : 'invalid_request'

export function describeIssues(issues: readonly z.core.$ZodIssue[], target: string, input: unknown): string {
  const described = issues.slice(0, 5).map((issue) => describe(issue, target, input))
  const more = issues.length > 5 ? ` (and ${issues.length - 5} more)` : ''
  return described.join('; ') + more
}
