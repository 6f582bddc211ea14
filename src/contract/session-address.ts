/** Which session a call is about: the session object is named by this pair. */
export interface SessionAddress {
  userId: string
  sessionId: string
}
