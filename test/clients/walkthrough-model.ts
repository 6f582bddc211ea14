/**
 * The model the README's walkthrough runs against in the tests: an OpenAI-compatible server on
 * loopback that hands every request to the tests' fake upstream (test/upstream/fake-openai.ts)
 * under the mode a real model would follow here — `notes` when the request offers the memory tool
 * (it keeps notes in its memory), `agent-_` when it offers other tools (it calls the first tool,
 * without an id, then answers the results it is given), `echo` otherwise.
 * Whatever model name the Worker asks for (`CHAT_MODEL`, a request's `model`), the fake answers.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http'

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

/** Starts the model on `port` (0: a free one) in front of the fake upstream at `upstreamUrl`. */
export async function startWalkthroughModel(upstreamUrl: string, port = 0): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    ;(async () => {
      const body = JSON.parse((await readBody(req)) || '{}') as { model?: string; tools?: { function?: { name?: string } }[] }
      const memory = body.tools?.some((tool) => tool.function?.name === 'memory')
      body.model = memory ? 'notes' : body.tools?.length ? 'agent-_' : 'echo'
      const answer = await fetch(`${upstreamUrl}${req.url}`, {
        method: req.method,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      })
      res.writeHead(answer.status, { 'Content-Type': answer.headers.get('Content-Type') ?? 'application/json' })
      const reader = answer.body?.getReader()
      for (let read = await reader?.read(); read && !read.done; read = await reader!.read()) res.write(read.value)
      res.end()
    })().catch((error) => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' })
      res.end(JSON.stringify({ error: { message: String(error) } }))
    })
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  const address = server.address()
  if (!address || typeof address === 'string') throw new Error('no port')
  return { url: `http://127.0.0.1:${address.port}`, server }
}
