#!/usr/bin/env node
// `npm start`: the API on http://localhost:${PORT:-8787} with local, persisted Durable Object state,
// offline. The local JWT secret is passed here, never written into wrangler.toml, so it cannot
// reach a deployment; a JWT_SECRET or JWT_JWKS_URL in the environment or in a git-ignored
// .dev.vars wins.
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'

const port = process.env.PORT ?? '8787'
const devVars = existsSync('.dev.vars') ? readFileSync('.dev.vars', 'utf8') : ''
const args = ['dev', '--port', port, '--ip', '127.0.0.1', '--persist-to', '.wrangler/state', ...process.argv.slice(2)]
const inDevVars = (name) => new RegExp(`^\\s*${name}\\s*=`, 'm').test(devVars)
if (process.env.JWT_SECRET) args.push('--var', `JWT_SECRET:${process.env.JWT_SECRET}`)
if (process.env.JWT_JWKS_URL) args.push('--var', `JWT_JWKS_URL:${process.env.JWT_JWKS_URL}`)
// The local default secret only when no auth is configured at all (an identity provider included).
const configured = ['JWT_SECRET', 'JWT_JWKS_URL'].some((name) => process.env[name] || inDevVars(name))
if (!configured) args.push('--var', 'JWT_SECRET:local-dev-secret')

const env = { ...process.env, WRANGLER_SEND_METRICS: 'false' }
const child = spawn('wrangler', args, { stdio: 'inherit', env })
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
child.on('exit', (code) => process.exit(code ?? 0))
