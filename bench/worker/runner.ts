/**
 * The one runner every measurement of the worker suite goes through: rounds interleaved across
 * sizes (so drift hits every size alike), results kept by name, tables printed from them.
 */
import type { Measured, Rows } from '../shared'
import { table } from '../stats'
import { SIZES } from './config'

/** What a measurement is taken at: a log size, or another row of its table (a flag, a path). */
export type Key = number | string

export interface Measurement {
  /** One sample at a key: what it calls. */
  sample(key: Key, round: number): Promise<Measured>
  /** How many samples a key gets, one a round. */
  rounds: number
  /** Where it is taken; the log sizes unless given. */
  keys?: Key[]
  /** Run once a key before the first round, untimed. */
  setup?(key: Key): Promise<unknown>
  /** Run after each sample, untimed: measurements that append keep the session's view short, as a live session's is. */
  after?(key: Key): Promise<unknown>
}

/** The upper median (an observed value) and the 95th percentile of some samples. */
export function stats(samples: number[]): { median: number; p95: number } {
  const sorted = [...samples].sort((a, b) => a - b)
  return { median: sorted[Math.floor(sorted.length / 2)]!, p95: sorted[Math.ceil(sorted.length * 0.95) - 1]! }
}

/** Every sample taken, by measurement and key. */
export class Results {
  private readonly taken = new Map<string, Map<Key, Measured[]>>()

  has(name: string, key?: Key): boolean {
    return key === undefined ? this.taken.has(name) : (this.taken.get(name)?.has(key) ?? false)
  }

  add(name: string, key: Key, measured: Measured): void {
    const byKey = this.taken.get(name) ?? this.taken.set(name, new Map()).get(name)!
    byKey.set(key, [...(byKey.get(key) ?? []), measured])
  }

  samples(name: string, key: Key): number[] {
    return this.measured(name, key).flatMap((m) => m.samples)
  }

  median(name: string, key: Key): number {
    return stats(this.samples(name, key)).median
  }

  p95(name: string, key: Key): number {
    return stats(this.samples(name, key)).p95
  }

  /** The median of what each sample counted as `count`. */
  countMedian(name: string, key: Key, count: string): number {
    return stats(this.measured(name, key).map((m) => m.counts![count]!)).median
  }

  /** What the last sample counted. */
  counts(name: string, key: Key): Record<string, number> {
    return this.measured(name, key).at(-1)!.counts!
  }

  /** The median rows read and written of the samples (each route's rows are of one call). */
  rows(name: string, key: Key): Rows {
    const rows = this.measured(name, key).map((m) => m.rows!)
    return { rowsRead: stats(rows.map((r) => r.rowsRead)).median, rowsWritten: stats(rows.map((r) => r.rowsWritten)).median }
  }

  /** Every sample's measurement, in the order taken. */
  each(name: string, key: Key): Measured[] {
    return this.measured(name, key)
  }

  private measured(name: string, key: Key): Measured[] {
    const measured = this.taken.get(name)?.get(key)
    if (!measured) throw new Error(`${name} was not measured at ${key}`)
    return measured
  }
}

/** Measurements run together, or one alone. */
export type Step<Name extends string> = Name | Name[]

/** Where a step is taken: its first measurement's keys. */
const keysOf = <Name extends string>(step: Step<Name>, declared: Record<Name, Measurement>): Key[] =>
  declared[Array.isArray(step) ? step[0]! : step].keys ?? SIZES

/** Runs measurements together: each round takes every key once, each measurement in turn. The first one's rounds and keys lead. */
async function runTogether<Name extends string>(names: Name[], declared: Record<Name, Measurement>, results: Results) {
  const keys = keysOf(names, declared)
  for (const name of names) for (const key of keys) await declared[name].setup?.(key)
  for (let round = 0; round < declared[names[0]!].rounds; round++) {
    for (const key of keys) {
      for (const name of names) {
        results.add(name, key, await declared[name].sample(key, round))
        await declared[name].after?.(key)
      }
    }
  }
}

/** Runs the measurements of each step that were not run yet. */
export async function runSteps<Name extends string>(
  steps: Step<Name>[],
  declared: Record<Name, Measurement>,
  results: Results,
): Promise<void> {
  for (const step of steps) {
    const names = [step].flat().filter((name) => !results.has(name)) as Name[]
    if (names.length > 0) await runTogether(names, declared, results)
  }
}

export type Cell = string | number

/** A table column: its header and its cell at a key. */
export interface Column {
  header: string
  cell(key: Key, results: Results): Cell
}

/** A table of measurements: a row a key, the columns read from the results. */
export interface MeasuredTable<Name extends string> {
  title: string
  /** The measurements it shows, run in this order unless run before; its rows are the first one's keys. */
  measure: Step<Name>[]
  columns: Column[]
  /** Rows after the keys' rows, made from the results. */
  footer?(results: Results): Cell[][]
  /** Lines printed under it: the ratios the targets are stated in. */
  notes?: ((results: Results) => string)[]
}

/** Runs what a table shows, then prints it and its notes. */
export async function printMeasured<Name extends string>(
  spec: MeasuredTable<Name>,
  declared: Record<Name, Measurement>,
  results: Results,
): Promise<void> {
  await runSteps(spec.measure, declared, results)
  const rows = keysOf(spec.measure[0]!, declared).map((key) => spec.columns.map((column) => column.cell(key, results)))
  table(
    spec.title,
    spec.columns.map((column) => column.header),
    [...rows, ...(spec.footer?.(results) ?? [])],
  )
  for (const note of spec.notes ?? []) console.log(`\n${note(results)}`)
}
