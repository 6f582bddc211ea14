import { createParser } from 'eventsource-parser'
import type { ToolCall, TurnResponseJson } from './types'

/** An error answer of the API, in the contract's shape (`{ error: { code, message } }`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Seconds to wait, from `Retry-After` (429). */
    readonly retryAfter: number | null = null,
  ) {
    super(message)
  }
}

/** The API as the page calls it: the bearer token on every request, errors as {@link ApiError}. */
export interface Api {
  get<T>(path: string): Promise<T>
  post<T>(path: string, body: unknown): Promise<T>
  /** A file the API answers (an export), whole. */
  download(path: string): Promise<Blob>
  /** Text sent as it is, with its media type (an import). */
  upload<T>(path: string, text: string, type: string): Promise<T>
  /** A streamed turn: text deltas and tool calls as they come, then the whole result. */
  turn(sessionId: string, body: Record<string, unknown>, on: TurnHandlers): Promise<TurnResponseJson>
  /**
   * Follows a session live (`/stream`) after the seq `after`, reconnecting with `Last-Event-ID`
   * when the stream ends, until `signal` aborts.
   */
  follow(sessionId: string, after: number, on: LiveHandlers, signal: AbortSignal): Promise<void>
}

export interface LiveHandlers {
  /** The subscription is on (again): what is written from now on comes. */
  open(): void
  /** An event written to the session (its seq). */
  event(seq: number): void
  /** A piece of a reply in progress. */
  delta(turnId: string, text: string): void
}

export interface TurnHandlers {
  delta(text: string): void
  toolCall(call: ToolCall): void
}

async function errorOf(response: Response): Promise<ApiError> {
  const retryAfter = response.headers.get('Retry-After')
  let code = 'http_error'
  let message = `${response.status} ${response.statusText}`
  try {
    const body = (await response.json()) as { error?: { code?: string; message?: string } }
    code = body.error?.code ?? code
    message = body.error?.message ?? message
  } catch {
    // not the contract's JSON (a proxy's page, say): the status says enough
  }
  return new ApiError(response.status, code, message, retryAfter === null ? null : Number(retryAfter))
}

/**
 * The API client of the page. `onUnauthorized` runs on every 401 (the page then asks for a token
 * again).
 *
 * @example
 * const api = createApi(token, () => signOut('expired'))
 * const { sessions } = await api.get<{ sessions: SessionJson[] }>('/v1/sessions')
 */
export function createApi(token: string, onUnauthorized: (error: ApiError) => void): Api {
  async function send(method: string, path: string, body?: unknown, type = 'application/json'): Promise<Response> {
    const response = await fetch(path, {
      method,
      headers: {
        Authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'Content-Type': type }),
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    })
    if (response.ok) return response
    const error = await errorOf(response)
    if (error.status === 401) onUnauthorized(error)
    throw error
  }
  return {
    get: async (path) => (await send('GET', path)).json(),
    post: async (path, body) => (await send('POST', path, body)).json(),
    download: async (path) => (await send('GET', path)).blob(),
    upload: async (path, text, type) => (await send('POST', path, text, type)).json(),
    async turn(sessionId, body, on) {
      const response = await send('POST', `/v1/sessions/${encodeURIComponent(sessionId)}/turns`, { ...body, stream: true })
      return readTurnStream(response, on)
    },
    async follow(sessionId, after, on, signal) {
      let last = after
      while (!signal.aborted) {
        try {
          const response = await fetch(`/v1/sessions/${encodeURIComponent(sessionId)}/stream`, {
            headers: { Authorization: `Bearer ${token}`, ...(last >= 0 ? { 'Last-Event-ID': String(last) } : {}) },
            signal,
          })
          if (!response.ok) throw await errorOf(response)
          on.open()
          const parser = createParser({
            onEvent(message) {
              const data = JSON.parse(message.data)
              if (message.event === 'event') {
                last = data.seq
                on.event(data.seq)
              } else if (message.event === 'delta') on.delta(data.turnId, data.text)
            },
          })
          const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
          for (let read = await reader.read(); !read.done; read = await reader.read()) parser.feed(read.value)
        } catch (error) {
          if (signal.aborted || (error instanceof ApiError && error.status < 500)) return
        }
        // Connect again after a pause (the service may be restarting).
        await new Promise((resolve) => setTimeout(resolve, 1000))
      }
    },
  }
}

/** Reads a turn's server-sent events (`delta`, `tool_call`, then `done` or `error`). */
async function readTurnStream(response: Response, on: TurnHandlers): Promise<TurnResponseJson> {
  let result: TurnResponseJson | null = null
  let failure: ApiError | null = null
  const parser = createParser({
    onEvent(message) {
      const data = JSON.parse(message.data)
      if (message.event === 'delta') on.delta(data.text)
      else if (message.event === 'tool_call') on.toolCall(data)
      else if (message.event === 'done') result = data
      else if (message.event === 'error')
        failure = new ApiError(502, data.error?.code ?? 'stream_error', data.error?.message ?? 'the turn failed')
    },
  })
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    parser.feed(value)
  }
  if (failure) throw failure
  if (!result) throw new ApiError(502, 'stream_cut', 'the stream ended before the turn finished')
  return result
}
