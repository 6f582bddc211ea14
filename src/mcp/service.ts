import { type Outcome, ServiceError, unwrap } from '../contract/errors'
import type { RecallHit } from '../core'
import { memoryStub, sessionStub } from '../object/address'
import type { TranscriptPage, TranscriptQuery } from '../reads/transcript'

/** A request's way into the HTTP API, inside the Worker: the same app, no network. */
export type ApiFetch = (request: Request) => Promise<Response>

/** An MCP tool's failure: the service's own error message, answered as an `isError` result. */
export class ToolFailure extends Error {
  override readonly name = 'ToolFailure'
}

/**
 * What the MCP tools call, for one MCP request: the HTTP API's routes as the caller (its token
 * sent on, and the request vouched for by the app so it is not verified twice), so a tool is
 * validated, limited, isolated and counted exactly as the request it wraps;
 * and the objects for what no route reads (a transcript page, recall by id, a memory command).
 */
export class McpService {
  constructor(
    private readonly api: ApiFetch,
    private readonly origin: string,
    private readonly credentials: Headers,
    private readonly env: Env,
    readonly userId: string,
  ) {}

  /** A route's JSON answer, or {@link ToolFailure} with its error's message. */
  async json<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const response = await this.request(method, path, body)
    return (await response.json()) as T
  }

  /** A route's text answer (an export), or {@link ToolFailure}. */
  async text(path: string): Promise<string> {
    return (await this.request('GET', path)).text()
  }

  private async request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Response> {
    const headers = new Headers(this.credentials)
    if (body !== undefined) headers.set('Content-Type', 'application/json')
    const init: RequestInit = { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }
    const response = await this.api(new Request(`${this.origin}${path}`, init))
    if (response.ok) return response
    const text = await response.text()
    let message = text
    try {
      message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? text
    } catch {
      // Not JSON: the text is the message.
    }
    throw new ToolFailure(`${response.status}: ${message}`)
  }

  /** A page of a session's lineage (see `SessionObject.readTranscript`). */
  async transcript(sessionId: string, query: TranscriptQuery): Promise<TranscriptPage> {
    return this.unwrapped(sessionStub(this.env, this.userId, sessionId).readTranscript(query))
  }

  /** A message, or a tool call's result, by id (see `SessionObject.recallById`). */
  async recallById(sessionId: string, id: string): Promise<RecallHit | null> {
    return this.unwrapped(sessionStub(this.env, this.userId, sessionId).recallById(id))
  }

  /** One memory command, answered as the memory tool answers it in a turn. */
  async memory(args: unknown): Promise<{ text: string; error: boolean }> {
    return this.unwrapped(memoryStub(this.env, this.userId).command(JSON.stringify(args)))
  }

  private async unwrapped<T>(outcome: Promise<Outcome<T>>): Promise<T> {
    try {
      return unwrap(await outcome)
    } catch (error) {
      if (error instanceof ServiceError) throw new ToolFailure(`${error.status}: ${error.message}`)
      throw error
    }
  }
}
