#!/usr/bin/env node
// `npm run token -- <userId> [ttlSeconds]`: prints a bearer token for that user, signed (HS256)
// with JWT_SECRET from the environment or .dev.vars, else the local dev secret `npm start` uses.
import { existsSync, readFileSync } from 'node:fs'
import { sign } from 'hono/jwt'

const [userId, ttl = '86400'] = process.argv.slice(2)
if (!userId) {
  console.error('usage: npm run token -- <userId> [ttlSeconds]')
  process.exit(2)
}
const devVars = existsSync('.dev.vars') ? readFileSync('.dev.vars', 'utf8') : ''
const fromDevVars = /^\s*JWT_SECRET\s*=\s*"?([^"\n]*)"?\s*$/m.exec(devVars)?.[1]
const secret = process.env.JWT_SECRET ?? fromDevVars ?? 'local-dev-secret'
const now = Math.floor(Date.now() / 1000)
console.log(await sign({ sub: userId, iat: now, exp: now + Number(ttl) }, secret, 'HS256'))
