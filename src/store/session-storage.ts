import type { BlobUpload } from '../contract/blob-upload'
import type { CreateSessionInput, PatchSessionInput } from '../contract/schemas'
import type { SessionAddress } from '../contract/session-address'
import { type DocumentText, type SessionEvent, SessionExistsError, SessionMissingError, type TokenEstimator } from '../core'
import type { StagedBlob } from '../core/media/blob'
import { Sql } from '../sql'
import type { Notice } from '../webhooks'
import { SessionBlobs } from './log/blobs'
import { SessionBranches } from './log/branches'
import { expiryFrom, expiryOf, hasExpired } from './log/expiry'
import { LogIndexes } from './log/indexes'
import { Lifecycle, type SessionDirectory } from './log/lifecycle'
import { SessionLog } from './log/log'
import { OpenSession, type SessionParts } from './log/open-session'
import { Outbox } from './log/outbox'
import { SessionPins } from './log/pins'
import { PreparedSummaries } from './log/prepared'
import { SessionEnd } from './log/session-end'
import { type NewSessionInput, newRecord, type SessionRecord, SessionRowCache } from './log/session-row'
import { SessionWriter, type WriteListener } from './log/session-writer'
import { StepLog } from './log/step-log'
import { firstMessageTitle, TITLE_LOOKBACK } from './log/title'
import { SessionUndos } from './log/undos'
import { ViewCache } from './log/view-cache'
import { LineageSearch } from './search/lineage-search'
import { RankedSearch } from './search/ranked-search'
import { SessionSearch } from './search/search'
import { SearchFeed, type SearchPort, searchHandOver } from './search/search-feed'

/**
 * A session object's storage: the session row, the event log, the cached view, the record of
 * turn steps and the indexes, in the object's SQLite, composed here. Each request finds the
 * session once ({@link find}: an expired one is wiped and absent); a request that writes opens
 * it ({@link open}) and hands the {@link OpenSession} to its use case (a turn, a pass, a history
 * edit: `src/history`). Storage only stores: it fails with the core's named errors
 * (`session-store/errors`), never an API error.
 */
export class SessionStorage {
  /** The parts use cases read and write through (the writer is the one way anything is written). */
  readonly parts: SessionParts
  /** The session's images and documents. */
  readonly blobs: SessionBlobs
  /** The full-text search index. */
  readonly searchIndex: SessionSearch
  /** The lineage searched through it (`GET /search`, `recall_history`). */
  readonly lineage: LineageSearch
  /** How the session ends: deleted, erased, expired (see {@link SessionEnd}); its alarm. */
  readonly end: SessionEnd
  private readonly lifecycle: Lifecycle

  /**
   * @param idleTtlDefault - SESSION_IDLE_TTL_SECONDS (0: none), read when a session is created without its own.
   * @param across - where its events go for its user's search across sessions (null: nowhere).
   */
  constructor(
    storage: DurableObjectStorage,
    directory: SessionDirectory,
    readonly estimator: TokenEstimator,
    private readonly idleTtlDefault: () => number = () => 0,
    listener: WriteListener | null = null,
    across: SearchPort | null = null,
  ) {
    const sql = new Sql(storage.sql)
    const log = new SessionLog(sql)
    const view = new ViewCache(log)
    this.blobs = new SessionBlobs(sql)
    this.searchIndex = new SessionSearch(
      sql,
      (work) => storage.transactionSync(work),
      (from, to) => log.range(from, to),
      this.blobs.storedText,
    )
    const feed = new SearchFeed(sql, log, this.blobs.storedText)
    const indexed = {
      index: (events: readonly SessionEvent[], documentText: DocumentText) => this.searchIndex.index(events, documentText),
      reset: () => {
        this.searchIndex.reset()
        feed.reset()
      },
    }
    const indexes = new LogIndexes(sql, indexed)
    const row = new SessionRowCache(storage, sql)
    const handOver = across ? searchHandOver(feed, across, () => row.stored()) : null
    this.lifecycle = new Lifecycle(storage, directory, new Outbox(sql, row), handOver)
    const branches = new SessionBranches(sql, log)
    const undos = new SessionUndos(sql)
    const pins = new SessionPins(sql, log)
    const writer = new SessionWriter(
      storage,
      sql,
      log,
      view,
      indexes,
      row,
      this.lifecycle,
      branches,
      undos,
      pins,
      this.blobs,
      listener,
    )
    this.lineage = new LineageSearch(log, view, this.searchIndex, new RankedSearch(sql, this.searchIndex.tables))
    const search = this.lineage
    const { blobs } = this
    this.parts = {
      log,
      view,
      steps: new StepLog(sql, log),
      indexes,
      row,
      writer,
      search,
      branches,
      undos,
      pins,
      blobs,
      prepared: new PreparedSummaries(sql),
    }
    this.end = new SessionEnd(row, writer, this.lifecycle)
  }

  /** The session if it exists: an expired one is wiped on the way and is absent; one not yet listed is listed. */
  async find(): Promise<SessionRecord | null> {
    const { row, writer } = this.parts
    const record = row.stored()
    if (!record) return null
    if (hasExpired(record)) {
      await this.end.expired(record)
      return null
    }
    if (!record.indexed) await writer.syncIndex(record)
    return row.stored()
  }

  /** The session, or {@link SessionMissingError}. */
  async existing(): Promise<SessionRecord> {
    const record = await this.find()
    if (!record) throw new SessionMissingError()
    return record
  }

  /**
   * The session for one request that may create it: its first write does (with `created`), when
   * it does not exist. `blobs`: the images and documents the request brought.
   */
  async open(address: SessionAddress, created?: NewSessionInput, blobs?: ReadonlyMap<string, StagedBlob>): Promise<OpenSession> {
    const found = await this.find()
    // The deployment's defaults are read only for a session this request may create.
    return new OpenSession(this.parts, address, found, found ? (created ?? {}) : this.creating(created ?? {}), blobs)
  }

  /** The session for one request that needs it to exist, or {@link SessionMissingError}. */
  async openExisting(blobs?: ReadonlyMap<string, StagedBlob>): Promise<OpenSession> {
    const record = await this.existing()
    return new OpenSession(this.parts, { userId: record.userId, sessionId: record.id }, record, {}, blobs)
  }

  /** Creates the session with no event; {@link SessionExistsError} when it exists. */
  async create(address: SessionAddress, input: CreateSessionInput): Promise<SessionRecord> {
    return this.createWith(newRecord(address, this.creating(input)), [])
  }

  /**
   * Creates the session with these events, written as `options` says (a fork's, an import's);
   * {@link SessionExistsError} when it exists.
   */
  async createWith(
    record: SessionRecord,
    events: Parameters<SessionWriter['write']>[1],
    options?: Parameters<SessionWriter['write']>[2],
    copied?: BlobUpload | null,
  ): Promise<SessionRecord> {
    if (await this.find()) throw new SessionExistsError(record.id)
    if (copied) {
      // The blobs first, streamed in (a fork's: there may be more than memory should hold), then
      // the events naming them; what an earlier copy left unfinished is cleared first.
      this.parts.row.ensureSchema()
      this.blobs.clear()
      await this.blobs.copy(copied)
      if (await this.find()) throw new SessionExistsError(record.id)
    }
    return (await this.parts.writer.write(record, events, { ...options, blobsCopied: Boolean(copied) })).record
  }

  /** What a session is created with: the input, the deployment's idle expiry when it gives none. */
  creating(input: NewSessionInput): NewSessionInput {
    return input.idleTtlSeconds === undefined ? { ...input, idleTtlSeconds: this.idleTtlDefault() } : input
  }

  /** Changes metadata, policy or expiry (a ttl counted from now); {@link SessionMissingError} when there is no session. */
  async patch(input: PatchSessionInput): Promise<SessionRecord> {
    const record = { ...(await this.existing()) }
    if (input.title === null)
      Object.assign(record, firstMessageTitle(this.parts.log.range(1, Math.min(record.version, TITLE_LOOKBACK))))
    else if (input.title !== undefined) Object.assign(record, { title: input.title, titleSource: 'client' })
    if (input.metadata !== undefined) record.metadata = input.metadata
    if (input.policy !== undefined) record.policy = input.policy
    if (input.ttlSeconds !== undefined) record.fixedExpiresAt = expiryFrom(input.ttlSeconds)
    if (input.idleTtlSeconds !== undefined) record.idleTtlSeconds = input.idleTtlSeconds || null
    record.expiresAt = expiryOf(record)
    this.parts.writer.commit(record, [])
    if (input.ttlSeconds !== undefined || input.idleTtlSeconds !== undefined) await this.lifecycle.schedule(record)
    // The directory lists by expiry, title and metadata: kept in step.
    if (Object.keys(input).some((key) => key !== 'policy')) await this.parts.writer.syncIndex(record)
    return record
  }

  /** Records notices with no change to the log (a failure's), or hands them over at once when the session does not exist. */
  notify(userId: string, notices: Notice[]): Promise<void> {
    return this.parts.writer.notify(userId, notices)
  }
}
