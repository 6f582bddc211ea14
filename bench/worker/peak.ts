/**
 * The memory a request takes in the Worker's workerd process, read from outside through Linux's
 * /proc (the media and search-across benchmarks).
 */
import { readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs'
import type { Measured } from '../shared'
import type { BenchWorker } from './client'

/** The workerd processes of this run (descendants of this process): the Worker's (which has the objects' SQLite files in `state` open) and the others (the dev server's proxy, other Workers). */
function workerdProcesses(state: string): { worker: number[]; others: number[] } {
  const byParent = new Map<number, { pid: number; name: string }[]>()
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      byParent.set(parent, [...(byParent.get(parent) ?? []), { pid: Number(pid), name }])
    } catch {
      // Gone meanwhile.
    }
  }
  const found: number[] = []
  const walk = (pid: number) => {
    for (const child of byParent.get(pid) ?? []) {
      if (child.name.startsWith('workerd')) found.push(child.pid)
      walk(child.pid)
    }
  }
  walk(process.pid)
  const holdsState = (pid: number) => {
    try {
      return readdirSync(`/proc/${pid}/fd`).some((fd) => {
        try {
          return readlinkSync(`/proc/${pid}/fd/${fd}`).includes(`${state}/`)
        } catch {
          return false
        }
      })
    } catch {
      return false
    }
  }
  const worker = found.filter(holdsState)
  return { worker, others: found.filter((pid) => !worker.includes(pid)) }
}

const kB = (pid: number, key: 'VmRSS' | 'VmHWM') =>
  Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`${key}:\\s+(\\d+) kB`))?.[1] ?? 0) * 1024
const summed = (pids: number[], key: 'VmRSS' | 'VmHWM') => pids.reduce((sum, pid) => sum + kB(pid, key), 0)

/**
 * One request from here over HTTP (a POST of `body`, else a GET), and the resident memory of the workerd processes meanwhile:
 * each one's high-water mark is reset to its resident set before the request (Linux's
 * `clear_refs` 5), and read after it; the growth is the peak above what it held before.
 */
export async function peakOf(
  worker: BenchWorker,
  path: string,
  body: string | undefined,
  headers: Record<string, string>,
  status = 200,
  state = '.bench/state',
): Promise<Measured> {
  const { worker: pids, others } = workerdProcesses(state)
  if (pids.length === 0) throw new Error('the Worker’s workerd process was not found')
  const before = { worker: summed(pids, 'VmRSS'), others: summed(others, 'VmRSS') }
  for (const pid of [...pids, ...others]) writeFileSync(`/proc/${pid}/clear_refs`, '5')
  const started = performance.now()
  const response = await fetch(new URL(path, worker.url), {
    method: body === undefined ? 'GET' : 'POST',
    headers: { Authorization: worker.authorization, 'Content-Type': 'application/json', ...headers },
    body,
  })
  const text = await response.text()
  const time = performance.now() - started
  if (response.status !== status) throw new Error(`${path}: ${response.status} ${text.slice(0, 300)}`)
  const MB = 1024 * 1024
  return {
    samples: [(summed(pids, 'VmHWM') - before.worker) / MB],
    counts: {
      before: before.worker / MB,
      after: summed(pids, 'VmRSS') / MB,
      others: (summed(others, 'VmHWM') - before.others) / MB,
      bodyBytes: body?.length ?? 0,
      time,
    },
  }
}
