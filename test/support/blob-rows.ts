import { runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { sessionStub } from '../../src/object/address'

/** The rows of a session's blob tables, counted in its object (an absent session's: none). */
export const blobRows = (id: string, userId = 'alice') =>
  runInDurableObject(sessionStub(env, userId, id), (_instance, state) => {
    const tables = state.storage.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('blobs', 'blob_chunks')")
      .toArray()
    if (tables.length < 2) return { blobs: 0, chunks: 0 }
    return {
      blobs: state.storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM blobs').one().n,
      chunks: state.storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM blob_chunks').one().n,
    }
  })
