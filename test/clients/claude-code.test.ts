import { randomUUID } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import type { serveWorker } from '../served/global-setup'
import { cliMissing, folder, removeFolders, claude as runClaude, serveForCli, tokenOf } from './cli'
import { anthropicSent } from './helpers'
import { blobOf, expectStoredOnce, PNG, PNG_BASE64, PNG_DATA_URL } from './media'

/**
 * Claude Code itself (`claude -p`, from the test-only package in test/cli, which .ci/run
 * installs) pointed at the served Worker: `ANTHROPIC_BASE_URL`, the token as `ANTHROPIC_API_KEY`,
 * a temporary HOME. Its prompt is ~12k tokens, so it gets a Worker of its own whose model window
 * is 200k (the fake upstream is the same).
 */
const why = cliMissing
if (why) console.warn(`skipped: ${why}`)

let worker: Awaited<ReturnType<typeof serveWorker>>
let token: string
const home = folder('claude-home-')
const work = folder('claude-work-')

beforeAll(async () => {
  if (why) return
  worker = await serveForCli()
  token = await tokenOf('claude-user')
}, 180_000)

afterAll(async () => {
  await worker?.stop()
  removeFolders()
})

/** Runs `claude -p` with these arguments as Claude Code's user; answers its JSON result. */
const claude = (args: string[]) => runClaude(args, { service: worker.url, token, home, cwd: work })

/** The session's log through the API, as Claude Code's user. */
async function logOf(sessionId: string): Promise<any[]> {
  const response = await fetch(new URL(`/v1/sessions/${sessionId}/events?limit=1000`, worker.url), {
    headers: { Authorization: `Bearer ${token}` },
  })
  if (!response.ok) throw new Error(`log of ${sessionId}: ${response.status} ${await response.text()}`)
  return ((await response.json()) as { events: any[] }).events.filter((event) => event.type === 'MESSAGE')
}

/** What the fake upstream was sent for a tag. */
const upstreamSent = async (tag: string): Promise<{ body: { messages: { role: string; content: string | null }[] } }[]> =>
  (await fetch(`${inject('upstreamUrl')}/__requests?tag=${encodeURIComponent(tag)}`)).json() as never

const roles = (log: any[]) => log.map((event) => (event.metadata.inline ? 'system(inline)' : event.message.role))

describe.skipIf(why)('Claude Code (claude -p) against the Messages door', () => {
  const sessionId = randomUUID()
  const tag = `cc${Date.now().toString(36)}`

  it('a plain turn: stored as its system prompt, the question, its environment (inline) and the reply', async () => {
    const run = await claude(['--session-id', sessionId, '--model', `echo#${tag}`, 'What is durable-sessions?'])
    expect(run.is_error, JSON.stringify(run)).toBe(false)
    expect(run.result).toMatch(/^Echo: /)
    const log = await logOf(sessionId)
    expect(roles(log)).toEqual(['system', 'user', 'system(inline)', 'assistant'])
    expect(log[0].message.content).toMatch(/Claude/)
    expect(log[0].message.content).not.toMatch(/^x-anthropic-billing-header/)
    expect(log[1].message.content).toMatch(/What is durable-sessions\?/)
    // The model was sent the inline message where it was, after the question.
    const [sent] = await upstreamSent(tag)
    expect(sent!.body.messages.map((m) => m.role)).toEqual(['system', 'user', 'system'])
  })

  it('--resume resends the whole history: only the new question and its reply are stored', async () => {
    const run = await claude(['--resume', sessionId, '--model', `echo#${tag}`, 'And what does it store?'])
    expect(run.is_error, JSON.stringify(run)).toBe(false)
    expect(run.result).toMatch(/And what does it store\?/)
    const log = await logOf(sessionId)
    expect(roles(log).slice(0, 4)).toEqual(['system', 'user', 'system(inline)', 'assistant'])
    expect(
      roles(log)
        .slice(4)
        .filter((role) => role !== 'system(inline)'),
    ).toEqual(['user', 'assistant'])
    expect(log.filter((event) => /What is durable-sessions\?/.test(event.message.content ?? ''))).toHaveLength(1)
    const sent = await upstreamSent(tag)
    expect(sent.at(-1)!.body.messages.filter((m) => m.role === 'assistant')).toHaveLength(1)
  })

  it('a turn where the model calls Read and Claude Code runs it: the call, its result and the answer stored in order', async () => {
    const readTag = `ccr${Date.now().toString(36)}`
    const file = join(work, 'note.txt')
    writeFileSync(file, 'the secret word is marmalade\n')
    const id = randomUUID()
    // The prompt first: --allowedTools takes every argument after it that is not a flag.
    const run = await claude([
      `Please READ:${file}`,
      '--session-id',
      id,
      '--model',
      `reader#${readTag}`,
      '--allowedTools',
      'Read',
    ])
    expect(run.is_error, JSON.stringify(run)).toBe(false)
    expect(run.result).toMatch(/^Read: .*marmalade/s)
    const log = await logOf(id)
    const call = log.find((event) => event.message.toolCalls)
    expect(call.message.toolCalls).toEqual([{ id: 'read_1', name: 'Read', arguments: JSON.stringify({ file_path: file }) }])
    const result = log.find((event) => event.message.role === 'tool')
    expect(result.message.toolResponses[0]).toMatchObject({ id: 'read_1', name: 'Read' })
    expect(result.message.toolResponses[0].data).toMatch(/marmalade/)
    expect(log.at(-1).message.content).toMatch(/^Read: .*marmalade/s)
    expect(log.indexOf(call)).toBeLessThan(log.indexOf(result))
    // The second request resent the history: the model got the call and its result once each.
    const sent = await upstreamSent(readTag)
    expect(sent).toHaveLength(2)
    expect(sent[1]!.body.messages.filter((m) => m.role === 'tool')).toHaveLength(1)
  })
})

/**
 * Each upstream Claude Code's Read of an image can reach, with the model that scripts the Read
 * there, the requests it was sent, and how the image of the call `read_1` reads in one of them: as
 * that upstream takes an image a tool returned.
 */
const upstreams = [
  {
    upstream: 'an OpenAI chat upstream',
    model: 'reader',
    sent: async (tag: string) => (await upstreamSent(tag)).map((request) => request.body.messages as any[]),
    // A tool message holds text only: the image follows at once, in a user message naming the call.
    imageOf: (messages: any[]) => messages[messages.findIndex((m) => m.role === 'tool' && m.tool_call_id === 'read_1') + 1],
    image: {
      role: 'user',
      content: [
        { type: 'text', text: '[images returned by tool call read_1]' },
        { type: 'image_url', image_url: { url: PNG_DATA_URL } },
      ],
    },
  },
  {
    upstream: 'an Anthropic upstream',
    model: 'claude-reader',
    sent: async (tag: string) => (await anthropicSent(tag)).map((request) => request.body.messages as any[]),
    // The image stays in the tool_result, a base64 image block.
    imageOf: (messages: any[]) =>
      messages.flatMap((m) => m.content).find((block) => block.type === 'tool_result' && block.tool_use_id === 'read_1')?.content,
    image: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } }],
  },
]

describe.skipIf(why)('Claude Code reading an image with its Read tool', () => {
  for (const { upstream, model, sent, imageOf, image } of upstreams)
    it(`through ${upstream}: the image read, then resent by two more turns: stored once, the model given it every time`, async () => {
      const tag = `cci${Date.now().toString(36)}`
      const file = join(work, `shot-${tag}.png`)
      writeFileSync(file, PNG)
      const id = randomUUID()
      const read = await claude([
        `Please READ:${file}`,
        '--session-id',
        id,
        '--model',
        `${model}#${tag}`,
        '--allowedTools',
        'Read',
      ])
      expect(read.is_error, JSON.stringify(read)).toBe(false)
      // The model was given the file's image as the result of its call.
      expect(read.result).toBe('Read: [image]')
      // Two more turns, each resending the whole history with the image in its tool_result.
      for (const question of ['What does it show?', 'And its colour?']) {
        const run = await claude(['--resume', id, '--model', `${model}#${tag}`, question])
        expect(run.is_error, JSON.stringify(run)).toBe(false)
        expect(run.result).toBe(`Echo: ${question}`)
      }
      const log = await logOf(id)
      const results = log.filter((event) => event.message.role === 'tool')
      expect(results).toHaveLength(1)
      expect(results[0].message.toolResponses).toEqual([
        {
          id: 'read_1',
          name: 'Read',
          data: [
            { type: 'image', mediaType: 'image/png', blob: await blobOf(PNG), bytes: PNG.byteLength, width: 40, height: 30 },
          ],
        },
      ])
      const asked = log.filter((event) => event.message.role === 'user' && /What does it show\?/.test(event.message.content))
      expect(asked).toHaveLength(1)
      await expectStoredOnce(id, [PNG], { apiBase: new URL('/v1', worker.url).href, token })
      // Every request after the Read gave the model the image, once, as the upstream takes it.
      const requests = await sent(tag)
      expect(requests).toHaveLength(4)
      expect(JSON.stringify(requests[0])).not.toContain(PNG_BASE64)
      for (const messages of requests.slice(1)) {
        expect(imageOf(messages)).toEqual(image)
        expect(JSON.stringify(messages).split(PNG_BASE64)).toHaveLength(2)
      }
    })
})
