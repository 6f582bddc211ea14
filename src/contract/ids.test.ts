import { describe, expect, it } from 'vitest'
import { newEventId, newSessionId } from './ids'

describe('the ids the service makes', () => {
  it('are a prefix and 32 hex digits; event ids made later sort after earlier ones', async () => {
    const first = newEventId()
    await new Promise((resolve) => setTimeout(resolve, 2))
    const later = Array.from({ length: 50 }, newEventId)
    expect(first).toMatch(/^evt_[0-9a-f]{32}$/)
    expect(newSessionId()).toMatch(/^ses_[0-9a-f]{32}$/)
    for (const id of later) expect(id > first).toBe(true)
    // The time is a prefix only: ids made in the same millisecond still differ.
    expect(new Set(later).size).toBe(later.length)
  })
})
