import { turnPolicy } from '../compaction/policy'
import { ServiceError } from '../contract/errors'
import type { MessageEvent } from '../core'
import type { TurnDeps } from '../turns/session'
import { sealCapsule } from './capsule'
import type { DoorRequest } from './request'
import { storeNewMessages } from './turn'

/** What a Responses client's compaction request is answered with. */
export interface DoorCompaction {
  /** The capsule naming the view as it stands after the pass (see `./capsule`). */
  capsule: string
  /** The event it names: the pass's boundary, else the view's last event ('' for an empty view). */
  eventId: string
  /** The view's last event after the pass: what the answer's response id names, so a later `previous_response_id` goes on from it. */
  tipId: string
  /** The user messages of the view after the pass (not summaries), in order. */
  userMessages: MessageEvent[]
}

/**
 * A Responses client's compaction (`POST /v1/responses/compact`, a `compaction_trigger` item):
 * what the request holds that the session does not is stored first, as a turn would store it but
 * without a model call; then a pass of the session's strategy runs now, with a summary; the
 * answer is a capsule naming the view after it — even when the pass covered nothing.
 *
 * @example
 * const { capsule } = await doorCompaction(input, deps)
 */
export async function doorCompaction(input: DoorRequest, deps: TurnDeps, userId: string): Promise<DoorCompaction> {
  await storeNewMessages(input, deps)
  const { session, models } = deps
  const state = await session.promptState()
  if (!state) throw new ServiceError('invalid_request', 'input: the session holds nothing to compact yet')
  const policy = turnPolicy({ requested: undefined, session: state.policy, deployment: deps.deploymentPolicy, summaries: true })
  const modelName = input.request.model ?? models.chatModel
  const result = await deps.compactor.run(session, session.info(), {
    trigger: { always: true },
    strategy: policy?.strategy ?? {},
    model: { promptBudget: models.contextTokensOf(modelName) - models.replyTokens, ratio: state.calibration.ratio },
    spend: deps.limiter?.spend,
  })
  const { view } = await session.readView()
  const users: number[] = []
  for (let p = 0; p < view.length; p++) if (view.role(p) === 'user' && !view.synthetic(p)) users.push(view.seq(p))
  const tipId = view.length > 0 ? (await session.readIds(Int32Array.of(view.seq(view.length - 1))))[0]! : ''
  const eventId = result.boundary?.id ?? tipId
  const secret = session.capsuleKey(true)!
  return {
    capsule: await sealCapsule(secret, { userId, sessionId: session.info().id, eventId }),
    eventId,
    tipId,
    userMessages: await session.readEvents(Int32Array.from(users)),
  }
}
