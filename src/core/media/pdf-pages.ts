/**
 * A PDF's page count, read from the file's own objects without a PDF library: one forward pass
 * over the bytes as PDF tokens (ISO 32000-1 §7.2–7.3), in time linear in the file's size, with
 * no regular expression and no decoded copy of the file.
 *
 * The page tree's root (the /Type /Pages dictionary with no /Parent) says how many pages the
 * document has in its /Count; when it cannot be read, the /Type /Page objects are counted.
 * Strings, comments and stream data are stepped over, so text that merely mentions `/Type /Page`
 * is not counted. Objects inside compressed object streams (PDF 1.5+; pdfTeX writes its pages
 * there by default) are invisible to that pass: {@link pdfPageCountDeep} inflates them too.
 */

import { inflateZlib } from './inflate'

/** What one pass over a PDF's bytes found. */
interface PdfScan {
  /** Dictionaries with /Type /Page. */
  pageObjects: number
  /** The /Count of the last page tree root (/Type /Pages without /Parent), when one was read. */
  rootCount: number | null
  /** Where each FlateDecode-compressed object stream's data lies: [start, end) byte offsets. */
  objectStreams: { start: number; end: number }[]
}

/** A dictionary being read: what its keys said so far. */
interface Frame {
  type: string | null
  count: number | null
  hasParent: boolean
  flate: boolean
}

/** Dictionaries nested deeper than this are stepped through without being looked at. */
const MAX_DEPTH = 64
/** The header may follow a little junk (readers look in the first 1,024 bytes). */
const HEADER_WINDOW = 1024

const C = {
  percent: 0x25,
  open: 0x28,
  close: 0x29,
  backslash: 0x5c,
  less: 0x3c,
  greater: 0x3e,
  slash: 0x2f,
  s: 0x73,
  e: 0x65,
  R: 0x52,
  lf: 0x0a,
  cr: 0x0d,
} as const

/** PDF white-space characters (§7.2.2 Table 1). */
const isSpace = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0x00
/** PDF delimiters (§7.2.2 Table 2). */
const isDelimiter = (c: number | undefined) =>
  c === 0x28 ||
  c === 0x29 ||
  c === 0x3c ||
  c === 0x3e ||
  c === 0x5b ||
  c === 0x5d ||
  c === 0x7b ||
  c === 0x7d ||
  c === 0x2f ||
  c === 0x25
const isDigit = (c: number | undefined) => c !== undefined && c >= 0x30 && c <= 0x39
const isRegular = (c: number | undefined) => c !== undefined && !isSpace(c) && !isDelimiter(c)

const ENDSTREAM = Array.from('endstream', (c) => c.charCodeAt(0))
const STREAM = Array.from('stream', (c) => c.charCodeAt(0))
const HEADER = Array.from('%PDF-', (c) => c.charCodeAt(0))

const matchesAt = (b: Uint8Array, at: number, word: readonly number[]) => {
  if (at + word.length > b.length) return false
  for (let k = 0; k < word.length; k++) if (b[at + k] !== word[k]) return false
  return true
}

/**
 * The number of pages of a PDF, or null when the bytes are not a PDF or no page count can be
 * read from them (an encrypted file, or one whose page objects are all inside compressed object
 * streams). The page tree root's /Count is preferred when it is a whole number from 1 up to the
 * file's size in bytes; otherwise the /Type /Page objects are counted.
 *
 * @example
 * pdfPageCount(threePagePdf) // 3
 * pdfPageCount(new TextEncoder().encode('hello')) // null
 */
export function pdfPageCount(bytes: Uint8Array): number | null {
  if (!hasPdfHeader(bytes)) return null
  const scan = scanPdf(bytes)
  return pageCountOf(scan, bytes.length)
}

/** All object streams of one file together inflate to at most this much (a deflate bomb stops here). */
export const MAX_INFLATED_BYTES = 64 * 1024 * 1024

/**
 * {@link pdfPageCount}, also looking inside the file's compressed object streams when the first
 * pass found no sane root /Count: each FlateDecode object stream is inflated (together at most
 * {@link MAX_INFLATED_BYTES}) and read by the same pass.
 *
 * @example
 * await pdfPageCountDeep(pdflatexOutput) // 12, where pdfPageCount answers null
 */
export async function pdfPageCountDeep(bytes: Uint8Array): Promise<number | null> {
  if (!hasPdfHeader(bytes)) return null
  const scan = scanPdf(bytes)
  if (saneRoot(scan.rootCount, bytes.length)) return scan.rootCount
  const counted: Pick<PdfScan, 'pageObjects' | 'rootCount'> = { pageObjects: scan.pageObjects, rootCount: null }
  let budget = MAX_INFLATED_BYTES
  for (const { start, end } of scan.objectStreams) {
    if (budget <= 0) break
    const objects = await inflateZlib(bytes.subarray(start, end), budget)
    budget -= objects.length
    const inner = scanPdf(objects)
    counted.pageObjects += inner.pageObjects
    if (inner.rootCount !== null) counted.rootCount = inner.rootCount
  }
  return pageCountOf(counted, bytes.length)
}

/** A root /Count worth believing: at least 1, and no more pages than the file has bytes. */
const saneRoot = (count: number | null, fileSize: number): count is number => count !== null && count >= 1 && count <= fileSize

/** The count a scan supports: the root's /Count when sane, else the page objects, else null. */
function pageCountOf(scan: Pick<PdfScan, 'pageObjects' | 'rootCount'>, fileSize: number): number | null {
  if (saneRoot(scan.rootCount, fileSize)) return scan.rootCount
  return scan.pageObjects >= 1 ? scan.pageObjects : null
}

/** Whether `%PDF-` starts within the first 1,024 bytes. */
function hasPdfHeader(bytes: Uint8Array): boolean {
  const last = Math.min(bytes.length, HEADER_WINDOW)
  for (let at = bytes.indexOf(C.percent); at >= 0 && at < last; at = bytes.indexOf(C.percent, at + 1)) {
    if (matchesAt(bytes, at, HEADER)) return true
  }
  return false
}

/**
 * One pass over PDF tokens: page objects, page tree roots and compressed object streams.
 * `bytes` may be a whole file or the objects of a decompressed object stream.
 */
function scanPdf(bytes: Uint8Array): PdfScan {
  const scan: PdfScan = { pageObjects: 0, rootCount: null, objectStreams: [] }
  const frames: Frame[] = []
  let hidden = 0 // dictionaries open beyond MAX_DEPTH
  let lastClosed: Frame | null = null // the dictionary a `stream` keyword would belong to
  let i = 0
  while (i < bytes.length) {
    const c = bytes[i]!
    if (isSpace(c)) {
      i++
      continue
    }
    const closed = lastClosed
    lastClosed = null // only white space may stand between a dictionary and its `stream`
    if (c === C.percent) i = skipComment(bytes, i)
    else if (c === C.open) i = skipLiteralString(bytes, i)
    else if (c === C.less && bytes[i + 1] === C.less) {
      if (frames.length < MAX_DEPTH) frames.push({ type: null, count: null, hasParent: false, flate: false })
      else hidden++
      i += 2
    } else if (c === C.less) i = skipHexString(bytes, i)
    else if (c === C.greater && bytes[i + 1] === C.greater) {
      if (hidden > 0) hidden--
      else if (frames.length > 0) {
        lastClosed = frames.pop()!
        closeFrame(lastClosed, scan)
      }
      i += 2
    } else if (c === C.slash) i = readKey(bytes, i, hidden === 0 ? frames.at(-1) : undefined, scan)
    else if (c === C.s && matchesAt(bytes, i, STREAM) && !isRegular(bytes[i - 1]) && !isRegular(bytes[i + 6])) {
      i = skipStream(bytes, i + STREAM.length, closed, scan)
    } else i++
  }
  return scan
}

/** What a closing dictionary tells: a page tree root's count. */
function closeFrame(frame: Frame, scan: PdfScan): void {
  if (frame.type === 'Pages' && !frame.hasParent && frame.count !== null) scan.rootCount = frame.count
}

/** Reads a name at `i` (a `/`) and, in a dictionary, the value of the keys that matter. Returns where reading stops. */
function readKey(bytes: Uint8Array, i: number, frame: Frame | undefined, scan: PdfScan): number {
  const [name, end] = readName(bytes, i)
  if (!frame) return end
  if (name === 'Parent') frame.hasParent = true
  else if (name === 'FlateDecode') frame.flate = true
  else if (name === 'Type') {
    const at = skipSpace(bytes, end)
    if (bytes[at] !== C.slash) return at
    const [value, after] = readName(bytes, at)
    frame.type = value
    if (value === 'Page') scan.pageObjects++
    return after
  } else if (name === 'Count') {
    const [count, after] = readCount(bytes, skipSpace(bytes, end))
    frame.count = count
    return after
  }
  return end
}

/** A name's characters after the `/` (up to 16 kept: the names that matter are short), and where it ends. */
function readName(bytes: Uint8Array, slash: number): [string, number] {
  let end = slash + 1
  while (end < bytes.length && isRegular(bytes[end])) end++
  const kept = Math.min(end, slash + 17)
  let name = ''
  for (let k = slash + 1; k < kept; k++) name += String.fromCharCode(bytes[k]!)
  return [name, end]
}

/**
 * A whole number at `i`, unless it starts an indirect reference (`12 0 R`, whose target this pass
 * cannot follow). Too many digits to be a page count reads as no count.
 */
function readCount(bytes: Uint8Array, i: number): [number | null, number] {
  let end = i
  while (isDigit(bytes[end])) end++
  if (end === i || end - i > 9 || isRegular(bytes[end])) return [null, end]
  let value = 0
  for (let k = i; k < end; k++) value = value * 10 + (bytes[k]! - 0x30)
  // `n g R`: a reference, not a number.
  let at = skipSpace(bytes, end)
  const generation = at
  while (isDigit(bytes[at])) at++
  if (at > generation) {
    at = skipSpace(bytes, at)
    if (bytes[at] === C.R && !isRegular(bytes[at + 1])) return [null, at + 1]
  }
  return [value, end]
}

const skipSpace = (bytes: Uint8Array, i: number) => {
  while (i < bytes.length && isSpace(bytes[i])) i++
  return i
}

/** Past a comment: to the end of its line. */
function skipComment(bytes: Uint8Array, i: number): number {
  while (i < bytes.length && bytes[i] !== C.lf && bytes[i] !== C.cr) i++
  return i
}

/** Past a literal string: balanced parentheses, a backslash escaping the next byte. */
function skipLiteralString(bytes: Uint8Array, i: number): number {
  let depth = 0
  while (i < bytes.length) {
    const c = bytes[i]!
    if (c === C.backslash) i += 2
    else {
      if (c === C.open) depth++
      else if (c === C.close && --depth === 0) return i + 1
      i++
    }
  }
  return i
}

/** Past a hexadecimal string `<…>`. */
function skipHexString(bytes: Uint8Array, i: number): number {
  const end = bytes.indexOf(C.greater, i + 1)
  return end < 0 ? bytes.length : end + 1
}

/**
 * Past a stream's data, from just after the `stream` keyword to just after the next
 * `endstream`, noting it when its dictionary made it a FlateDecode object stream.
 */
function skipStream(bytes: Uint8Array, i: number, dictionary: Frame | null, scan: PdfScan): number {
  // The data starts after the keyword's end of line: CRLF or LF (§7.3.8.1).
  let start = i
  if (bytes[start] === C.cr) start++
  if (bytes[start] === C.lf) start++
  let at = bytes.indexOf(C.e, start)
  while (at >= 0 && !matchesAt(bytes, at, ENDSTREAM)) at = bytes.indexOf(C.e, at + 1)
  const end = at < 0 ? bytes.length : at
  if (dictionary?.type === 'ObjStm' && dictionary.flate) scan.objectStreams.push({ start, end })
  return at < 0 ? bytes.length : at + ENDSTREAM.length
}
