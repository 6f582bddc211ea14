import { count } from './format'
import type { ContextJson } from './types'

/** What the session's model calls spent, as the upstreams reported it (`/context`'s `usage`). */
export function UsageTotals(props: { usage: ContextJson['usage'] }) {
  const { usage } = props
  const rows: [string, number][] = [
    ['Turns', usage.turns],
    ['Prompt tokens', usage.promptTokens],
    ['of them cached', usage.cachedPromptTokens],
    ['Completion tokens', usage.completionTokens],
    ['Summary tokens', usage.summaryTokens],
    ['Total tokens', usage.totalTokens],
  ]
  return (
    <section class="usage" aria-labelledby="usage-title">
      <h3 id="usage-title">Usage</h3>
      <dl>
        {rows.map(([name, value]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd>{count(value)}</dd>
          </div>
        ))}
      </dl>
    </section>
  )
}
