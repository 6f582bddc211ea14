import { useState } from 'preact/hooks'
import type { Api } from './api'
import { ErrorNote } from './errors'
import { contentText } from './format'
import { prettyJson } from './json'
import { Markdown } from './markdown'
import type { ToolCall, TurnResponseJson } from './types'

interface Exchange {
  reply: string
  calls: ToolCall[]
  status: TurnResponseJson['status'] | 'streaming'
}

/**
 * Sends a turn, the reply streamed in as it comes; when the model asks for tools, the person types
 * each call's result (or an error) and the same turn goes on.
 */
export function TurnBox({ api, sessionId, onChanged }: { api: Api; sessionId: string; onChanged: () => void }) {
  const [content, setContent] = useState('')
  const [recall, setRecall] = useState(false)
  const [model, setModel] = useState('')
  const [tools, setTools] = useState('')
  const [exchange, setExchange] = useState<Exchange | null>(null)
  const [results, setResults] = useState<Record<string, { data: string; error: boolean }>>({})
  const [error, setError] = useState<unknown>(null)
  const busy = exchange?.status === 'streaming'

  /** What every request of the turn carries besides its content or results: the options chosen. */
  function options(): Record<string, unknown> {
    const chosen: Record<string, unknown> = {}
    if (recall) chosen.recall = true
    if (model.trim() !== '') chosen.model = model.trim()
    if (tools.trim() !== '') {
      try {
        chosen.tools = JSON.parse(tools)
      } catch {
        throw new Error('Tools: not valid JSON (an array of OpenAI function tools)')
      }
    }
    return chosen
  }

  async function send(body: Record<string, unknown>) {
    setError(null)
    let reply = ''
    const calls: ToolCall[] = []
    setExchange({ reply, calls, status: 'streaming' })
    try {
      const result = await api.turn(
        sessionId,
        { ...body, ...options() },
        {
          delta(text) {
            reply += text
            setExchange({ reply, calls: [...calls], status: 'streaming' })
          },
          toolCall(call) {
            calls.push(call)
            setExchange({ reply, calls: [...calls], status: 'streaming' })
          },
        },
      )
      setExchange({ reply: contentText(result.reply.message?.content ?? reply), calls: result.toolCalls, status: result.status })
      setResults(Object.fromEntries(result.toolCalls.map((call) => [call.id, { data: '', error: false }])))
      if ('content' in body) setContent('')
    } catch (failure) {
      setExchange(null)
      setError(failure)
    } finally {
      onChanged()
    }
  }

  const pending = exchange?.status === 'requires_action' ? exchange.calls : []
  return (
    <section class="turn" aria-labelledby="turn-title">
      <h3 id="turn-title">Send a turn</h3>
      {pending.length === 0 && (
        <form
          onSubmit={(event) => {
            event.preventDefault()
            if (content.trim() !== '') send({ content })
          }}
        >
          <label for="turn-content">Message</label>
          <textarea
            id="turn-content"
            rows={3}
            value={content}
            required
            onInput={(e) => setContent(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) e.currentTarget.form?.requestSubmit()
            }}
          />
          <label class="check">
            <input type="checkbox" checked={recall} onChange={(e) => setRecall(e.currentTarget.checked)} /> let the model recall
            covered history
          </label>
          <details class="options">
            <summary>Model and tools</summary>
            <label for="turn-model">Model (empty: the deployment's)</label>
            <input id="turn-model" value={model} onInput={(e) => setModel(e.currentTarget.value)} />
            <label for="turn-tools">Tools (JSON array of OpenAI function tools)</label>
            <textarea
              id="turn-tools"
              rows={3}
              spellcheck={false}
              value={tools}
              placeholder='[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}]'
              onInput={(e) => setTools(e.currentTarget.value)}
            />
          </details>
          <button type="submit" disabled={busy}>
            {busy ? 'Streaming…' : 'Send'}
          </button>
        </form>
      )}
      <ErrorNote error={error} />
      {exchange && (
        <div class="exchange">
          <div class="reply" aria-live="polite" aria-busy={busy ? 'true' : 'false'}>
            <Markdown text={exchange.reply} />
          </div>
          {exchange.calls.length > 0 && exchange.status === 'streaming' && (
            <ul class="calls">
              {exchange.calls.map((call) => (
                <li key={call.id}>
                  → <code>{call.name}</code> <code>{call.arguments}</code>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {pending.length > 0 && (
        <form
          class="tool-results"
          onSubmit={(event) => {
            event.preventDefault()
            send({
              toolResults: pending.map((call) => {
                const result = results[call.id]!
                return result.error ? { id: call.id, error: result.data } : { id: call.id, data: result.data }
              }),
            })
          }}
        >
          <p>The model asks for {pending.length === 1 ? 'a tool' : `${pending.length} tools`}: type each result.</p>
          {pending.map((call) => (
            <fieldset key={call.id}>
              <legend>
                <code class="tool-name">{call.name}</code> <span class="hint">call</span> <code class="call-id">{call.id}</code>
              </legend>
              <pre class="code tool-args">{prettyJson(call.arguments) ?? call.arguments}</pre>
              <label for={`result-${call.id}`}>Result</label>
              <textarea
                id={`result-${call.id}`}
                rows={2}
                value={results[call.id]?.data ?? ''}
                onInput={(e) => setResults({ ...results, [call.id]: { ...results[call.id]!, data: e.currentTarget.value } })}
              />
              <label class="check">
                <input
                  type="checkbox"
                  checked={results[call.id]?.error ?? false}
                  onChange={(e) =>
                    setResults({ ...results, [call.id]: { ...results[call.id]!, error: e.currentTarget.checked } })
                  }
                />{' '}
                it failed (send as an error)
              </label>
            </fieldset>
          ))}
          <button type="submit" disabled={busy}>
            Send results
          </button>
        </form>
      )}
    </section>
  )
}
