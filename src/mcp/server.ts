import { McpServer } from '@modelcontextprotocol/server'
import { registerSessionContent } from './content'
import type { McpService } from './service'
import { registerReadTools, registerWriteTools } from './tools'

const INSTRUCTIONS =
  'Your past sessions with this service: search them in plain words (search_sessions), list them, read a page of one around an event (read_session), recall an exact message or tool result (recall), see what a session holds (get_context), and keep notes across sessions in your memory (memory).'

/**
 * The MCP server one request is answered by (stateless: a fresh one each time), its tools,
 * resources and prompt calling the service as the caller.
 */
export function mcpServerFor(service: McpService, writeTools: boolean): McpServer {
  const server = new McpServer({ name: 'durable-sessions', version: '1.0.0' }, { instructions: INSTRUCTIONS })
  registerReadTools(server, service)
  if (writeTools) registerWriteTools(server, service)
  registerSessionContent(server, service)
  return server
}
