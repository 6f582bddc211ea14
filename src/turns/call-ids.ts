import { newMemoryCallId, newToolCallId } from '../contract/ids'
import { isServiceCall, MEMORY_TOOL, type ToolCall } from '../core'

/**
 * The ids a reply's tool calls are stored with, minted once each: a call the model gave no id,
 * or an id an earlier call of the reply or anything in the log already has, gets a fresh
 * `call_…` id the moment it is first seen — streamed frames, the stored event and the response
 * then all carry the same one. While the request offers the memory tool, each `memory` call is the
 * service's and gets a `mem_…` id (see the core's `isServiceCall`); otherwise a call that would
 * pass for one (a client tool named `memory`, its id starting `mem_`) gets a fresh `call_…` id.
 *
 * @example
 * const ids = new CallIds((ids) => session.usedToolIds(ids))
 * const call = ids.at(0, { id: '', name: 'get_weather', arguments: '{}' }) // id: 'call_…'
 */
export class CallIds {
  private readonly owned: ToolCall[] = []
  private readonly seen = new Set<string>()

  /** `used` answers which of some ids the session's log already holds; `memory`: the request offers the memory tool. */
  constructor(
    private readonly used: (ids: readonly string[]) => Set<string>,
    private readonly memory = false,
  ) {}

  /** The reply's call at this position with its own id (the same object each time it is asked). */
  at(position: number, call: ToolCall): ToolCall {
    const known = this.owned[position]
    if (known) return known
    if (this.memory && call.name === MEMORY_TOOL) return this.keep(position, { ...call, id: newMemoryCallId() })
    const passesForMemory = call.name === MEMORY_TOOL && isServiceCall(call)
    const fresh = call.id === '' || passesForMemory || this.seen.has(call.id) || this.used([call.id]).size > 0
    return this.keep(position, { ...call, id: fresh ? newToolCallId() : call.id })
  }

  private keep(position: number, owned: ToolCall): ToolCall {
    this.seen.add(owned.id)
    this.owned[position] = owned
    return owned
  }

  /** Every call of the reply with its own id, in reply order. */
  all(calls: readonly ToolCall[]): ToolCall[] {
    return calls.map((call, position) => this.at(position, call))
  }
}
