import type { BlobUpload } from '../../contract/blob-upload'
import { ServiceError } from '../../contract/errors'
import type { ResponsesRequest } from '../../contract/schemas'
import type { MessageEvent } from '../../core'
import type { DoorRequest } from '../../doors'
import { blobUrl } from '../blob-url'
import { type DoorHeaderValues, doorRequestOf, type Translation } from '../door-request'
import { type BlobsElsewhere, MediaIntake } from '../media'
import { inputItems, messagesOf, referencedIds } from './input'
import { referencedItems } from './items'
import { implicitTtlOf, type ResponsesPlace, type ResponsesSessionHeaders, responsesPlace } from './session'
import { type NamespacedName, toolChoiceOf, toolsOf } from './tools'

/**
 * An OpenAI Responses request as the door layer takes it: `instructions` and every system or
 * developer message, joined with a blank line, as the system prompt; the other input items as
 * neutral messages — an assistant message item and the `function_call` items after it as one
 * assistant message, each `function_call_output` as a tool message, reasoning items left out of
 * matching — and its function tools, those inside namespaces under flat names (`namespaced`;
 * the others, which the service cannot offer, left out and named in `omitted`).
 *
 * @example
 * const { translation, capsule, omitted } = responsesTranslation(body)
 */
export async function responsesTranslation(
  body: ResponsesRequest,
  media: MediaIntake,
  references: ReadonlyMap<string, Record<string, unknown>> = new Map(),
): Promise<{
  translation: Translation
  capsule: DoorRequest['capsule']
  omitted: string[]
  namespaced: Map<string, NamespacedName>
  compact: boolean
}> {
  const all = inputItems(body, references)
  // A last compaction_trigger asks for a compaction; the newest compaction item stands for all before it.
  const compact = all.at(-1)?.type === 'compaction_trigger'
  const items = compact ? all.slice(0, -1) : all
  const at = items.findLastIndex((item) => item.type === 'compaction')
  const { messages, fields, system } = await messagesOf(
    items.slice(at + 1),
    { field: 'input', from: at + 1, systemMessages: 'prompt' },
    media,
  )
  // System and developer messages before it still make the system prompt (Codex moves one there).
  const earlier = (await messagesOf(items.slice(0, at + 1), { field: 'input', systemMessages: 'prompt' }, media)).system
  system.unshift(...(body.instructions ? [body.instructions] : []), ...earlier)
  const threshold = body.context_management?.find((entry) => entry.type === 'compaction')?.compact_threshold
  const { tools, omitted, namespaced } = toolsOf(body.tools)
  const toolChoice = toolChoiceOf(body.tool_choice, tools, omitted)
  const options = Object.fromEntries(
    Object.entries({
      temperature: body.temperature,
      topP: body.top_p,
      maxTokens: body.max_output_tokens,
      promptCacheKey: body.prompt_cache_key,
    }).filter(([, value]) => value !== undefined && value !== null),
  )
  return {
    omitted,
    namespaced,
    compact,
    capsule: at >= 0 ? { token: items[at]!.encrypted_content as string, field: `input[${at}].encrypted_content` } : null,
    translation: {
      messages,
      fields,
      toolCallIdField: 'call_id',
      shown: { inline: false },
      request: {
        ...(system.length > 0 ? { system: system.join('\n\n') } : {}),
        model: body.model,
        stream: body.stream ?? false,
        ...(tools.length > 0 ? { tools } : {}),
        ...(toolChoice !== undefined && tools.length > 0 ? { toolChoice } : {}),
        ...(typeof body.parallel_tool_calls === 'boolean' && tools.length > 0
          ? { parallelToolCalls: body.parallel_tool_calls }
          : {}),
        ...(Object.keys(options).length > 0 ? { options } : {}),
        // A compaction threshold is a tokenCount trigger for this request.
        ...(threshold ? { compactionTrigger: { tokenCount: threshold } } : {}),
      },
    },
  }
}

/** A Responses request as its session object takes it, with where it is answered and what the answer says of it. */
export interface ResponsesDoorRequest {
  place: ResponsesPlace
  request: DoorRequest
  /** Its images and documents, for the session object. */
  upload: BlobUpload | null
  /** Tools the service cannot offer, left out (`X-Tools-Omitted`). */
  omitted: string[]
  /** The namespaced tools offered, by their flat names: their calls are answered in their namespace. */
  namespaced: Map<string, NamespacedName>
  /** The input ends with a `compaction_trigger`: the request asks for a compaction. */
  compact: boolean
}

/**
 * A Responses request as its session object takes it (see `doorRequestOf`): where it is answered
 * (see `responsesPlace`; with no session, unstored: passed through), its items (those it refers to
 * by `item_reference` looked up in its session with `lookUp`: a second call to the session object,
 * only for such a request), a compaction item's capsule, the response it goes on
 * from. A capsule with no session named is a 400: it goes back to the session it was made in.
 * An image or document named by another session's blob URL is read from there
 * (`blobsElsewhere`, given the request's session: a call to that session's object per blob).
 *
 * @example
 * const { place, request, omitted } = await responsesRequest(body, headers, c.env, newConversationId)
 */
export async function responsesRequest(
  body: ResponsesRequest,
  headers: DoorHeaderValues & ResponsesSessionHeaders & { 'x-memory'?: 'on' | 'off' | undefined },
  env: Pick<Env, 'ON_DIVERGE' | 'RESPONSES_IMPLICIT_TTL_SECONDS'>,
  newId: () => string,
  origin: string,
  lookUp?: (sessionId: string, eventIds: string[]) => Promise<MessageEvent[]>,
  blobsElsewhere?: (sessionId: string | null) => BlobsElsewhere,
): Promise<ResponsesDoorRequest> {
  const place = responsesPlace(body, headers, newId)
  const referenced = referencedIds(body)
  const stored = place.sessionId !== null && !place.implicit
  const found =
    referenced.length > 0 && stored && lookUp
      ? await referencedItems(referenced, (ids) => lookUp(place.sessionId!, ids), blobUrl(origin, place.sessionId!))
      : undefined
  const media = new MediaIntake(origin, blobsElsewhere?.(place.sessionId) ?? null)
  const { translation, capsule, omitted, namespaced, compact } = await responsesTranslation(body, media, found)
  if (headers['x-memory'] === 'on') translation.request.memory = true
  if (place.sessionId === null && capsule)
    throw new ServiceError(
      'invalid_request',
      `${capsule.field}: a compaction item goes back to the session it was made in: name it`,
    )
  const request = await doorRequestOf(translation, body.input, headers, env, {
    mode: place.sessionId === null ? 'passthrough' : 'turn',
    mustExist: place.mustExist,
    creates: place.implicit ? { idleTtlSeconds: implicitTtlOf(env.RESPONSES_IMPLICIT_TTL_SECONDS) } : {},
    after: place.after ?? null,
    capsule,
  })
  return { place, request, omitted, namespaced, compact, upload: media.upload() }
}
