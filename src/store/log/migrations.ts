/**
 * The session object's SQLite schema, versioned: each migration runs once, in order, inside a
 * transaction, and the version table records how far a database has come. A change to the schema
 * is a new migration appended here, never an edit of one that ran: SQL, or a function where what
 * it does depends on what the database holds.
 */
const MIGRATIONS: (string | ((sql: SqlStorage) => void))[] = [
  // v1: the session row, the event log, and what is kept beside it to look events up by.
  `CREATE TABLE session (
     singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
     id TEXT NOT NULL,
     user_id TEXT NOT NULL,
     created_at TEXT NOT NULL,
     expires_at TEXT,
     metadata TEXT NOT NULL,
     policy TEXT,
     version INTEGER NOT NULL,          -- seq of the last event; also the number of events
     boundary_seq INTEGER NOT NULL,     -- seq of the newest boundary (COMPACTION, REWIND), 0 if none
     view_events INTEGER NOT NULL,
     view_tokens INTEGER NOT NULL,
     turns INTEGER NOT NULL,
     latest_system_seq INTEGER,
     latest_system_tokens INTEGER,
     indexed INTEGER NOT NULL,          -- 1 once the user's session index lists it
     ratio REAL NOT NULL,               -- calibration: what the model counts ÷ what we estimate
     samples INTEGER NOT NULL,
     last_usage TEXT,                   -- the last chat call's usage, JSON
     compactions INTEGER NOT NULL       -- how many COMPACTION events the log holds
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
     parts INTEGER NOT NULL,            -- how many parts the body has (1 = all in this row)
     step TEXT                          -- a turn step's record: on its key event, where its reply is; on the reply, the step
   );
   -- Only boundaries are in it: appends of messages write nothing more.
   CREATE INDEX events_compactions ON events (seq) WHERE type = 'COMPACTION';
   CREATE TABLE event_parts (
     seq INTEGER NOT NULL,
     part INTEGER NOT NULL,
     chunk TEXT NOT NULL,
     PRIMARY KEY (seq, part)
   ) WITHOUT ROWID;
   -- Every tool call id and tool response id in the log: a model's reused id gets a fresh one.
   CREATE TABLE tool_ids (id TEXT PRIMARY KEY) WITHOUT ROWID;
   CREATE TABLE idempotency (
     key TEXT PRIMARY KEY,
     hash TEXT NOT NULL,                -- SHA-256 of the request's messages as JSON
     turn_id TEXT NOT NULL              -- the id of the step's key event
   ) WITHOUT ROWID;
   -- Full-text search of every message event, keyed by -seq: FTS5 walks a doclist forward fast
   -- and backward slowly, and a search takes the newest matches first. Segments are merged after
   -- an append, not inside it (their merge work grows with the index); a merge is forced in the
   -- append only once a level holds 64 segments.
   CREATE VIRTUAL TABLE search USING fts5(text, tokenize = 'unicode61 remove_diacritics 2');
   INSERT INTO search (search, rank) VALUES ('automerge', 0);
   INSERT INTO search (search, rank) VALUES ('crisismerge', 64);`,
  // v2: rewinds, found by seq when a view as of a point or the lineage is read, and counted.
  `CREATE INDEX events_rewinds ON events (seq) WHERE type = 'REWIND';
   ALTER TABLE session ADD COLUMN rewinds INTEGER NOT NULL DEFAULT 0;`,
  // v3: the branches rewinds abandoned, each recorded with the REWIND that abandoned it, and counted.
  `CREATE TABLE branches (
     rewind_seq INTEGER PRIMARY KEY,    -- the REWIND that took the run off the lineage
     first_id TEXT NOT NULL,            -- its first message event
     tip_id TEXT NOT NULL,              -- its last: a rewind at it brings the branch back
     events INTEGER NOT NULL,           -- its message events
     headline TEXT NOT NULL             -- its first text, at most 200 characters
   );
   ALTER TABLE session ADD COLUMN branches INTEGER NOT NULL DEFAULT 0;`,
  // v4: a fork's source: the session and the point it was forked at (JSON), null when not a fork.
  `ALTER TABLE session ADD COLUMN forked_from TEXT;`,
  // v5: where a branch went on from, so the alternatives at a point are found by it.
  `ALTER TABLE branches ADD COLUMN first_seq INTEGER;
   ALTER TABLE branches ADD COLUMN parent_id TEXT;      -- the message it went on from; NULL: the start
   ALTER TABLE branches ADD COLUMN parent_seq INTEGER;  -- its seq, 0 for the start; NULL: recorded before v5
   UPDATE branches SET first_seq = (SELECT seq FROM events WHERE events.id = branches.first_id);`,
  // v6: undos, each by the pass it took back, so a page of compactions says which are undone.
  `CREATE TABLE undos (
     undo_seq INTEGER PRIMARY KEY,      -- the COMPACTION that undoes
     pass_seq INTEGER NOT NULL          -- the pass it undoes
   );
   CREATE INDEX undos_pass ON undos (pass_seq);`,
  // v7: how the last background pass failed (JSON { error, at }), null when it did not.
  `ALTER TABLE session ADD COLUMN last_compaction_error TEXT;`,
  // v8: pins. What is pinned on the lineage now (kept in step with every write), the messages
  // appended pinned, and PINS events found by seq: a rewind folds those on its lineage again.
  `CREATE TABLE pins (id TEXT PRIMARY KEY, seq INTEGER NOT NULL) WITHOUT ROWID;
   CREATE TABLE pinned_appends (seq INTEGER PRIMARY KEY, id TEXT NOT NULL);
   CREATE INDEX events_pins ON events (seq) WHERE type = 'PINS';
   ALTER TABLE session ADD COLUMN pin_events INTEGER NOT NULL DEFAULT 0;`,
  // v9: an idle expiry: the session expires this long after its last append (null: none).
  `ALTER TABLE session ADD COLUMN idle_ttl_seconds INTEGER;`,
  // v10: the secret a Responses compaction capsule is signed with (hex; made on first use).
  `ALTER TABLE session ADD COLUMN capsule_key TEXT;`,
  // v11: the expiry a ttl fixed (apart from an idle one), and when the last append was.
  `ALTER TABLE session ADD COLUMN fixed_expires_at TEXT;
   ALTER TABLE session ADD COLUMN last_append_at TEXT;`,
  // v12: the outbox: notices written with the change that caused them, until the user's index
  // object has taken them; what the session's model calls spent (JSON totals); whether it was erased.
  `CREATE TABLE outbox (seq INTEGER PRIMARY KEY, notice TEXT NOT NULL);
   ALTER TABLE session ADD COLUMN usage TEXT;
   ALTER TABLE session ADD COLUMN erased INTEGER NOT NULL DEFAULT 0;`,
  // v13: the few notices waiting between two hand-overs, in the session row (JSON; more go to the table).
  `ALTER TABLE session ADD COLUMN notices TEXT;`,
  // v14: the search index's pages smaller (500 bytes: SEARCH_PAGE_BYTES, which the search's tests
  // hold it to), so that a segment of a thousand events has a doclist index for a word of every
  // event, and a level of it merged once it holds 2 segments, not 4 (see SessionSearch.mergeSoon).
  // Segments written before keep their pages until merging rewrites them.
  `INSERT INTO search (search, rank) VALUES ('pgsz', 500);
   INSERT INTO search (search, rank) VALUES ('usermerge', 2);`,
  // v15: images and documents, stored once by their SHA-256 (`blobs`: what the bytes are;
  // `blob_chunks`: the bytes, in pieces under a value's limit).
  `CREATE TABLE blobs (hash TEXT PRIMARY KEY, media_type TEXT NOT NULL, bytes INTEGER NOT NULL,
     chunks INTEGER NOT NULL, width INTEGER, height INTEGER, pages INTEGER) WITHOUT ROWID;
   CREATE TABLE blob_chunks (hash TEXT NOT NULL, n INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (hash, n)) WITHOUT ROWID;`,
  // v16: where each tool call id was first written (its call's event, or a result's without one),
  // so that recall by a call's id finds its result a few rows on (null for ids written before).
  `ALTER TABLE tool_ids ADD COLUMN seq INTEGER;`,
  // v17: words found by their English stems: the index made with FTS5's porter tokenizer. A
  // session holding events keeps its old index as `search_exact`, which answers its searches
  // while the new one is filled from the log, newest first, in the background (`search_rebuild`:
  // the events below `below` are not in it yet; see store/search/search-tables.ts).
  (sql) => {
    const held = sql.exec('SELECT max(seq) AS newest FROM events').one().newest as number | null
    if (held === null) sql.exec('DROP TABLE search')
    else sql.exec('ALTER TABLE search RENAME TO search_exact')
    sql.exec(`CREATE VIRTUAL TABLE search USING fts5(text, tokenize = 'porter unicode61 remove_diacritics 2');
      INSERT INTO search (search, rank) VALUES ('automerge', 0);
      INSERT INTO search (search, rank) VALUES ('crisismerge', 64);
      INSERT INTO search (search, rank) VALUES ('pgsz', 500);
      INSERT INTO search (search, rank) VALUES ('usermerge', 2);
      CREATE TABLE search_rebuild (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), below INTEGER NOT NULL);`)
    if (held !== null) sql.exec('INSERT INTO search_rebuild (singleton, below) VALUES (1, ?)', held + 1)
  },
  // v18: how far the session's events were handed to its user's search across sessions, and over
  // how many shards then (another count starts over). No row: none was (see store/search/search-feed.ts).
  `CREATE TABLE search_feed (
     singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
     shards INTEGER NOT NULL,
     shipped INTEGER NOT NULL           -- the seq up to which every event was handed over
   );`,
  // v19: the session's title and who gave it (client, model, first_message; null: none yet), and
  // the start of its first user message (what a listing's `q` looks in, with the title).
  `ALTER TABLE session ADD COLUMN title TEXT;
   ALTER TABLE session ADD COLUMN title_source TEXT;
   ALTER TABLE session ADD COLUMN first_message TEXT;`,
  // v20: the prompt and cached prompt tokens of the session's last chat calls (at most 20), JSON
  // [[prompt, cached], …]: `/context`'s cache figures, kept in the row its writes rewrite anyway.
  'ALTER TABLE session ADD COLUMN recent_usage TEXT;',
  // v21: the summaries prepared ahead of a pass (round4 §6): beside the log, never in it; the few
  // of the newest preparation, each with its range as seqs (Int32, the platform's byte order).
  `CREATE TABLE prepared_summary (
     slot INTEGER PRIMARY KEY,
     summarizer TEXT NOT NULL,          -- which summarizer wrote it: its options, as JSON
     prior BLOB NOT NULL,               -- the view's prior summary it rolled in, by seq
     covered BLOB NOT NULL,             -- the conversation it covers, by seq, in view order
     messages TEXT NOT NULL,            -- the summary turn, JSON [{role, content}, …]
     title TEXT,
     tokens INTEGER NOT NULL,           -- the summary's estimated tokens
     prepared_at TEXT NOT NULL
   );`,
]

/**
 * Brings the database to the newest schema (a test may stop at an older `version`). Cheap when it
 * is there already (one query). A database from a build newer than this one is refused rather
 * than read wrong.
 */
export function migrate(storage: DurableObjectStorage, version = MIGRATIONS.length): void {
  const sql = storage.sql
  sql.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)')
  const row = sql.exec<{ version: number }>('SELECT version FROM schema_version').toArray()[0]
  const current = row?.version ?? 0
  if (current > MIGRATIONS.length) {
    throw new Error(`this session's storage is at schema v${current}; this build reads v${MIGRATIONS.length} and before`)
  }
  if (current >= version) return
  storage.transactionSync(() => {
    for (let v = current; v < version; v++) {
      const migration = MIGRATIONS[v]!
      if (typeof migration === 'string') sql.exec(migration)
      else migration(sql)
    }
    if (row) sql.exec('UPDATE schema_version SET version = ?', version)
    else sql.exec('INSERT INTO schema_version (version) VALUES (?)', version)
  })
}
