/** The Worker entry: the HTTP app and the Durable Object classes it routes to. */
import { app } from './http/app'

export { SessionObject } from './store/session'
export { UserIndex } from './store/user-index'
export default app
