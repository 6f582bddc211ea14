#!/usr/bin/env node
// `npm start`: the API on http://localhost:${PORT:-8787} with local, persisted Durable Object state,
// offline. The Worker's variables (src/env.d.ts) set in the environment are passed on, so
// `OPENAI_BASE_URL=… CHAT_MODEL=… npm start` works; so does a git-ignored .dev.vars. The local JWT
// secret is passed here, never written into wrangler.toml, so it cannot reach a deployment; a
// JWT_SECRET or JWT_JWKS_URL in the environment or in .dev.vars wins.
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'

const port = process.env.PORT ?? '8787'
const devVars = existsSync('.dev.vars') ? readFileSync('.dev.vars', 'utf8') : ''
const args = ['dev', '--port', port, '--ip', '127.0.0.1', '--persist-to', '.wrangler/state', ...process.argv.slice(2)]
const inDevVars = (name) => new RegExp(`^\\s*${name}\\s*=`, 'm').test(devVars)
const variables = [...readFileSync('src/env.d.ts', 'utf8').matchAll(/^\s+([A-Z][A-Z0-9_]*)\?:/gm)].map((match) => match[1])
for (const name of variables) if (process.env[name]) args.push('--var', `${name}:${process.env[name]}`)
// The local default secret only when no auth is configured at all (an identity provider included).
const configured = ['JWT_SECRET', 'JWT_JWKS_URL'].some((name) => process.env[name] || inDevVars(name))
if (!configured) args.push('--var', 'JWT_SECRET:local-dev-secret')

// Offline by default: no request for the `Request.cf` data (the app does not read it).
const env = { CLOUDFLARE_CF_FETCH_ENABLED: 'false', ...process.env, WRANGLER_SEND_METRICS: 'false' }
const child = spawn('wrangler', args, { stdio: 'inherit', env })
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
child.on('exit', (code) => process.exit(code ?? 0))
