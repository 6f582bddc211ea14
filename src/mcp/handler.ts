import {
  type AuthInfo,
  createMcpHandler,
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  isLegacyRequest,
  type McpServerFactory,
  readRequestBody,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server'

/** Serves one MCP request, as the user its auth info names. */
export type McpFetch = (request: Request, authInfo: AuthInfo) => Promise<Response>

/**
 * The MCP SDK's handler for a server factory, one per isolate: the 2026-07-28 revision served by
 * `createMcpHandler` (a JSON answer unless a tool streams), and a 2025-era client's POST (the
 * v1 SDK, Codex; `initialize` included) answered by a fresh stateless transport in JSON, where the
 * SDK's own fallback would open an SSE stream for one message. The SDK classifies the request
 * (`isLegacyRequest`, the code its handler runs) from the body read once, under the SDK's bound;
 * a body over it or not JSON goes to the SDK's handler whole, which answers its 413 or parse
 * error. A 2025-era GET or DELETE goes to its fallback, which answers 405 (no sessions to listen
 * on or end).
 *
 * @example
 * const serve = mcpFetch(({ authInfo }) => serverFor(authInfo))
 * return serve(request, { token: '', clientId: userId, scopes: [] })
 */
export function mcpFetch(factory: McpServerFactory): McpFetch {
  const handler = createMcpHandler(factory)
  return async function serveMcp(request, authInfo) {
    const parsedBody = request.method === 'POST' ? await jsonOf(request.clone()) : undefined
    if (parsedBody === undefined) return handler.fetch(request, { authInfo })
    if (!(await isLegacyRequest(request, parsedBody))) return handler.fetch(request, { authInfo, parsedBody })
    const server = await factory({ era: 'legacy', authInfo, requestInfo: request })
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    await server.connect(transport)
    try {
      return await transport.handleRequest(request, { authInfo, parsedBody })
    } finally {
      // The answer is whole (JSON, not a stream): nothing of this exchange is left to serve.
      void transport.close().catch(() => {})
      void server.close().catch(() => {})
    }
  }
}

/** A POST's body parsed, if it is JSON within the SDK's bound; undefined otherwise. */
async function jsonOf(request: Request): Promise<unknown> {
  const read = await readRequestBody(request, DEFAULT_MAX_REQUEST_BODY_SIZE).catch(() => null)
  if (!read || read.tooLarge || read.text.length === 0) return undefined
  try {
    return JSON.parse(read.text)
  } catch {
    return undefined
  }
}
