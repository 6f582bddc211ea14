/**
 * Benchmarks through the real Worker in local workerd (wrangler's dev server, offline), with a
 * stub model (the fake OpenAI-compatible upstream) that answers at once. Times marked "in
 * workerd" are taken inside the Worker around RPC calls to the Durable Object, so the dev
 * server's proxy (several ms per request here) is not in them; "HTTP" times are end to end.
 * What is measured is declared in ./worker/measurements.ts, what is printed in ./worker/tables.ts.
 */
import { startBenchWorker } from './worker/client'
import { ROUNDS, SIZES } from './worker/config'
import { measurementsOf } from './worker/measurements'
import { printMeasured, Results, runSteps } from './worker/runner'
import { seedSessions } from './worker/seeding'
import { TABLES } from './worker/tables'

/** `BENCH_TABLES=Branches,context`: only the tables whose title holds one of these (default: all). */
const only = process.env.BENCH_TABLES?.split(',').filter(Boolean)
const tables = only ? TABLES.filter((table) => only.some((words) => table.title.includes(words))) : TABLES

/** Whether a table measures the peer (agents/sessions): its histories are seeded only then. */
const withPeer = tables.some((table) => table.measure.flat().some((name) => /peer/i.test(name)))

const worker = await startBenchWorker()
console.log(`\nFake upstream ${worker.upstreamUrl}; ${ROUNDS} rounds per measurement, sizes interleaved.`)
try {
  const measurements = measurementsOf(worker, await seedSessions(worker, SIZES, withPeer || !only))
  const results = new Results()
  // First searches before anything is measured: no index catch-up (ours) or build (the peer's) runs under a measurement.
  if (!only) await runSteps(['firstSearch', 'peerFirstSearch'], measurements, results)
  for (const table of tables) await printMeasured(table, measurements, results)
} finally {
  await worker.close()
}
