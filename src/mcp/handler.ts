import {
  type AuthInfo,
  createMcpHandler,
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  INTERNAL_ERROR,
  isJsonContentType,
  isLegacyRequest,
  type McpServer,
  type McpServerFactory,
  readRequestBody,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server'
import { log } from '../log'

/** Serves one MCP request, as the user its auth info names. */
export type McpFetch = (request: Request, authInfo: AuthInfo) => Promise<Response>

/**
 * The MCP SDK's handler for a server factory, one per isolate: the 2026-07-28 revision served by
 * `createMcpHandler` (a JSON answer unless a tool streams), and a 2025-era client's POST (the
 * v1 SDK, Codex; `initialize` included) answered by a fresh stateless transport in JSON, where the
 * SDK's own fallback would open an SSE stream for one message. So a tool's progress or log
 * notifications would not reach a 2025-era client (ours send none).
 *
 * The SDK classifies the request (`isLegacyRequest`, the code its handler runs) from a JSON body
 * read once under the SDK's bound. A POST that is not JSON by its Content-Type, or whose body is
 * over the bound or does not parse, goes to the SDK's handler as it came, which answers its own
 * 415, 413 or parse error; so do a 2025-era GET and DELETE (405: no sessions to listen on or end).
 *
 * @example
 * const serve = mcpFetch(({ authInfo }) => serverFor(authInfo))
 * return serve(request, { token: '', clientId: userId, scopes: [] })
 */
export function mcpFetch(factory: McpServerFactory): McpFetch {
  const handler = createMcpHandler(factory)
  return async function serveMcp(request, authInfo) {
    const parsedBody = await jsonBodyOf(request)
    if (parsedBody === undefined) return handler.fetch(request, { authInfo })
    if (!(await isLegacyRequest(request, parsedBody))) return handler.fetch(request, { authInfo, parsedBody })
    let server: McpServer | Server | undefined
    let transport: WebStandardStreamableHTTPServerTransport | undefined
    try {
      server = await factory({ era: 'legacy', authInfo, requestInfo: request })
      transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
      await server.connect(transport)
      return await transport.handleRequest(request, { authInfo, parsedBody })
    } catch (error) {
      // As the SDK's own fallback answers a failure: a JSON-RPC error, the request's id echoed.
      log.error('mcp request failed', { error: String(error), stack: (error as Error)?.stack })
      const failure = { code: INTERNAL_ERROR, message: 'Internal server error' }
      return Response.json({ jsonrpc: '2.0', error: failure, id: idOf(parsedBody) }, { status: 500 })
    } finally {
      // The answer is whole (JSON, not a stream): nothing of this exchange is left to serve.
      void transport?.close().catch(() => {})
      void server?.close().catch(() => {})
    }
  }
}

/** A POST's JSON body, parsed, if its Content-Type says JSON and it parses within the SDK's bound; else undefined. */
async function jsonBodyOf(request: Request): Promise<unknown> {
  if (request.method !== 'POST' || !isJsonContentType(request.headers.get('Content-Type'))) return undefined
  // A clone: the request goes on unread to whichever part of the SDK answers it.
  const read = await readRequestBody(request.clone(), DEFAULT_MAX_REQUEST_BODY_SIZE).catch(() => null)
  if (!read || read.tooLarge || read.text.length === 0) return undefined
  try {
    return JSON.parse(read.text)
  } catch {
    return undefined
  }
}

/** A request's id, to answer its failure with (null when it names none, or is a batch). */
function idOf(body: unknown): string | number | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null
  const { id } = body as { id?: unknown }
  return typeof id === 'string' || typeof id === 'number' ? id : null
}
