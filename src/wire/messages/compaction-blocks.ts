import type { MessagesRequest } from '../../contract/schemas'
import type { DoorRequest } from '../../doors'

type Message = MessagesRequest['messages'][number]
type Block = { type: string; [field: string]: unknown }
type CompactionBlock = Block & { content?: string | null; encrypted_content?: string | null }

/** A compaction block that stands for nothing: a failed compaction's (no summary, no capsule), sent back as Anthropic allows. */
const isEmpty = (block: Block) =>
  (block as CompactionBlock).content == null && (block as CompactionBlock).encrypted_content == null

/** A message without its compaction blocks (null when nothing else was in it). */
function withoutCompactions(message: Message): Message | null {
  if (typeof message.content === 'string' || !message.content.some((block) => block.type === 'compaction')) return message
  const content = message.content.filter((block) => block.type !== 'compaction')
  return content.length > 0 ? { ...message, content } : null
}

/** What follows a compaction block in its message (null: nothing). */
function afterBlock(message: Message, block: number): Message | null {
  const content = (message.content as Block[]).slice(block + 1)
  return content.length > 0 ? withoutCompactions({ ...message, content } as Message) : null
}

/**
 * A request's messages as the door reads them (each with its place in the request): those after
 * its newest compaction block (one the service answered, sent back in an assistant message), which
 * stands for all that came before it, the blocks before it in its own message included — its
 * capsule (`encrypted_content`) names the view it was made at, checked by the door (one not this
 * session's is a 400 naming it). Blocks with neither summary nor capsule (a failed compaction's)
 * stand for nothing and are left out.
 *
 * @example
 * sinceCompaction([user, { role: 'assistant', content: [block, text] }, next])
 * // { since: [{ at: 1, message: { role: 'assistant', content: [text] } }, { at: 2, message: next }], capsule: { token, field } }
 */
export function sinceCompaction(messages: readonly Message[]): {
  since: { at: number; message: Message }[]
  capsule: DoorRequest['capsule']
} {
  let from = { message: 0, block: -1 }
  let capsule: DoorRequest['capsule'] = null
  for (let at = messages.length - 1; at >= 0 && capsule === null; at--) {
    const content = messages[at]!.content
    if (typeof content === 'string') continue
    const block = content.findLastIndex((b) => b.type === 'compaction' && !isEmpty(b))
    if (block < 0) continue
    from = { message: at, block }
    const token = (content[block] as CompactionBlock).encrypted_content ?? ''
    capsule = { token, field: `messages[${at}].content[${block}].encrypted_content` }
  }
  const since: { at: number; message: Message }[] = []
  for (let at = from.message; at < messages.length; at++) {
    const message = messages[at]!
    // The block's own message: only what follows the block in it (nothing: the message is left out).
    const kept = at === from.message && from.block >= 0 ? afterBlock(message, from.block) : withoutCompactions(message)
    if (kept !== null) since.push({ at, message: kept })
  }
  return { since, capsule }
}
