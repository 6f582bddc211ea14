#!/usr/bin/env node
import { mkdirSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
// Bundles the benchmark suites with esbuild and runs them, printing Markdown tables.
import { build } from 'esbuild'

const suites = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['core', 'worker', 'large']
process.env.WRANGLER_SEND_METRICS = 'false'
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
