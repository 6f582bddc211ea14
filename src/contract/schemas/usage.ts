import { z } from '@hono/zod-openapi'

/** Tokens as the upstreams reported them, summed: a session's (`/context`) or a day's of one model (`/v1/usage`). */
export const UsageTotalsSchema = z
  .object({
    turns: z.int().openapi({
      description:
        'Turns, continuations and door requests the model answered (failed calls and retries answered from storage excluded).',
    }),
    promptTokens: z.int().openapi({ description: 'Every input token the upstream read, cache reads and writes included.' }),
    cachedPromptTokens: z.int().openapi({ description: 'Of `promptTokens`, those read from the upstream’s cache.' }),
    completionTokens: z.int(),
    summaryTokens: z
      .int()
      .openapi({ description: 'The total tokens of summary calls (not in the prompt and completion columns).' }),
    totalTokens: z.int().openapi({ description: 'prompt + completion + summary.' }),
  })
  .openapi('UsageTotals')

/** `2026-02-30` is no day (Date.parse would roll it over to March). */
const isCalendarDay = (day: string) => {
  const at = Date.parse(`${day}T00:00:00Z`)
  return !Number.isNaN(at) && new Date(at).toISOString().slice(0, 10) === day
}

const Day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a UTC day as YYYY-MM-DD')

export const UsageQuerySchema = z
  .object({
    from: Day.optional().openapi({ description: 'The first day (default: 30 days before `to`).', example: '2026-12-01' }),
    to: Day.optional().openapi({ description: 'The last day, included (default: today, UTC).', example: '2026-12-31' }),
  })
  .refine((query) => query.from === undefined || query.to === undefined || query.from <= query.to, {
    message: 'from must not be after to',
    path: ['from'],
  })
  .refine((query) => [query.from, query.to].every((day) => day === undefined || isCalendarDay(day)), {
    message: 'from and to must be calendar days',
    path: ['from'],
  })

export const UsageReportSchema = z
  .object({
    usage: z.array(
      z.object({ date: z.string().openapi({ example: '2026-12-01' }), model: z.string() }).extend(UsageTotalsSchema.shape),
    ),
  })
  .openapi('UsageReport')
