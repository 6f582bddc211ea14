import { newToolCallId } from '../contract/ids'
import type { ToolCall } from '../core'

/**
 * The ids a reply's tool calls are stored with, minted once each: a call the model gave no id,
 * or an id an earlier call of the reply or anything in the log already has, gets a fresh
 * `call_…` id the moment it is first seen — streamed frames, the stored event and the response
 * then all carry the same one.
 *
 * @example
 * const ids = new CallIds((ids) => session.usedToolIds(ids))
 * const call = ids.at(0, { id: '', name: 'get_weather', arguments: '{}' }) // id: 'call_…'
 */
export class CallIds {
  private readonly owned: ToolCall[] = []
  private readonly seen = new Set<string>()

  /** `used` answers which of some ids the session's log already holds. */
  constructor(private readonly used: (ids: readonly string[]) => Set<string>) {}

  /** The reply's call at this position with its own id (the same object each time it is asked). */
  at(position: number, call: ToolCall): ToolCall {
    const known = this.owned[position]
    if (known) return known
    const fresh = call.id === '' || this.seen.has(call.id) || this.used([call.id]).size > 0
    const owned = { ...call, id: fresh ? newToolCallId() : call.id }
    this.seen.add(owned.id)
    this.owned[position] = owned
    return owned
  }

  /** Every call of the reply with its own id, in reply order. */
  all(calls: readonly ToolCall[]): ToolCall[] {
    return calls.map((call, position) => this.at(position, call))
  }
}
