#!/usr/bin/env node
import { mkdirSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
// Bundles the benchmark suites with esbuild and runs them, printing Markdown tables.
import { build } from 'esbuild'

const suites = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['core', 'worker', 'large', 'recall']
process.env.WRANGLER_SEND_METRICS = 'false'
// The dev server's local tracing (on by default) streams every span of every request to a
// collector in the same workerd, which keeps them in a SQLite file without bound (14M spans,
// 7.4 GB after a day of runs): work no deployed Worker does on its own thread, and the drift and
// stalls of long runs. Off for every measured server, ours and the floors alike.
process.env.X_LOCAL_OBSERVABILITY ??= 'false'
mkdirSync('.bench', { recursive: true })
for (const suite of suites) {
  const outfile = `.bench/${suite}.mjs`
  await build({
    entryPoints: [`bench/${suite}.ts`],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'warning',
    packages: 'external',
  })
  console.log(`\n## ${suite} (Node ${process.version}, ${new Date().toISOString()})`)
  await import(pathToFileURL(outfile).href)
}
