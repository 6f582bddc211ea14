/**
 * A fake identity provider for tests: a real HTTP server on loopback serving JSON Web Key Sets,
 * one per tenant (`GET /<tenant>/jwks`), each set and its behaviour chosen by the test:
 *
 * | `POST /<tenant>/__state` body | the key set then                                         |
 * |-------------------------------|----------------------------------------------------------|
 * | `{ "keys": [JWK] }`           | serves those keys (with `cacheControl`, when given)       |
 * | `{ "mode": "down" }`          | answers 500                                              |
 * | `{ "mode": "slow", "ms": n }` | answers after n ms                                       |
 * | `{ "mode": "huge" }`          | sends a 1 MiB document                                   |
 * | `{ "mode": "malformed" }`     | sends a body that is not JSON                            |
 * | `{ "mode": "nokeys" }`        | sends JSON without a `keys` array                        |
 *
 * `GET /<tenant>/__fetches` counts the fetches of the tenant's set.
 */
import { createServer, type Server } from 'node:http'

interface Tenant {
  keys: unknown[]
  mode: 'ok' | 'down' | 'slow' | 'huge' | 'malformed' | 'nokeys'
  ms: number
  cacheControl: string | null
  fetches: number
}

export async function startFakeIdp(): Promise<{ url: string; server: Server }> {
  const tenants = new Map<string, Tenant>()
  const tenant = (name: string) => {
    let found = tenants.get(name)
    if (!found) {
      found = { keys: [], mode: 'ok', ms: 0, cacheControl: null, fetches: 0 }
      tenants.set(name, found)
    }
    return found
  }
  const server = createServer(async (req, res) => {
    const [, name = '', what = ''] = (req.url ?? '').split('?')[0]!.split('/')
    const t = tenant(name)
    if (req.method === 'POST' && what === '__state') {
      let body = ''
      for await (const chunk of req) body += chunk
      const state = JSON.parse(body) as Partial<Tenant>
      Object.assign(t, { mode: 'ok', ms: 0, cacheControl: null, ...state })
      res.writeHead(204).end()
      return
    }
    if (what === '__fetches') {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(t.fetches))
      return
    }
    if (what !== 'jwks') {
      res.writeHead(404).end()
      return
    }
    t.fetches++
    if (t.mode === 'slow') await new Promise((resolve) => setTimeout(resolve, t.ms))
    if (t.mode === 'down') {
      res.writeHead(500, { 'Content-Type': 'text/plain' }).end('identity provider down')
      return
    }
    const headers: Record<string, string> = { 'Content-Type': 'application/json' }
    if (t.cacheControl) headers['Cache-Control'] = t.cacheControl
    if (t.mode === 'huge') res.writeHead(200, headers).end(JSON.stringify({ keys: t.keys, pad: 'x'.repeat(1024 * 1024) }))
    else if (t.mode === 'malformed') res.writeHead(200, headers).end('{"keys": [')
    else if (t.mode === 'nokeys') res.writeHead(200, headers).end('{"jwks": []}')
    else res.writeHead(200, headers).end(JSON.stringify({ keys: t.keys }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address() as { port: number }
  return { url: `http://127.0.0.1:${address.port}`, server }
}
