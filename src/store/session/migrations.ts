/**
 * The session object's SQLite schema, versioned: each migration runs once, in order, inside a
 * transaction, and the version table records how far a database has come.
 */
const MIGRATIONS: string[] = [
  // v1: the session row (owner, lifecycle, counters) and the event log.
  `CREATE TABLE session (
     singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
     id TEXT NOT NULL,
     user_id TEXT NOT NULL,
     created_at TEXT NOT NULL,
     expires_at TEXT,
     metadata TEXT NOT NULL,
     policy TEXT,
     version INTEGER NOT NULL,          -- seq of the last event; also the number of events
     boundary_seq INTEGER NOT NULL,     -- seq of the newest COMPACTION event, 0 if none
     view_events INTEGER NOT NULL,
     view_tokens INTEGER NOT NULL,
     turns INTEGER NOT NULL,
     latest_system_seq INTEGER,
     latest_system_tokens INTEGER,
     indexed INTEGER NOT NULL           -- 1 once the user's session index lists it
   );
   CREATE TABLE events (
     seq INTEGER PRIMARY KEY,
     id TEXT NOT NULL UNIQUE,
     type TEXT NOT NULL,
     role TEXT,
     synthetic INTEGER NOT NULL,
     tokens INTEGER NOT NULL,
     timestamp TEXT NOT NULL,
     metadata TEXT NOT NULL,
     body TEXT NOT NULL,                -- JSON of the message or boundary (its first part)
     parts INTEGER NOT NULL             -- how many parts the body has (1 = all in this row)
   );
   CREATE TABLE event_parts (
     seq INTEGER NOT NULL,
     part INTEGER NOT NULL,
     chunk TEXT NOT NULL,
     PRIMARY KEY (seq, part)
   ) WITHOUT ROWID;`,
  // v2: completed chat turns, so a retried turn returns its stored reply.
  `CREATE TABLE turns (
     id TEXT PRIMARY KEY,               -- the user event's id
     first_seq INTEGER NOT NULL,        -- the turn's events: first_seq..last_seq
     last_seq INTEGER NOT NULL,
     user_seq INTEGER NOT NULL,
     reply_seq INTEGER NOT NULL,
     usage TEXT                         -- JSON, as the upstream reported it
   ) WITHOUT ROWID;`,
  // v3: every tool call id and tool response id in the log, so a model's reused id gets a fresh
  // one; filled from the log as it stands (bodies in parts joined in part order).
  `CREATE TABLE tool_ids (id TEXT PRIMARY KEY) WITHOUT ROWID;
   INSERT OR IGNORE INTO tool_ids (id)
     SELECT item.value ->> 'id' FROM events,
       json_each(
         CASE WHEN events.parts = 1 THEN events.body
           ELSE events.body || (SELECT group_concat(chunk, '' ORDER BY part) FROM event_parts WHERE event_parts.seq = events.seq)
         END,
         CASE events.role WHEN 'assistant' THEN '$.toolCalls' ELSE '$.toolResponses' END) AS item
     WHERE events.role IN ('assistant', 'tool') AND item.value ->> 'id' IS NOT NULL;`,
  // v4: the front door — a turn step found by its reply (a retried request), and Idempotency-Keys.
  `CREATE INDEX turns_by_reply ON turns (reply_seq);
   CREATE TABLE idempotency (
     key TEXT PRIMARY KEY,
     hash TEXT NOT NULL,                -- SHA-256 of the request's messages as JSON
     turn_id TEXT NOT NULL              -- the turns row of the step it wrote
   ) WITHOUT ROWID;`,
  // v5: calibration — what the model counts ÷ what we estimate — the last chat call's usage, the
  // number of COMPACTION events (counted once from the log as it stands), and an index of them
  // (only boundaries are in it: appends of messages write nothing more).
  `ALTER TABLE session ADD COLUMN ratio REAL NOT NULL DEFAULT 1;
   ALTER TABLE session ADD COLUMN samples INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE session ADD COLUMN last_usage TEXT;
   ALTER TABLE session ADD COLUMN compactions INTEGER NOT NULL DEFAULT 0;
   UPDATE session SET compactions = (SELECT count(*) FROM events WHERE type = 'COMPACTION');
   CREATE INDEX events_compactions ON events (seq) WHERE type = 'COMPACTION';`,
  // v6: full-text search of every message event (rowid = seq), written with each append; a log
  // stored before it is indexed on first search, in batches, up to the version it had here.
  `CREATE VIRTUAL TABLE search USING fts5(text, tokenize = 'unicode61 remove_diacritics 2');
   CREATE TABLE search_backfill (upto INTEGER NOT NULL, done INTEGER NOT NULL);
   INSERT INTO search_backfill (upto, done) SELECT version, 0 FROM session WHERE version > 0;`,
  // v7: the search index's segments are merged after an append, not inside it (its merge work
  // grows with the index: 3.3 ms of a turn at 1M events); a merge is forced in the append only
  // once a level holds 64 segments.
  `INSERT INTO search (search, rank) VALUES ('automerge', 0);
   INSERT INTO search (search, rank) VALUES ('crisismerge', 64);`,
  // v8: a turn step's record is kept on its events' rows, written with them (no rows of its own):
  // the key event's \`step\` names the reply, the reply's holds the record. Steps written before
  // stay in \`turns\`.
  `ALTER TABLE events ADD COLUMN step TEXT;`,
  // v9: the search index keyed by -seq. FTS5 walks a doclist forward fast and backward slowly (a
  // phrase with a word of every event took 0.9 ms at 1M events newest first, 0.05 ms forward),
  // and a search takes the newest matches first. The log is indexed again, in batches, as at v6.
  `DROP TABLE search;
   CREATE VIRTUAL TABLE search USING fts5(text, tokenize = 'unicode61 remove_diacritics 2');
   INSERT INTO search (search, rank) VALUES ('automerge', 0);
   INSERT INTO search (search, rank) VALUES ('crisismerge', 64);
   DELETE FROM search_backfill;
   INSERT INTO search_backfill (upto, done) SELECT version, 0 FROM session WHERE version > 0;`,
]

/** Brings the database to the newest schema. Cheap when it is there already (one query). */
export function migrate(storage: DurableObjectStorage): void {
  const sql = storage.sql
  sql.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)')
  const row = sql.exec<{ version: number }>('SELECT version FROM schema_version').toArray()[0]
  const current = row?.version ?? 0
  if (current >= MIGRATIONS.length) return
  storage.transactionSync(() => {
    for (let v = current; v < MIGRATIONS.length; v++) sql.exec(MIGRATIONS[v]!)
    if (row) sql.exec('UPDATE schema_version SET version = ?', MIGRATIONS.length)
    else sql.exec('INSERT INTO schema_version (version) VALUES (?)', MIGRATIONS.length)
  })
}
