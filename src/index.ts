/** The Worker entry: the HTTP app and the Durable Object classes it routes to. */
import { app } from './http/app'

export { MemoryStore } from './object/memory-store'
export { RequestShard } from './object/request-shard'
export { SearchShard } from './object/search-shard'
export { SessionObject } from './object/session-object'
export { UserIndex } from './object/user-index'
export default app
