import { ServiceError } from '../../contract/errors'

/** Where a page of the session list ends: the last session's creation time and id. */
export interface ListCursor {
  createdAt: string
  id: string
}

/** A list cursor as the opaque string clients pass back. */
export const encodeCursor = (cursor: ListCursor): string =>
  btoa(JSON.stringify([cursor.createdAt, cursor.id])).replaceAll('=', '')

/** A cursor this API issued, or a 400 naming `query.cursor`. */
export function decodeCursor(cursor: string): ListCursor {
  try {
    const [createdAt, id] = JSON.parse(atob(cursor)) as unknown[]
    if (typeof createdAt === 'string' && typeof id === 'string') return { createdAt, id }
  } catch {
    // not base64, or not JSON: refused below
  }
  throw new ServiceError('invalid_request', 'query.cursor: not a cursor this API issued')
}
