import { requestJson, type StreamedJson } from '../../json-stream'
import { type ChatReply, UpstreamError } from '../port'
import { type CollectOptions, collectStream } from '../stream'

export interface HttpUpstreamOptions {
  url: string
  /** Time allowed for the answer to start, and between two chunks of a stream. */
  timeoutMs: number
  /** The credential the upstream is called with: never repeated in an error. */
  secret?: string
  fetch?: typeof fetch
  /** The error for a non-2xx answer, from its status, headers and (redacted) text. */
  refused(response: Response, text: string): UpstreamError
}

/**
 * The one way the adapters call a model over HTTP: a JSON POST whose failures are
 * `UpstreamError`s (the deadline, the connection, the upstream's refusal) with no credential in
 * their text; a plain answer read under one deadline; a streamed one collected with an idle
 * timeout per chunk.
 *
 * @example
 * const http = httpUpstream({ url, timeoutMs, secret: apiKey, refused: (response, text) => new UpstreamError('status', text) })
 * const json = await http.json<{ choices: unknown[] }>((signal) => http.post(body, headers, signal))
 */
export function httpUpstream(options: HttpUpstreamOptions) {
  const doFetch = options.fetch ?? fetch
  const { timeoutMs } = options

  /** Error texts may echo credentials ("Incorrect API key provided: …"): never pass them on. */
  function redact(text: string): string {
    const safe = text.replace(/Bearer\s+\S+/gi, 'Bearer [redacted]')
    return options.secret && options.secret.length >= 4 ? safe.replaceAll(options.secret, '[redacted]') : safe
  }

  async function post(body: unknown, headers: Record<string, string>, signal: AbortSignal): Promise<Response> {
    let response: Response
    try {
      response = await doFetch(options.url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: bodyOf(requestJson(body)),
        signal,
      })
    } catch (error) {
      if (signal.aborted) throw new UpstreamError('timeout', `the model did not answer within ${timeoutMs} ms`)
      throw new UpstreamError('transport', `could not reach the model: ${redact((error as Error).message)}`)
    }
    if (!response.ok) throw options.refused(response, redact(await response.text().catch(() => '')))
    return response
  }

  /** A request's JSON: its text, or its stream sent with its length (a Content-Length, as a text's). */
  function bodyOf(json: string | StreamedJson): string | ReadableStream<Uint8Array> {
    if (typeof json === 'string') return json
    const { readable, writable } = new FixedLengthStream(json.bytes)
    // A failure shows as the fetch's (the body cut short of its length).
    json
      .stream()
      .pipeTo(writable)
      .catch(() => {})
    return readable
  }

  /** A plain answer's JSON: one deadline for the response and its body. */
  async function json<T>(send: (signal: AbortSignal) => Promise<Response>): Promise<T> {
    const signal = AbortSignal.timeout(timeoutMs)
    const response = await send(signal)
    try {
      return (await response.json()) as T
    } catch {
      if (signal.aborted) throw new UpstreamError('timeout', `the model did not finish within ${timeoutMs} ms`)
      throw new UpstreamError('malformed', 'the model answered with a body that is not JSON')
    }
  }

  /** A streamed answer: the deadline covers its start; the stream then has an idle timeout per chunk. */
  async function stream(
    send: (signal: AbortSignal) => Promise<Response>,
    collect: Omit<CollectOptions, 'idleMs' | 'source'>,
  ): Promise<ChatReply> {
    const controller = new AbortController()
    const timer = setTimeout(() => controller.abort(), timeoutMs)
    let response: Response
    try {
      response = await send(controller.signal)
    } finally {
      clearTimeout(timer)
    }
    if (!response.body) throw new UpstreamError('malformed', 'the model answered a stream with no body')
    return collectStream(response.body, { ...collect, idleMs: timeoutMs, source: 'the model' })
  }

  return { post, json, stream }
}
