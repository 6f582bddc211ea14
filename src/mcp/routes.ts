import { Hono, type MiddlewareHandler } from 'hono'
import { ServiceError } from '../contract/errors'
import { mcpFetch } from './handler'
import { mcpServerFor } from './server'
import { type ApiFetch, McpService } from './service'

/** The Hono environment `/mcp` runs in: the Worker's bindings, and the user the auth middleware found. */
type McpEnv = { Bindings: Env; Variables: { userId: string; requestId: string } }
type McpContext = Parameters<MiddlewareHandler<McpEnv>>[0]

/** What an MCP request's server is made with: who calls, and whether the write tools are offered. */
interface McpCaller {
  service: McpService
  writeTools: boolean
}

/** One handler per isolate: each request gets a fresh server from the caller the request carries (stateless). */
const serveMcp = mcpFetch(({ authInfo }) => {
  const caller = authInfo?.extra?.caller as McpCaller
  return mcpServerFor(caller.service, caller.writeTools)
})

/** RFC 9728's metadata URL, named by a 401 from `/mcp` so a client knows where to get a token. */
const metadataUrl = (origin: string) => `${origin}/.well-known/oauth-protected-resource`

/** The headers a token comes in, passed on to the routes each tool calls. */
const CREDENTIAL_HEADERS = ['authorization', 'x-api-key']

/**
 * `/mcp` (round4.md §4): the MCP server over Streamable HTTP, stateless, served by the official SDK
 * (the 2026-07-28 revision, and 2025-era clients statelessly: `handler.ts`), behind the API's own
 * bearer tokens; and the protected-resource metadata a 401 names.
 *
 * @example
 * app.route('/', mcpRoutes({ auth, api: (c) => (request) => app.fetch(request, c.env, c.executionCtx) }))
 */
export function mcpRoutes(options: { auth: MiddlewareHandler<McpEnv>; api: (c: McpContext) => ApiFetch }) {
  const metadata = (c: McpContext) => {
    const origin = new URL(c.req.url).origin
    return c.json({
      resource: `${origin}/mcp`,
      ...(c.env.JWT_ISSUER ? { authorization_servers: [c.env.JWT_ISSUER] } : {}),
      bearer_methods_supported: ['header'],
      resource_name: 'durable-sessions',
    })
  }
  return new Hono<McpEnv>()
    .get('/.well-known/oauth-protected-resource', metadata)
    .get('/.well-known/oauth-protected-resource/mcp', metadata)
    .use('/mcp', async function mcpAuth(c, next) {
      try {
        await options.auth(c, next)
      } catch (error) {
        if (!(error instanceof ServiceError) || error.code !== 'unauthorized') throw error
        const challenge = error.headers['WWW-Authenticate'] ?? 'Bearer'
        const resourceMetadata = `resource_metadata="${metadataUrl(new URL(c.req.url).origin)}"`
        throw new ServiceError('unauthorized', error.message, { 'WWW-Authenticate': `${challenge}, ${resourceMetadata}` })
      }
    })
    .all('/mcp', async (c) => {
      const origin = new URL(c.req.url).origin
      const credentials = new Headers()
      for (const name of CREDENTIAL_HEADERS) {
        const value = c.req.header(name)
        if (value !== undefined) credentials.set(name, value)
      }
      const service = new McpService(options.api(c), origin, credentials, c.env, c.get('userId'))
      const caller: McpCaller = { service, writeTools: c.env.MCP_WRITE_TOOLS === '1' }
      return serveMcp(c.req.raw, { token: '', clientId: c.get('userId'), scopes: [], extra: { caller } })
    })
}
