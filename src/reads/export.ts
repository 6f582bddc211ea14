import { anthropicMessages } from '../contract/anthropic-messages'
import type { OpenAIMessage } from '../contract/openai-messages'
import { EXPORT_FORMAT, type SessionExportHeader } from '../contract/schemas'
import { type Content, encodeBase64, isInline, lineageRuns, partPlaceholder, renderText, type SessionEvent } from '../core'
import { jsonArray, jsonObject } from '../json-stream'
import type { SessionBlobs } from '../store/log/blobs'
import { type PinnedSeqs, withPin } from '../store/log/event-json'
import type { SessionLog } from '../store/log/log'
import type { SessionRecord } from '../store/log/session-row'

/**
 * A session's exports, written as they are read (any size, memory bounded): the durable `jsonl`
 * format (docs/export-format.md), the view as Anthropic messages, the lineage as Markdown.
 */

/** The first line of a `jsonl` export. */
export const exportHeader = (record: SessionRecord): SessionExportHeader => ({
  type: 'session',
  format: EXPORT_FORMAT,
  id: record.id,
  createdAt: record.createdAt,
  metadata: record.metadata,
  policy: record.policy,
  forkedFrom: record.forkedFrom,
  exportedAt: new Date().toISOString(),
  version: record.version,
})

/**
 * `jsonl`: the session line, then every event of the log in seq order as its Event object, a line
 * each; the first event that names a blob carries its bytes beside its name (`data`, base64), so
 * the file is whole and an import restores them. Only events with parts are read as objects.
 */
export function* jsonlExport(record: SessionRecord, log: SessionLog, pinned: PinnedSeqs, blobs: SessionBlobs): Generator<string> {
  yield `${JSON.stringify(exportHeader(record))}\n`
  const sent = new Set<string>()
  for (const event of log.jsonRange(1, record.version)) {
    const json = event.json.includes('"blob":"sha256:') ? withBlobData(event.json, sent, blobs) : event.json
    yield `${withPin(json, pinned.has(event.seq))}\n`
  }
}

/** An event's JSON with the bytes of each blob not yet sent, beside its name. */
function withBlobData(json: string, sent: Set<string>, blobs: SessionBlobs): string {
  const event = JSON.parse(json) as SessionEvent
  if (event.type !== 'MESSAGE') return json
  const add = (content: Content): Content =>
    typeof content === 'string'
      ? content
      : content.map((part) => {
          if (!('blob' in part) || sent.has(part.blob)) return part
          sent.add(part.blob)
          const bytes = blobs.read(part.blob)
          return bytes ? { ...part, data: encodeBase64(bytes) } : part
        })
  const { message } = event
  const written = {
    ...event,
    message: {
      ...message,
      content: message.content === null ? null : add(message.content),
      ...(message.toolResponses ? { toolResponses: message.toolResponses.map((r) => ({ ...r, data: add(r.data) })) } : {}),
    },
  }
  return JSON.stringify(written)
}

/** `anthropic`: the view (as `GET /view?format=openai` renders it, pending calls open) as Anthropic Messages. */
export function anthropicExport(openAIMessages: Iterable<string>, system: string | null): Iterable<string> {
  function* parsed(): Generator<OpenAIMessage> {
    for (const json of openAIMessages) yield JSON.parse(json) as OpenAIMessage
  }
  function* messages(): Generator<string> {
    for (const message of anthropicMessages(parsed())) yield JSON.stringify(message)
  }
  return jsonObject({ ...(system === null ? {} : { system: JSON.stringify(system) }), messages: jsonArray(messages()) })
}

/** `markdown`: the lineage oldest first, readable; compactions, branch points and pins marked where they happened. */
export function* markdownExport(record: SessionRecord, log: SessionLog): Generator<string> {
  yield `# Session ${record.id}\n\nCreated ${record.createdAt}; ${record.version} events; exported ${new Date().toISOString()}. The lineage: what the conversation is now, with what compactions covered and where it branched.\n`
  const runs = [...lineageRuns(record.version, log.rewinds.at)].reverse()
  for (const run of runs) for (const event of log.eventRange(run.from, run.to)) yield markdownOf(event)
}

const quoted = (text: string) =>
  text
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n')

/** One event as Markdown. */
function markdownOf(event: SessionEvent): string {
  switch (event.type) {
    case 'COMPACTION': {
      const { boundary } = event
      const what = boundary.undoes ? `an undo of pass ${boundary.undoes}` : `${boundary.coveredEventCount} events covered`
      return `\n---\n\n*Compaction (${event.timestamp}): ${what}; the view now starts from its summary.*\n`
    }
    case 'REWIND':
      return `\n---\n\n*Branch point (${event.timestamp}): the conversation was taken back ${event.rewind.position} ${event.rewind.to ?? 'the start'} (${event.rewind.reason}); what followed is a branch.*\n`
    case 'PINS': {
      const { pin, unpin } = event.pins
      return `\n*Pins (${event.timestamp}):${pin.length > 0 ? ` pinned ${pin.join(', ')}` : ''}${unpin.length > 0 ? ` unpinned ${unpin.join(', ')}` : ''}.*\n`
    }
    case 'MESSAGE': {
      const { message } = event
      const who = event.synthetic
        ? 'summary'
        : message.role === 'system'
          ? isInline(event)
            ? 'system (inline)'
            : 'system prompt'
          : message.role
      const parts = [`\n### ${who} · ${event.timestamp}\n`]
      const text = renderText(message.content, partPlaceholder)
      if (text) parts.push(event.synthetic ? quoted(text) : text)
      for (const call of message.toolCalls ?? []) parts.push(`- calls \`${call.name}\` (${call.id}): \`${call.arguments}\``)
      for (const response of message.toolResponses ?? [])
        parts.push(`- \`${response.name}\` (${response.id}) answered:\n\n${quoted(renderText(response.data, partPlaceholder))}`)
      return `${parts.join('\n')}\n`
    }
  }
}
