import type { JsonImport } from '../contract/schemas'
import type { ImportedHistory } from '../doors/import-history'
import { chatCompletionTranslation } from './chat-completions/request'
import { chatgptHistory } from './chatgpt'
import { messagesTranslation } from './messages/request'

/** A JSON import's history: OpenAI chat messages and Anthropic Messages read as their doors read them, a ChatGPT conversation's current path. */
export function importedHistory(body: JsonImport): ImportedHistory {
  if (body.format === 'chatgpt') return chatgptHistory(body.conversation)
  const input =
    body.format === 'openai'
      ? chatCompletionTranslation({ model: 'import', messages: body.messages })
      : messagesTranslation({
          model: 'import',
          max_tokens: 1,
          messages: body.messages,
          ...(body.system ? { system: body.system } : {}),
        })
  return { messages: input.messages, fields: input.fields, ...(input.request.system ? { system: input.request.system } : {}) }
}
