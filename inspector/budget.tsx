import { count, counted, time } from './format'
import { PreparedAndCache } from './prepared'
import type { ContextJson } from './types'

const PARTS = [
  ['system', 'System'],
  ['summary', 'Summary'],
  ['preamble', 'Preamble'],
  ['conversation', 'Conversation'],
] as const

/** The view's tokens by part against the prompt budget (estimates, calibrated to the model); a background pass running, or how the last one failed; the summary prepared and the provider's cache. */
export function BudgetBar({ context }: { context: ContextJson }) {
  const budget = context.budget.promptTokens
  const { total } = context.tokens
  const share = (tokens: number) => `${Math.min(100, (tokens / Math.max(budget, total, 1)) * 100)}%`
  const parts = PARTS.filter(([key]) => key !== 'preamble' || context.tokens.preamble > 0)
  const summary = `${count(total)} of ${count(budget)} prompt tokens (${Math.round((total / Math.max(budget, 1)) * 100)}%)`
  return (
    <section class="budget" aria-labelledby="budget-title">
      <h3 id="budget-title">Prompt budget</h3>
      <div class={`bar${total > budget ? ' over' : ''}`} role="img" aria-label={`The view uses ${summary}`}>
        {parts.map(([key]) => (
          <span key={key} class={`part ${key}`} style={{ width: share(context.tokens[key]) }} />
        ))}
      </div>
      <p class="budget-total">{summary}</p>
      <ul class="legend">
        {parts.map(([key, label]) => (
          <li key={key}>
            <span class={`swatch ${key}`} aria-hidden="true" /> {label} <b data-part={key}>{count(context.tokens[key])}</b>
          </li>
        ))}
      </ul>
      {context.compacting && (
        <p class="compacting" role="status">
          Compacting in the background…
        </p>
      )}
      {context.lastCompactionError && (
        <p class="error">
          The last background pass failed ({context.lastCompactionError.error.code}, {time(context.lastCompactionError.at)}):{' '}
          {context.lastCompactionError.error.message}
        </p>
      )}
      <PreparedAndCache context={context} />
      <p class="hint">
        {counted(context.events.view, 'event')} in view, {count(context.events.covered)} covered,{' '}
        {counted(context.compactions, 'compaction')}; calibration ×{context.calibration.ratio.toFixed(2)} (
        {counted(context.calibration.samples, 'sample')}).
      </p>
    </section>
  )
}
