import type { JsonImport } from '../contract/schemas'
import type { ImportedHistory } from '../doors/import-history'
import { chatCompletionInput } from './chat-completions/request'
import { chatgptHistory } from './chatgpt'
import { messagesInput } from './messages/request'

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
