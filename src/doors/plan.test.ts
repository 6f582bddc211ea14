import { describe, expect, it } from 'vitest'
import type { StoredStep } from '../contract/turn-result'
import type { ClientMessage, ShownMessage } from '../core'
import { type DoorFacts, planDoorTurn, tailLength } from './plan'
import type { DoorRequest } from './request'

const user = (content: string): ClientMessage => ({ role: 'user', content })
const assistant = (content: string): ClientMessage => ({ role: 'assistant', content })

/** A door request of these messages, every option off. */
const request = (messages: ClientMessage[], options: Partial<DoorRequest> = {}): DoorRequest => ({
  mode: 'turn',
  messages,
  fields: messages.map((_, i) => `messages[${i}]`),
  toolCallIdField: 'tool_call_id',
  shown: { inline: false },
  request: {},
  session: { mustExist: false, creates: {} },
  onDiverge: 'rewind',
  regenerate: false,
  retried: false,
  sideConversations: false,
  idempotency: null,
  after: null,
  capsule: null,
  ...options,
})

/** The lineage's client messages, seqs from 1. */
const lineage = (...messages: ClientMessage[]): DoorFacts['tail'] => ({
  messages: messages.map((message, i): ShownMessage => ({ message, seq: i + 1, id: `e${i + 1}` })),
  empty: messages.length === 0,
})

const facts = (tail: DoorFacts['tail'], more: Partial<DoorFacts> = {}): DoorFacts => ({
  exists: !tail.empty,
  idempotent: null,
  side: false,
  tail,
  capsuleAt: undefined,
  ...more,
})

const step = { reply: { id: 'r1' } } as unknown as StoredStep

describe('planDoorTurn', () => {
  it('writes what follows the lineage’s end, and seeds a session that holds nothing', () => {
    const asked = request([user('Hi'), assistant('Hello'), user('And now?')])
    expect(planDoorTurn(asked, facts(lineage(user('Hi'), assistant('Hello'))), 'answer')).toEqual({
      kind: 'new',
      messages: [user('And now?')],
      seeding: false,
      unlessSide: false,
    })
    expect(planDoorTurn(asked, facts(lineage()), 'answer')).toEqual({
      kind: 'new',
      messages: asked.messages,
      seeding: true,
      unlessSide: false,
    })
  })

  it('refuses a session that must exist and does not: 404, nothing planned', () => {
    const asked = request([user('Hi')], { session: { mustExist: true } })
    expect(() => planDoorTurn(asked, facts(lineage()), 'answer')).toThrow(expect.objectContaining({ code: 'not_found' }))
  })

  it('answers an Idempotency-Key seen with the same messages from its step; with others, a 409 naming the key', () => {
    const keyed = (hash: string) => request([user('Hi')], { idempotency: { key: 'k1', hash } })
    const seen = facts(lineage(user('Hi'), assistant('Hello')), { idempotent: { hash: 'h1', step } })
    expect(planDoorTurn(keyed('h1'), seen, 'answer')).toEqual({ kind: 'stored', step })
    expect(() => planDoorTurn(keyed('h2'), seen, 'answer')).toThrow(
      expect.objectContaining({ code: 'id_conflict', message: 'Idempotency-Key "k1" was sent before with other messages' }),
    )
  })

  it('goes on from a reply the request names (previous_response_id) whatever its messages', () => {
    const after = { replyId: 'r1', responseId: 'resp_x.r1' }
    expect(planDoorTurn(request([user('More')], { after }), facts(lineage(user('Hi'))), 'answer')).toEqual({
      kind: 'continued',
      after,
    })
  })

  it('answers a retry from the stored reply, or regenerates it when asked', () => {
    const tail = lineage(user('Hi'), assistant('Hello'))
    // The client resends the conversation before the reply it lost.
    const resent = request([user('Hi')], { retried: true })
    expect(planDoorTurn(resent, facts(tail), 'answer')).toEqual({ kind: 'stored_reply', seq: 2 })
    expect(planDoorTurn({ ...resent, regenerate: true }, facts(tail), 'answer')).toEqual({ kind: 'regenerate' })
    // Without the client saying it resends, a question asked again is a new question.
    expect(planDoorTurn(request([user('Hi')]), facts(tail), 'answer')).toMatchObject({ kind: 'new' })
  })

  it('takes a history that left the session’s as a rewind, or refuses it with a 409 naming the message', () => {
    const tail = lineage(user('Hi'), assistant('Hello'))
    const edited = [user('Hi'), assistant('Bonjour'), user('And now?')]
    expect(planDoorTurn(request(edited), facts(tail), 'answer')).toEqual({ kind: 'diverged' })
    expect(() => planDoorTurn(request(edited, { onDiverge: 'reject' }), facts(tail), 'answer')).toThrow(
      expect.objectContaining({ code: 'history_diverged', message: expect.stringMatching(/^messages\[1\]: /) }),
    )
  })

  it('with nothing new: nothing to store, or after a compaction capsule the newest turn decides (go on)', () => {
    const tail = lineage(user('Hi'))
    expect(planDoorTurn(request([user('Hi')]), facts(tail), 'store')).toEqual({ kind: 'nothing' })
    expect(planDoorTurn(request([]), facts(lineage(), { exists: true, capsuleAt: 4 }), 'answer')).toEqual({ kind: 'go_on' })
  })

  it('marks a side conversation’s request that shares nothing with the lineage, to be answered unstored', () => {
    const tail = lineage(user('Hi'), assistant('Hello'))
    const title = request([user('Name this conversation')], { sideConversations: true })
    expect(planDoorTurn(title, facts(tail, { side: true }), 'answer')).toMatchObject({ kind: 'new', unlessSide: true })
    expect(planDoorTurn(title, facts(tail, { side: false }), 'answer')).toMatchObject({ kind: 'new', unlessSide: false })
  })
})

describe('tailLength', () => {
  it('reads one message more than the request holds when it is resent, unless it is a side conversation’s', () => {
    const asked = request([user('a'), user('b')], { retried: true })
    expect(tailLength(asked, { side: false })).toBe(3)
    expect(tailLength(asked, { side: true })).toBe(2)
    expect(tailLength({ ...asked, retried: false }, { side: false })).toBe(2)
  })
})
