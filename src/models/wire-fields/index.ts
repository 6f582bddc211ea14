import type { ChatRequest } from '../port'

/** The request fields beyond messages and `max_tokens`, by their OpenAI wire names. */
export type WireField =
  | 'tools'
  | 'tool_choice'
  | 'parallel_tool_calls'
  | 'temperature'
  | 'top_p'
  | 'stop'
  | 'seed'
  | 'presence_penalty'
  | 'frequency_penalty'
  | 'response_format'
  | 'prompt_cache_key'

/**
 * A chat request's tools and options in OpenAI wire names, absent ones left out; `only` keeps the
 * ones an upstream's API has.
 *
 * @example
 * wireFields({ ...request, options: { topP: 0.9 } }) // { top_p: 0.9 }
 */
export function wireFields(request: ChatRequest, only?: readonly WireField[]): Partial<Record<WireField, unknown>> {
  const o = request.options ?? {}
  const fields: Record<WireField, unknown> = {
    tools: request.tools,
    tool_choice: request.toolChoice,
    parallel_tool_calls: request.parallelToolCalls,
    temperature: o.temperature,
    top_p: o.topP,
    stop: o.stop,
    seed: o.seed,
    presence_penalty: o.presencePenalty,
    frequency_penalty: o.frequencyPenalty,
    response_format: o.responseFormat,
    prompt_cache_key: o.promptCacheKey,
  }
  const kept = Object.entries(fields).filter(
    ([name, value]) => value !== undefined && (!only || only.includes(name as WireField)),
  )
  return Object.fromEntries(kept)
}
