import { type Outcome, toOutcome } from '../contract/errors'
import { LIMITS } from '../contract/limits'
import type { ImportLines, ImportResultJson, TurnInput } from '../contract/schemas'
import type { SessionAddress } from '../contract/session-address'
import type { ClientMessage, MessageEvent, SessionEvent } from '../core'
import {
  appendHistory,
  countPromptTokens,
  type DoorInput,
  doorCompaction,
  doorTurn,
  type StoredDoorAnswer,
  storedDoorAnswer,
} from '../doors'
import { type ImportedHistory, importHistory } from '../doors/import-history'
import { limitsOf } from '../rate-limits'
import { newNotice } from '../store/session/notices'
import type { NewSessionInput } from '../store/session/session-row'
import { StoredSession } from '../store/session/stored-session'
import { runTurn } from '../turns/run-turn'
import type { TurnSession } from '../turns/session'
import { type FrameBody, wholeWhenSmall } from './frames'
import { type JsonBody, SessionStorageObject } from './session-storage-object'
import { userTurnLimiter } from './turn-limiter'
import type { RunSettings } from './turn-runner'

export type { AppendResult } from '../store/session/stored-session'
export type { JsonBody }

/**
 * One chat session: its append-only event log in this object's SQLite storage, every append
 * serialized by the object (see {@link StoredSession}). Each HTTP request makes one RPC call to
 * one of the methods below, which finds the session once and hands it down; each answers an
 * {@link Outcome}, since errors thrown across RPC lose their type. Chat turns, door requests and
 * compaction passes are use cases (`src/turns`, `src/doors`, `src/compaction`) composed here, run
 * on this object's storage one turn at a time.
 */
export class SessionObject extends SessionStorageObject {
  /** The session's message events with these ids (at most {@link LIMITS.chatMessages}), as stored: what a door's item reference names. */
  messagesByIds(ids: string[]): Promise<Outcome<MessageEvent[]>> {
    return toOutcome(() => this.stored.doorReads.messagesByIds(ids.slice(0, LIMITS.chatMessages)))
  }

  /** A stored reply as a door answers it again, with the messages its request added (null: no such reply). */
  storedAnswer(replyId: string): Promise<Outcome<StoredDoorAnswer | null>> {
    return toOutcome(async () => storedDoorAnswer(await this.stored.doorReads.stepOfReply(replyId)))
  }

  /** A page of the lineage's shown messages from the event `fromId` on (null: it is not on the lineage): a Conversations list. */
  readLineage(query: { order: 'asc' | 'desc'; fromId?: string; limit: number }) {
    return toOutcome(() => this.stored.doorReads.lineageMessages(query))
  }

  /** Stores a door's messages as history (see `appendHistory`) after a running turn; the session must exist unless `creates`. */
  appendHistory(
    address: SessionAddress,
    input: { messages: ClientMessage[]; fields: string[]; creates?: NewSessionInput },
  ): Promise<Outcome<SessionEvent[]>> {
    return toOutcome(() =>
      this.runner.exclusive(async () => {
        const session = input.creates ? await this.stored.open(address, input.creates) : await this.stored.openExisting()
        return appendHistory(input.messages, input.fields, { session, estimator: this.estimator })
      }),
    )
  }

  /** An import after a running turn: a `jsonl` export's lines, or a history without ids (`importHistory`). */
  importSession(address: SessionAddress, input: { lines: ImportLines } | { history: ImportedHistory }) {
    return toOutcome(() =>
      this.runner.exclusive(async (): Promise<ImportResultJson> => {
        if ('lines' in input) return this.stored.importEvents(address, input.lines)
        const written = await importHistory(input.history, {
          session: await this.stored.open(address),
          estimator: this.estimator,
        })
        return { imported: written.length, skipped: 0, version: written.at(-1)!.seq }
      }),
    )
  }

  /**
   * Runs a chat turn, creating the session when it does not exist. Answers its frames (see
   * `./frames`): a streamed turn's at once, as a stream; a plain turn's whole when it ends, when
   * small. The turn runs to the end even if the caller stops reading.
   */
  async turn(address: SessionAddress, input: TurnInput): Promise<FrameBody> {
    const frames = this.runner.run(
      () => this.openForTurn(address),
      this.runSettings(address, input.stream === true, false),
      (deps) => runTurn(input, deps),
      (result) => this.stored.answers.turn(result),
    )
    return input.stream ? frames : wholeWhenSmall(frames)
  }

  /** A door's request (see `src/doors`), creating the session when absent; frames as for {@link turn}, `done` a small answer. */
  async door(address: SessionAddress, input: DoorInput): Promise<FrameBody> {
    const frames = this.runner.run(
      () => this.stored.open(address, input.creates),
      // A passthrough neither reads nor writes the session: it waits for no turn.
      { ...this.runSettings(address, input.request.stream === true, true), queued: !input.passthrough },
      (deps) => doorTurn(input, deps),
      (answer) => [JSON.stringify(answer)],
    )
    return input.request.stream ? frames : wholeWhenSmall(frames)
  }

  /** A Responses client's compaction (see `doorCompaction`); frames as for {@link door}, `done` carrying the capsule. */
  doorCompaction(address: SessionAddress, input: DoorInput): Promise<FrameBody> {
    const frames = this.runner.run(
      () => this.stored.open(address, input.creates),
      this.runSettings(address, false, true),
      (deps) => doorCompaction(input, deps, address.userId),
      (result) => [JSON.stringify(result)],
    )
    return wholeWhenSmall(frames)
  }

  /** The tokens of the prompt a door request would send (see `countPromptTokens`): reads, never creates. */
  countTokens(address: SessionAddress, input: DoorInput): Promise<Outcome<number>> {
    return toOutcome(async () =>
      countPromptTokens(input, { session: await this.stored.open(address), estimator: this.estimator }),
    )
  }

  /** The session as a turn runs on it (the turn's port, checked here where storage meets the use case). */
  private async openForTurn(address: SessionAddress): Promise<TurnSession> {
    return this.stored.open(address)
  }

  /** How a turn of this user is answered and limited: the deployment's limits, read here where they apply. */
  private runSettings(address: SessionAddress, stream: boolean, door: boolean): RunSettings {
    return {
      stream,
      door,
      limiter: () => userTurnLimiter(this.env, address.userId, limitsOf(this.env)),
      onFailed: (error) => this.stored.notify(address.userId, [newNotice('turn.failed', address.sessionId, { error })]),
    }
  }
}
