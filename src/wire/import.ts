import type { ExportContent, ImportLines, JsonImport } from '../contract/schemas'
import type { ImportedHistory } from '../doors/import-history'
import { chatCompletionTranslation } from './chat-completions/request'
import { chatgptHistory } from './chatgpt'
import type { MediaIntake } from './media'
import { messagesTranslation } from './messages/request'

/**
 * A JSON import's history: OpenAI chat messages and Anthropic Messages read as their doors read
 * them (their images and documents by `media`), a ChatGPT conversation's current path.
 */
export async function importedHistory(body: JsonImport, media: MediaIntake): Promise<ImportedHistory> {
  if (body.format === 'chatgpt') return chatgptHistory(body.conversation)
  const input =
    body.format === 'openai'
      ? await chatCompletionTranslation({ model: 'import', messages: body.messages }, media)
      : await messagesTranslation(
          {
            model: 'import',
            max_tokens: 1,
            messages: body.messages,
            ...(body.system ? { system: body.system } : {}),
          },
          media,
        )
  return { messages: input.messages, fields: input.fields, ...(input.request.system ? { system: input.request.system } : {}) }
}

/**
 * A `jsonl` import's images and documents: each part that carries its blob's bytes (`data`, the
 * first to name it in the export) read and checked against its name, the bytes taken out of the
 * event and staged in `media`; a part naming a blob neither brought before nor held is refused by
 * the session object. The lines are changed in place.
 *
 * @example
 * await jsonlMedia(lines, media) // then importSession(address, { lines }, media.upload())
 */
export async function jsonlMedia(lines: ImportLines, media: MediaIntake): Promise<void> {
  for (const item of lines.events) {
    if (item.event.type !== 'MESSAGE') continue
    const message = item.event.message
    const field = `line ${item.line}: message`
    const read = async (where: string, content: ExportContent): Promise<ExportContent> => {
      if (typeof content === 'string') return content
      const parts: ExportContent = []
      for (const [i, part] of content.entries()) parts.push('blob' in part ? await media.exported(`${where}[${i}]`, part) : part)
      return parts
    }
    if (message.content !== null) message.content = await read(`${field}.content`, message.content)
    for (const [i, response] of (message.toolResponses ?? []).entries())
      response.data = await read(`${field}.toolResponses[${i}].data`, response.data)
  }
}
