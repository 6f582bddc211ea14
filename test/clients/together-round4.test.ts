import { randomUUID } from 'node:crypto'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { serveWorker } from '../served/global-setup'
import { lineageOf } from '../support/log-checker'
import { claude, cliMissing, codexUser, folder, removeFolders, serveForCli, tokenOf } from './cli'
import { anthropicSent, upstreamSent } from './helpers'
import { blobOf, expectStoredOnce, PNG, PNG_BASE64 } from './media'
import { servedApi, text } from './together'

/**
 * Every client together, round four (issue 53 §4), on one served Worker set up as round three's
 * (together.test.ts), with an 8k window for the loop's model: Claude Code reading an image with
 * its Read tool and Codex's view_image (a compaction through the API covering each, the CLI then
 * resending it all), each CLI then finding that session again through the service's MCP server
 * (search_sessions), the Anthropic SDK with the memory tool, and the `openai` package's own agent
 * loop run past its window, so that clearing passes happen. Each session's whole log is replayed
 * by the log checker and held against what the client itself holds: its messages, or the CLI's
 * own transcript on disk (its tool calls and results, by id).
 */
const why = cliMissing
if (why) console.warn(`skipped: ${why}`)

/**
 * The agent loop's model: 10 steps of ~1,250-token results in an 8k window (its prompt budget
 * 7,168): five results fit, the sixth does not, and the newest three (the last-resort clearing
 * keeps them) fit again.
 */
const LOOP_STEPS = 10
/** Its tag made before the Worker is served, whose MODEL_CONTEXT_TOKENS names it. */
const LOOP_TAG = `tg4loop${Date.now().toString(36)}`
const LOOP_MODEL = `loop-${LOOP_STEPS}#${LOOP_TAG}`
const LOOP_WINDOW = 8192
/** The words of the files the loop reads: prose, which the service's tokenizer and the fake count alike. */
const WORDS = 'the river runs past a quiet town where people walk their dogs and talk about old stories'.split(' ')

let worker: Awaited<ReturnType<typeof serveWorker>>
/** Its API: each session checked against its log. */
let service: ReturnType<typeof servedApi>

beforeAll(async () => {
  if (why) return
  // No pass on its own (as round three's): the loop's clearing is the one a prompt that no longer fits makes.
  worker = await serveForCli({
    COMPACTION_POLICY: JSON.stringify({ trigger: { turnCount: 1000 }, strategy: { window: { lastTurns: 1 }, summarizer: {} } }),
    MODEL_CONTEXT_TOKENS: JSON.stringify({ [LOOP_MODEL]: LOOP_WINDOW }),
  })
  service = servedApi(worker.url)
}, 180_000)

afterAll(async () => {
  await worker?.stop()
  removeFolders()
})

/** Waits until the user's search across sessions finds `sessionId` for `q` (documented: within 2 s of its turn). */
async function searchable(token: string, q: string, sessionId: string) {
  const found = async () =>
    ((await service.api(token, `/search?q=${encodeURIComponent(q)}`)).hits as { sessionId: string }[]).some(
      (hit) => hit.sessionId === sessionId,
    )
  for (let polls = 0; !(await found()); polls++) {
    if (polls === 400) throw new Error(`${sessionId} never became searchable for "${q}"`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/** The log's messages in short, lineage order: a call by its id and tool's name, a result by its id. */
const callsOf = (events: any[]) =>
  lineageOf(events).flatMap((e) =>
    e.type !== 'MESSAGE'
      ? []
      : [
          ...(e.message.toolCalls ?? []).map((call: any) => `call ${call.id} ${call.name}`),
          ...(e.message.toolResponses ?? []).map((response: any) => `result ${response.id}`),
        ],
  )

/** A CLI's transcript on disk: the JSON lines of every file under `dir` named by `match`. */
const transcript = (dir: string, match: (name: string) => boolean): any[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter(match)
    .flatMap((name) =>
      readFileSync(join(dir, name), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    )

/** The image's one stored part, as a tool result holds it. */
const storedImage = async () => ({
  type: 'image',
  mediaType: 'image/png',
  blob: await blobOf(PNG),
  bytes: PNG.byteLength,
  width: 40,
  height: 30,
})

describe.skipIf(why)('every client together, round four, checked against the log', () => {
  it('Claude Code: Read an image (Anthropic upstream), a compaction over it, then that session found again with the MCP server’s search_sessions', async () => {
    const token = await tokenOf(`together4-claude-${Date.now().toString(36)}`)
    const [home, work] = [folder('together4-claude-home-'), folder('together4-claude-work-')]
    const tag = `tg4cc${Date.now().toString(36)}`
    const run = async (args: string[]) => {
      const result = await claude(args, { service: worker.url, token, home, cwd: work })
      expect(result.is_error, JSON.stringify(result)).toBe(false)
      return result.result
    }
    const file = join(work, 'shot.png')
    writeFileSync(file, PNG)
    const read = randomUUID()
    expect(
      await run([`Please READ:${file}`, '--session-id', read, '--model', `claude-reader#${tag}`, '--allowedTools', 'Read']),
    ).toBe('Read: [image]')
    expect(await run(['--resume', read, '--model', `claude-reader#${tag}`, 'The lighthouse keeper is Morag.'])).toMatch(
      /^Echo: .*The lighthouse keeper is Morag\./s,
    )
    // A compaction through the API keeps the newest turn: the image's leaves the view. Claude Code resends it all.
    await service.compact(token, read)
    expect(await run(['--resume', read, '--model', `claude-reader#${tag}`, 'And its colour?'])).toMatch(
      /^Echo: .*And its colour\?/s,
    )
    await searchable(token, 'lighthouse keeper', read)
    // A new session: the model calls the MCP tool, Claude Code calls the served Worker's /mcp.
    const found = randomUUID()
    const mcp = {
      mcpServers: {
        ds: { type: 'http', url: `${new URL('/mcp', worker.url)}`, headers: { Authorization: `Bearer ${token}` } },
      },
    }
    const answer = await run([
      'Who is the lighthouse keeper?',
      '--session-id',
      found,
      '--model',
      `mcpcall-search_sessions#${tag}`,
      '--mcp-config',
      JSON.stringify(mcp),
      '--allowedTools',
      'mcp__ds__search_sessions',
    ])
    expect(answer).toMatch(/^MCP result: /)
    expect(answer).toContain(read)

    // The image's session: replayed, nothing rewound (Claude Code's copy matched the log), the
    // image's result covered by the pass, still the stored image, its bytes stored once.
    const image = await service.replayed(token, read)
    expect(image.events.filter((e) => e.type === 'REWIND')).toEqual([])
    const results = image.events.filter((e) => e.type === 'MESSAGE' && e.message.role === 'tool')
    expect(results.map((e) => e.message.toolResponses)).toEqual([[{ id: 'read_1', name: 'Read', data: [await storedImage()] }]])
    expect(image.covered.has(results[0].id)).toBe(true)
    await expectStoredOnce(read, [PNG], { apiBase: new URL('/v1', worker.url).href, token })
    // The model was given it on both requests after the Read (once each), a base64 block in its
    // tool_result; after the compaction, the view: the summary in its place.
    const sent = (await anthropicSent(tag)).map((request) => request.body.messages)
    expect(sent).toHaveLength(4)
    expect(JSON.stringify(sent[0])).not.toContain(PNG_BASE64)
    for (const messages of sent.slice(1, 3)) expect(JSON.stringify(messages).split(PNG_BASE64)).toHaveLength(2)
    expect(JSON.stringify(sent[3])).not.toContain(PNG_BASE64)
    // The search's session: the call, its result (naming the image's session) and the answer.
    const search = await service.replayed(token, found)
    const call = search.events.find((e) => e.message?.toolCalls)
    expect(call.message.toolCalls).toEqual([
      { id: 'mcp_1', name: 'mcp__ds__search_sessions', arguments: JSON.stringify({ query: 'Who is the lighthouse keeper?' }) },
    ])
    const result = search.events.find((e) => e.message?.role === 'tool')
    expect(JSON.stringify(result.message.toolResponses[0].data)).toContain(read)
    // Each log holds the tool calls and results Claude Code's own transcript holds, by id, in order.
    const projects = join(home, '.claude', 'projects')
    for (const [id, events] of [
      [read, image.events],
      [found, search.events],
    ] as const) {
      const own = transcript(projects, (name) => name.endsWith(`${id}.jsonl`)).flatMap((line) =>
        Array.isArray(line.message?.content)
          ? line.message.content.flatMap((block: any) =>
              block.type === 'tool_use'
                ? [`call ${block.id} ${block.name}`]
                : block.type === 'tool_result'
                  ? [`result ${block.tool_use_id}`]
                  : [],
            )
          : [],
      )
      expect(own.length).toBeGreaterThan(0)
      expect(callsOf(events)).toEqual(own)
    }
  })

  it('Codex: view_image, a compaction over it, then that session found again with the MCP server’s search_sessions', async () => {
    const codex = await codexUser(worker.url, { mcp: true })
    const tag = `tg4cx${Date.now().toString(36)}`
    const file = join(codex.work, 'shot.png')
    writeFileSync(file, PNG)
    expect(await codex.exec(['-m', `viewer#${tag}`, `Please VIEW:${file}`])).toMatch(/Viewed: \[image\]/)
    expect(await codex.exec(['resume', '--last', '-m', `viewer#${tag}`, 'The ferry captain is Iona.'])).toMatch(
      /Echo: The ferry captain is Iona\./,
    )
    const [viewed] = (await codex.api('/sessions')).sessions.map((session: any) => session.id)
    // A compaction through the API keeps the newest turn: the image's leaves the view. Codex resends it all.
    await service.compact(codex.token, viewed)
    expect(await codex.exec(['resume', '--last', '-m', `viewer#${tag}`, 'And its colour?'])).toMatch(/Echo: And its colour\?/)
    await searchable(codex.token, 'ferry captain', viewed)
    // A new session (not a resume): the model calls search_sessions in the mcp__ds namespace.
    const answer = await codex.exec(['-m', `mcpcall-search_sessions#${tag}`, 'Who is the ferry captain?'])
    expect(answer).toMatch(/MCP result: /)
    expect(answer).toContain(viewed)
    const found = (await codex.api('/sessions')).sessions.map((session: any) => session.id).find((id: string) => id !== viewed)
    expect(found).toBeDefined()

    // The image's session: replayed, nothing rewound, the image's result covered by the pass,
    // still the stored image (with the detail Codex asks for), its bytes stored once.
    const image = await service.replayed(codex.token, viewed)
    expect(image.events.filter((e) => e.type === 'REWIND')).toEqual([])
    const results = image.events.filter((e) => e.type === 'MESSAGE' && e.message.role === 'tool')
    expect(results.map((e) => e.message.toolResponses)).toEqual([
      [{ id: 'view_1', name: 'view_image', data: [{ ...(await storedImage()), detail: 'high' }] }],
    ])
    expect(image.covered.has(results[0].id)).toBe(true)
    await expectStoredOnce(viewed, [PNG], { apiBase: new URL('/v1', worker.url).href, token: codex.token })
    // The model was given it on both requests after the call, once each; after the compaction, not.
    const sent = (await upstreamSent(tag)).filter((request: any) => request.model.startsWith('viewer'))
    expect(sent).toHaveLength(4)
    expect(JSON.stringify(sent[0]!.body.messages)).not.toContain(PNG_BASE64)
    for (const { body } of sent.slice(1, 3)) expect(JSON.stringify(body.messages).split(PNG_BASE64)).toHaveLength(2)
    expect(JSON.stringify(sent[3]!.body.messages)).not.toContain(PNG_BASE64)
    // The search's session: the call and a result naming the image's session.
    const search = await service.replayed(codex.token, found)
    const call = search.events.find((e) => e.message?.toolCalls)
    expect(call.message.toolCalls).toMatchObject([
      { id: 'mcp_1', name: 'mcp__ds__search_sessions', arguments: JSON.stringify({ query: 'Who is the ferry captain?' }) },
    ])
    const result = search.events.find((e) => e.message?.role === 'tool')
    expect(JSON.stringify(result.message.toolResponses[0].data)).toContain(viewed)
    // Both logs hold the calls and outputs Codex's own rollouts hold, by call id, in order.
    // Each log holds the calls and outputs Codex's own rollout of that session holds, by call id, in order.
    for (const [id, events] of [
      [viewed, image.events],
      [found, search.events],
    ] as const) {
      const own = transcript(join(codex.home, '.codex', 'sessions'), (name) => name.endsWith(`${id}.jsonl`)).flatMap((line) =>
        line.type !== 'response_item'
          ? []
          : line.payload.type === 'function_call'
            ? // An MCP tool in its namespace: offered upstream, and stored, by its flat name.
              [`call ${line.payload.call_id} ${[line.payload.namespace, line.payload.name].filter(Boolean).join('__')}`]
            : line.payload.type === 'function_call_output'
              ? [`result ${line.payload.call_id}`]
              : [],
      )
      expect(own.length).toBeGreaterThan(0)
      expect(callsOf(events)).toEqual(own)
    }
  })

  it('the Anthropic SDK with the memory tool: the service runs it, an edit goes back over it, the lineage is the client’s history', async () => {
    const token = await tokenOf(`together4-memory-${Date.now().toString(36)}`)
    const id = randomUUID()
    const tag = `tg4mem${Date.now().toString(36)}`
    const client = new Anthropic({
      baseURL: worker.url.toString().replace(/\/$/, ''),
      apiKey: token,
      defaultHeaders: { 'X-Session-Id': id },
      maxRetries: 0,
    })
    const messages: Anthropic.Beta.BetaMessageParam[] = []
    const ask = async (rounds: unknown[]) => {
      messages.push({ role: 'user', content: `MEMORY:${JSON.stringify(rounds)}` })
      const reply = await client.beta.messages.create({
        model: `memory#${tag}`,
        max_tokens: 1024,
        betas: ['context-management-2025-06-27'],
        tools: [{ type: 'memory_20250818', name: 'memory' }],
        messages,
      })
      // The service ran the calls: the client is given the answer alone.
      expect(reply.stop_reason).toBe('end_turn')
      expect(reply.content.map((block) => block.type)).toEqual(['text'])
      messages.push({ role: 'assistant', content: reply.content as Anthropic.Beta.BetaContentBlockParam[] })
      return text(reply.content)
    }
    expect(
      await ask([
        [{ command: 'view', path: '/memories' }],
        [{ command: 'create', path: '/memories/trip.md', file_text: 'Rome in May.\n' }],
      ]),
    ).toContain('File created successfully at: /memories/trip.md')
    expect(await ask([[{ command: 'str_replace', path: '/memories/trip.md', old_str: 'May', new_str: 'June' }]])).toContain(
      'The memory file has been edited',
    )
    expect(await ask([[{ command: 'view', path: '/memories' }]])).toContain('/memories/trip.md')
    // The edit: the last question changed, its answer dropped, sent again (its calls ran server-side).
    messages.splice(-2, 2)
    expect(await ask([[{ command: 'view', path: '/memories/trip.md' }]])).toContain('1\tRome in June.')
    // The store holds what the calls wrote.
    expect(await service.api(token, '/memories/trip.md')).toMatchObject({ content: 'Rome in June.\n', version: 2 })

    const { events } = await service.replayed(token, id)
    // The client's history resent each turn matched the log, but for the edit: one rewind.
    expect(events.filter((e) => e.type === 'REWIND').map((e) => e.rewind.reason)).toEqual(['divergence'])
    const { branches } = await service.api(token, `/sessions/${id}/branches`)
    expect(branches.map((b: any) => b.headline)).toEqual([expect.stringContaining('"path":"/memories"}')])
    const lineage = lineageOf(events).filter((e) => e.type === 'MESSAGE' && e.message.role !== 'system')
    // What the client holds is the log's questions and answers; between them, the calls the service ran.
    expect(
      lineage
        .filter((e) => !e.message.toolCalls && e.message.role !== 'tool')
        .map((e) => `${e.message.role}:${text(e.message.content)}`),
    ).toEqual(messages.map((m) => `${m.role}:${text(m.content)}`))
    // Each answer reports its turn's results, as the log holds them, all the memory tool's.
    const turns: string[][] = []
    for (const e of lineage) {
      if (e.message.role === 'user') turns.push([])
      for (const response of e.message.toolResponses ?? []) {
        expect(response.name).toBe('memory')
        turns.at(-1)!.push(response.data)
      }
    }
    expect(turns.map((results) => results.length)).toEqual([2, 1, 1])
    expect(messages.filter((m) => m.role === 'assistant').map((m) => text(m.content))).toEqual(
      turns.map((results) => `Memory results: ${results.join('\n---\n')}`),
    )
  })

  it('the openai package’s own agent loop past its 8k window: clearing passes, every result kept whole in the log', async () => {
    const token = await tokenOf(`together4-loop-${Date.now().toString(36)}`)
    const id = randomUUID()
    const openai = new OpenAI({
      baseURL: new URL('/v1', worker.url).href,
      apiKey: token,
      defaultHeaders: { 'X-Session-Id': id },
      maxRetries: 0,
    })
    /** A file's contents: 5,000 characters of prose, ~1,250 tokens as the fake counts them (a token per 4 characters). */
    const contents = (step: number) =>
      Array.from({ length: 1200 }, (_, i) => WORDS[(step * 7 + i * 3) % WORDS.length])
        .join(' ')
        .slice(0, 5000)
    const tools: OpenAI.ChatCompletionTool[] = [
      {
        type: 'function',
        function: { name: 'read_file', description: 'Reads the next file', parameters: { type: 'object', properties: {} } },
      },
    ]
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Read every file and report.' }]
    for (let step = 1; ; step++) {
      const reply = (await openai.chat.completions.create({ model: LOOP_MODEL, messages, tools })).choices[0]!
      messages.push(reply.message as ChatCompletionMessageParam)
      if (reply.finish_reason !== 'tool_calls') break
      expect(step).toBeLessThanOrEqual(LOOP_STEPS)
      for (const call of reply.message.tool_calls!)
        messages.push({ role: 'tool', tool_call_id: call.id, content: contents(step) })
    }
    expect(messages.at(-1)!.content).toBe(`Done after ${LOOP_STEPS} steps`)

    const { events, served } = await service.replayed(token, id)
    // Clearings happened: passes that covered nothing, each clearing the oldest results, never the newest three.
    const clearings = events.filter((e) => e.type === 'COMPACTION' && e.boundary.cleared?.length > 0)
    expect(clearings.length).toBeGreaterThan(0)
    for (const { boundary } of clearings) expect(boundary.coveredEventCount).toBe(0)
    const cleared = clearings.at(-1).boundary.cleared.flatMap((entry: any) => entry.callIds)
    expect(cleared).toEqual(cleared.map((_: string, i: number) => `step_${i + 1}`))
    expect(cleared.length).toBeLessThanOrEqual(LOOP_STEPS - 3)
    expect(served.at(-1).message.content).toBe(`Done after ${LOOP_STEPS} steps`)
    // The log holds the client's whole history, every result whole, in order.
    const lineage = lineageOf(events).filter((e) => e.type === 'MESSAGE')
    expect(
      lineage.map(({ message: m }) =>
        m.toolCalls
          ? `calls ${m.toolCalls.map((call: any) => call.id).join(',')}`
          : m.toolResponses
            ? m.toolResponses.map((r: any) => `${r.id}=${r.data}`).join(',')
            : `${m.role}:${m.content}`,
      ),
    ).toEqual(
      messages.map((m: any) =>
        m.tool_calls
          ? `calls ${m.tool_calls.map((call: any) => call.id).join(',')}`
          : m.role === 'tool'
            ? `${m.tool_call_id}=${m.content}`
            : `${m.role}:${m.content}`,
      ),
    )
    // What the model was sent: each prompt within the window, the oldest result cleared by the end.
    const sent = await upstreamSent(LOOP_TAG)
    expect(sent).toHaveLength(LOOP_STEPS + 1)
    for (const request of sent as any[]) expect(request.usage.prompt_tokens).toBeLessThanOrEqual(LOOP_WINDOW - 1024)
    // The last one: what the last clearing cleared shown as its notice, every other result whole.
    const last = sent.at(-1)!.body.messages as any[]
    for (let step = 1; step <= LOOP_STEPS; step++) {
      const shown = last.find((m) => m.tool_call_id === `step_${step}`).content
      if (step <= cleared.length) expect(shown).toMatch(new RegExp(`^\\[tool result cleared: call step_${step} \\(read_file\\)`))
      else expect(shown).toBe(contents(step))
    }
  })
})
