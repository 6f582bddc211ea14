import type { Window } from '../windows'

/**
 * The window cases of the spec's table of tricky cases (compaction.md), in the fixtures' notation:
 * the core's tests and the HTTP tests run the same table, so the two cannot drift apart. `after`
 * is null when the pass changes nothing.
 */
export const TRICKY_CASES: { name: string; before: string; window: Window; after: string | null; covered: string }[] = [
  {
    name: 'cut lands mid-turn',
    before: 'U1 A1 U2 A2a A2b U3 A3',
    window: { lastEvents: 3 },
    after: 'U3 A3',
    covered: 'U1 A1 U2 A2a A2b',
  },
  {
    name: 'newest turn alone is over the window',
    before: "U1 A1 U2 A2 T2 A2'",
    window: { lastEvents: 2 },
    after: "U2 A2 T2 A2'",
    covered: 'U1 A1',
  },
  { name: 'the whole history is one oversize turn', before: "U1 A1 T1 A1'", window: { lastEvents: 2 }, after: null, covered: '' },
  {
    name: 'system message updated mid-session, no cut needed',
    before: 'S:v1 U1 A1 S:v2 U2 A2',
    window: { lastTurns: 10 },
    after: null,
    covered: '',
  },
  {
    name: 'system prompt stored in an old turn',
    before: 'U1 A1 S U2 A2 U3 A3',
    window: { lastTurns: 1 },
    after: 'S U3 A3',
    covered: 'U1 A1 U2 A2',
  },
]
