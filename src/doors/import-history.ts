import { ServiceError } from '../contract/errors'
import type { JsonImport } from '../contract/schemas'
import type { ClientMessage, SessionEvent, TokenEstimator } from '../core'
import { turnEvent } from '../turns/open-step'
import type { TurnSession } from '../turns/session'
import { chatCompletionInput } from './chat-completions/request'
import { chatgptHistory } from './chatgpt'
import { messagesInput } from './messages/request'
import { seedEvents } from './seed'

/** A history brought from elsewhere, in the door layer's neutral shape. */
export interface ImportedHistory {
  messages: ClientMessage[]
  /** Where each came from, for errors naming it (`messages[3]`). */
  fields: string[]
  system?: string
}

/** A JSON import's history: OpenAI chat messages and Anthropic Messages read as their doors read them, a ChatGPT conversation's current path. */
export async function importedHistory(body: JsonImport): Promise<ImportedHistory> {
  if (body.format === 'chatgpt') return chatgptHistory(body.conversation)
  const input =
    body.format === 'openai'
      ? await chatCompletionInput({ model: 'import', messages: body.messages })
      : await messagesInput({
          model: 'import',
          max_tokens: 1,
          messages: body.messages,
          ...(body.system ? { system: body.system } : {}),
        })
  return { messages: input.messages, fields: input.fields, ...(input.request.system ? { system: input.request.system } : {}) }
}

/**
 * Stores a history that carries no event ids (see {@link importedHistory}) as a client seeding
 * the session would: its system prompt first, each message as it is, consecutive tool results as
 * one tool event. Into an absent or empty session only (a 409 `session_exists` otherwise, also for
 * a retry of one that was written), since nothing tells what of it the session holds already.
 */
export async function importHistory(
  history: ImportedHistory,
  deps: { session: TurnSession; estimator: TokenEstimator },
): Promise<SessionEvent[]> {
  if ((await deps.session.readView()).version > 0)
    throw new ServiceError(
      'session_exists',
      'the session holds events already: a history without event ids goes into an absent or empty session only (a jsonl export keeps its ids)',
    )
  if (history.messages.length === 0) throw new ServiceError('invalid_request', 'body: the history holds no message to import')
  const system = history.system === undefined ? [] : [turnEvent({ role: 'system', content: history.system }, deps.estimator)]
  return deps.session.writeHistory([...system, ...seedEvents(history.messages, history.fields, deps.estimator).added])
}
