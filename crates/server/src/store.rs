//! Durable storage of rooms: SQLite (WAL mode) embedded for one machine, PostgreSQL for a
//! cluster ([`postgres`]), or nowhere (a LAN host may not need it).
//!
//! [`Store`] is what rooms hold: one handle over whichever backend the server runs with. Both
//! durable backends implement [`Storage`], the contract at the level of stored JSON records,
//! and pass one shared test suite (`tests/storage.rs`).
//!
//! SQLite: one writer thread owns the connection. Rooms send it their [`RoomRecord`] and wait for the
//! commit before they acknowledge anything; writes that arrive together are committed in one
//! transaction (group commit), each in its own savepoint, so a write the database refuses is
//! refused alone and the others in its batch still commit. `synchronous=FULL`: a committed write survives a crash of the
//! process and of the machine.
//!
//! Checkpoints (copying the WAL back into the database file, with its own `fsync`) run on a
//! second connection in their own thread, so a commit never waits for one: with SQLite's
//! automatic checkpoint the commit that crossed 1,000 WAL pages did that work, every fraction of
//! a second under load, and its moves waited for it.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc};
use std::thread;

use rusqlite::{params, Connection};
use tokio::sync::{oneshot, watch};

use crate::chaturaji::ChaturajiRecord;
use crate::room::RoomRecord;

pub mod patch;
pub mod postgres;

pub use postgres::{GameNumber, PgStore, StoredPlayer};

/// A storage failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite said no.
    #[error("database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// A stored record could not be read back.
    #[error("stored room {code}: {detail}")]
    Corrupt {
        /// The room's code.
        code: String,
        /// What was wrong.
        detail: String,
    },
    /// The database file could not be created or given owner-only permissions.
    #[error("database file {path}: {detail}")]
    File {
        /// The file.
        path: String,
        /// What went wrong.
        detail: String,
    },
    /// The database refused a queued write (a player whose name's skeleton is taken); nothing
    /// of that write was stored.
    #[error("database refused the write: {0}")]
    Refused(String),
    /// The writer thread is gone.
    #[error("the storage thread has stopped")]
    Closed,
    /// PostgreSQL said no, or cannot be reached.
    #[error("postgres: {0}")]
    Postgres(String),
    /// This node no longer owns the room (its lease ran out or another node claimed it): the
    /// write was refused and must not be acknowledged.
    #[error("room {code}: this node no longer owns it (fenced)")]
    Fenced {
        /// The room's code.
        code: String,
    },
    /// A guarded write of players was refused because a player's stored row is no longer the
    /// revision the write was computed from (another node changed it meanwhile, cluster):
    /// nothing was written; read the player again and recompute.
    #[error(
        "player {key} changed since it was read (stored: {}, read: {})",
        revision(*.stored),
        revision(*.expected)
    )]
    StalePlayer {
        /// The player's key.
        key: String,
        /// The revision the write expected (`None`: no row).
        expected: Option<i64>,
        /// The revision stored (`None`: no row).
        stored: Option<i64>,
    },
}

/// A player's revision in messages.
fn revision(rev: Option<i64>) -> String {
    rev.map_or_else(|| "no row".to_owned(), |r| format!("revision {r}"))
}

impl From<tokio_postgres::Error> for StoreError {
    fn from(e: tokio_postgres::Error) -> StoreError {
        // The server's own message when there is one (the Display of a server error is only
        // "db error").
        match e.as_db_error() {
            Some(db) => StoreError::Postgres(format!("{}: {}", db.code().code(), db.message())),
            // The cause ("connection refused") is in the source, not in the Display.
            None => match std::error::Error::source(&e) {
                Some(cause) => StoreError::Postgres(format!("{e}: {cause}")),
                None => StoreError::Postgres(e.to_string()),
            },
        }
    }
}

enum Job {
    Save {
        table: Table,
        code: String,
        json: String,
        /// Players written in the same transaction (a rated game's end).
        players: Vec<PlayerRow>,
        reply: oneshot::Sender<Result<(), String>>,
    },
    Delete {
        table: Table,
        code: String,
        reply: oneshot::Sender<Result<(), String>>,
    },
    /// Players written together (both players of a rated game: one transaction).
    Players {
        rows: Vec<PlayerRow>,
        reply: oneshot::Sender<Result<(), String>>,
    },
    /// A finished game for the profiles (written once: a second one with its key is ignored).
    Game {
        id: u64,
        key: String,
        json: String,
        reply: oneshot::Sender<Result<(), String>>,
    },
}

/// One player as stored: the key and the name's skeleton as columns (the skeleton unique, so
/// the database itself refuses a second look-alike), the rest as a JSON record.
#[derive(Clone, Debug)]
pub struct PlayerRow {
    /// The public key, 64 hex digits.
    pub key: String,
    /// The display name's look-alike skeleton, if the player has a name.
    pub skeleton: Option<String>,
    /// The whole record ([`crate::players::PlayerRecord`]) as JSON.
    pub json: String,
}

/// A player's stored revision as a cluster node read it (`rev: None`: no row), which a guarded
/// write expects to replace (see [`postgres::PgStore::queue_room_with_players`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerRev {
    /// The public key, 64 hex digits.
    pub key: String,
    /// The revision read.
    pub rev: Option<i64>,
}

/// Where rooms are kept: SQLite, PostgreSQL or nowhere. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Store {
    backend: Backend,
}

#[derive(Clone, Debug)]
enum Backend {
    /// SQLite, or nowhere (a store without a writer thread).
    Sqlite(SqliteStore),
    /// PostgreSQL, a cluster's shared database.
    Postgres(Arc<PgStore>),
}

/// The SQLite store (or the store that writes nowhere). Cheap to clone.
#[derive(Clone, Debug)]
pub struct SqliteStore {
    tx: Option<mpsc::Sender<Job>>,
    /// The database file, for reads on their own connection.
    path: Option<PathBuf>,
    /// Closes when the writer thread has committed its last queued job.
    drained: Drained,
}

/// Resolves once every writer of a store has finished its queue, after the last handle of
/// the store was dropped. A clean stop waits for it: writes nobody awaits (a finished game,
/// new ratings) are queued and answered later, and a process that exits first loses them.
#[derive(Clone, Debug, Default)]
pub struct Drained(Option<watch::Receiver<()>>);

impl Drained {
    /// A signal and its writer's half: the writers hold (clones of) the `Arc`, and the signal
    /// resolves once the last is dropped.
    pub(crate) fn new() -> (Drained, Arc<watch::Sender<()>>) {
        let (tx, rx) = watch::channel(());
        (Drained(Some(rx)), Arc::new(tx))
    }

    /// Waits until the writers are gone (at once for a store that writes nowhere).
    pub async fn wait(self) {
        let Some(mut rx) = self.0 else { return };
        while rx.changed().await.is_ok() {}
    }
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Job::Save { code, .. } => write!(f, "Save({code})"),
            Job::Delete { code, .. } => write!(f, "Delete({code})"),
            Job::Players { rows, .. } => write!(f, "Players({})", rows.len()),
            Job::Game { key, .. } => write!(f, "Game({key})"),
        }
    }
}

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS rooms (
    code TEXT PRIMARY KEY NOT NULL,
    record TEXT NOT NULL
)";

const CHATURAJI_SCHEMA: &str = "CREATE TABLE IF NOT EXISTS chaturaji_rooms (
    code TEXT PRIMARY KEY NOT NULL,
    record TEXT NOT NULL
)";

const PLAYERS_SCHEMA: &str = "CREATE TABLE IF NOT EXISTS players (
    key TEXT PRIMARY KEY NOT NULL,
    skeleton TEXT UNIQUE,
    record TEXT NOT NULL
)";

const GAMES_SCHEMA: &str = "CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY NOT NULL,
    key TEXT UNIQUE NOT NULL,
    record TEXT NOT NULL
)";

/// Which kind of room a record holds (and so which table a job writes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoomKind {
    /// A chess room ([`RoomRecord`]).
    Chess,
    /// A Chaturaji room ([`ChaturajiRecord`]).
    Chaturaji,
}

impl RoomKind {
    /// The kind's name as stored (PostgreSQL's `rooms.kind`).
    pub fn as_str(self) -> &'static str {
        match self {
            RoomKind::Chess => "chess",
            RoomKind::Chaturaji => "chaturaji",
        }
    }

    /// The SQLite table of the kind.
    fn table(self) -> &'static str {
        match self {
            RoomKind::Chess => "rooms",
            RoomKind::Chaturaji => "chaturaji_rooms",
        }
    }
}

type Table = RoomKind;

/// Stored records of one kind, each readable or not.
pub type Records<T> = Vec<Result<T, StoreError>>;

fn read_table<T: serde::de::DeserializeOwned>(
    conn: &Connection,
    table: &str,
) -> Result<Records<T>, StoreError> {
    let mut records = Vec::new();
    let mut stmt = conn.prepare(&format!("SELECT code, record FROM {table}"))?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
    for row in rows {
        let (code, json) = row?;
        records.push(
            serde_json::from_str::<T>(&json)
                .map_err(|e| StoreError::Corrupt { code, detail: e.to_string() }),
        );
    }
    Ok(records)
}

/// The rooms a database held when it was opened, not read yet: see [`Store::open_lazy`].
#[derive(Debug)]
pub struct StoredRooms {
    path: PathBuf,
}

impl StoredRooms {
    /// Reads the stored chess and Chaturaji rooms.
    ///
    /// # Errors
    ///
    /// [`StoreError::Sqlite`] if the tables cannot be read; records that cannot be parsed are
    /// errors in the lists.
    pub fn read(self) -> Result<(Records<RoomRecord>, Records<ChaturajiRecord>), StoreError> {
        let conn = Connection::open(&self.path)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        let chess = read_table::<RoomRecord>(&conn, "rooms")?;
        let chaturaji = read_table::<ChaturajiRecord>(&conn, "chaturaji_rooms")?;
        Ok((chess, chaturaji))
    }

    /// Reads the stored players (records as JSON, see [`crate::players`]).
    ///
    /// # Errors
    ///
    /// [`StoreError::Sqlite`] if the table cannot be read.
    pub fn read_players(&self) -> Result<Vec<(String, String)>, StoreError> {
        let conn = Connection::open(&self.path)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        let mut stmt = conn.prepare("SELECT key, record FROM players")?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(StoreError::from)
    }

    /// Reads the stored finished games (records as JSON, see [`crate::history`]), oldest
    /// first.
    ///
    /// # Errors
    ///
    /// [`StoreError::Sqlite`] if the table cannot be read.
    pub fn read_games(&self) -> Result<Vec<String>, StoreError> {
        let conn = Connection::open(&self.path)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        let mut stmt = conn.prepare("SELECT record FROM games ORDER BY id")?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        rows.collect::<Result<Vec<_>, _>>().map_err(StoreError::from)
    }
}

/// Creates the database file readable by its owner only (0600; SQLite gives its `-wal` and
/// `-shm` files the same mode), and tightens an existing one: it holds the games in play.
fn owner_only(path: &Path) -> Result<(), StoreError> {
    let io = |e: std::io::Error| StoreError::File {
        path: path.display().to_string(),
        detail: e.to_string(),
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        std::fs::OpenOptions::new().create(true).append(true).mode(0o600).open(path).map_err(io)?;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(io)?;
    }
    #[cfg(not(unix))]
    let _ = io;
    Ok(())
}

impl SqliteStore {
    /// No persistence: every save succeeds at once and nothing is recovered.
    pub fn memory() -> SqliteStore {
        SqliteStore { tx: None, path: None, drained: Drained::default() }
    }

    /// Opens (creating if needed) the database at `path` and returns the stored rooms.
    ///
    /// # Errors
    ///
    /// [`StoreError::Sqlite`] if the file cannot be opened or set up. Records that cannot be
    /// parsed are returned as errors in the list, not as a failure of the whole open.
    pub fn open(path: &Path) -> Result<(SqliteStore, Records<RoomRecord>), StoreError> {
        let (store, chess, _) = SqliteStore::open_all(path)?;
        Ok((store, chess))
    }

    /// Like [`SqliteStore::open`], also returning the stored Chaturaji rooms.
    ///
    /// # Errors
    ///
    /// As [`Store::open`].
    pub fn open_all(
        path: &Path,
    ) -> Result<(SqliteStore, Records<RoomRecord>, Records<ChaturajiRecord>), StoreError> {
        let (store, stored) = SqliteStore::open_lazy(path)?;
        let (chess, chaturaji) = stored.read()?;
        Ok((store, chess, chaturaji))
    }

    /// Opens (creating if needed) the database at `path` without reading its rooms: the store
    /// is usable at once and [`StoredRooms::read`] reads them (on its own connection, so while
    /// new rooms are being stored).
    ///
    /// # Errors
    ///
    /// As [`Store::open`].
    pub fn open_lazy(path: &Path) -> Result<(SqliteStore, StoredRooms), StoreError> {
        owner_only(path)?;
        let conn = Connection::open(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.execute(SCHEMA, [])?;
        conn.execute(CHATURAJI_SCHEMA, [])?;
        conn.execute(PLAYERS_SCHEMA, [])?;
        conn.execute(GAMES_SCHEMA, [])?;
        let stored = StoredRooms { path: path.to_owned() };
        // Checkpoints happen in the checkpoint thread, never inside a commit.
        conn.pragma_update(None, "wal_autocheckpoint", 0)?;
        let checkpointer = Connection::open(path)?;
        checkpointer.busy_timeout(std::time::Duration::from_secs(5))?;
        let (tx, rx) = mpsc::channel::<Job>();
        let (committed, commits) = mpsc::sync_channel::<()>(1);
        let thread_error =
            |e: std::io::Error| StoreError::Corrupt { code: String::new(), detail: e.to_string() };
        thread::Builder::new()
            .name("maharajah-checkpoint".into())
            .spawn(move || checkpoints(&checkpointer, &commits))
            .map_err(thread_error)?;
        let (drained, alive) = Drained::new();
        thread::Builder::new()
            .name("maharajah-store".into())
            .spawn(move || {
                writer(conn, rx, &committed);
                drop(alive);
            })
            .map_err(thread_error)?;
        Ok((SqliteStore { tx: Some(tx), path: Some(path.to_owned()), drained }, stored))
    }

    /// Whether this store writes anywhere.
    pub fn is_durable(&self) -> bool {
        self.tx.is_some()
    }

    /// Stores a room; returns once committed.
    ///
    /// # Errors
    ///
    /// [`StoreError`] if the write failed; the caller must not acknowledge the change.
    pub async fn save(&self, record: &RoomRecord) -> Result<(), StoreError> {
        self.save_in(Table::Chess, record.code.as_str(), record).await
    }

    /// Stores a Chaturaji room; returns once committed.
    ///
    /// # Errors
    ///
    /// As [`Store::save`].
    pub async fn save_chaturaji(&self, record: &ChaturajiRecord) -> Result<(), StoreError> {
        self.save_in(Table::Chaturaji, record.code.as_str(), record).await
    }

    async fn save_in(
        &self,
        table: Table,
        code: &str,
        record: &impl serde::Serialize,
    ) -> Result<(), StoreError> {
        let Some(tx) = &self.tx else { return Ok(()) };
        let json = serde_json::to_string(record)
            .map_err(|e| StoreError::Corrupt { code: code.to_owned(), detail: e.to_string() })?;
        let (reply, rx) = oneshot::channel();
        tx.send(Job::Save { table, code: code.to_owned(), json, players: Vec::new(), reply })
            .map_err(|_| StoreError::Closed)?;
        rx.await.map_err(|_| StoreError::Closed)?.map_err(StoreError::Refused)
    }

    /// Forgets a room.
    ///
    /// # Errors
    ///
    /// [`StoreError`] if the delete failed.
    pub async fn delete(&self, code: &str) -> Result<(), StoreError> {
        self.delete_in(Table::Chess, code).await
    }

    /// Forgets a Chaturaji room.
    ///
    /// # Errors
    ///
    /// [`StoreError`] if the delete failed.
    pub async fn delete_chaturaji(&self, code: &str) -> Result<(), StoreError> {
        self.delete_in(Table::Chaturaji, code).await
    }

    /// Queues a chess room and players to be written in one transaction, at once (as
    /// [`Store::queue_players`]): a rated game's end and both new ratings, all or nothing.
    ///
    /// # Errors
    ///
    /// [`StoreError::Closed`] if the writer thread is gone; a record that cannot be written.
    pub fn queue_room_with_players(
        &self,
        record: &RoomRecord,
        players: Vec<PlayerRow>,
    ) -> Result<Option<Committed>, StoreError> {
        self.queue_with_players(Table::Chess, record.code.as_str(), record, players)
    }

    /// [`Store::queue_room_with_players`] for a Chaturaji room.
    ///
    /// # Errors
    ///
    /// As [`Store::queue_room_with_players`].
    pub fn queue_chaturaji_with_players(
        &self,
        record: &ChaturajiRecord,
        players: Vec<PlayerRow>,
    ) -> Result<Option<Committed>, StoreError> {
        self.queue_with_players(Table::Chaturaji, record.code.as_str(), record, players)
    }

    fn queue_with_players(
        &self,
        table: Table,
        code: &str,
        record: &impl serde::Serialize,
        players: Vec<PlayerRow>,
    ) -> Result<Option<Committed>, StoreError> {
        let Some(tx) = &self.tx else { return Ok(None) };
        let code = code.to_owned();
        let json = serde_json::to_string(record)
            .map_err(|e| StoreError::Corrupt { code: code.clone(), detail: e.to_string() })?;
        let (reply, rx) = oneshot::channel();
        tx.send(Job::Save { table, code, json, players, reply }).map_err(|_| StoreError::Closed)?;
        Ok(Some(Committed(Answer::Text(rx))))
    }

    /// Queues players to be written in one transaction, at once (no `await`: a caller holding
    /// a lock queues writes in the order it made them); await the answer to know they are
    /// committed. `None` for a store that writes nowhere.
    ///
    /// # Errors
    ///
    /// [`StoreError::Closed`] if the writer thread is gone.
    pub fn queue_players(&self, rows: Vec<PlayerRow>) -> Result<Option<Committed>, StoreError> {
        let Some(tx) = &self.tx else { return Ok(None) };
        let (reply, rx) = oneshot::channel();
        tx.send(Job::Players { rows, reply }).map_err(|_| StoreError::Closed)?;
        Ok(Some(Committed(Answer::Text(rx))))
    }

    /// Queues a finished game (`id`, `key`, its JSON) to be stored once; await the answer to
    /// know it is committed. `None` for a store that writes nowhere.
    ///
    /// # Errors
    ///
    /// [`StoreError::Closed`] if the writer thread is gone.
    pub fn queue_game(
        &self,
        id: u64,
        key: String,
        json: String,
    ) -> Result<Option<Committed>, StoreError> {
        let Some(tx) = &self.tx else { return Ok(None) };
        let (reply, rx) = oneshot::channel();
        tx.send(Job::Game { id, key, json, reply }).map_err(|_| StoreError::Closed)?;
        Ok(Some(Committed(Answer::Text(rx))))
    }

    async fn delete_in(&self, table: Table, code: &str) -> Result<(), StoreError> {
        let Some(tx) = &self.tx else { return Ok(()) };
        let (reply, rx) = oneshot::channel();
        tx.send(Job::Delete { table, code: code.to_owned(), reply })
            .map_err(|_| StoreError::Closed)?;
        rx.await.map_err(|_| StoreError::Closed)?.map_err(StoreError::Refused)
    }
}

/// The answer to [`Store::queue_players`]: resolves once the write is committed.
#[derive(Debug)]
pub struct Committed(Answer);

/// How a backend's writer answers.
#[derive(Debug)]
enum Answer {
    /// SQLite's writer thread: one outcome for a whole batch, an error as text.
    Text(oneshot::Receiver<Result<(), String>>),
    /// PostgreSQL's ordered writer: the error itself (a fenced or stale write stays distinct).
    Store(oneshot::Receiver<Result<(), StoreError>>),
    /// PostgreSQL's ordered writer storing a finished game (its number is not needed here).
    Game(postgres::GameNumber),
}

impl Committed {
    /// Waits for the commit.
    ///
    /// # Errors
    ///
    /// [`StoreError`] if the write failed (nothing of it was stored).
    pub async fn wait(self) -> Result<(), StoreError> {
        match self.0 {
            Answer::Text(rx) => {
                rx.await.map_err(|_| StoreError::Closed)?.map_err(StoreError::Refused)
            }
            Answer::Store(rx) => rx.await.map_err(|_| StoreError::Closed)?,
            Answer::Game(number) => number.wait().await.map(|_| ()),
        }
    }
}

/// Pause between checkpoints: the WAL grows by at most this much traffic before it is copied.
const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_millis(250);

/// Copies the WAL into the database after commits (at most every [`CHECKPOINT_EVERY`]), until
/// the writer is gone. PASSIVE: never blocks the writer; a WAL that was copied whole is reused
/// from its start by the next commit, so it does not grow without bound.
fn checkpoints(conn: &Connection, commits: &mpsc::Receiver<()>) {
    while commits.recv().is_ok() {
        if let Err(e) = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())) {
            tracing::warn!("checkpoint: {e}");
        }
        thread::sleep(CHECKPOINT_EVERY);
    }
    // Last one, so a clean stop leaves a short WAL.
    let _ = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
}

fn writer(mut conn: Connection, rx: mpsc::Receiver<Job>, committed: &mpsc::SyncSender<()>) {
    while let Ok(first) = rx.recv() {
        let mut batch = vec![first];
        while batch.len() < 512 {
            match rx.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        let results = write_batch(&mut conn, &batch);
        // Wake the checkpoint thread (if it is busy or asleep, it sees this later).
        let _ = committed.try_send(());
        for (job, result) in batch.into_iter().zip(results) {
            let reply = match job {
                Job::Save { reply, .. }
                | Job::Delete { reply, .. }
                | Job::Players { reply, .. }
                | Job::Game { reply, .. } => reply,
            };
            // A room that stopped waiting no longer cares.
            let _ = reply.send(result);
        }
    }
}

fn write_players(conn: &Connection, rows: &[PlayerRow]) -> rusqlite::Result<()> {
    for row in rows {
        conn.prepare_cached(
            "INSERT INTO players (key, skeleton, record) VALUES (?1, ?2, ?3)
             ON CONFLICT(key) DO UPDATE SET skeleton = excluded.skeleton, record = excluded.record",
        )?
        .execute(params![row.key, row.skeleton, row.json])?;
    }
    Ok(())
}

/// Writes a batch in one transaction (one WAL flush: group commit), each job inside its own
/// savepoint: a job that fails (a player whose name's skeleton is taken) is rolled back alone
/// and answered with its error, and the others still commit. Returns one result per job, in
/// order; if the transaction itself cannot begin or commit, every job gets that error.
fn write_batch(conn: &mut Connection, batch: &[Job]) -> Vec<Result<(), String>> {
    let whole = |e: rusqlite::Error| vec![Err(e.to_string()); batch.len()];
    let mut tx = match conn.transaction() {
        Ok(tx) => tx,
        Err(e) => return whole(e),
    };
    let mut results = Vec::with_capacity(batch.len());
    for job in batch {
        results.push(write_job(&mut tx, job).map_err(|e| e.to_string()));
    }
    match tx.commit() {
        Ok(()) => results,
        Err(e) => whole(e),
    }
}

/// One job inside its own savepoint of the batch's transaction: all of it or none of it.
fn write_job(tx: &mut rusqlite::Transaction<'_>, job: &Job) -> rusqlite::Result<()> {
    let sp = tx.savepoint()?;
    if let Job::Save { players, .. } = job {
        write_players(&sp, players)?;
    }
    match job {
        Job::Save { table: Table::Chess, code, json, .. } => {
            sp.prepare_cached(
                "INSERT INTO rooms (code, record) VALUES (?1, ?2)
                 ON CONFLICT(code) DO UPDATE SET record = excluded.record",
            )?
            .execute(params![code, json])?;
        }
        Job::Save { table: Table::Chaturaji, code, json, .. } => {
            sp.prepare_cached(
                "INSERT INTO chaturaji_rooms (code, record) VALUES (?1, ?2)
                 ON CONFLICT(code) DO UPDATE SET record = excluded.record",
            )?
            .execute(params![code, json])?;
        }
        Job::Delete { table: Table::Chess, code, .. } => {
            sp.prepare_cached("DELETE FROM rooms WHERE code = ?1")?.execute(params![code])?;
        }
        Job::Delete { table: Table::Chaturaji, code, .. } => {
            sp.prepare_cached("DELETE FROM chaturaji_rooms WHERE code = ?1")?
                .execute(params![code])?;
        }
        Job::Players { rows, .. } => write_players(&sp, rows)?,
        Job::Game { id, key, json, .. } => {
            sp.prepare_cached(
                "INSERT INTO games (id, key, record) VALUES (?1, ?2, ?3)
                 ON CONFLICT DO NOTHING",
            )?
            .execute(params![i64::try_from(*id).unwrap_or(i64::MAX), key, json])?;
        }
    }
    // Dropping a savepoint unreleased rolls it back: an error above undoes only this job.
    sp.commit()
}

fn to_json(code: &str, record: &impl serde::Serialize) -> Result<String, StoreError> {
    serde_json::to_string(record)
        .map_err(|e| StoreError::Corrupt { code: code.to_owned(), detail: e.to_string() })
}

impl Store {
    /// No persistence: every save succeeds at once and nothing is recovered.
    pub fn memory() -> Store {
        Store { backend: Backend::Sqlite(SqliteStore::memory()) }
    }

    /// A cluster node's store: rooms, players and games in PostgreSQL.
    pub fn postgres(store: Arc<PgStore>) -> Store {
        Store { backend: Backend::Postgres(store) }
    }

    /// The PostgreSQL store behind this one, in cluster mode.
    pub fn as_postgres(&self) -> Option<&Arc<PgStore>> {
        match &self.backend {
            Backend::Postgres(pg) => Some(pg),
            Backend::Sqlite(_) => None,
        }
    }

    /// Opens (creating if needed) the SQLite database at `path` and returns the stored rooms.
    ///
    /// # Errors
    ///
    /// As [`SqliteStore::open`].
    pub fn open(path: &Path) -> Result<(Store, Records<RoomRecord>), StoreError> {
        let (store, chess) = SqliteStore::open(path)?;
        Ok((Store { backend: Backend::Sqlite(store) }, chess))
    }

    /// Like [`Store::open`], also returning the stored Chaturaji rooms.
    ///
    /// # Errors
    ///
    /// As [`SqliteStore::open`].
    pub fn open_all(
        path: &Path,
    ) -> Result<(Store, Records<RoomRecord>, Records<ChaturajiRecord>), StoreError> {
        let (store, chess, chaturaji) = SqliteStore::open_all(path)?;
        Ok((Store { backend: Backend::Sqlite(store) }, chess, chaturaji))
    }

    /// Opens the SQLite database at `path` without reading its rooms; see
    /// [`SqliteStore::open_lazy`].
    ///
    /// # Errors
    ///
    /// As [`SqliteStore::open`].
    pub fn open_lazy(path: &Path) -> Result<(Store, StoredRooms), StoreError> {
        let (store, stored) = SqliteStore::open_lazy(path)?;
        Ok((Store { backend: Backend::Sqlite(store) }, stored))
    }

    /// The signal that this store's writers have committed everything queued, once every
    /// handle of the store is dropped; see [`Drained`].
    pub fn drained(&self) -> Drained {
        match &self.backend {
            Backend::Sqlite(s) => s.drained.clone(),
            Backend::Postgres(pg) => pg.drained(),
        }
    }

    /// Whether this store writes anywhere.
    pub fn is_durable(&self) -> bool {
        match &self.backend {
            Backend::Sqlite(s) => s.is_durable(),
            Backend::Postgres(_) => true,
        }
    }

    /// Stores a room; returns once committed.
    ///
    /// # Errors
    ///
    /// [`StoreError`] if the write failed ([`StoreError::Fenced`]: this node no longer owns
    /// the room); the caller must not acknowledge the change.
    pub async fn save(&self, record: &RoomRecord) -> Result<(), StoreError> {
        match &self.backend {
            Backend::Sqlite(s) => s.save(record).await,
            Backend::Postgres(pg) => {
                let code = record.code.as_str();
                pg.put_room(RoomKind::Chess, code, to_json(code, record)?).await
            }
        }
    }

    /// Stores a Chaturaji room; returns once committed.
    ///
    /// # Errors
    ///
    /// As [`Store::save`].
    pub async fn save_chaturaji(&self, record: &ChaturajiRecord) -> Result<(), StoreError> {
        match &self.backend {
            Backend::Sqlite(s) => s.save_chaturaji(record).await,
            Backend::Postgres(pg) => {
                let code = record.code.as_str();
                pg.put_room(RoomKind::Chaturaji, code, to_json(code, record)?).await
            }
        }
    }

    /// Forgets a room.
    ///
    /// # Errors
    ///
    /// [`StoreError`] if the delete failed.
    pub async fn delete(&self, code: &str) -> Result<(), StoreError> {
        match &self.backend {
            Backend::Sqlite(s) => s.delete(code).await,
            Backend::Postgres(pg) => pg.delete_room(RoomKind::Chess, code).await,
        }
    }

    /// Forgets a Chaturaji room.
    ///
    /// # Errors
    ///
    /// [`StoreError`] if the delete failed.
    pub async fn delete_chaturaji(&self, code: &str) -> Result<(), StoreError> {
        match &self.backend {
            Backend::Sqlite(s) => s.delete_chaturaji(code).await,
            Backend::Postgres(pg) => pg.delete_room(RoomKind::Chaturaji, code).await,
        }
    }

    /// Queues a chess room and players to be written in one transaction, at once (as
    /// [`Store::queue_players`]): a rated game's end and both new ratings, all or nothing.
    /// PostgreSQL commits it only if the players' rows are still the revisions `expected`
    /// (see [`PgStore::queue_room_with_players`]); SQLite has one writer, this process, and
    /// needs no guard.
    ///
    /// # Errors
    ///
    /// [`StoreError::Closed`] if the writer is gone; a record that cannot be written.
    pub fn queue_room_with_players(
        &self,
        record: &RoomRecord,
        players: Vec<PlayerRow>,
        expected: Vec<PlayerRev>,
    ) -> Result<Option<Committed>, StoreError> {
        match &self.backend {
            Backend::Sqlite(s) => s.queue_room_with_players(record, players),
            Backend::Postgres(pg) => {
                let code = record.code.as_str();
                let json = to_json(code, record)?;
                pg.queue_room_with_players(RoomKind::Chess, code, json, players, expected).map(Some)
            }
        }
    }

    /// [`Store::queue_room_with_players`] for a Chaturaji room.
    ///
    /// # Errors
    ///
    /// As [`Store::queue_room_with_players`].
    pub fn queue_chaturaji_with_players(
        &self,
        record: &ChaturajiRecord,
        players: Vec<PlayerRow>,
        expected: Vec<PlayerRev>,
    ) -> Result<Option<Committed>, StoreError> {
        match &self.backend {
            Backend::Sqlite(s) => s.queue_chaturaji_with_players(record, players),
            Backend::Postgres(pg) => {
                let code = record.code.as_str();
                let json = to_json(code, record)?;
                pg.queue_room_with_players(RoomKind::Chaturaji, code, json, players, expected)
                    .map(Some)
            }
        }
    }

    /// Queues players to be written in one transaction, at once (no `await`: a caller holding
    /// a lock queues writes in the order it made them); await the answer to know they are
    /// committed. `None` for a store that writes nowhere.
    ///
    /// # Errors
    ///
    /// [`StoreError::Closed`] if the writer is gone.
    pub fn queue_players(&self, rows: Vec<PlayerRow>) -> Result<Option<Committed>, StoreError> {
        self.queue_players_expecting(rows, Vec::new())
    }

    /// [`Store::queue_players`], guarded in PostgreSQL by the revisions `expected` (see
    /// [`PgStore::queue_players`]); SQLite needs no guard.
    ///
    /// # Errors
    ///
    /// As [`Store::queue_players`].
    pub fn queue_players_expecting(
        &self,
        rows: Vec<PlayerRow>,
        expected: Vec<PlayerRev>,
    ) -> Result<Option<Committed>, StoreError> {
        match &self.backend {
            Backend::Sqlite(s) => s.queue_players(rows),
            Backend::Postgres(pg) => pg.queue_players(rows, expected).map(Some),
        }
    }

    /// Queues a finished game (`id`, `key`, its JSON) to be stored once; await the answer to
    /// know it is committed. `None` for a store that writes nowhere. PostgreSQL numbers the
    /// game itself and does not use `id` (a cluster node calls [`PgStore::queue_game`] to
    /// learn the number).
    ///
    /// # Errors
    ///
    /// [`StoreError::Closed`] if the writer is gone.
    pub fn queue_game(
        &self,
        id: u64,
        key: String,
        json: String,
    ) -> Result<Option<Committed>, StoreError> {
        match &self.backend {
            Backend::Sqlite(s) => s.queue_game(id, key, json),
            // The database numbers the game itself (see [`PgStore::queue_game`]).
            Backend::Postgres(pg) => {
                pg.queue_game(key, json).map(|n| Some(Committed(Answer::Game(n))))
            }
        }
    }
}

impl Committed {
    /// A commit answered on `rx` (PostgreSQL's ordered writer sends the outcome).
    pub(crate) fn from_receiver(rx: oneshot::Receiver<Result<(), StoreError>>) -> Committed {
        Committed(Answer::Store(rx))
    }
}

/// What every durable backend does, at the level of stored JSON records: the contract the
/// shared storage suite checks (`tests/storage.rs`) for SQLite and PostgreSQL alike.
///
/// A write returns once committed (a crash afterwards keeps it); a failed write stored nothing.
pub trait Storage: Send + Sync {
    /// Stores room `code` of `kind` as `json` (a new room, or a room's new state).
    fn put_room(
        &self,
        kind: RoomKind,
        code: &str,
        json: String,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// Stores a room and players in one transaction: all or nothing.
    fn put_room_with_players(
        &self,
        kind: RoomKind,
        code: &str,
        json: String,
        players: Vec<PlayerRow>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// Forgets room `code`.
    fn delete_room(
        &self,
        kind: RoomKind,
        code: &str,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// The stored room `code` of `kind`, as JSON.
    fn room(
        &self,
        kind: RoomKind,
        code: &str,
    ) -> impl Future<Output = Result<Option<String>, StoreError>> + Send;
    /// Stores players (one transaction); a second player with a taken skeleton is refused.
    fn put_players(
        &self,
        rows: Vec<PlayerRow>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// Stores a finished game once: a second one with the same key is ignored.
    fn put_game(
        &self,
        id: u64,
        key: String,
        json: String,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// Every stored player: key and record.
    fn players(&self) -> impl Future<Output = Result<Vec<(String, String)>, StoreError>> + Send;
    /// Every stored finished game's record, oldest first.
    fn games(&self) -> impl Future<Output = Result<Vec<String>, StoreError>> + Send;
}

async fn committed(queued: Result<Option<Committed>, StoreError>) -> Result<(), StoreError> {
    match queued? {
        Some(c) => c.wait().await,
        None => Ok(()),
    }
}

impl SqliteStore {
    fn queue_json(
        &self,
        table: Table,
        code: &str,
        json: String,
        players: Vec<PlayerRow>,
    ) -> Result<Option<Committed>, StoreError> {
        let Some(tx) = &self.tx else { return Ok(None) };
        let (reply, rx) = oneshot::channel();
        tx.send(Job::Save { table, code: code.to_owned(), json, players, reply })
            .map_err(|_| StoreError::Closed)?;
        Ok(Some(Committed(Answer::Text(rx))))
    }

    /// Runs `read` on a connection of its own, off the runtime's threads.
    async fn read<T: Send + 'static>(
        &self,
        read: impl FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
        none: T,
    ) -> Result<T, StoreError> {
        let Some(path) = self.path.clone() else { return Ok(none) };
        tokio::task::spawn_blocking(move || {
            let conn = Connection::open(&path)?;
            conn.busy_timeout(std::time::Duration::from_secs(5))?;
            read(&conn)
        })
        .await
        .map_err(|e| StoreError::Corrupt { code: String::new(), detail: e.to_string() })?
    }
}

impl Storage for SqliteStore {
    async fn put_room(&self, kind: RoomKind, code: &str, json: String) -> Result<(), StoreError> {
        committed(self.queue_json(kind, code, json, Vec::new())).await
    }

    async fn put_room_with_players(
        &self,
        kind: RoomKind,
        code: &str,
        json: String,
        players: Vec<PlayerRow>,
    ) -> Result<(), StoreError> {
        committed(self.queue_json(kind, code, json, players)).await
    }

    async fn delete_room(&self, kind: RoomKind, code: &str) -> Result<(), StoreError> {
        self.delete_in(kind, code).await
    }

    async fn room(&self, kind: RoomKind, code: &str) -> Result<Option<String>, StoreError> {
        let code = code.to_owned();
        self.read(
            move |conn| {
                let sql = format!("SELECT record FROM {} WHERE code = ?1", kind.table());
                let mut stmt = conn.prepare(&sql)?;
                let mut rows = stmt.query(params![code])?;
                Ok(match rows.next()? {
                    Some(row) => Some(row.get(0)?),
                    None => None,
                })
            },
            None,
        )
        .await
    }

    async fn put_players(&self, rows: Vec<PlayerRow>) -> Result<(), StoreError> {
        committed(self.queue_players(rows)).await
    }

    async fn put_game(&self, id: u64, key: String, json: String) -> Result<(), StoreError> {
        committed(self.queue_game(id, key, json)).await
    }

    async fn players(&self) -> Result<Vec<(String, String)>, StoreError> {
        let Some(path) = self.path.clone() else { return Ok(Vec::new()) };
        self.read(move |_| StoredRooms { path }.read_players(), Vec::new()).await
    }

    async fn games(&self) -> Result<Vec<String>, StoreError> {
        let Some(path) = self.path.clone() else { return Ok(Vec::new()) };
        self.read(move |_| StoredRooms { path }.read_games(), Vec::new()).await
    }
}
