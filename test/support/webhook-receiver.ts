/** The tests' side of the fake webhook receiver (test/upstream/fake-receiver.ts): endpoints on it, and what it got. */
import { expect, inject } from 'vitest'
import { call } from '../helpers'

const receiver = inject('receiverUrl')
let users = 0
/** A user of their own per test: webhooks are per user. */
export const newUser = () => `hooks-${Date.now().toString(36)}-${++users}`

export interface Attempt {
  headers: Record<string, string>
  body: string
  answered: number | null
  at: number
}
/** Every attempt the receiver got for the endpoint `name`, in order. */
export const attempts = async (name: string): Promise<Attempt[]> => (await fetch(`${receiver}/${name}/__attempts`)).json()
export const bodies = async (name: string) => (await attempts(name)).map((attempt) => JSON.parse(attempt.body))

/** Registers an endpoint of `as` on the receiver, answering as `mode` says; `name` is where its attempts are listed. */
export async function register(as: string, mode: string, events: string[] = ['*'], label = mode) {
  const name = `${as}-${label}`
  const created = await call('POST', '/v1/webhooks', { user: as, body: { url: `${receiver}/${name}/${mode}`, events } })
  expect(created.status).toBe(201)
  return { ...created.body, name }
}

/** The endpoint's deliveries as the API lists them, of one status if given. */
export const deliveries = async (as: string, id: string, status?: string) =>
  (await call('GET', `/v1/webhooks/${id}/deliveries${status ? `?status=${status}` : ''}`, { user: as })).body.deliveries
