import type { CorpusCounts } from '../../core'
import { fragment, type Sql, type SqlFragment } from '../../sql'

/**
 * SQLite's variable-length integer at `at` (1 to 9 bytes, big-endian, 7 bits a byte but the
 * ninth's 8), as FTS5 writes its counts; and where the next one starts.
 */
function varint(bytes: Uint8Array, at: number): { value: number; next: number } {
  let value = 0
  for (let i = 0; i < 8; i++) {
    const byte = bytes[at + i] ?? 0
    value = value * 128 + (byte & 0x7f)
    if ((byte & 0x80) === 0) return { value, next: at + i + 1 }
  }
  return { value: value * 256 + (bytes[at + 8] ?? 0), next: at + 9 }
}

/**
 * What an FTS5 table holds, from its averages record (row 1 of `<table>_data`: the rows, then
 * each column's tokens in all), which FTS5 keeps for its own bm25(): one row read.
 *
 * @example
 * corpusOf(sql, fragment('search')) // { documents: 1000, tokens: 14200 }
 */
export function corpusOf(sql: Sql, table: SqlFragment): CorpusCounts {
  const row = sql.first<{ block: ArrayBuffer }>`SELECT block FROM ${fragment(`${table.text}_data`)} WHERE id = 1`
  if (!row) return { documents: 0, tokens: 0 }
  const bytes = new Uint8Array(row.block)
  const documents = varint(bytes, 0)
  return { documents: documents.value, tokens: varint(bytes, documents.next).value }
}

/**
 * Each of these rows' length in tokens, from FTS5's `<table>_docsize` (one varint a column; the
 * text is the first): a row read each, the text never.
 */
export function lengthsOf(sql: Sql, table: SqlFragment, rowids: readonly number[]): Map<number, number> {
  const lengths = new Map<number, number>()
  if (rowids.length === 0) return lengths
  for (const { id, sz } of sql.all<{ id: number; sz: ArrayBuffer }>`SELECT id, sz FROM ${fragment(`${table.text}_docsize`)}
      WHERE id IN (SELECT value FROM json_each(${JSON.stringify(rowids)}))`) {
    lengths.set(id, varint(new Uint8Array(sz), 0).value)
  }
  return lengths
}
