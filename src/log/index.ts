/**
 * Structured logs: one JSON object per line, which Workers Logs indexes by field. Never log a
 * token, a secret or message content; ids, codes and counts are enough to follow a request.
 *
 * @example
 * log.warn('summarizer failed; the view is left unchanged', { session: 'chat-1' })
 */
type Data = Record<string, unknown>

const write = (level: 'info' | 'warn' | 'error', message: string, data: Data) =>
  console[level](JSON.stringify({ level, message, ...data }))

export const log = {
  info: (message: string, data: Data = {}) => write('info', message, data),
  warn: (message: string, data: Data = {}) => write('warn', message, data),
  error: (message: string, data: Data = {}) => write('error', message, data),
}
