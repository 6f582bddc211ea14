/** A small benchmark harness: repeated timings summarized as median and p95, printed as tables. */

export interface Timing {
  runs: number
  median: number
  p95: number
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!

/** Times `fn` at least `minRuns` times and for at least `minMs` milliseconds (after a warm-up). */
export async function measure(
  fn: () => unknown,
  options: { minRuns?: number; minMs?: number; warmup?: number } = {},
): Promise<Timing> {
  const { minRuns = 10, minMs = 300, warmup = 2 } = options
  for (let i = 0; i < warmup; i++) await fn()
  const samples: number[] = []
  const start = performance.now()
  while (samples.length < minRuns || performance.now() - start < minMs) {
    const t = performance.now()
    await fn()
    samples.push(performance.now() - t)
    if (samples.length >= 10_000) break
  }
  samples.sort((a, b) => a - b)
  return { runs: samples.length, median: percentile(samples, 0.5), p95: percentile(samples, 0.95) }
}

/** The mean of some values (0 of none). */
export const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length)

export const ms = (value: number) => `${value >= 100 ? value.toFixed(0) : value >= 1 ? value.toFixed(2) : value.toFixed(3)} ms`

/** Prints a Markdown table. */
export function table(title: string, header: string[], rows: (string | number)[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)))
  const line = (cells: (string | number)[]) => `| ${cells.map((c, i) => String(c).padEnd(widths[i]!)).join(' | ')} |`
  console.log(`\n### ${title}\n`)
  console.log(line(header))
  console.log(`| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`)
  for (const row of rows) console.log(line(row))
}
