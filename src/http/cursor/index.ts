import { ServiceError } from '../../contract/errors'

/** Where a page of the session list ends: the last session's time in the list's order (its creation or its last update), and id. */
export interface ListCursor {
  at: string
  id: string
  order: 'created' | 'updated'
}

/** A list cursor as the opaque string clients pass back (a list by creation keeps the form it had before orders). */
export const encodeCursor = (cursor: ListCursor): string =>
  btoa(JSON.stringify(cursor.order === 'created' ? [cursor.at, cursor.id] : [cursor.at, cursor.id, cursor.order])).replaceAll(
    '=',
    '',
  )

/** A cursor this API issued, or a 400 naming `query.cursor`. */
export function decodeCursor(cursor: string): ListCursor {
  try {
    const [at, id, order = 'created', ...rest] = JSON.parse(atob(cursor)) as unknown[]
    if (typeof at === 'string' && typeof id === 'string' && (order === 'created' || order === 'updated') && rest.length === 0) {
      return { at, id, order }
    }
  } catch {
    // not base64, or not JSON: refused below
  }
  throw new ServiceError('invalid_request', 'query.cursor: not a cursor this API issued')
}
