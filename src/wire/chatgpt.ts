import type { ChatGPTConversation } from '../contract/schemas'
import type { ClientMessage } from '../core'

/**
 * One conversation of a ChatGPT export as a history: the path from its root to `current_node`
 * (the branch the person saw last; edits and regenerations left aside), each message's text
 * parts joined with a newline. Its first system message with text is the system prompt; hidden
 * and empty messages, and tool messages (they carry no call to answer), are left out.
 *
 * @example
 * chatgptHistory(conversations[0]) // { messages: [{ role: 'user', content: 'Hi' }, …], fields: […], system: undefined }
 */
export function chatgptHistory(conversation: ChatGPTConversation): {
  messages: ClientMessage[]
  fields: string[]
  system?: string
} {
  const { mapping } = conversation
  const path: string[] = []
  const nodes = Object.keys(mapping).length
  // Up the parents from the current node; a tree that loops ends where it would repeat.
  for (let at = conversation.current_node as string | null | undefined; at && mapping[at] && path.length < nodes; ) {
    path.unshift(at)
    at = mapping[at]!.parent
  }
  const messages: ClientMessage[] = []
  const fields: string[] = []
  let system: string | undefined
  for (const id of path) {
    const message = mapping[id]!.message
    if (!message || message.metadata?.is_visually_hidden_from_conversation === true) continue
    const parts = message.content.parts ?? (message.content.text === undefined ? [] : [message.content.text])
    const text = parts.filter((part): part is string => typeof part === 'string').join('\n')
    if (text.trim() === '') continue
    const role = message.author.role
    if (role === 'system') system ??= text
    else if (role === 'user' || role === 'assistant') {
      messages.push({ role, content: text })
      fields.push(`conversation.mapping["${id}"]`)
    }
  }
  return { messages, fields, ...(system === undefined ? {} : { system }) }
}
