import { type McpServer, ResourceNotFoundError, ResourceTemplate } from '@modelcontextprotocol/server'
import { z } from 'zod'
import { type SessionEvent, textOf } from '../core'
import { schemaOnce } from './schema'
import { type McpService, ToolFailure } from './service'

type ViewJson = { events: SessionEvent[] }

const sessionPath = (id: string) => `/v1/sessions/${encodeURIComponent(id)}`

/** What `read` answers, the service's refusal a resource-not-found error (a session the caller does not have reads as none). */
async function found<T>(uri: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read()
  } catch (error) {
    if (error instanceof ToolFailure) throw new ResourceNotFoundError(uri, error.message)
    throw error
  }
}

/** The view's events (see {@link found}). */
const viewOf = async (service: McpService, sessionId: string, uri: string): Promise<SessionEvent[]> =>
  (await found(uri, () => service.json<ViewJson>('GET', `${sessionPath(sessionId)}/view`))).events

/** The newest summary in a view: the first message a compaction wrote (null: nothing was compacted). */
const summaryIn = (view: SessionEvent[]): string | null => {
  const summary = view.find((event) => event.type === 'MESSAGE' && event.synthetic)
  return summary?.type === 'MESSAGE' ? textOf(summary.message.content) : null
}

/** The view's last `count` turns as lines `role: text`, a turn from each user message on. */
function lastTurns(view: SessionEvent[], count: number): string {
  const messages = view.flatMap((event) => (event.type === 'MESSAGE' && !event.synthetic ? [event.message] : []))
  let start = messages.length
  for (let seen = 0; start > 0 && seen < count; ) if (messages[--start]!.role === 'user') seen++
  return messages
    .slice(start)
    .filter((message) => message.role === 'user' || message.role === 'assistant')
    .map(
      (message) =>
        `${message.role}: ${textOf(message.content) || (message.toolCalls ?? []).map((call) => `[calls ${call.name}]`).join(' ')}`,
    )
    .join('\n\n')
}

/** `session://<id>/transcript.md`, `session://<id>/summary` and the `resume_session` prompt. */
export function registerSessionContent(server: McpServer, service: McpService): void {
  server.registerResource(
    'transcript',
    new ResourceTemplate('session://{sessionId}/transcript.md', { list: undefined }),
    {
      description: 'A session’s conversation as Markdown: its lineage, with compactions, pins and branch points marked.',
      mimeType: 'text/markdown',
    },
    async (uri, { sessionId }) => {
      const markdown = await found(uri.href, () => service.text(`${sessionPath(String(sessionId))}/export?format=markdown`))
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: markdown }] }
    },
  )

  server.registerResource(
    'summary',
    new ResourceTemplate('session://{sessionId}/summary', { list: undefined }),
    {
      description: 'A session’s newest summary: what its compactions wrote for the model in place of older turns.',
      mimeType: 'text/plain',
    },
    async (uri, { sessionId }) => {
      const summary = summaryIn(await viewOf(service, String(sessionId), uri.href))
      return { contents: summary === null ? [] : [{ uri: uri.href, mimeType: 'text/plain', text: summary }] }
    },
  )

  server.registerPrompt(
    'resume_session',
    {
      description: 'Continue a session elsewhere: its newest summary and its last turns, as one message to start from.',
      argsSchema: schemaOnce('resume_session', () =>
        z.object({
          sessionId: z.string().min(1).max(256).describe('The session to continue.'),
          turns: z
            .string()
            .regex(/^\d{1,2}$/)
            .optional()
            .describe('How many of its last turns to include (default 3).'),
        }),
      ),
    },
    async ({ sessionId, turns = '3' }) => {
      const view = await viewOf(service, sessionId, `session://${sessionId}/transcript.md`)
      const summary = summaryIn(view)
      const parts = [
        `We are continuing session ${sessionId}.`,
        ...(summary === null ? [] : [`Summary of the conversation so far:\n\n${summary}`]),
        `Its last turns:\n\n${lastTurns(view, Math.max(1, Number(turns)))}`,
        'Pick up from there.',
      ]
      return { messages: [{ role: 'user', content: { type: 'text', text: parts.join('\n\n') } }] }
    },
  )
}
