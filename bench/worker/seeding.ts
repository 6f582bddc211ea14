/**
 * The sessions measured: ours and the peer's at each size, kept in `.bench/state` between runs
 * while their logs are within 10% of the size (each run appends a few thousand events), else made
 * anew. Ours are seeded over HTTP in appends of 1,000 events, compacted between them as a live
 * session is, so the log grows while the view stays ~440 events.
 */
import { message } from '../shared'
import type { BenchWorker } from './client'
import { RUN, VIEW_TURNS } from './config'

/** One turn's two events, as a client appends them. */
export const turnEvents = (i: number) => [
  { message: { role: 'user', content: message(i) } },
  { message: { role: 'assistant', content: message(i + 1) } },
]

/** A session with `size` events in its log, compacted every `compactEvery` events as a live one is. */
export async function seed({ api }: BenchWorker, id: string, size: number, compactEvery = 1000): Promise<void> {
  let written = 0
  for (let turn = 0; written < size; ) {
    const count = Math.min(compactEvery, size - written)
    const turns = Math.ceil(count / 2)
    const events = Array.from({ length: turns }, (_, k) => turnEvents(turn + 2 * (k + 1)))
      .flat()
      .slice(0, count)
    turn += 2 * turns
    for (let at = 0; at < events.length; at += 1000) {
      await api('POST', `/v1/sessions/${id}/events`, { events: events.slice(at, at + 1000) })
    }
    written += events.length
    if (written < size) {
      const result = await api('POST', `/v1/sessions/${id}/compact`, { strategy: { window: { lastTurns: VIEW_TURNS } } })
      if (!result.unchanged) written += 1
    }
  }
}

/** A session's view kept short, untimed, after measurements that append (it compacts once the view passes ~220 turns). */
export const keepViewShort = ({ api }: BenchWorker, id: string) =>
  api('POST', `/v1/sessions/${id}/compact`, {
    trigger: { turnCount: VIEW_TURNS + 20 },
    strategy: { window: { lastTurns: VIEW_TURNS } },
  })

const within10Percent = (found: number, size: number) => found >= size && found <= size * 1.1
const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`

/** Our session of about `size` events: the one kept from an earlier run, else seeded. */
async function ourSession(worker: BenchWorker, size: number): Promise<string> {
  const id = `log-${size}`
  const found = await worker.api('GET', `/v1/sessions/${id}`).catch(() => null)
  if (found && within10Percent(found.version, size)) {
    console.log(`kept ${id} from an earlier run`)
    return id
  }
  if (found) await worker.api('DELETE', `/v1/sessions/${id}`)
  const started = performance.now()
  await seed(worker, id, size)
  console.log(`seeded ${id}: ${seconds(started)}`)
  return id
}

/** The peer's history of about `size` messages: the one kept from an earlier run, else imported (a new one when the kept one is too large). */
async function peerSession({ api }: BenchWorker, size: number): Promise<string> {
  const kept = `peer-${size}`
  const keptSize = (await api('GET', `/bench/peer/size?peer=${kept}`)) as number
  const peer = keptSize === 0 || within10Percent(keptSize, size) ? kept : `${kept}-${RUN}`
  const had = peer === kept ? keptSize : 0
  const started = performance.now()
  for (let from = had; from < size; ) {
    from = await api('GET', `/bench/peer/seed?peer=${peer}&count=${Math.min(2000, size - from)}&from=${from}`)
  }
  console.log(had >= size ? `kept ${peer} from an earlier run` : `seeded ${peer}: ${seconds(started)}`)
  return peer
}

/** The sessions measured at each size, by side. */
export interface Sessions {
  ours(size: number): string
  peer(size: number): string
}

/** Our sessions at each size, and the peer's unless `withPeer` is false (no table measured needs them). */
export async function seedSessions(worker: BenchWorker, sizes: number[], withPeer = true): Promise<Sessions> {
  const ours = new Map<number, string>()
  const peers = new Map<number, string>()
  for (const size of sizes) ours.set(size, await ourSession(worker, size))
  if (withPeer) for (const size of sizes) peers.set(size, await peerSession(worker, size))
  const peer = (size: number) => {
    const id = peers.get(size)
    if (!id) throw new Error(`no peer history of ${size} was seeded: a table measuring the peer must say so`)
    return id
  }
  return { ours: (size) => ours.get(size)!, peer }
}
