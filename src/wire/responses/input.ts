import { ServiceError } from '../../contract/errors'
import type { ResponsesRequest } from '../../contract/schemas'
import type { ClientMessage, Reasoning } from '../../core'
import type { MediaIntake } from '../media'
import { itemContent, textOf } from './content'
import { flatName } from './tools'

export type Item = Exclude<ResponsesRequest['input'], string>[number] & Record<string, unknown>

/** The ids of the items a request refers to (`item_reference`), to be looked up before it is read. */
export const referencedIds = (body: ResponsesRequest): string[] =>
  typeof body.input === 'string' ? [] : body.input.flatMap((item) => (item.type === 'item_reference' ? [item.id as string] : []))

/** The request's items, each reference replaced by the item it names (one that names none: 400, as OpenAI answers). */
export function inputItems(body: ResponsesRequest, references: ReadonlyMap<string, Record<string, unknown>>): Item[] {
  if (typeof body.input === 'string') return [{ type: 'message', role: 'user', content: body.input }]
  return body.input.map((item, at) => {
    if (item.type !== 'item_reference') return item
    const found = references.get(item.id as string)
    if (!found) throw new ServiceError('invalid_request', `input[${at}].id: Item with id '${item.id}' not found.`)
    return found as Item
  })
}

/**
 * Input items as neutral messages: an assistant message item and the `function_call` items after
 * it as one assistant message, each `function_call_output` a tool message, reasoning items kept on
 * the assistant message they come with; system and developer messages taken out as the system
 * prompt's parts, or kept in place as inline system messages (a Conversations client's items).
 */
export async function messagesOf(
  items: readonly Item[],
  options: { field: string; from?: number; systemMessages: 'prompt' | 'inline' },
  media: MediaIntake,
): Promise<{ messages: ClientMessage[]; fields: string[]; system: string[] }> {
  const messages: ClientMessage[] = []
  const fields: string[] = []
  const system: string[] = []
  // Whether a function_call joins the message before it: an assistant's (a message, or calls).
  let joinable = false
  // Reasoning items go with the assistant message they come with (kept, never matched).
  let reasoning: Reasoning[] = []
  const assistant = (message: ClientMessage, field: string) => {
    if (reasoning.length > 0) message.reasoning = reasoning
    reasoning = []
    messages.push(message)
    fields.push(field)
  }
  for (const [at, item] of items.entries()) {
    const field = `${options.field}[${(options.from ?? 0) + at}]`
    const type = item.type ?? 'message'
    if (type === 'compaction') continue
    if (type === 'reasoning') {
      const { id: _, ...kept } = item
      reasoning.push({ ...kept, provider: 'openai', type: 'reasoning' })
      continue
    }
    if (type === 'function_call') {
      // A call inside a namespace goes by its flat name, as the tool was offered and its call stored.
      const name =
        typeof item.namespace === 'string' && item.namespace !== ''
          ? flatName({ namespace: item.namespace, name: item.name as string })
          : (item.name as string)
      const call = { id: item.call_id as string, name, arguments: item.arguments as string }
      const previous = messages.at(-1)
      if (joinable && previous?.role === 'assistant') {
        previous.toolCalls = [...(previous.toolCalls ?? []), call]
        if (reasoning.length > 0) previous.reasoning = [...(previous.reasoning ?? []), ...reasoning]
        reasoning = []
      } else assistant({ role: 'assistant', content: null, toolCalls: [call] }, field)
      joinable = true
      continue
    }
    joinable = false
    if (type === 'function_call_output') {
      const output = await itemContent(`${field}.output`, item.output, media)
      messages.push({ role: 'tool', content: output, toolCallId: item.call_id as string })
      fields.push(field)
      continue
    }
    const text = textOf(item.content)
    if (item.role === 'system' || item.role === 'developer') {
      if (options.systemMessages === 'inline') {
        messages.push({ role: 'system', content: text })
        fields.push(field)
      } else if (text !== '') system.push(text)
      continue
    }
    if (item.role === 'assistant') assistant({ role: 'assistant', content: text }, field)
    else {
      messages.push({ role: 'user', content: await itemContent(`${field}.content`, item.content, media) })
      fields.push(field)
    }
    joinable = item.role === 'assistant'
  }
  return { messages, fields, system }
}
