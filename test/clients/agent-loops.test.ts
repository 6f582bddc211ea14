import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import Anthropic from '@anthropic-ai/sdk'
import { betaTool } from '@anthropic-ai/sdk/helpers/beta/json-schema'
import { Agent, tool as agentTool, OpenAIResponsesModel, run, setTracingDisabled } from '@openai/agents'
import { generateText, isStepCount, jsonSchema, tool } from 'ai'
import OpenAI from 'openai'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import { z } from 'zod'
import { expectNothingLost } from '../support/log-checker'
import { newSessionId } from './helpers'

/**
 * Agent loops longer than the window, run by the real clients' own tool loops (round4.md §2): one
 * question, then 300 tool calls each answered with an ~8 KB result, in a 32,768-token window
 * (MODEL_CONTEXT_TOKENS of the served Worker, test/served/global-setup.ts). The fake model
 * (`loop-300`) calls the request's first tool with id `step_<k>`, one past the step whose result
 * ends the prompt, then answers `Done after 300 steps`. What the model was sent is read from the
 * fake's record; what the session holds from the service's log.
 */

const STEPS = 300
const WINDOW = 32_768
/** The reply's share of the window: CHAT_MAX_TOKENS's default, and the max_tokens the Messages client sends. */
const REPLY = 1024
const QUESTION = 'Read every file and report.'
/** The loops run 300 steps, each resending up to the whole history: minutes on a loaded 2-core machine. */
const LOOP_TIMEOUT = 900_000

/** A tool result of 8 KB (8,192 characters): words, as a file’s contents would be (the same as test/api/agent-loops.test.ts’s). */
const result = (step: number) =>
  Array.from({ length: 1700 }, (_, i) => `w${(step * 7 + i) % 997}`)
    .join(' ')
    .slice(0, 8192)

/** The step a tool call's arguments name (the fake sends `{"step": k}`). */
const stepOf = (input: unknown) => {
  const step = (input as { step?: unknown }).step
  if (typeof step !== 'number') throw new Error(`a call without its step: ${JSON.stringify(input)}`)
  return step
}

interface Sent {
  model: string
  body: {
    messages: { role: string; content: unknown; tool_calls?: { id: string }[]; tool_call_id?: string }[]
    max_tokens?: number
  }
  usage: { prompt_tokens: number } | null
}

/** What the fake upstream was sent for a tag, in order, with the usage it answered. */
const sentFor = async (tag: string): Promise<Sent[]> =>
  (await fetch(`${inject('upstreamUrl')}/__requests?tag=${encodeURIComponent(tag)}`)).json() as never

/** The session's whole log (every event kind), page by page, through the service's API. */
async function wholeLog(sessionId: string): Promise<any[]> {
  const events: unknown[] = []
  for (let after = 0; ; ) {
    const response = await fetch(`${inject('apiBase')}/sessions/${sessionId}/events?after=${after}&limit=1000`, {
      headers: { Authorization: `Bearer ${inject('apiKey')}` },
    })
    expect(response.status, `the log of ${sessionId}`).toBe(200)
    const page = (await response.json()) as { events: unknown[]; nextAfter: number | null }
    events.push(...page.events)
    if (page.nextAfter === null) return events
    after = page.nextAfter
  }
}

/**
 * What the model was sent: each step asked once and in order (a request retried asks its step
 * again), every prompt within the window as the fake counts it, every call on the wire followed by
 * its result and no result without its call.
 */
async function expectPromptsWithin(tag: string) {
  const sent = await sentFor(tag)
  const asked = sent.map((request) => {
    const last = request.body.messages.at(-1)!
    return last.role === 'tool' ? last.tool_call_id : 'question'
  })
  expect(asked.filter((step, i) => step !== asked[i - 1])).toEqual([
    'question',
    ...Array.from({ length: STEPS }, (_, i) => `step_${i + 1}`),
  ])
  for (const [i, request] of sent.entries()) {
    expect(request.usage, `request ${i}: the fake reports its usage`).not.toBeNull()
    expect(request.usage!.prompt_tokens, `request ${i}: the prompt within the window`).toBeLessThanOrEqual(WINDOW - REPLY)
    const open = new Set<string>()
    for (const message of request.body.messages) {
      for (const call of message.tool_calls ?? []) open.add(call.id)
      if (message.role === 'tool') {
        expect(open.has(message.tool_call_id!), `request ${i}: a result for ${message.tool_call_id} without its call`).toBe(true)
        open.delete(message.tool_call_id!)
      } else if (message.role !== 'assistant' || !message.tool_calls) {
        expect([...open], `request ${i}: calls left without their results`).toEqual([])
      }
    }
    expect([...open], `request ${i}: calls left without their results`).toEqual([])
  }
  // The loop filled the window (far past the 8,192 tokens a model without its entry gets), and no more.
  expect(Math.max(...sent.map((request) => request.usage!.prompt_tokens))).toBeGreaterThan(WINDOW / 2)
  // The newest result goes whole; the oldest, long cleared, is the notice that says how to get it back.
  const last = sent.at(-1)!.body.messages
  expect(last.find((message) => message.tool_call_id === `step_${STEPS}`)?.content).toBe(result(STEPS))
  expect(last.find((message) => message.tool_call_id === 'step_1')?.content ?? '').toMatch(/^\[tool result cleared: call step_1 /)
  return sent
}

/** A fetch that passes each request on and keeps what `summary` makes of its JSON body (the bodies reach megabytes). */
function recordingFetch<T>(summary: (body: any) => T): { fetch: typeof fetch; seen: T[] } {
  const seen: T[] = []
  return {
    seen,
    fetch: (input, init) => {
      if (typeof init?.body === 'string') seen.push(summary(JSON.parse(init.body)))
      return fetch(input, init)
    },
  }
}

/** The log: every result stored whole, once, and the spec's invariant over the whole of it. */
function expectLogWhole(log: any[]) {
  expectNothingLost(log)
  const results = log.filter((event) => event.type === 'MESSAGE' && event.message.role === 'tool')
  expect(results.map((event) => event.message.toolResponses[0].id)).toEqual(
    Array.from({ length: STEPS }, (_, i) => `step_${i + 1}`),
  )
  for (const [i, event] of results.entries()) expect(event.message.toolResponses[0].data).toContain(result(i + 1))
  const clearings = log.filter((event) => event.type === 'COMPACTION' && event.boundary.cleared?.length > 0)
  expect(clearings.length, 'old results were cleared').toBeGreaterThan(0)
}

describe('a 300-call agent loop of 8 KB results in a 32k window, run by each client', () => {
  beforeAll(() => setTracingDisabled(true))

  it(
    'the AI SDK’s tool loop (generateText, stopWhen) through the chat-completions door: the whole history resent each step',
    async () => {
      const id = newSessionId('loop')
      const tag = 'ai-sdk'
      // What the SDK sent: each request's tool results.
      const client = recordingFetch((body) => body.messages.filter((message: any) => message.role === 'tool').length)
      const provider = createOpenAICompatible({
        name: 'durable-sessions',
        baseURL: inject('apiBase'),
        apiKey: inject('apiKey'),
        headers: { 'X-Session-Id': id },
        fetch: client.fetch,
      })
      const executed: number[] = []
      const answered = await generateText({
        model: provider(`loop-${STEPS}#${tag}`),
        tools: {
          read_file: tool({
            description: 'Reads the next file',
            inputSchema: jsonSchema<{ step: number }>({ type: 'object', properties: { step: { type: 'number' } } }),
            execute: async (input) => {
              executed.push(stepOf(input))
              return result(stepOf(input))
            },
          }),
        },
        stopWhen: isStepCount(STEPS + 1),
        prompt: QUESTION,
        maxRetries: 0,
      })
      expect(answered.text).toBe(`Done after ${STEPS} steps`)
      expect(answered.steps).toHaveLength(STEPS + 1)
      expect(executed).toEqual(Array.from({ length: STEPS }, (_, i) => i + 1))
      // The SDK resent the whole history each step: its last request held all 300 results.
      expect(client.seen).toEqual(Array.from({ length: STEPS + 1 }, (_, i) => i))
      await expectPromptsWithin(tag)
      expectLogWhole(await wholeLog(id))
    },
    LOOP_TIMEOUT,
  )

  it(
    'the Anthropic SDK’s tool runner (beta toolRunner) through the Messages door: the whole history resent each step',
    async () => {
      const id = newSessionId('loop')
      const tag = 'anthropic-sdk'
      // What the SDK sent: each request's tool results.
      const recorded = recordingFetch(
        (body) =>
          body.messages
            .flatMap((message: any) => (Array.isArray(message.content) ? message.content : []))
            .filter((block: any) => block.type === 'tool_result').length,
      )
      const client = new Anthropic({
        baseURL: inject('apiBase').replace(/\/v1$/, ''),
        apiKey: inject('apiKey'),
        defaultHeaders: { 'X-Session-Id': id },
        maxRetries: 0,
        fetch: recorded.fetch,
      })
      const executed: number[] = []
      const runner = client.beta.messages.toolRunner({
        model: `loop-${STEPS}#${tag}`,
        max_tokens: REPLY,
        messages: [{ role: 'user', content: QUESTION }],
        tools: [
          betaTool({
            name: 'read_file',
            description: 'Reads the next file',
            inputSchema: { type: 'object', properties: { step: { type: 'number' } } },
            run: (input) => {
              executed.push(stepOf(input))
              return result(stepOf(input))
            },
          }),
        ],
        max_iterations: STEPS + 1,
        // The service holds no Anthropic message threads: the runner sends the whole history each turn.
        thread: false,
      })
      let replies = 0
      for await (const reply of runner) {
        replies++
        expect(reply.type).toBe('message')
      }
      const final = await runner.done()
      expect(final.content).toEqual([{ type: 'text', text: `Done after ${STEPS} steps` }])
      expect(final.stop_reason).toBe('end_turn')
      expect(replies).toBe(STEPS + 1)
      expect(executed).toEqual(Array.from({ length: STEPS }, (_, i) => i + 1))
      expect(recorded.seen).toEqual(Array.from({ length: STEPS + 1 }, (_, i) => i))
      const sent = await expectPromptsWithin(tag)
      expect(sent.every((request) => request.body.max_tokens === REPLY)).toBe(true)
      expectLogWhole(await wholeLog(id))
    },
    LOOP_TIMEOUT,
  )

  it(
    'the Agents SDK’s run (a function tool, maxTurns) through the Responses door: only what is new sent each step, in a conversation',
    async () => {
      const tag = 'agents-sdk'
      // What the SDK sent: each request's conversation and its input items' types.
      const recorded = recordingFetch((body) => ({
        conversation: typeof body.conversation === 'object' ? body.conversation?.id : body.conversation,
        input:
          body.input === undefined
            ? undefined
            : typeof body.input === 'string'
              ? ['text']
              : body.input.map((item: any) => item.type ?? item.role),
      }))
      const openai = new OpenAI({ baseURL: inject('apiBase'), apiKey: inject('apiKey'), maxRetries: 0, fetch: recorded.fetch })
      const conversation = await openai.conversations.create({})
      const executed: number[] = []
      const readFile = agentTool({
        name: 'read_file',
        description: 'Reads the next file',
        parameters: z.object({ step: z.number() }),
        execute: async ({ step }) => {
          executed.push(step)
          return result(step)
        },
      })
      const agent = new Agent({
        name: 'Reader',
        model: new OpenAIResponsesModel(openai, `loop-${STEPS}#${tag}`),
        tools: [readFile],
      })
      const answered = await run(agent, QUESTION, { conversationId: conversation.id, maxTurns: STEPS + 1 })
      expect(answered.finalOutput).toBe(`Done after ${STEPS} steps`)
      expect(executed).toEqual(Array.from({ length: STEPS }, (_, i) => i + 1))
      // The first request the question, each later one only the newest result, in the conversation.
      const requests = recorded.seen.filter((request) => request.input !== undefined)
      expect(requests).toHaveLength(STEPS + 1)
      expect(requests[0]!.input).toHaveLength(1)
      for (const request of requests.slice(1)) expect(request.input).toEqual(['function_call_output'])
      for (const request of requests) expect(request.conversation).toBe(conversation.id)
      await expectPromptsWithin(tag)
      expectLogWhole(await wholeLog(conversation.id))
    },
    LOOP_TIMEOUT,
  )
})
