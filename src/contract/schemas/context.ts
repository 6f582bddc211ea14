import { z } from '@hono/zod-openapi'
import { PolicySchema } from './policy'
import { UsageSchema } from './turns'
import { UsageTotalsSchema } from './usage'

/** `GET /v1/sessions/:id/context`: read-only, O(view). */
export const ContextSchema = z
  .object({
    budget: z.object({ contextTokens: z.int(), replyTokens: z.int(), promptTokens: z.int() }).openapi({
      description: 'The configured chat model’s: MODEL_CONTEXT_TOKENS or CHAT_CONTEXT_TOKENS, CHAT_MAX_TOKENS, their difference.',
    }),
    tokens: z
      .object({ system: z.int(), summary: z.int(), preamble: z.int(), conversation: z.int(), total: z.int() })
      .openapi({ description: 'Estimates of the view’s parts; total is the view’s tokens.' }),
    calibration: z
      .object({ ratio: z.number(), samples: z.int() })
      .openapi({ description: 'What the model counts ÷ what we estimate, learned from chat calls’ reported prompt tokens.' }),
    events: z
      .object({ log: z.int(), view: z.int(), covered: z.int() })
      .openapi({ description: 'Every log event (COMPACTION included); the view’s; the log’s MESSAGE events outside the view.' }),
    turns: z.int(),
    pendingToolCalls: z.array(z.string()).openapi({ description: 'The newest turn’s tool calls still owed a result.' }),
    lastUsage: UsageSchema.openapi({ description: 'The usage of the session’s last chat call (summaries excluded).' }),
    cache: z.object({ calls: z.int(), promptTokens: z.int(), cachedPromptTokens: z.int(), hitRate: z.number() }).openapi({
      description:
        'The provider’s prompt cache over the session’s last 20 chat calls that reported usage: their prompt tokens, those read from the cache, and that share (0 when none was reported).',
    }),
    compactions: z.int().openapi({ description: 'COMPACTION events in the log.' }),
    branches: z.int().openapi({ description: 'Runs of messages rewinds abandoned (see /branches).' }),
    pinned: z.array(z.string()).openapi({ description: 'The messages pinned on the lineage now, in log order (see /pins).' }),
    lastCompaction: z
      .object({
        boundaryId: z.string(),
        seq: z.int(),
        timestamp: z.string(),
        coveredEventCount: z.int(),
        tokensEstimatedSaved: z.int(),
      })
      .nullable(),
    compacting: z.boolean().openapi({ description: 'A background pass is running on the session now.' }),
    preparing: z
      .boolean()
      .openapi({ description: 'A summary is being prepared (or topped up) in the background now (round4 §6).' }),
    prepared: z
      .object({
        state: z.enum(['ready', 'stale']).openapi({
          description:
            '`ready`: it covers the start of the view’s conversation after the view’s summary, so a pass covering that takes it without waiting for the summary model; `stale`: the view moved away from it (a pass, a rewind, an undo, a pin or an edit in its range) and the next preparation starts again.',
        }),
        covers: z
          .object({ events: z.int(), fromSeq: z.int(), toSeq: z.int() })
          .openapi({ description: 'The conversation events it covers, by seq: how many, the first and the last.' }),
        tokens: z.int().openapi({ description: 'The summary’s estimated tokens.' }),
        preparedAt: z.string(),
      })
      .nullable()
      .openapi({ description: 'The summary prepared ahead of a pass (see the policy’s `prepare`); null: none.' }),
    queued: z.int().openapi({
      description:
        'Requests waiting on the session’s queue now, behind the one running: turns, door requests, rewinds, pins, undos.',
    }),
    lastCompactionError: z
      .object({ error: z.object({ code: z.string(), message: z.string() }), at: z.string() })
      .nullable()
      .openapi({ description: 'How the last background pass failed (null: it did not, or none ran since).' }),
    policy: PolicySchema.openapi({
      description: 'The effective policy: the session’s, else COMPACTION_POLICY, else the built-in default.',
    }),
    usage: UsageTotalsSchema.openapi({ description: 'What the session’s model calls spent, as the upstreams reported it.' }),
  })
  .openapi('SessionContext')

/** The contract's `/context` answer. */
export type ContextJson = z.output<typeof ContextSchema>
