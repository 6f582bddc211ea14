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

/** Redirects a streamed request follows (fetch's own limit is 20; a model endpoint needs one or two). */
const MAX_REDIRECTS = 5

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
    const json = requestJson(body)
    let response: Response
    try {
      response = await sent(json, headers, signal)
    } catch (error) {
      if (signal.aborted) throw new UpstreamError('timeout', `the model did not answer within ${timeoutMs} ms`)
      throw new UpstreamError('transport', `could not reach the model: ${redact((error as Error).message)}`)
    }
    if (!response.ok) throw options.refused(response, redact(await response.text().catch(() => '')))
    return response
  }

  /**
   * The POST of a request's JSON: its text, or its stream with its length (a Content-Length, as a
   * text's). A stream is sent once, so a redirect that keeps the method (307, 308: a gateway's, a
   * moved endpoint's) is followed here with a new one, as fetch follows it for a text.
   */
  async function sent(json: string | StreamedJson, headers: Record<string, string>, signal: AbortSignal) {
    const init = { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, signal }
    if (typeof json === 'string') return doFetch(options.url, { ...init, body: json })
    let url = options.url
    for (let hops = 0; ; hops++) {
      const piped: { error?: unknown } = {}
      const response = await doFetch(url, { ...init, body: streamOf(json, piped), redirect: 'manual' }).catch((error: Error) => {
        // The fetch says only that the connection went; what broke the body is told with it.
        throw piped.error === undefined ? error : new Error(`${error.message} (its body: ${String(piped.error)})`)
      })
      const location = response.headers.get('Location')
      if ((response.status !== 307 && response.status !== 308) || location === null || hops === MAX_REDIRECTS) return response
      await response.body?.cancel()
      url = new URL(location, url).href
    }
  }

  /** The body a streamed request's fetch reads; what stopped its pipe, if anything, kept in `piped`. */
  function streamOf(json: StreamedJson, piped: { error?: unknown }): ReadableStream<Uint8Array> {
    const { readable, writable } = new FixedLengthStream(json.bytes)
    json
      .stream()
      .pipeTo(writable)
      .catch((error: unknown) => {
        piped.error = error
      })
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
