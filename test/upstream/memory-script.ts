/** The script the fake upstreams' `memory` mode runs: memory commands a test writes into a user message. */

/**
 * A script of memory commands, written in a user message after `MEMORY:` as JSON: a list of
 * rounds, each a list of commands (`{"command": "view", "path": "/memories"}`, …; `{"client":
 * "<tool>"}` calls a client tool of that name instead, with `{}`), or `{ "text", "calls" }` for a
 * round whose reply also says something.
 */
export type MemoryRound = Record<string, unknown>[] | { text: string; calls: Record<string, unknown>[] }

/** The script of the last user message, and how many rounds of it the prompt holds already (assistant messages after it). */
export function memoryScript(messages: { role: string; text: string }[]): { rounds: MemoryRound[]; done: number } | null {
  const at = messages.findLastIndex((m) => m.role === 'user' && m.text.includes('MEMORY:'))
  if (at < 0) return null
  const rounds = JSON.parse(messages[at]!.text.slice(messages[at]!.text.indexOf('MEMORY:') + 7).trim()) as MemoryRound[]
  return { rounds, done: messages.slice(at + 1).filter((m) => m.role === 'assistant').length }
}

/** What a memory round's reply holds: its text (or none) and its calls. */
export const roundOf = (round: MemoryRound) => (Array.isArray(round) ? { text: null, calls: round } : round)

/** A command of a round as a tool call: the memory tool's, or (`client`) a client tool's. */
export const callOf = (command: Record<string, unknown>) =>
  typeof command.client === 'string' ? { name: command.client, input: {} } : { name: 'memory', input: command }
