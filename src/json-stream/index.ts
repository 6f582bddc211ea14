/**
 * Large responses as byte streams made from JSON text generated piece by piece: an RPC value is
 * limited to 32 MiB while a stream is not, and a stream pulled as it is read holds one chunk at a
 * time, whatever the response's size.
 */

/** UTF-16 characters gathered into one chunk before it is encoded and handed on. */
const CHUNK_CHARS = 64 * 1024

/**
 * A byte stream of the given pieces of text, generated only as the reader pulls: a piece is
 * asked for when the chunk before it was taken. A generator that throws errors the stream (the
 * reader sees a failed body, never a silently cut one); a reader that cancels closes it.
 *
 * @example
 * return jsonStream(jsonObject({ version: '3', events: jsonArray(eventTexts) }))
 */
export function jsonStream(pieces: Iterable<string>): ReadableStream<Uint8Array> {
  let source: Iterator<Uint8Array> | null = null
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        source ??= encodedChunks(pieces)
        const next = source.next()
        if (next.done) controller.close()
        else controller.enqueue(next.value)
      },
      cancel() {
        source?.return?.()
      },
    },
    { highWaterMark: 0 },
  )
}

/** Characters of JSON an answer may have to be handed over whole. */
const WHOLE_CHARS = 256 * 1024

/**
 * An RPC answer made of JSON text generated piece by piece: the text itself when it ends within
 * 256 Ki characters (a string crosses RPC faster than a stream: see BENCHMARKS.md), else a stream
 * of it ({@link jsonStream}) going on from where the pieces were read to. A generator that throws
 * while the text is gathered throws here.
 *
 * @example
 * return jsonAnswer(jsonObject({ version: '3', events: jsonArray(eventTexts) })) // a string, mostly
 */
export function jsonAnswer(pieces: Iterable<string>): string | ReadableStream<Uint8Array> {
  const rest = pieces[Symbol.iterator]()
  let text = ''
  for (let next = rest.next(); !next.done; next = rest.next()) {
    text += next.value
    if (text.length > WHOLE_CHARS) return jsonStream(continued(text, rest))
  }
  return text
}

/** `first`, then what is left of `rest` (a cancelled stream closes `rest` too). */
function* continued(first: string, rest: Iterator<string>): Generator<string> {
  try {
    yield first
    yield* { [Symbol.iterator]: () => rest }
  } finally {
    rest.return?.()
  }
}

/**
 * The pieces gathered into chunks of about 64 Ki characters, UTF-8 encoded, each made only when
 * it is asked for. Pieces never end inside a surrogate pair (JSON text of whole values), so
 * encoding chunk by chunk is exact.
 */
export function* encodedChunks(pieces: Iterable<string>): Generator<Uint8Array> {
  const encoder = new TextEncoder()
  let text = ''
  for (const piece of pieces) {
    text += piece
    if (text.length >= CHUNK_CHARS) {
      yield encoder.encode(text)
      text = ''
    }
  }
  if (text !== '') yield encoder.encode(text)
}

/** JSON text, whole or as pieces generated when they are reached. */
export type JsonText = string | Iterable<string>

/**
 * JSON text made when it is reached: a value known only once the pieces before it are written
 * (how many events a page held, say).
 */
export const jsonLater = (make: () => string): Iterable<string> => ({
  *[Symbol.iterator]() {
    yield make()
  },
})

/** A JSON array of items already written as JSON text. */
export function* jsonArray(items: Iterable<JsonText>): Generator<string> {
  yield '['
  let first = true
  for (const item of items) {
    if (!first) yield ','
    first = false
    if (typeof item === 'string') yield item
    else yield* item
  }
  yield ']'
}

/**
 * The JSON text of each field of an object of type `T`, in the order it is written: every field
 * `T` requires, maybe those it has as optional, no other (a field a response schema gains is a
 * type error until its writer writes it).
 */
export type JsonFields<T> = { [K in keyof T]: JsonText }

/**
 * A JSON object whose values are JSON text, each given whole or as pieces (generated when
 * reached), typed by the object it stands for.
 *
 * @example
 * jsonObject<ViewJson>({ events: jsonArray(texts), tokens: '12', turns: '1', version: '3' })
 */
export function* jsonObject<T extends object = Record<string, unknown>>(fields: JsonFields<T>): Generator<string> {
  let first = true
  for (const [key, value] of Object.entries(fields) as [string, JsonText][]) {
    yield `${first ? '{' : ','}${JSON.stringify(key)}:`
    first = false
    if (typeof value === 'string') yield value
    else yield* value
  }
  yield first ? '{}' : '}'
}

/** Strings at least this long are sent apart from the rest of a request's JSON when JSON writes them as they are. */
const LONG_CHARS = 64 * 1024
/** What JSON writes as it is, one byte a character: printable ASCII but `"` and `\` (base64, a data URL). */
const NEEDS_ESCAPE_OR_WIDE = /[^\x20\x21\x23-\x5b\x5d-\x7e]/

/** A request body's JSON as a byte stream of known length (see {@link requestJson}). */
export interface StreamedJson {
  /** Its length in bytes, for a Content-Length. */
  bytes: number
  /** Its bytes, made as they are read (a new stream each call: a retry sends it again). */
  stream(): ReadableStream<Uint8Array>
}

/**
 * A request body's JSON, its long strings that JSON writes as they are (an image's base64, a data
 * URL) not copied into one text: `JSON.stringify` of a prompt carrying 32 MB of images builds that
 * text at several times its size on the way (BENCHMARKS.md). The rest is written whole, and each
 * such string is encoded a slice at a time as the body is read. A value without one is its JSON
 * text, as `JSON.stringify` writes it (the stream's bytes are the same text).
 *
 * @example
 * const json = requestJson({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: dataUrl } }] }] })
 * const body = typeof json === 'string' ? json : json.stream()
 */
export function requestJson(value: unknown): string | StreamedJson {
  if (!holdsLong(value)) return JSON.stringify(value)
  const long: string[] = []
  const mark = `long-${crypto.randomUUID()}-`
  const skeleton = JSON.stringify(value, (_key, item: unknown) =>
    typeof item === 'string' && item.length >= LONG_CHARS && !NEEDS_ESCAPE_OR_WIDE.test(item)
      ? `${mark}${long.push(item) - 1}`
      : item,
  )
  if (long.length === 0) return skeleton
  // Split at each `"<mark><n>"`: the text between, then the string's index, in turn.
  const parts = skeleton.split(new RegExp(`"${mark}(\\d+)"`))
  const encoder = new TextEncoder()
  let bytes = 0
  parts.forEach((part, i) => {
    bytes += i % 2 === 0 ? encoder.encode(part).byteLength : long[Number(part)]!.length + 2
  })
  function* pieces(): Generator<string> {
    for (const [i, part] of parts.entries()) {
      if (i % 2 === 0) {
        yield part
        continue
      }
      const text = long[Number(part)]!
      yield '"'
      for (let at = 0; at < text.length; at += CHUNK_CHARS) yield text.slice(at, at + CHUNK_CHARS)
      yield '"'
    }
  }
  return { bytes, stream: () => jsonStream(pieces()) }
}

/** Whether a value holds a string of at least {@link LONG_CHARS} characters, at any depth. */
function holdsLong(value: unknown): boolean {
  if (typeof value === 'string') return value.length >= LONG_CHARS
  if (typeof value !== 'object' || value === null) return false
  for (const item of Array.isArray(value) ? value : Object.values(value)) if (holdsLong(item)) return true
  return false
}
