/** A session's last messages as its client holds them: what a chat-completions client resends. */
import type { BenchWorker } from './client'

type LoggedEvent = {
  type: string
  synthetic: boolean
  metadata: Record<string, unknown>
  message?: {
    role: string
    content: string | null
    toolCalls?: { id: string; name: string; arguments: string }[]
    toolResponses?: { id: string; data: string }[]
  }
}

/** An event of the log as the OpenAI wire's messages (none for what the client never sent or saw). */
function wireMessages(event: LoggedEvent): unknown[] {
  const m = event.message
  if (event.type !== 'MESSAGE' || event.synthetic || m!.role === 'system' || event.metadata.interrupted) return []
  if (m!.role === 'tool') return m!.toolResponses!.map((r) => ({ role: 'tool', tool_call_id: r.id, content: r.data }))
  const calls = (m!.toolCalls ?? []).map((c) => ({
    id: c.id,
    type: 'function',
    function: { name: c.name, arguments: c.arguments },
  }))
  return [{ role: m!.role, content: m!.content, ...(calls.length > 0 ? { tool_calls: calls } : {}) }]
}

/** The session's last `count` messages in the OpenAI wire shape, read from its log over HTTP. */
export async function clientHistory({ api }: BenchWorker, id: string, count: number): Promise<unknown[]> {
  const { version } = await api('GET', `/v1/sessions/${id}`)
  const events: LoggedEvent[] = []
  for (let after: number | null = Math.max(0, version - count - 200); after !== null; ) {
    const page = await api('GET', `/v1/sessions/${id}/events?after=${after}&limit=1000`)
    events.push(...page.events)
    after = page.nextAfter
  }
  return events.flatMap(wireMessages).slice(-count)
}
