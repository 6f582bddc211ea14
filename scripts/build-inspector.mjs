#!/usr/bin/env node
// `npm run build`: the inspector page (inspector/) bundled into the Worker's static assets,
// dist/inspector: inspect.html (served at /inspect), inspect/app.js and inspect/app.css.
// Everything the page loads comes from there: no CDN, so it works offline.
//
// Wrangler runs this before every `wrangler dev` and `wrangler deploy`, also while another dev
// server serves the same folder: so the files are built in memory and only those that changed
// are replaced (each by a rename), and the folder is never empty or half-written.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { build } from 'esbuild'

const out = 'dist/inspector'
const common = { bundle: true, minify: true, write: false, outdir: `${out}/inspect`, logLevel: 'warning' }
const script = await build({
  ...common,
  entryPoints: { app: 'inspector/main.tsx' },
  format: 'esm',
  target: 'es2022',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
})
const style = await build({ ...common, entryPoints: { app: 'inspector/styles.css' } })

/** Every file of the folder, by its path relative to the working directory. */
const files = new Map([
  ...[...script.outputFiles, ...style.outputFiles].map((file) => [relative('.', file.path), file.contents]),
  [`${out}/inspect.html`, readFileSync('inspector/index.html')],
  [`${out}/inspect/favicon.svg`, readFileSync('inspector/favicon.svg')],
])

for (const [path, contents] of files) {
  if (existsSync(path) && Buffer.compare(readFileSync(path), contents) === 0) continue
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(`${path}.tmp`, contents)
  renameSync(`${path}.tmp`, path)
}
for (const entry of readdirSync(out, { recursive: true, withFileTypes: true })) {
  const path = join(entry.parentPath, entry.name)
  if (entry.isFile() && !files.has(path)) rmSync(path)
}
