/**
 * A deterministic evaluation set for natural-language recall: long conversations between two
 * people over many sessions (weeks apart), and questions about them, each with the turn that
 * answers it. The same seed makes the same set, byte for byte. Words of a question and of its
 * answer differ as in real chat (see `./topics`), and small talk shares their words (see
 * `./chatter`): a question's words alone do not find its answer.
 */
import { GOODBYES, GREETING_REPLIES, GREETINGS, SMALL_TALK } from './chatter'
import { TOPICS, type Topic } from './topics'

export interface Turn {
  id: string
  /** 0 or 1: which of the two speakers. */
  speaker: number
  text: string
}

export interface ConversationSession {
  /** When the session happened (ISO date). */
  date: string
  turns: Turn[]
}

export interface Question {
  id: string
  text: string
  /** The turns that answer it (any one of them in the hits counts). */
  answers: string[]
}

export interface Conversation {
  id: string
  speakers: [string, string]
  sessions: ConversationSession[]
  questions: Question[]
}

const NAMES = [
  'Caroline',
  'Melanie',
  'Jordan',
  'Priyanka',
  'Elena',
  'Marcus',
  'Sofia',
  'Daniel',
  'Aisha',
  'Tom',
  'Grace',
  'Luis',
  'Hannah',
  'Omar',
  'Chloe',
  'Ravi',
  'Nina',
  'Samuel',
  'Leah',
  'Kenji',
]

/** Mulberry32: a small seeded generator, so the set is the same on every machine. */
function random(seed: number) {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  const pick = <T>(list: readonly T[]): T => list[int(list.length)]!
  const chance = (p: number) => next() < p
  const shuffled = <T>(list: readonly T[]): T[] => {
    const copy = [...list]
    for (let i = copy.length - 1; i > 0; i--) {
      const j = int(i + 1)
      ;[copy[i], copy[j]] = [copy[j]!, copy[i]!]
    }
    return copy
  }
  return { int, pick, chance, shuffled }
}

type Random = ReturnType<typeof random>

/** A topic happening to one speaker: its slots filled once. */
interface LifeEvent {
  topic: Topic
  speaker: number
  session: number
  fill: (text: string) => string
}

export interface GenerateOptions {
  conversations: number
  sessions: number
  /** Events each speaker lives through over a conversation. */
  eventsPerSpeaker: number
  seed: number
}

export const DEFAULT_SET: GenerateOptions = { conversations: 10, sessions: 24, eventsPerSpeaker: 12, seed: 49 }

/** The conversations and their questions. */
export function generateConversations(options: GenerateOptions = DEFAULT_SET): Conversation[] {
  const r = random(options.seed)
  return Array.from({ length: options.conversations }, (_, c) => conversation(r, c, options))
}

function conversation(r: Random, index: number, options: GenerateOptions): Conversation {
  const [a, b] = r.shuffled(NAMES) as [string, string]
  const speakers: [string, string] = [a, b]
  const events: LifeEvent[] = []
  for (const speaker of [0, 1]) {
    for (const topic of r.shuffled(TOPICS).slice(0, options.eventsPerSpeaker)) {
      const slots = Object.fromEntries(Object.entries(topic.slots).map(([name, choices]) => [name, r.pick(choices)]))
      const fill = (text: string) =>
        text
          .replaceAll('{n}', speakers[speaker]!)
          .replaceAll('{o}', speakers[1 - speaker]!)
          .replace(/\{(\w+)\}/g, (_, name: string) => slots[name] ?? name)
      events.push({ topic, speaker, session: r.int(options.sessions), fill })
    }
  }
  const id = `conv-${index + 1}`
  const questions: Question[] = []
  const sessions: ConversationSession[] = []
  const start = Date.UTC(2023, 0, 8)
  let day = 0
  let turnCount = 0
  const earlier: LifeEvent[] = []
  for (let s = 0; s < options.sessions; s++) {
    day += 5 + r.int(16)
    const turns: Turn[] = []
    const say = (speaker: number, text: string) => {
      const turn = { id: `${id}-t${++turnCount}`, speaker, text }
      turns.push(turn)
      return turn
    }
    // Turns of one to three sentences, as people write them: small talk joined to what is said.
    const chat = () =>
      r
        .shuffled(SMALL_TALK)
        .slice(0, 1 + r.int(2))
        .join(' ')
    const opener = r.int(2)
    say(opener, `${r.pick(GREETINGS).replaceAll('{o}', speakers[1 - opener]!)} ${r.chance(0.5) ? r.pick(SMALL_TALK) : ''}`.trim())
    say(1 - opener, `${r.pick(GREETING_REPLIES)} ${chat()}`)
    const happening = r.shuffled(events.filter((event) => event.session === s))
    for (const event of happening) {
      const other = 1 - event.speaker
      for (let k = r.int(3); k > 0; k--) say(r.int(2), chat())
      if (r.chance(0.5)) say(other, event.fill(r.pick(event.topic.prompt)))
      const answer = say(event.speaker, event.fill(r.pick(event.topic.say)))
      say(other, `${event.fill(r.pick(event.topic.react))}${r.chance(0.4) ? ` ${r.pick(SMALL_TALK)}` : ''}`)
      for (const ask of r.shuffled(event.topic.ask).slice(0, r.chance(0.3) ? 2 : 1)) {
        questions.push({ id: `${id}-q${questions.length + 1}`, text: event.fill(ask), answers: [answer.id] })
      }
      if (event.topic.when.length > 0 && r.chance(0.4)) {
        questions.push({ id: `${id}-q${questions.length + 1}`, text: event.fill(r.pick(event.topic.when)), answers: [answer.id] })
      }
    }
    for (const event of r.shuffled(earlier).slice(0, r.int(3)))
      say(r.int(2), `${event.fill(r.pick(event.topic.later))} ${chat()}`)
    for (let k = 1 + r.int(3); k > 0; k--) say(r.int(2), chat())
    say(r.int(2), r.pick(GOODBYES))
    earlier.push(...happening)
    sessions.push({ date: new Date(start + day * 86_400_000).toISOString().slice(0, 10), turns })
  }
  return { id, speakers, sessions, questions }
}
