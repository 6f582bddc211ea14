/**
 * A webhook receiver for tests: a real HTTP server on loopback that records every delivery
 * attempt and answers as the path's mode says, so a test sees what a real endpoint would.
 *
 * | `POST /<name>/<mode>` | answers                                                             |
 * |-----------------------|---------------------------------------------------------------------|
 * | `ok`                  | 200                                                                 |
 * | `fail-once`           | 500 to a delivery's first attempt (by `webhook-id`), then 200        |
 * | `retry-after`         | 503 with `Retry-After: 1` to the first attempt, then 200             |
 * | `slow-once`           | nothing for 3 s to the first attempt (longer than the test timeout), then 200 |
 * | `gone`                | 410                                                                 |
 * | `fail`                | 500, always                                                         |
 *
 * `GET /<name>/__attempts` lists every attempt to `<name>`: `{ headers, body, answered, at }`.
 */
import { createServer, type Server } from 'node:http'

interface Recorded {
  headers: Record<string, string>
  body: string
  answered: number | null
  at: number
}

export async function startFakeReceiver(): Promise<{ url: string; server: Server }> {
  const attempts = new Map<string, Recorded[]>()
  const server = createServer(async (req, res) => {
    const [, name = '', mode = ''] = (req.url ?? '').split('?')[0]!.split('/')
    const list = attempts.get(name) ?? []
    attempts.set(name, list)
    if (req.method === 'GET' && mode === '__attempts') {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(list))
      return
    }
    let body = ''
    for await (const chunk of req) body += chunk
    const headers = Object.fromEntries(Object.entries(req.headers).map(([key, value]) => [key, String(value)]))
    const first = !list.some((earlier) => earlier.headers['webhook-id'] === headers['webhook-id'])
    const recorded: Recorded = { headers, body, answered: null, at: Date.now() }
    list.push(recorded)
    const answer = (status: number, extra: Record<string, string> = {}) => {
      recorded.answered = status
      res.writeHead(status, extra).end()
    }
    if (mode === 'ok') answer(200)
    else if (mode === 'fail-once') answer(first ? 500 : 200)
    else if (mode === 'retry-after') answer(first ? 503 : 200, first ? { 'Retry-After': '1' } : {})
    else if (mode === 'slow-once') {
      if (first) setTimeout(() => answer(200), 3000)
      else answer(200)
    } else if (mode === 'gone') answer(410)
    else answer(500)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address() as { port: number }
  return { url: `http://127.0.0.1:${address.port}`, server }
}
