import { ServiceError } from '../../contract/errors'
import { SIZE_LIMITS } from '../../contract/limits'
import type { ResponsesRequest, ToolChoiceInput, ToolInput } from '../../contract/schemas'

/** A tool inside a `namespace` tool, as the client names it. */
export interface NamespacedName {
  namespace: string
  name: string
}

/**
 * The one name a namespaced tool goes by upstream and in the log: Codex's own flattening
 * (`ToolName::canonical_flat_name` in codex-rs), `<namespace>__<name>`, the underscores at the
 * join trimmed — `mcp__ds` and `list_sessions` are `mcp__ds__list_sessions`, as Claude Code
 * names MCP tools too.
 */
export const flatName = ({ namespace, name }: NamespacedName) => `${namespace.replace(/_+$/, '')}__${name.replace(/^_+/, '')}`

/** The turn's tools: those it offers, those it leaves out (named), and the flattened names of namespaced ones. */
interface TurnTools {
  tools: ToolInput[]
  omitted: string[]
  /** Each offered namespaced tool by its flat name (see `flatName`), to answer its calls as the client names them. */
  namespaced: Map<string, NamespacedName>
}

/**
 * Function tools as the turn offers them, and the function tools inside a `namespace` tool (Codex
 * offers an MCP server's tools as one, `mcp__<server>`) each under its flat name — upstreams
 * take no namespaces. Every other tool (built-in, custom, MCP), and a flat name another tool
 * already has, is left out and named. Namespaces count toward the tool limit by what they hold.
 */
export function toolsOf(tools: ResponsesRequest['tools']): TurnTools {
  const offered: ToolInput[] = []
  const omitted: string[] = []
  const namespaced = new Map<string, NamespacedName>()
  const offer = (tool: Record<string, unknown>, name: string) =>
    offered.push({
      type: 'function',
      function: {
        name,
        ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
        ...(tool.parameters && typeof tool.parameters === 'object'
          ? { parameters: tool.parameters as Record<string, unknown> }
          : {}),
      },
    })
  // Plain function tools first: a namespaced tool never takes a name the client gave another.
  const plain = new Set(
    (tools ?? []).flatMap((tool) => (tool.type === 'function' && typeof tool.name === 'string' ? [tool.name] : [])),
  )
  for (const tool of tools ?? []) {
    const named = tool as Record<string, unknown>
    if (tool.type === 'function' && typeof tool.name === 'string') offer(named, tool.name)
    else if (tool.type === 'namespace' && typeof tool.name === 'string' && Array.isArray(named.tools)) {
      for (const inner of named.tools as Record<string, unknown>[]) {
        const name = { namespace: tool.name, name: String(inner?.name ?? inner?.type) }
        const flat = flatName(name)
        if (inner?.type !== 'function' || typeof inner.name !== 'string' || plain.has(flat) || namespaced.has(flat))
          omitted.push(flat)
        else {
          namespaced.set(flat, name)
          offer(inner, flat)
        }
      }
    } else omitted.push(typeof named.server_label === 'string' ? named.server_label : (tool.name ?? tool.type))
  }
  // Offered or left out, each is in the prompt or the X-Tools-Omitted header.
  const count = offered.length + omitted.length
  if (count > SIZE_LIMITS.toolItems)
    throw new ServiceError(
      'invalid_request',
      `tools: ${count} tools, counting those inside namespaces; at most ${SIZE_LIMITS.toolItems}`,
    )
  return { tools: offered, omitted, namespaced }
}

/** `tool_choice` in the turn's names; one that requires a tool left out is refused. */
export function toolChoiceOf(
  choice: ResponsesRequest['tool_choice'],
  tools: readonly ToolInput[],
  omitted: readonly string[],
): ToolChoiceInput | undefined {
  if (choice === undefined || choice === 'auto' || choice === 'none') return choice
  if (choice === 'required') {
    if (tools.length === 0 && omitted.length > 0)
      throw new ServiceError(
        'unsupported',
        `tool_choice: it requires a tool, and only tools the service cannot offer were sent (${omitted.join(', ')})`,
      )
    return 'required'
  }
  if (choice.type === 'function' && choice.name && tools.some((tool) => tool.function.name === choice.name))
    return { type: 'function', function: { name: choice.name } }
  throw new ServiceError(
    'unsupported',
    `tool_choice: it requires "${choice.name ?? choice.type}", which the service cannot offer`,
  )
}
