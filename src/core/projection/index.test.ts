import { describe, expect, it } from 'vitest'
import type { NewEvent, SessionEvent } from '../events'
import { newCompactionEvent } from '../events/new-event'
import { events, idString } from '../testing'
import { extendView, project } from '.'

const boundary = (id: string, parts: { pinned?: string[]; summary?: string[]; preserved?: string[] }) =>
  newCompactionEvent(
    { id, timestamp: 't' },
    {
      pinned: parts.pinned ?? [],
      summary: parts.summary ?? [],
      preserved: parts.preserved ?? [],
      coveredEventCount: 0,
      tokensEstimatedSaved: 0,
    },
  )

const log = (...list: (NewEvent | NewEvent[])[]): SessionEvent[] =>
  list.flat().map((event, i) => ({ ...event, seq: i + 1 }) as SessionEvent)

describe('project', () => {
  it('is every message in log order when there is no boundary', () => {
    expect(idString(project(log(events('S1 U1 A1 U2'))))).toBe('S1 U1 A1 U2')
  })

  it('is the newest boundary’s named events in its order, then later unnamed messages', () => {
    // The worked example of the spec.
    const l = log(events('U1 A1 U2 A2'), boundary('B1', { summary: ['Σold'], preserved: ['U2', 'A2'] }), events('Σold U3 A3'))
    expect(idString(project(l))).toBe('Σold U2 A2 U3 A3')
    const l2 = [
      ...l,
      ...log(boundary('B2', { summary: ['Σnew'], preserved: ['U3', 'A3'] }), events('Σnew')).map((e, i) => ({
        ...e,
        seq: l.length + i + 1,
      })),
    ]
    expect(idString(project(l2))).toBe('Σnew U3 A3')
  })

  it('puts pinned events first, ignores older boundaries and never returns a COMPACTION event', () => {
    const l = log(
      events('S1 U1 A1'),
      boundary('B1', { pinned: ['S1'], preserved: ['U1', 'A1'] }),
      events('U2 A2'),
      boundary('B2', { pinned: ['S1'], preserved: ['U2', 'A2'] }),
      events('U3'),
    )
    const view = project(l)
    expect(idString(view)).toBe('S1 U2 A2 U3')
    expect(view.every((event) => event.type === 'MESSAGE')).toBe(true)
  })

  it('refuses a boundary that names an event it cannot find', () => {
    expect(() => project(log(events('U1'), boundary('B', { preserved: ['nope'] })))).toThrow(/names nope/)
  })
})

describe('extendView', () => {
  it('advances a cached view by the events after it to the projection of the whole log', () => {
    const head = log(events('S1 U1 A1 U2 A2'))
    const tail = [boundary('B1', { pinned: ['S1'], summary: ['Σ1'], preserved: ['U2', 'A2'] }), ...events('Σ1 U3 A3')].map(
      (event, i) => ({ ...event, seq: head.length + i + 1 }) as SessionEvent,
    )
    expect(extendView(project(head), tail)).toEqual(project([...head, ...tail]))
    expect(extendView(project(head), [])).toEqual(project(head))
  })
})
