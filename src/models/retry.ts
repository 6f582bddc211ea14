import { type ChatModel, type ChatRequest, UpstreamError } from './port'

export interface RetryOptions {
  /** Extra attempts after the first (default 2). */
  retries?: number
  /** First backoff; doubled each time, with jitter (default 250 ms). */
  backoffMs?: number
}

/**
 * A model whose calls are retried, with exponential backoff, when that is safe: a 429, a 5xx or
 * a failed connection, and only before any output reached the caller.
 *
 * @example
 * const model = withRetries(openAICompatible({ baseUrl, apiKey }), { retries: 2 })
 */
export function withRetries(model: ChatModel, options: RetryOptions = {}): ChatModel {
  const { retries = 2, backoffMs = 250 } = options
  return {
    async chat(request: ChatRequest) {
      let sent = false
      const tracked: ChatRequest = request.onDelta
        ? {
            ...request,
            onDelta: (text) => {
              sent = true
              request.onDelta?.(text)
            },
          }
        : request
      for (let attempt = 0; ; attempt++) {
        try {
          return await model.chat(tracked)
        } catch (error) {
          if (!(error instanceof UpstreamError) || !error.retryable || sent || attempt >= retries) throw error
          const delay = backoffMs * 2 ** attempt * (0.5 + Math.random() / 2)
          await new Promise((resolve) => setTimeout(resolve, delay))
        }
      }
    },
  }
}
