/**
 * The MCP server (round4.md §4), a way in beside the HTTP API: `/mcp` serves MCP's tools,
 * resources and a prompt over the caller's sessions and memory, each tool the request it wraps.
 */
export { mcpRoutes } from './routes'
