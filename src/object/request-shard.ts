import { DurableObject } from 'cloudflare:workers'
import { RequestWindow } from '../rate-limits'

/**
 * One of the objects a user's request limit is counted in (see `./request-limit`): its share of
 * the limit, this minute. Nothing else lives here, so a request costs it one row written.
 */
export class RequestShard extends DurableObject<Env> {
  private readonly requests: RequestWindow

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.requests = new RequestWindow(ctx.storage.sql)
  }

  /** Counts a request against `share`, or answers when the minute that refused it ends. */
  admit(share: number): number | null {
    return this.requests.admit(share, Date.now())
  }

  /** Takes back a request counted this minute (false: none was). */
  takeBack(): boolean {
    return this.requests.takeBack(Date.now())
  }
}
