//! Saved games and settings in one SQLite file in the app's data directory. Every move is saved
//! as it is made (the whole game row is rewritten: a game is a few hundred bytes).

use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use maharajah_engine::{Army, Color, Move, Variant};
use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;

use crate::record::{GameRecord, GameResult, Names, Opponent};

/// The setting under which the seat of the open network game is kept (with its secret token:
/// it never goes to the UI).
pub const SEAT_KEY: &str = "netSeat";

/// Why storage failed.
#[derive(Debug)]
pub struct StoreError(pub String);

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "saved games: {}", self.0)
    }
}

impl std::error::Error for StoreError {}

impl From<rusqlite::Error> for StoreError {
    fn from(error: rusqlite::Error) -> StoreError {
        StoreError(error.to_string())
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(error: serde_json::Error) -> StoreError {
        StoreError(error.to_string())
    }
}

/// One line of the history list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GameSummary {
    /// Row id.
    pub id: i64,
    /// The variant.
    pub variant: Variant,
    /// The opponent.
    pub opponent: Opponent,
    /// The result, `None` while unfinished.
    pub result: Option<GameResult>,
    /// Moves played (plies).
    pub plies: usize,
    /// Unix seconds of the last change.
    pub updated_at: i64,
    /// The players' names (pass-and-play).
    pub names: Names,
}

/// The SQLite file holding everything the app keeps: games, armies, settings (with the kept
/// network seat), and the Chaturaji tables and device id. Cloning it shares the one connection.
#[derive(Debug, Clone)]
pub struct Store {
    connection: Arc<Mutex<Connection>>,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    variant TEXT NOT NULL,
    opponent TEXT NOT NULL,
    start_fen TEXT NOT NULL,
    moves TEXT NOT NULL,
    result TEXT,
    time_control TEXT,
    white_ms INTEGER,
    black_ms INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    aids TEXT NOT NULL DEFAULT '[]',
    draw_offer TEXT NOT NULL DEFAULT 'null',
    names TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS saved_armies (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    army TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS chaturaji_device (
    id TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS player_identity (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    secret BLOB NOT NULL,
    code_shown INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS chaturaji_tables (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    record TEXT NOT NULL,
    finished INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
";

/// An army the player saved in the builder (kept as White's; mirrored for Black when loaded).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SavedArmy {
    /// Row id.
    pub id: i64,
    /// The name the player gave it.
    pub name: String,
    /// The army, as White's.
    pub army: Army,
    /// Points it spends.
    pub spent: u32,
    /// Classic or variant.
    pub status: maharajah_engine::Status,
}

fn moves_text(moves: &[Move]) -> String {
    moves.iter().map(ToString::to_string).collect::<Vec<_>>().join(" ")
}

fn parse_moves(text: &str) -> Result<Vec<Move>, StoreError> {
    text.split_whitespace()
        .map(|m| m.parse::<Move>().map_err(|e| StoreError(e.to_string())))
        .collect()
}

fn ms(value: Option<i64>) -> Option<u64> {
    value.and_then(|v| u64::try_from(v).ok())
}

fn sql_ms(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// Brings a file made by an older version up to [`SCHEMA`]: the `aids` column of `games`
/// (hints and threats shown), its `draw_offer` (a standing offer) and its `names` (the players'
/// names, `{}` for none) came later.
fn migrate(connection: &Connection) -> Result<(), StoreError> {
    for (column, definition) in [
        ("aids", "TEXT NOT NULL DEFAULT '[]'"),
        ("draw_offer", "TEXT NOT NULL DEFAULT 'null'"),
        ("names", "TEXT NOT NULL DEFAULT '{}'"),
    ] {
        let has: bool = connection
            .prepare("SELECT 1 FROM pragma_table_info('games') WHERE name = ?1")?
            .exists([column])?;
        if !has {
            connection
                .execute_batch(&format!("ALTER TABLE games ADD COLUMN {column} {definition}"))?;
        }
    }
    Ok(())
}

impl Store {
    /// The connection (a poisoned lock is recovered: every statement is whole or not at all).
    fn conn(&self) -> MutexGuard<'_, Connection> {
        self.connection.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// This device's id for network Chaturaji tables: the kept one, or `made` kept from now on.
    ///
    /// # Errors
    /// [`StoreError`] when it cannot be read or saved.
    pub fn device_id(&self, made: impl FnOnce() -> String) -> Result<String, StoreError> {
        let connection = self.conn();
        let found: Option<String> = connection
            .query_row("SELECT id FROM chaturaji_device LIMIT 1", [], |r| r.get(0))
            .optional()?;
        if let Some(id) = found {
            return Ok(id);
        }
        let id = made();
        connection.execute("INSERT INTO chaturaji_device (id) VALUES (?1)", params![id])?;
        Ok(id)
    }

    /// The online player's secret key (32 bytes) and whether its recovery code has been shown,
    /// if one was made. It never leaves the app core (no command returns it).
    ///
    /// # Errors
    /// [`StoreError`] when it cannot be read, or the kept bytes are not 32.
    pub fn player_secret(&self) -> Result<Option<([u8; 32], bool)>, StoreError> {
        let row: Option<(Vec<u8>, bool)> = self
            .conn()
            .query_row("SELECT secret, code_shown FROM player_identity WHERE id = 1", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()?;
        row.map(|(bytes, shown)| {
            let bytes: [u8; 32] = bytes
                .try_into()
                .map_err(|_| StoreError("the kept player key is damaged".into()))?;
            Ok((bytes, shown))
        })
        .transpose()
    }

    /// Keeps `secret` as the online player's key, replacing any other (a recovered identity);
    /// `code_shown` says whether its recovery code is already known to the player.
    ///
    /// # Errors
    /// [`StoreError`] when it cannot be written.
    pub fn set_player_secret(
        &self,
        secret: &[u8; 32],
        code_shown: bool,
        now_unix: i64,
    ) -> Result<(), StoreError> {
        self.conn().execute(
            "INSERT OR REPLACE INTO player_identity (id, secret, code_shown, created_at) VALUES (1, ?1, ?2, ?3)",
            params![secret.as_slice(), code_shown, now_unix],
        )?;
        Ok(())
    }

    /// Notes that the player has seen the recovery code of the kept key.
    ///
    /// # Errors
    /// [`StoreError`] when it cannot be written.
    pub fn mark_recovery_code_shown(&self) -> Result<(), StoreError> {
        self.conn().execute("UPDATE player_identity SET code_shown = 1 WHERE id = 1", [])?;
        Ok(())
    }

    /// The newest unfinished Chaturaji table: its id and record (JSON).
    ///
    /// # Errors
    /// [`StoreError`] when the tables cannot be read.
    pub fn latest_table(&self) -> Result<Option<(i64, String)>, StoreError> {
        Ok(self
            .conn()
            .query_row(
                "SELECT id, record FROM chaturaji_tables WHERE finished = 0 ORDER BY updated_at DESC, id DESC LIMIT 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?)
    }

    /// Saves a Chaturaji table's record: inserts it when `id` is 0 (returning the new id), else
    /// updates it.
    ///
    /// # Errors
    /// [`StoreError`] when it cannot be written.
    pub fn save_table(
        &self,
        id: i64,
        record: &str,
        finished: bool,
        now_unix: i64,
    ) -> Result<i64, StoreError> {
        let connection = self.conn();
        let finished = i64::from(finished);
        if id == 0 {
            connection.execute(
                "INSERT INTO chaturaji_tables (record, finished, created_at, updated_at) VALUES (?1, ?2, ?3, ?3)",
                params![record, finished, now_unix],
            )?;
            Ok(connection.last_insert_rowid())
        } else {
            connection.execute(
                "UPDATE chaturaji_tables SET record = ?2, finished = ?3, updated_at = ?4 WHERE id = ?1",
                params![id, record, finished, now_unix],
            )?;
            Ok(id)
        }
    }

    /// Opens (creating if needed) the database file at `path`.
    ///
    /// # Errors
    /// [`StoreError`] when the file cannot be opened or the schema created.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let mut connection = Connection::open(path)?;
        // One transaction for the whole schema: a new file is made with one journal and one set
        // of syncs instead of one per table (a file already up to date writes nothing).
        let schema = connection.transaction()?;
        schema.execute_batch(SCHEMA)?;
        migrate(&schema)?;
        schema.commit()?;
        Ok(Store { connection: Arc::new(Mutex::new(connection)) })
    }

    /// An in-memory store (tests, or when the data directory is unavailable).
    ///
    /// # Errors
    /// [`StoreError`] if SQLite cannot create it.
    pub fn in_memory() -> Result<Store, StoreError> {
        let connection = Connection::open_in_memory()?;
        connection.execute_batch(SCHEMA)?;
        Ok(Store { connection: Arc::new(Mutex::new(connection)) })
    }

    /// Saves a game: inserts it when `record.id` is 0 (returning the new id), else updates it.
    ///
    /// # Errors
    /// [`StoreError`] on a database failure.
    pub fn save(&self, record: &GameRecord, now_unix: i64) -> Result<i64, StoreError> {
        let connection = self.conn();
        let opponent = serde_json::to_string(&record.opponent)?;
        let result = record.result.map(|r| serde_json::to_string(&r)).transpose()?;
        let control = record.time_control.map(|c| serde_json::to_string(&c)).transpose()?;
        let aids = serde_json::to_string(&record.aids)?;
        let draw_offer = serde_json::to_string(&record.draw_offer)?;
        let names = serde_json::to_string(&record.names)?;
        let (white, black) =
            record.clock_ms.map_or((None, None), |(w, b)| (Some(sql_ms(w)), Some(sql_ms(b))));
        if record.id == 0 {
            connection.execute(
                "INSERT INTO games (variant, opponent, start_fen, moves, result, time_control, white_ms, black_ms, created_at, updated_at, aids, draw_offer, names)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
                params![record.variant.name(), opponent, record.start_fen, moves_text(&record.moves), result, control, white, black, record.created_at, now_unix, aids, draw_offer, names],
            )?;
            Ok(connection.last_insert_rowid())
        } else {
            connection.execute(
                "UPDATE games SET moves = ?2, result = ?3, white_ms = ?4, black_ms = ?5, updated_at = ?6, aids = ?7, draw_offer = ?8, names = ?9 WHERE id = ?1",
                params![record.id, moves_text(&record.moves), result, white, black, now_unix, aids, draw_offer, names],
            )?;
            Ok(record.id)
        }
    }

    /// Loads one game.
    ///
    /// # Errors
    /// [`StoreError`] when it does not exist or its row is unreadable.
    pub fn load(&self, id: i64) -> Result<GameRecord, StoreError> {
        let connection = self.conn();
        connection
            .query_row(
                "SELECT id, variant, opponent, start_fen, moves, result, time_control, white_ms, black_ms, created_at, aids, draw_offer, names FROM games WHERE id = ?1",
                [id],
                |row| {
                    Ok((
                        row.get::<_, i64>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, String>(2)?,
                        row.get::<_, String>(3)?,
                        row.get::<_, String>(4)?,
                        row.get::<_, Option<String>>(5)?,
                        row.get::<_, Option<String>>(6)?,
                        row.get::<_, Option<i64>>(7)?,
                        row.get::<_, Option<i64>>(8)?,
                        row.get::<_, i64>(9)?,
                        row.get::<_, String>(10)?,
                        row.get::<_, String>(11)?,
                        row.get::<_, String>(12)?,
                    ))
                },
            )
            .optional()?
            .ok_or_else(|| StoreError(format!("no saved game {id}")))
            .and_then(|(id, variant, opponent, start_fen, moves, result, control, white, black, created_at, aids, draw_offer, names)| {
                Ok(GameRecord {
                    id,
                    variant: variant.parse().map_err(|_| StoreError(format!("unknown variant {variant}")))?,
                    opponent: serde_json::from_str(&opponent)?,
                    start_fen,
                    moves: parse_moves(&moves)?,
                    result: result.map(|r| serde_json::from_str(&r)).transpose()?,
                    time_control: control.map(|c| serde_json::from_str(&c)).transpose()?,
                    clock_ms: ms(white).zip(ms(black)),
                    created_at,
                    aids: serde_json::from_str(&aids)?,
                    draw_offer: serde_json::from_str(&draw_offer)?,
                    names: serde_json::from_str(&names)?,
                })
            })
    }

    /// The most recently changed unfinished game, if any ("Continue").
    ///
    /// # Errors
    /// [`StoreError`] on a database failure.
    pub fn latest_unfinished(&self) -> Result<Option<i64>, StoreError> {
        Ok(self
            .conn()
            .query_row("SELECT id FROM games WHERE result IS NULL ORDER BY updated_at DESC, id DESC LIMIT 1", [], |row| row.get(0))
            .optional()?)
    }

    /// The history list, newest first.
    ///
    /// # Errors
    /// [`StoreError`] on a database failure.
    pub fn list(&self, limit: u32) -> Result<Vec<GameSummary>, StoreError> {
        let connection = self.conn();
        let mut statement = connection.prepare(
            "SELECT id, variant, opponent, result, moves, updated_at, names FROM games ORDER BY updated_at DESC, id DESC LIMIT ?1",
        )?;
        let rows = statement.query_map([limit], |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, String>(2)?,
                row.get::<_, Option<String>>(3)?,
                row.get::<_, String>(4)?,
                row.get::<_, i64>(5)?,
                row.get::<_, String>(6)?,
            ))
        })?;
        let mut games = Vec::new();
        for row in rows {
            let (id, variant, opponent, result, moves, updated_at, names) = row?;
            games.push(GameSummary {
                id,
                variant: variant
                    .parse()
                    .map_err(|_| StoreError(format!("unknown variant {variant}")))?,
                opponent: serde_json::from_str(&opponent)?,
                result: result.map(|r| serde_json::from_str(&r)).transpose()?,
                plies: moves.split_whitespace().count(),
                updated_at,
                names: serde_json::from_str(&names)?,
            });
        }
        Ok(games)
    }

    /// Every stored setting as `(key, JSON value)`.
    ///
    /// # Errors
    /// [`StoreError`] on a database failure.
    pub fn settings(&self) -> Result<Vec<(String, serde_json::Value)>, StoreError> {
        let connection = self.conn();
        let mut statement = connection.prepare("SELECT key, value FROM settings ORDER BY key")?;
        let rows = statement
            .query_map([], |row| Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?)))?;
        let mut settings = Vec::new();
        for row in rows {
            let (key, value) = row?;
            settings.push((key, serde_json::from_str(&value)?));
        }
        Ok(settings)
    }

    /// Stores one setting.
    ///
    /// # Errors
    /// [`StoreError`] on a database failure.
    pub fn set_setting(&self, key: &str, value: &serde_json::Value) -> Result<(), StoreError> {
        let connection = self.conn();
        connection.execute(
            "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            params![key, value.to_string()],
        )?;
        Ok(())
    }

    /// The saved armies, oldest first.
    ///
    /// # Errors
    /// [`StoreError`] on a database failure; an unreadable row is skipped.
    pub fn saved_armies(&self) -> Result<Vec<SavedArmy>, StoreError> {
        let connection = self.conn();
        let mut statement =
            connection.prepare("SELECT id, name, army FROM saved_armies ORDER BY id")?;
        let rows = statement.query_map([], |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?, row.get::<_, String>(2)?))
        })?;
        let mut armies = Vec::new();
        for row in rows {
            let (id, name, text) = row?;
            if let Ok(army) = text.parse::<Army>() {
                let army = if army.color() == Color::White { army } else { army.mirrored() };
                let (spent, status) = (army.points_spent(), army.status());
                armies.push(SavedArmy { id, name, army, spent, status });
            }
        }
        Ok(armies)
    }

    /// Saves `army` (stored as White's) under `name`; returns its id.
    ///
    /// # Errors
    /// [`StoreError`] on a database failure.
    pub fn save_army(&self, name: &str, army: &Army, now_unix: i64) -> Result<i64, StoreError> {
        let connection = self.conn();
        let white = if army.color() == Color::White { army.clone() } else { army.mirrored() };
        connection.execute(
            "INSERT INTO saved_armies (name, army, created_at) VALUES (?1, ?2, ?3)",
            params![name, white.to_string(), now_unix],
        )?;
        Ok(connection.last_insert_rowid())
    }

    /// Renames saved army `id`.
    ///
    /// # Errors
    /// [`StoreError`] on a database failure.
    pub fn rename_army(&self, id: i64, name: &str) -> Result<(), StoreError> {
        let connection = self.conn();
        connection.execute("UPDATE saved_armies SET name = ?1 WHERE id = ?2", params![name, id])?;
        Ok(())
    }

    /// Deletes saved army `id`.
    ///
    /// # Errors
    /// [`StoreError`] on a database failure.
    pub fn delete_army(&self, id: i64) -> Result<(), StoreError> {
        let connection = self.conn();
        connection.execute("DELETE FROM saved_armies WHERE id = ?1", params![id])?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::EndReason;
    use maharajah_engine::clock::TimeControl;

    #[test]
    fn saved_armies_are_kept_renamed_and_deleted() {
        let path = temp_path("armies");
        let black = Army::orthodox(Color::Black);
        {
            let store = Store::open(&path).expect("opens");
            let id = store.save_army("Classic", &black, 5).expect("saves");
            store.save_army("Second", &Army::orthodox(Color::White), 6).expect("saves");
            store.rename_army(id, "Renamed").expect("renames");
        }
        let store = Store::open(&path).expect("reopens");
        let armies = store.saved_armies().expect("reads");
        assert_eq!(armies.len(), 2);
        assert_eq!(armies[0].name, "Renamed");
        assert_eq!(armies[0].army, Army::orthodox(Color::White), "kept as White's");
        assert_eq!(armies[0].spent, 39);
        store.delete_army(armies[0].id).expect("deletes");
        assert_eq!(store.saved_armies().expect("reads").len(), 1);
    }

    fn temp_path(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("maharajah-store-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("games.sqlite");
        let _ = std::fs::remove_file(&path);
        path
    }

    fn record() -> GameRecord {
        GameRecord {
            id: 0,
            variant: Variant::Horde,
            opponent: Opponent::Computer { color: Color::Black, level: 2 },
            start_fen: maharajah_engine::Position::new(Variant::Horde).to_string(),
            moves: vec!["e4e5".parse().expect("uci")],
            result: None,
            time_control: Some(TimeControl::new(5, 3)),
            clock_ms: Some((300_000, 299_000)),
            created_at: 100,
            aids: Vec::new(),
            draw_offer: None,
            names: Names::default(),
        }
    }

    #[test]
    fn aids_are_kept_and_an_older_file_gains_their_column() {
        use crate::record::{AidKind, AidUse};
        let path = temp_path("aids");
        // A games table as versions before the aids wrote it, with one game.
        {
            let raw = rusqlite::Connection::open(&path).expect("opens the file");
            raw.execute_batch(
                "CREATE TABLE games (id INTEGER PRIMARY KEY AUTOINCREMENT, variant TEXT NOT NULL,
                 opponent TEXT NOT NULL, start_fen TEXT NOT NULL, moves TEXT NOT NULL, result TEXT,
                 time_control TEXT, white_ms INTEGER, black_ms INTEGER,
                 created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
                 INSERT INTO games (variant, opponent, start_fen, moves, created_at, updated_at)
                 VALUES ('chess', '{\"kind\":\"human\"}',
                 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', 'e2e4', 1, 1);",
            )
            .expect("an old file");
        }
        let store = Store::open(&path).expect("opens and migrates");
        let old = store.load(1).expect("the old game reads");
        assert!(old.aids.is_empty());
        assert_eq!(old.draw_offer, None, "an old game has no standing offer");
        let used =
            vec![AidUse { ply: 0, kind: AidKind::Hint }, AidUse { ply: 2, kind: AidKind::Threat }];
        let id = store.save(&GameRecord { aids: used.clone(), ..record() }, 5).expect("inserts");
        assert_eq!(store.load(id).expect("loads").aids, used);
        let more = GameRecord { id, aids: used[..1].to_vec(), ..record() };
        store.save(&more, 6).expect("updates");
        drop(store);
        let store = Store::open(&path).expect("reopens: the column is there once");
        assert_eq!(store.load(id).expect("loads").aids, used[..1]);
    }

    #[test]
    fn the_players_names_are_kept_listed_and_an_older_file_gains_their_column() {
        let path = temp_path("names");
        // A games table as versions before the names wrote it, with one game.
        {
            let raw = rusqlite::Connection::open(&path).expect("opens the file");
            raw.execute_batch(
                "CREATE TABLE games (id INTEGER PRIMARY KEY AUTOINCREMENT, variant TEXT NOT NULL,
                 opponent TEXT NOT NULL, start_fen TEXT NOT NULL, moves TEXT NOT NULL, result TEXT,
                 time_control TEXT, white_ms INTEGER, black_ms INTEGER,
                 created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
                 aids TEXT NOT NULL DEFAULT '[]', draw_offer TEXT NOT NULL DEFAULT 'null');
                 INSERT INTO games (variant, opponent, start_fen, moves, created_at, updated_at)
                 VALUES ('chess', '{\"kind\":\"human\"}',
                 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', 'e2e4', 1, 1);",
            )
            .expect("an old file");
        }
        let names = Names { white: Some("Ana".to_owned()), black: Some("Bruno \"B\"".to_owned()) };
        let pass_and_play = GameRecord { opponent: Opponent::Human, ..record() };
        let id = {
            let store = Store::open(&path).expect("opens and migrates");
            assert_eq!(store.load(1).expect("the old game reads").names, Names::default());
            let id = store
                .save(&GameRecord { names: names.clone(), ..pass_and_play.clone() }, 5)
                .expect("inserts");
            let mut more = store.load(id).expect("loads");
            more.moves.push("e7e6".parse().expect("uci"));
            store.save(&more, 6).expect("updates");
            id
        };
        let store = Store::open(&path).expect("reopens: the column is there once");
        let loaded = store.load(id).expect("loads");
        assert_eq!((loaded.names, loaded.moves.len()), (names.clone(), 2));
        let listed = store.list(10).expect("lists");
        assert_eq!(
            listed.iter().map(|g| (g.id, g.names.clone())).collect::<Vec<_>>(),
            [(id, names), (1, Names::default())]
        );
    }

    #[test]
    fn a_standing_draw_offer_is_kept_and_cleared() {
        let path = temp_path("draw-offer");
        let store = Store::open(&path).expect("opens");
        let id = store
            .save(&GameRecord { draw_offer: Some(Color::White), ..record() }, 5)
            .expect("inserts");
        drop(store);
        let store = Store::open(&path).expect("reopens");
        assert_eq!(store.load(id).expect("loads").draw_offer, Some(Color::White));
        store.save(&GameRecord { id, ..record() }, 6).expect("updates");
        assert_eq!(store.load(id).expect("loads").draw_offer, None, "declined: gone");
    }

    #[test]
    fn a_game_survives_reopening_the_file_and_is_offered_to_continue() {
        let path = temp_path("reopen");
        let id = {
            let store = Store::open(&path).expect("opens");
            let id = store.save(&record(), 100).expect("inserts");
            let mut more = record();
            more.id = id;
            more.moves.push("e7e6".parse().expect("uci"));
            assert_eq!(store.save(&more, 200).expect("updates"), id);
            id
        };
        let store = Store::open(&path).expect("reopens");
        let loaded = store.load(id).expect("loads");
        assert_eq!(loaded.moves.len(), 2);
        assert_eq!(loaded.opponent, Opponent::Computer { color: Color::Black, level: 2 });
        assert_eq!(loaded.clock_ms, Some((300_000, 299_000)));
        assert_eq!(store.latest_unfinished().expect("query"), Some(id));

        let mut done = loaded;
        done.result = Some(GameResult { winner: None, reason: EndReason::Agreement });
        store.save(&done, 300).expect("updates");
        assert_eq!(
            store.latest_unfinished().expect("query"),
            None,
            "finished games are not continued"
        );
        let list = store.list(10).expect("lists");
        assert_eq!(list.len(), 1);
        assert_eq!(list[0].plies, 2);
        assert_eq!(list[0].result.map(|r| r.reason), Some(EndReason::Agreement));
        assert!(store.load(999).is_err());
    }

    #[test]
    fn results_stored_in_the_old_spelling_still_read() {
        let path = temp_path("old-reason");
        let id = {
            let store = Store::open(&path).expect("opens");
            store.save(&record(), 100).expect("inserts")
        };
        // What the store wrote before the app and the wire shared one end reason.
        let raw = rusqlite::Connection::open(&path).expect("opens the file");
        for (old, reason) in [
            (r#"{"winner":"white","reason":"time"}"#, EndReason::Timeout),
            (
                r#"{"winner":null,"reason":"time_vs_insufficient_material"}"#,
                EndReason::TimeoutVsInsufficientMaterial,
            ),
        ] {
            raw.execute("UPDATE games SET result = ?1 WHERE id = ?2", params![old, id])
                .expect("writes");
            let store = Store::open(&path).expect("reopens");
            assert_eq!(store.load(id).expect("loads").result.map(|r| r.reason), Some(reason));
            let listed = store.list(1).expect("lists");
            assert_eq!(listed[0].result.map(|r| r.reason), Some(reason));
        }
        // Written again, it is in the one vocabulary.
        let store = Store::open(&path).expect("reopens");
        let loaded = store.load(id).expect("loads");
        store.save(&loaded, 200).expect("updates");
        let text: String = raw
            .query_row("SELECT result FROM games WHERE id = ?1", params![id], |r| r.get(0))
            .expect("reads");
        assert_eq!(text, r#"{"winner":null,"reason":"timeout_vs_insufficient_material"}"#);
    }

    #[test]
    fn settings_are_kept_as_json() {
        let path = temp_path("settings");
        {
            let store = Store::open(&path).expect("opens");
            store.set_setting("theme", &serde_json::json!("green")).expect("sets");
            store.set_setting("sounds", &serde_json::json!(false)).expect("sets");
            store.set_setting("theme", &serde_json::json!("wood")).expect("overwrites");
        }
        let store = Store::open(&path).expect("reopens");
        assert_eq!(
            store.settings().expect("reads"),
            vec![
                ("sounds".to_owned(), serde_json::json!(false)),
                ("theme".to_owned(), serde_json::json!("wood"))
            ]
        );
    }
}
