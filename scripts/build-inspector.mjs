#!/usr/bin/env node
// `npm run build`: the inspector page (inspector/) bundled into the Worker's static assets,
// dist/inspector: inspect.html (served at /inspect), inspect/app.js and inspect/app.css.
// Everything the page loads comes from there: no CDN, so it works offline.
import { copyFileSync, mkdirSync, rmSync } from 'node:fs'
import { build } from 'esbuild'

const out = 'dist/inspector'
rmSync(out, { recursive: true, force: true })
mkdirSync(`${out}/inspect`, { recursive: true })
await build({
  entryPoints: { app: 'inspector/main.tsx' },
  outdir: `${out}/inspect`,
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2022',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
  logLevel: 'warning',
})
await build({
  entryPoints: { app: 'inspector/styles.css' },
  outdir: `${out}/inspect`,
  bundle: true,
  minify: true,
  logLevel: 'warning',
})
copyFileSync('inspector/index.html', `${out}/inspect.html`)
copyFileSync('inspector/favicon.svg', `${out}/inspect/favicon.svg`)
