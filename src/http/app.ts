import { Hono } from 'hono'

/** The HTTP API. Routes arrive with the HTTP issue; until then every path is a contract 404. */
export const app = new Hono()

app.notFound((c) => c.json({ error: { code: 'not_found', message: `no route for ${c.req.method} ${c.req.path}` } }, 404))
