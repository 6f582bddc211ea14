/** The cells the worker suite's tables are made of. */
import { ms } from '../stats'
import type { MeasurementName } from './measurements'
import type { Column, Key, Results } from './runner'

export const n = (value: number) => value.toLocaleString('en')
export const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`

export const column = (header: string, cell: Column['cell']): Column => ({ header, cell })

export const logEvents = column('log events', (size) => n(Number(size)))
export const viewEvents = column('view events', (size, results) => results.counts('viewEvents', size).viewEvents!)

export const median = (header: string, name: MeasurementName) => column(header, (key, results) => ms(results.median(name, key)))
export const p95 = (name: MeasurementName) => column('p95', (key, results) => ms(results.p95(name, key)))
/** `<label> median`, then `p95`. */
export const timing = (label: string, name: MeasurementName) => [median(`${label} median`, name), p95(name)]

/** The ratio of two measurements' medians at a key. */
export const medianRatio = (header: string, over: MeasurementName, under: MeasurementName) =>
  column(header, (key, results) => ratio(results.median(over, key), results.median(under, key)))

/** A ratio of medians between the largest and the smallest key, for the notes under a table. */
export const growth = (results: Results, name: MeasurementName, largest: Key, smallest: Key) =>
  ratio(results.median(name, largest), results.median(name, smallest))
