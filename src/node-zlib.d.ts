/** The part of `node:zlib` the Worker uses: workerd implements it natively (the `nodejs_compat` flag). */
declare module 'node:zlib' {
  type Callback = (error: Error | null, result: Uint8Array) => void
  interface Options {
    /** Decoding stops with a RangeError beyond this many bytes. */
    maxOutputLength?: number
  }
  export function gunzip(buffer: Uint8Array, options: Options, callback: Callback): void
  export function inflate(buffer: Uint8Array, options: Options, callback: Callback): void
  export function brotliDecompress(buffer: Uint8Array, options: Options, callback: Callback): void
}
