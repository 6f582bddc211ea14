/**
 * Requests the Worker makes to its own routes for a caller it has already authenticated, each
 * with the user it was made for. Keyed by the Request object itself: nothing sent from outside
 * can name an entry (no header or value vouches), and a copy of a vouched request is not one.
 */
const vouched = new WeakMap<Request, string>()

/**
 * `request`, vouched for as `userId`'s: the auth middleware takes the user from here instead of
 * verifying the request's token again (the rest of the chain, its limits included, runs as for
 * any request). Only for requests made inside the Worker for a user verified on the way in.
 *
 * @example
 * app.fetch(vouchedFor(new Request(url, init), c.get('userId')), c.env, c.executionCtx)
 */
export function vouchedFor(request: Request, userId: string): Request {
  vouched.set(request, userId)
  return request
}

/** The user `request` was vouched for as by {@link vouchedFor}, if it was. */
export const vouchedUser = (request: Request): string | undefined => vouched.get(request)
