/** Schema migrations, applied in order; `PRAGMA user_version` records how many have run. Append only. */
export const migrations: readonly string[] = [
  `CREATE TABLE accounts (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     plan TEXT NOT NULL,
     callback_secret TEXT NOT NULL
   );
   CREATE TABLE api_keys (
     id TEXT PRIMARY KEY,
     account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     name TEXT NOT NULL,
     prefix TEXT NOT NULL,
     hash TEXT NOT NULL UNIQUE,
     scopes TEXT NOT NULL,
     allowed_cidrs TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     revoked_at INTEGER
   );
   CREATE TABLE sessions (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     id TEXT NOT NULL UNIQUE,
     account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     request_id TEXT NOT NULL,
     status TEXT NOT NULL CHECK (status IN ('queued','processing','done','error')),
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL,
     connected_at INTEGER,
     ended_at INTEGER,
     token_hash TEXT NOT NULL UNIQUE,
     model TEXT NOT NULL,
     region TEXT,
     requested_options TEXT NOT NULL,
     applied_options TEXT NOT NULL,
     custom_metadata TEXT,
     result TEXT,
     error TEXT,
     record_audio INTEGER NOT NULL,
     recording_path TEXT,
     audio_duration REAL,
     resume_state TEXT
   );
   CREATE INDEX sessions_account_created ON sessions (account_id, created_at DESC, seq DESC);
   CREATE INDEX sessions_open ON sessions (account_id, status);
   CREATE TABLE llm_callbacks (
     id TEXT PRIMARY KEY,
     account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     request_id TEXT NOT NULL,
     customer_id TEXT NOT NULL,
     status TEXT NOT NULL,
     data TEXT NOT NULL,
     created_at INTEGER NOT NULL
   );`,
  `CREATE TABLE session_checkpoints (
     session_id TEXT PRIMARY KEY,
     state TEXT NOT NULL
   );
   CREATE TABLE session_checkpoint_audio (
     session_id TEXT NOT NULL,
     offset INTEGER NOT NULL,
     bytes BLOB NOT NULL,
     PRIMARY KEY (session_id, offset)
   );
   CREATE TABLE session_checkpoint_finals (
     session_id TEXT NOT NULL,
     idx INTEGER NOT NULL,
     body TEXT NOT NULL,
     PRIMARY KEY (session_id, idx)
   );`,
];
