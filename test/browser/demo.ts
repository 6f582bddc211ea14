import type { Page } from 'playwright-core'
import { api } from './helpers'

const user = (content: string) => ({ message: { role: 'user', content } })
const assistant = (content: string) => ({ message: { role: 'assistant', content } })

const FORECAST = {
  city: 'Lisbon',
  days: [
    { date: '2027-05-14', high: 24, sky: 'sunny' },
    { date: '2027-05-15', high: 22, sky: 'cloudy' },
    { date: '2027-05-16', high: 23, sky: 'sunny' },
  ],
}

const PLAN = [
  '## Lisbon offsite, May 14–16',
  '',
  'The forecast looks **good**: two sunny days, one *cloudy*.',
  '',
  '| Day | Weather | Plan |',
  '|:--|:--|:--|',
  '| Fri | 24 °C, sunny | Alfama walk, dinner in `Graça` |',
  '| Sat | 22 °C, cloudy | Workshops at the hotel |',
  '| Sun | 23 °C, sunny | Belém and the river |',
  '',
  'Budget per person, in EUR (`get_forecast` says to pack a light jacket):',
  '',
  '```json',
  '{ "hotel": 420, "food": 210, "transport": 120 }',
  '```',
  '',
  'Book the rooms early: see [the venue](https://example.com/venue).',
].join('\n')

/**
 * A session worth looking at: a system prompt, three turns compacted under a summary, a turn with
 * a tool call, its JSON result and a Markdown reply, and a turn after the compaction.
 */
export async function demoSession(token: string, id = 'lisbon-offsite') {
  await api(token, 'POST', `/v1/sessions/${id}/events`, {
    events: [
      { message: { role: 'system', content: 'You help plan team offsites.' } },
      user('We are planning the **Lisbon** offsite for 12 people.'),
      assistant('Noted: Lisbon, 12 people. Which dates?'),
      user('May 14 to 16.'),
      assistant('Three days, May 14–16.'),
      user('The budget is 9,000 EUR.'),
      assistant('About 750 EUR a person.'),
      user('What will the weather be like? Then plan the days.'),
      {
        message: {
          role: 'assistant',
          content: null,
          toolCalls: [{ id: 'call_forecast', name: 'get_forecast', arguments: '{"city":"Lisbon","from":"2027-05-14","days":3}' }],
        },
      },
      {
        message: {
          role: 'tool',
          content: null,
          toolResponses: [{ id: 'call_forecast', name: 'get_forecast', data: JSON.stringify(FORECAST) }],
        },
      },
      assistant(PLAN),
    ],
  })
  await api(token, 'POST', `/v1/sessions/${id}/compact`, { strategy: { window: { lastTurns: 1 }, summarizer: {} } })
  await api(token, 'POST', `/v1/sessions/${id}/events`, {
    events: [
      user('Turn the plan into a checklist.'),
      assistant('- [x] Dates: May 14–16\n- [x] Budget: 9,000 EUR\n- [ ] Book the hotel\n- [ ] Book the dinner in *Graça*'),
    ],
  })
  return id
}

/** Opens a session from the list and waits for its log. */
export async function openSession(page: Page, id: string) {
  await page.getByRole('button', { name: new RegExp(id) }).click()
  await page.locator('.timeline').waitFor()
}
