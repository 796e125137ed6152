//! Durable storage in PostgreSQL, shared by the nodes of a cluster; the directory of room
//! owners with leases and epochs.
//!
//! Layout (migrations in `crates/server/migrations/`, applied at start under an advisory lock,
//! numbered in `schema_version`):
//! - `rooms`: each room's record as of a snapshot (written at creation and every
//!   [`CHECKPOINT_EVERY`] changes); `room_events`: every change after it as a patch of the record
//!   ([`super::patch`]), one `INSERT` per acknowledged change, never a rewrite of the room.
//!   A room is read back as its snapshot plus its patches in order.
//! - `room_owner`: the directory. Each room has one owner node and an epoch (one more at every
//!   change of owner); the lease is the owner's, one per node (`nodes.lease_until`), renewed in
//!   one row whatever the number of rooms. Every write of a room is fenced: it is accepted only
//!   if the writer is the owner, at the epoch it holds, within its lease (the database's
//!   clock) — so a node that lost its lease can never commit a change, whatever it believes.
//! - `nodes`: each node's advertised address, lease, heartbeat and draining flag.
//! - `players`, `games`: as in SQLite, plus numbers every node follows: each write of a player
//!   gives its row the next revision (`rev`), each finished game has its `seq`. A node reads
//!   what changed since the last number it saw ([`PgStore::players_since`],
//!   [`PgStore::games_since`]); writers of either table hold an advisory lock from taking the
//!   number to the commit, so numbers become visible in order and a reader never skips one. A
//!   game's number in the cluster (its [`GameId`](maharajah_protocol::GameId)) is its `seq`.
//!   A rated end is written guarded: it commits only if each player's row is still the
//!   revision its new rating was computed from ([`StoreError::StalePlayer`] otherwise).
//!
//! Room writes go over a small pool of connections, pipelined (one room's writes are one after
//! the other: its task awaits each). Writes that must be ordered with one another (players,
//! finished games, a rated game's end with both ratings in one transaction) go to one writer
//! task with its own connection, in the order they were queued.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio_postgres::{Client, NoTls, Statement};
use tracing::{info, warn};

use super::{patch, Committed, Drained, PlayerRev, PlayerRow, RoomKind, Storage, StoreError};

/// The migrations, in order: version and SQL.
const MIGRATIONS: &[(i32, &str)] = &[
    (1, include_str!("../../migrations/0001_cluster.sql")),
    (2, include_str!("../../migrations/0002_player_revisions.sql")),
    (3, include_str!("../../migrations/0003_lobby.sql")),
    (4, include_str!("../../migrations/0004_node_leases.sql")),
    (5, include_str!("../../migrations/0005_owner_lookups.sql")),
];

/// A room's snapshot is rewritten (and its older patches dropped) after this many changes, so
/// reading a room back replays at most this many patches.
pub const CHECKPOINT_EVERY: u32 = 64;

/// Key of the advisory lock that serialises migrations of several nodes starting at once.
const MIGRATION_LOCK: i64 = 0x6d61_6861_7261_6a61;

/// Key of the advisory lock every writer of `players` holds until it commits: revisions are
/// taken and become visible in the same order (see the module documentation).
const PLAYERS_LOCK: i64 = 0x6d61_6861_7261_6a62;

/// Key of the advisory lock every writer of `games` holds until it commits (as
/// [`PLAYERS_LOCK`], for `seq`).
const GAMES_LOCK: i64 = 0x6d61_6861_7261_6a63;

/// The fence every room write carries: the writer owns the room at its epoch, and its lease
/// runs. Parameters: `$1` code, `$2` node, `$3` epoch.
const FENCE: &str = "EXISTS (SELECT 1 FROM room_owner o JOIN nodes n ON n.node = o.node \
                     WHERE o.code = $1 AND o.node = $2 AND o.epoch = $3 \
                     AND n.lease_until > now())";

/// Many rooms' changes in one statement (one transaction, one WAL flush: group commit), each
/// row fenced on its own; the rows returned are the ones committed. Parameters: codes,
/// numbers, epochs, patches, the node.
const INSERT_EVENTS: &str = "INSERT INTO room_events (code, n, epoch, patch)
     SELECT v.code, v.n, v.epoch, v.patch
     FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[]) AS v(code, n, epoch, patch)
     WHERE EXISTS (SELECT 1 FROM nodes n WHERE n.node = $5 AND n.lease_until > now())
       AND EXISTS (SELECT 1 FROM room_owner o WHERE o.code = v.code AND o.node = $5
                   AND o.epoch = v.epoch)
     ON CONFLICT DO NOTHING RETURNING code, n";

/// The planner settings of every connection (see [`connect`]). No JIT: the priced-out paths
/// make even a three-row scan look costly enough to compile (a tenth of a second of CPU each
/// time), and nothing here runs long enough to gain from it.
const PLANNER_OPTIONS: &str = "-c enable_seqscan=off -c enable_bitmapscan=off \
                               -c enable_hashjoin=off -c enable_mergejoin=off -c jit=off";

/// How long a group commit waits for more changes after the first.
const GATHER: Duration = Duration::from_millis(2);

/// Most changes one group commit carries.
const MAX_BATCH: usize = 512;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// One pooled connection.
struct PgConn {
    client: Client,
}

async fn connect(url: &str) -> Result<Client, StoreError> {
    let mut config: tokio_postgres::Config =
        url.parse().map_err(|e| StoreError::Postgres(format!("the URL: {e}")))?;
    config.connect_timeout(Duration::from_secs(5));
    // Every statement here is a lookup by key (a room's code, a player's key, a number past
    // the last one seen). The planner must not choose otherwise from statistics taken while
    // the tables were nearly empty: a prepared statement's generic plan, made then, is kept
    // on the connection, and one such plan scanned all of a node's rooms (bitmap scan and
    // hash join on `room_owner`) for every group commit. These settings only price the other
    // paths out; a statement with no index to use still scans.
    let options = [config.get_options().unwrap_or(""), PLANNER_OPTIONS].join(" ");
    config.options(options.trim());
    let (client, connection) = config.connect(NoTls).await?;
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            warn!("postgres connection: {e}");
        }
    });
    Ok(client)
}

impl PgConn {
    async fn open(url: &str) -> Result<PgConn, StoreError> {
        Ok(PgConn { client: connect(url).await? })
    }
}

/// What this node knows of a room it owns.
#[derive(Debug)]
struct Owned {
    epoch: i64,
    /// The number of the last patch written.
    n: i64,
    /// The record as last written; `None` after a failed write (the next one is whole).
    last: Option<Value>,
    /// Patches since the last snapshot.
    since_snapshot: u32,
}

type OwnedMap = Arc<Mutex<HashMap<String, Owned>>>;

/// A room's change waiting for the next group commit; answered with whether it was committed
/// (`false`: fenced).
struct EventWrite {
    write: RoomWrite,
    reply: oneshot::Sender<Result<bool, String>>,
}

/// Commits the queued changes of many rooms together, on a connection of its own, until the
/// store is dropped: while one batch commits, the next gathers.
async fn event_writer(url: String, node: String, mut rx: mpsc::UnboundedReceiver<EventWrite>) {
    let mut conn: Option<(Client, Statement)> = None;
    while let Some(first) = rx.recv().await {
        let mut batch = vec![first];
        // Gather what arrives within GATHER of the first change: fewer, larger commits cost
        // the database far less CPU than one commit per change or two.
        let until = tokio::time::Instant::now() + GATHER;
        while batch.len() < MAX_BATCH {
            match tokio::time::timeout_at(until, rx.recv()).await {
                Ok(Some(w)) => batch.push(w),
                Ok(None) | Err(_) => break,
            }
        }
        if conn.as_ref().map_or(true, |(c, _)| c.is_closed()) {
            conn = match connect(&url).await {
                Ok(c) => match c.prepare(INSERT_EVENTS).await {
                    Ok(st) => Some((c, st)),
                    Err(e) => {
                        warn!("postgres writer: {}", StoreError::from(e));
                        None
                    }
                },
                Err(e) => {
                    warn!("postgres writer: {e}");
                    None
                }
            };
        }
        let Some((client, insert)) = &conn else {
            for w in batch {
                let _ = w.reply.send(Err("cannot connect".into()));
            }
            continue;
        };
        let codes: Vec<&str> = batch.iter().map(|w| w.write.code.as_str()).collect();
        let ns: Vec<i64> = batch.iter().map(|w| w.write.n).collect();
        let epochs: Vec<i64> = batch.iter().map(|w| w.write.epoch).collect();
        let patches: Vec<&str> = batch.iter().map(|w| w.write.patch.as_str()).collect();
        match client.query(insert, &[&codes, &ns, &epochs, &patches, &node]).await {
            Ok(rows) => {
                let committed: std::collections::HashSet<(String, i64)> =
                    rows.iter().map(|r| (r.get(0), r.get(1))).collect();
                for w in batch {
                    let ok = committed.contains(&(w.write.code, w.write.n));
                    let _ = w.reply.send(Ok(ok));
                }
            }
            Err(e) => {
                let e = StoreError::from(e).to_string();
                for w in batch {
                    let _ = w.reply.send(Err(e.clone()));
                }
            }
        }
    }
}

/// The owner of a room, as the directory says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owner {
    /// The owning node's id.
    pub node: String,
    /// The ownership's epoch.
    pub epoch: i64,
    /// Whether the lease still runs (by the database's clock).
    pub in_lease: bool,
    /// How long the lease still runs (zero once it ran out).
    pub lease_left: Duration,
    /// Where the owner is reached (`ws://host:port`), if it registered.
    pub advertise: Option<String>,
    /// Whether the owner is draining.
    pub draining: bool,
}

/// The milliseconds left of the lease in table alias `$t`'s `lease_until` (zero if none), as
/// a column (a literal, so the queries that use it are `&'static str`).
macro_rules! lease_left_ms {
    ($t:literal) => {
        concat!(
            "coalesce(greatest(0, (extract(epoch from ",
            $t,
            ".lease_until - now()) * 1000))::bigint, 0)"
        )
    };
}

/// An [`Owner`] from the columns node, epoch, in lease, advertise, draining, lease left (ms).
fn owner_of(r: tokio_postgres::Row) -> Owner {
    Owner {
        node: r.get(0),
        epoch: r.get(1),
        in_lease: r.get(2),
        lease_left: Duration::from_millis(r.get::<_, i64>(5).unsigned_abs()),
        advertise: r.get(3),
        draining: r.get(4),
    }
}

/// Where the ordered writer answers: the outcome of a write.
type Reply = oneshot::Sender<Result<(), StoreError>>;

enum SideJob {
    /// Players, guarded by the revisions they replace.
    Players(Vec<PlayerRow>, Vec<PlayerRev>, Reply),
    /// A finished game (`key`, JSON), answered with its number.
    Game(String, String, oneshot::Sender<Result<u64, StoreError>>),
    /// A room's fenced write with players, guarded by the revisions they replace.
    RoomWithPlayers(RoomWrite, Vec<PlayerRow>, Vec<PlayerRev>, Reply),
}

/// A player's row as stored: key, record (JSON) and revision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredPlayer {
    /// The public key, 64 hex digits.
    pub key: String,
    /// The record ([`crate::players::PlayerRecord`]) as JSON.
    pub record: String,
    /// The row's revision: a higher one was written later.
    pub rev: i64,
}

/// The answer to [`PgStore::queue_game`]: the game's number once committed.
#[derive(Debug)]
pub struct GameNumber(oneshot::Receiver<Result<u64, StoreError>>);

impl GameNumber {
    /// Waits for the commit: the game's number (`games.seq`; the same one when the game was
    /// stored before).
    ///
    /// # Errors
    ///
    /// [`StoreError`] if the write failed.
    pub async fn wait(self) -> Result<u64, StoreError> {
        self.0.await.map_err(|_| StoreError::Closed)?
    }
}

/// One fenced room write: the patch numbered `n`, at `epoch`.
struct RoomWrite {
    code: String,
    epoch: i64,
    n: i64,
    patch: String,
}

/// A cluster node's PostgreSQL store; see the module documentation.
pub struct PgStore {
    url: String,
    node: String,
    lease: Duration,
    slots: Vec<Mutex<Arc<PgConn>>>,
    next: AtomicUsize,
    /// The group-committing writers of room changes.
    writers: Vec<mpsc::UnboundedSender<EventWrite>>,
    /// The connection of lease renewals and heartbeats, never queued behind room writes.
    control: Mutex<Arc<PgConn>>,
    owned: OwnedMap,
    side: mpsc::UnboundedSender<SideJob>,
    secret: String,
    /// Closes when the writers have committed their last queued job.
    drained: Drained,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore").field("node", &self.node).field("lease", &self.lease).finish()
    }
}

impl PgStore {
    /// Connects `pool` connections to `url` (plus one for ordered writes), brings the schema up
    /// to date and returns the store of node `node`, whose lease (`lease` long, renewed by
    /// [`PgStore::renew`]) starts now.
    ///
    /// # Errors
    ///
    /// [`StoreError::Postgres`] if the database cannot be reached or migrated.
    pub async fn connect(
        url: &str,
        node: &str,
        lease: Duration,
        pool: usize,
    ) -> Result<Arc<PgStore>, StoreError> {
        let mut first = connect(url).await?;
        migrate(&mut first).await?;
        let secret: String =
            first.query_one("SELECT secret FROM cluster WHERE id = 1", &[]).await?.get(0);
        let mut slots = Vec::new();
        let mut writers = Vec::new();
        let (drained, alive) = Drained::new();
        for _ in 0..pool.max(1) {
            slots.push(Mutex::new(Arc::new(PgConn::open(url).await?)));
            let (tx, rx) = mpsc::unbounded_channel();
            let (task, alive) = (event_writer(url.to_owned(), node.to_owned(), rx), alive.clone());
            tokio::spawn(async move {
                task.await;
                drop(alive);
            });
            writers.push(tx);
        }
        let control = Mutex::new(Arc::new(PgConn::open(url).await?));
        let owned: OwnedMap = Arc::default();
        let (side, jobs) = mpsc::unbounded_channel();
        let side_task = side_writer(url.to_owned(), node.to_owned(), first, jobs, owned.clone());
        tokio::spawn(async move {
            side_task.await;
            drop(alive);
        });
        let store = Arc::new(PgStore {
            url: url.to_owned(),
            node: node.to_owned(),
            lease,
            slots,
            next: AtomicUsize::new(0),
            writers,
            control,
            owned,
            side,
            secret,
            drained,
        });
        // The node's lease starts now: its rooms can be written at once.
        store.renew().await?;
        Ok(store)
    }

    /// The signal that the writers have committed everything queued, once the store is
    /// dropped; see [`Drained`].
    pub fn drained(&self) -> Drained {
        self.drained.clone()
    }

    /// This node's id.
    pub fn node(&self) -> &str {
        &self.node
    }

    /// The lease length.
    pub fn lease(&self) -> Duration {
        self.lease
    }

    /// The secret nodes show each other (from the `cluster` table).
    pub fn secret(&self) -> &str {
        &self.secret
    }

    /// Rooms this node owns now.
    pub fn owned_count(&self) -> usize {
        lock(&self.owned).len()
    }

    /// The codes of the rooms this node owns now.
    pub fn owned_codes(&self) -> Vec<String> {
        lock(&self.owned).keys().cloned().collect()
    }

    /// Forgets room `code` as owned (it was lost or released).
    pub fn forget(&self, code: &str) {
        lock(&self.owned).remove(code);
    }

    /// The control connection (renewals, heartbeats), reopened if it closed.
    async fn control(&self) -> Result<Arc<PgConn>, StoreError> {
        let conn = lock(&self.control).clone();
        if !conn.client.is_closed() {
            return Ok(conn);
        }
        let fresh = Arc::new(PgConn::open(&self.url).await?);
        *lock(&self.control) = fresh.clone();
        Ok(fresh)
    }

    async fn conn(&self) -> Result<Arc<PgConn>, StoreError> {
        let i = self.next.fetch_add(1, Ordering::Relaxed) % self.slots.len();
        let conn = lock(&self.slots[i]).clone();
        if !conn.client.is_closed() {
            return Ok(conn);
        }
        let fresh = Arc::new(PgConn::open(&self.url).await?);
        *lock(&self.slots[i]) = fresh.clone();
        Ok(fresh)
    }

    /// Says this node is up, reached at `advertise`, with the rooms it owns and its games
    /// playing now (`playing`, JSON) (its heartbeat).
    ///
    /// # Errors
    ///
    /// [`StoreError::Postgres`].
    pub async fn heartbeat(
        &self,
        advertise: &str,
        draining: bool,
        playing: &str,
    ) -> Result<(), StoreError> {
        let rooms = i32::try_from(self.owned_count()).unwrap_or(i32::MAX);
        self.control()
            .await?
            .client
            .execute(
                "INSERT INTO nodes (node, advertise, heartbeat, draining, rooms, playing)
                 VALUES ($1, $2, now(), $3, $4, $5)
                 ON CONFLICT (node) DO UPDATE SET advertise = excluded.advertise,
                   heartbeat = now(), draining = excluded.draining, rooms = excluded.rooms,
                   playing = excluded.playing",
                &[&self.node, &advertise, &draining, &rooms, &playing],
            )
            .await?;
        Ok(())
    }

    /// The games playing now (JSON, as each wrote it with its heartbeat) of the other nodes
    /// heard of within the last lease.
    ///
    /// # Errors
    ///
    /// [`StoreError::Postgres`].
    pub async fn playing_elsewhere(&self) -> Result<Vec<String>, StoreError> {
        let rows = self
            .control()
            .await?
            .client
            .query(
                "SELECT playing FROM nodes WHERE node <> $1 AND NOT draining
                   AND heartbeat > now() - $2::bigint * interval '1 millisecond'",
                &[&self.node, &millis(self.lease)],
            )
            .await?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    /// Renews this node's lease (one row, whatever the number of rooms); returns the rooms it
    /// no longer owns, which are forgotten. While the lease ran nobody could claim a room of
    /// this node; only if it had run out before this renewal (the node was paused, or the
    /// database away) are its rooms looked up, and those another node claimed meanwhile (a new
    /// epoch) are the lost ones.
    ///
    /// # Errors
    ///
    /// [`StoreError::Postgres`]: nothing was renewed.
    pub async fn renew(&self) -> Result<Vec<String>, StoreError> {
        let control = self.control().await?;
        let held_throughout: Option<bool> = control
            .client
            .query_one(
                "WITH before AS (SELECT lease_until FROM nodes WHERE node = $1)
                 INSERT INTO nodes (node, advertise, heartbeat, lease_until)
                 VALUES ($1, '', now(), now() + $2::bigint * interval '1 millisecond')
                 ON CONFLICT (node) DO UPDATE SET lease_until = excluded.lease_until
                 RETURNING (SELECT lease_until > now() FROM before)",
                &[&self.node, &millis(self.lease)],
            )
            .await?
            .get(0);
        if held_throughout == Some(true) {
            return Ok(Vec::new());
        }
        let held: Vec<(String, i64)> =
            lock(&self.owned).iter().map(|(c, o)| (c.clone(), o.epoch)).collect();
        if held.is_empty() {
            return Ok(Vec::new());
        }
        let codes: Vec<String> = held.iter().map(|(c, _)| c.clone()).collect();
        let rows = control
            .client
            .query(
                "SELECT code, epoch FROM room_owner WHERE node = $1 AND code = ANY($2::text[])",
                &[&self.node, &codes],
            )
            .await?;
        let still: HashMap<String, i64> =
            rows.iter().map(|r| (r.get::<_, String>(0), r.get::<_, i64>(1))).collect();
        let mut lost = Vec::new();
        let mut owned = lock(&self.owned);
        for (code, epoch) in held {
            // Only if it is still the ownership that was looked up (not a new claim since).
            if still.get(&code) != Some(&epoch)
                && owned.get(&code).is_some_and(|o| o.epoch == epoch)
            {
                owned.remove(&code);
                lost.push(code);
            }
        }
        Ok(lost)
    }

    /// The rooms the directory gives this node that it does not hold: after a restart under
    /// the same id, the rooms of its previous run, to be claimed again (their clocks must run).
    ///
    /// # Errors
    ///
    /// [`StoreError::Postgres`].
    pub async fn left_over(&self) -> Result<Vec<String>, StoreError> {
        let rows = self
            .conn()
            .await?
            .client
            .query("SELECT code FROM room_owner WHERE node = $1", &[&self.node])
            .await?;
        let owned = lock(&self.owned);
        Ok(rows.iter().map(|r| r.get::<_, String>(0)).filter(|c| !owned.contains_key(c)).collect())
    }

    /// The owner of room `code`, or `None` if no such room is stored.
    ///
    /// # Errors
    ///
    /// [`StoreError::Postgres`].
    pub async fn owner(&self, code: &str) -> Result<Option<Owner>, StoreError> {
        let row = self
            .conn()
            .await?
            .client
            .query_opt(
                concat!(
                    "SELECT o.node, o.epoch, coalesce(n.lease_until > now(), false), n.advertise,
                            coalesce(n.draining, false), ",
                    lease_left_ms!("n"),
                    " FROM room_owner o LEFT JOIN nodes n ON n.node = o.node WHERE o.code = $1"
                ),
                &[&code],
            )
            .await?;
        Ok(row.map(owner_of))
    }

    /// The node that runs the lobby now (its lease runs), with where it is reached; `None` if
    /// no node does. With `claim`, a lobby nobody holds (never held, or its owner's lease ran
    /// out, or this node held it before a restart) is first taken by this node, with the
    /// epoch one more.
    ///
    /// # Errors
    ///
    /// [`StoreError::Postgres`].
    pub async fn lobby_owner(&self, claim: bool) -> Result<Option<Owner>, StoreError> {
        let conn = self.conn().await?;
        // The lobby's own lease, not its node's.
        let read = concat!(
            "SELECT o.node, o.epoch, true, n.advertise, coalesce(n.draining, false), ",
            lease_left_ms!("o"),
            " FROM lobby_owner o LEFT JOIN nodes n ON n.node = o.node
              WHERE o.id = 1 AND o.lease_until > now()"
        );
        if let Some(row) = conn.client.query_opt(read, &[]).await? {
            return Ok(Some(owner_of(row)));
        }
        if !claim {
            return Ok(None);
        }
        let claimed = conn
            .client
            .execute(
                "INSERT INTO lobby_owner (id, node, epoch, lease_until)
                 VALUES (1, $1, 1, now() + $2::bigint * interval '1 millisecond')
                 ON CONFLICT (id) DO UPDATE SET node = excluded.node,
                   epoch = lobby_owner.epoch + 1, lease_until = excluded.lease_until
                 WHERE lobby_owner.lease_until <= now() OR lobby_owner.node = excluded.node",
                &[&self.node, &millis(self.lease)],
            )
            .await?;
        if claimed == 1 {
            info!(node = %self.node, "lobby claimed");
        }
        Ok(conn.client.query_opt(read, &[]).await?.map(owner_of))
    }

    /// Renews this node's lease on the lobby; false if another node holds it now.
    ///
    /// # Errors
    ///
    /// [`StoreError::Postgres`]: nothing was renewed.
    pub async fn renew_lobby(&self) -> Result<bool, StoreError> {
        let n = self
            .control()
            .await?
            .client
            .execute(
                "UPDATE lobby_owner SET lease_until = now() + $2::bigint * interval '1 millisecond'
                 WHERE id = 1 AND node = $1",
                &[&self.node, &millis(self.lease)],
            )
            .await?;
        Ok(n == 1)
    }

    /// Takes room `code` over if its owner's lease has run out (or this node owned it before,
    /// e.g. it restarted under the same id): compare-and-set on the owner, with the epoch one more,
    /// which fences the previous owner. Returns the room's kind and record, or `None` if the
    /// room is owned by another node in lease, or gone.
    ///
    /// # Errors
    ///
    /// [`StoreError::Postgres`]; [`StoreError::Corrupt`] for a log that does not replay.
    pub async fn claim(&self, code: &str) -> Result<Option<(RoomKind, String)>, StoreError> {
        let conn = self.conn().await?;
        let row = conn
            .client
            .query_opt(
                "UPDATE room_owner o SET node = $2, epoch = o.epoch + 1
                 WHERE o.code = $1 AND (o.node = $2 OR NOT EXISTS (
                   SELECT 1 FROM nodes n WHERE n.node = o.node AND n.lease_until > now()))
                 RETURNING epoch",
                &[&code, &self.node],
            )
            .await?;
        let Some(row) = row else { return Ok(None) };
        let epoch: i64 = row.get(0);
        let Some((kind, record, n)) = load(&conn.client, code).await? else { return Ok(None) };
        let json = record.to_string();
        lock(&self.owned)
            .insert(code.to_owned(), Owned { epoch, n, last: Some(record), since_snapshot: 0 });
        info!(room = code, epoch, "room claimed");
        Ok(Some((kind, json)))
    }

    /// Rooms whose owner's lease ran out more than `grace` ago (it died or drained), for
    /// another node to claim; at most `limit`.
    ///
    /// # Errors
    ///
    /// [`StoreError::Postgres`].
    pub async fn orphans(&self, grace: Duration, limit: i64) -> Result<Vec<String>, StoreError> {
        let conn = self.conn().await?;
        // Nodes first (a few rows): the rooms are looked through only when one has died.
        let dead: Vec<String> = conn
            .client
            .query(
                "SELECT node FROM nodes WHERE lease_until < now() - $1::bigint * interval '1 millisecond'",
                &[&millis(grace)],
            )
            .await?
            .iter()
            .map(|r| r.get(0))
            .collect();
        if dead.is_empty() {
            return Ok(Vec::new());
        }
        let rows = conn
            .client
            .query("SELECT code FROM room_owner WHERE node = ANY($1) LIMIT $2", &[&dead, &limit])
            .await?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    /// Hands every room this node owns back, and the lobby if it runs it (the node's lease and
    /// the lobby's end now, so another node claims each at once), and marks the node draining.
    /// The rooms are forgotten here; returns how many there were.
    ///
    /// # Errors
    ///
    /// [`StoreError::Postgres`]; the leases then run out by themselves.
    pub async fn release_all(&self) -> Result<u64, StoreError> {
        let n = lock(&self.owned).drain().count() as u64;
        let client = &self.conn().await?.client;
        client
            .execute(
                "UPDATE lobby_owner SET lease_until = now() - interval '1 millisecond'
                 WHERE id = 1 AND node = $1",
                &[&self.node],
            )
            .await?;
        client
            .execute(
                "UPDATE nodes SET draining = true, rooms = 0, heartbeat = now(),
                   lease_until = now() - interval '1 millisecond' WHERE node = $1",
                &[&self.node],
            )
            .await?;
        Ok(n)
    }

    /// Computes the next fenced write of owned room `code` (its patch against the last
    /// written record); `None` if this node does not own it.
    fn next_write(&self, code: &str, record: &Value) -> Option<(RoomWrite, bool)> {
        let mut owned = lock(&self.owned);
        let o = owned.get_mut(code)?;
        let patch = patch::diff(o.last.as_ref(), record).to_string();
        o.n += 1;
        o.last = Some(record.clone());
        o.since_snapshot += 1;
        let checkpoint = o.since_snapshot >= CHECKPOINT_EVERY;
        if checkpoint {
            o.since_snapshot = 0;
        }
        Some((RoomWrite { code: code.to_owned(), epoch: o.epoch, n: o.n, patch }, checkpoint))
    }

    /// After a failed write the stored state is unknown: the next write is whole.
    fn write_failed(owned: &OwnedMap, code: &str, fenced: bool) {
        let mut owned = lock(owned);
        if fenced {
            owned.remove(code);
        } else if let Some(o) = owned.get_mut(code) {
            o.last = None;
        }
    }

    async fn create(&self, kind: RoomKind, code: &str, json: String) -> Result<(), StoreError> {
        let record: Value = parse(code, &json)?;
        // Changes left by an earlier room of this code (see migration 5) go with its creation.
        let n: i64 = self
            .conn()
            .await?
            .client
            .query_one(
                "WITH r AS (INSERT INTO rooms (code, kind, snapshot) VALUES ($1, $2, $3)
                            ON CONFLICT DO NOTHING RETURNING code),
                      o AS (INSERT INTO room_owner (code, node, epoch)
                            SELECT code, $4, 1 FROM r RETURNING code),
                      e AS (DELETE FROM room_events WHERE code = $1 AND EXISTS (SELECT 1 FROM r))
                 SELECT count(*) FROM o",
                &[&code, &kind.as_str(), &json, &self.node],
            )
            .await?
            .get(0);
        if n == 0 {
            return Err(StoreError::Postgres(format!("room code {code} is taken")));
        }
        lock(&self.owned).insert(
            code.to_owned(),
            Owned { epoch: 1, n: 0, last: Some(record), since_snapshot: 0 },
        );
        Ok(())
    }

    fn checkpoint(&self, code: &str, epoch: i64, n: i64, json: String) {
        let (code, node) = (code.to_owned(), self.node.clone());
        let conn = lock(&self.slots[n.unsigned_abs() as usize % self.slots.len()]).clone();
        tokio::spawn(async move {
            let sql = format!(
                "WITH ok AS (UPDATE rooms SET snapshot = $4, snapshot_n = $5
                             WHERE code = $1 AND snapshot_n < $5 AND {FENCE} RETURNING 1)
                 DELETE FROM room_events WHERE code = $1 AND n <= $5 AND EXISTS (SELECT 1 FROM ok)"
            );
            if let Err(e) = conn.client.execute(&sql, &[&code, &node, &epoch, &json, &n]).await {
                warn!(room = %code, "checkpoint: {}", StoreError::from(e));
            }
        });
    }

    /// Queues a room's fenced write with players, in one transaction, after every write
    /// queued before it. Guarded by `expected`: the write commits only if each of those
    /// players' rows is still the revision given (or still absent); a rated end's new ratings
    /// were computed from those rows.
    ///
    /// # Errors
    ///
    /// [`StoreError::Fenced`] if this node does not own the room; [`StoreError::Closed`]. The
    /// commit fails with [`StoreError::StalePlayer`] when a guard does not hold (nothing is
    /// written).
    pub fn queue_room_with_players(
        &self,
        _kind: RoomKind,
        code: &str,
        json: String,
        players: Vec<PlayerRow>,
        expected: Vec<PlayerRev>,
    ) -> Result<Committed, StoreError> {
        let record = parse(code, &json)?;
        let Some((write, _)) = self.next_write(code, &record) else {
            return Err(StoreError::Fenced { code: code.to_owned() });
        };
        let (reply, rx) = oneshot::channel();
        self.side
            .send(SideJob::RoomWithPlayers(write, players, expected, reply))
            .map_err(|_| StoreError::Closed)?;
        Ok(Committed::from_receiver(rx))
    }

    /// Stores a room and players in one transaction, guarded as
    /// [`PgStore::queue_room_with_players`]; creates the room first if this node holds none
    /// of that code.
    ///
    /// # Errors
    ///
    /// As [`PgStore::queue_room_with_players`], awaited.
    pub async fn put_room_with_players_expecting(
        &self,
        kind: RoomKind,
        code: &str,
        json: String,
        players: Vec<PlayerRow>,
        expected: Vec<PlayerRev>,
    ) -> Result<(), StoreError> {
        if !lock(&self.owned).contains_key(code) {
            self.create(kind, code, json.clone()).await?;
        }
        self.queue_room_with_players(kind, code, json, players, expected)?.wait().await
    }

    /// Queues players, after every write queued before, guarded by `expected` as
    /// [`PgStore::queue_room_with_players`] (empty: not guarded).
    ///
    /// # Errors
    ///
    /// [`StoreError::Closed`] if the writer task is gone. The commit fails with
    /// [`StoreError::StalePlayer`] when a guard does not hold (nothing is written).
    pub fn queue_players(
        &self,
        rows: Vec<PlayerRow>,
        expected: Vec<PlayerRev>,
    ) -> Result<Committed, StoreError> {
        let (reply, rx) = oneshot::channel();
        self.side.send(SideJob::Players(rows, expected, reply)).map_err(|_| StoreError::Closed)?;
        Ok(Committed::from_receiver(rx))
    }

    /// Queues a finished game `key` (`CODE/n`, stored once), after every write queued before;
    /// the database numbers it (its `seq`, the game's id in the cluster: the number in the
    /// record is not used).
    ///
    /// # Errors
    ///
    /// [`StoreError::Closed`] if the writer task is gone.
    pub fn queue_game(&self, key: String, json: String) -> Result<GameNumber, StoreError> {
        let (reply, rx) = oneshot::channel();
        self.side.send(SideJob::Game(key, json, reply)).map_err(|_| StoreError::Closed)?;
        Ok(GameNumber(rx))
    }

    /// The players written since revision `rev` (0: all), in the order of their revisions.
    ///
    /// # Errors
    ///
    /// [`StoreError::Postgres`].
    pub async fn players_since(&self, rev: i64) -> Result<Vec<StoredPlayer>, StoreError> {
        let rows = self
            .conn()
            .await?
            .client
            .query("SELECT key, record, rev FROM players WHERE rev > $1 ORDER BY rev", &[&rev])
            .await?;
        Ok(rows
            .iter()
            .map(|r| StoredPlayer { key: r.get(0), record: r.get(1), rev: r.get(2) })
            .collect())
    }

    /// The stored rows of the players `keys` (a key without a row is absent).
    ///
    /// # Errors
    ///
    /// [`StoreError::Postgres`].
    pub async fn players_of(&self, keys: &[String]) -> Result<Vec<StoredPlayer>, StoreError> {
        let rows = self
            .conn()
            .await?
            .client
            .query("SELECT key, record, rev FROM players WHERE key = ANY($1::text[])", &[&keys])
            .await?;
        Ok(rows
            .iter()
            .map(|r| StoredPlayer { key: r.get(0), record: r.get(1), rev: r.get(2) })
            .collect())
    }

    /// The finished games stored after number `seq` (0: all), oldest first: each one's
    /// number and record.
    ///
    /// # Errors
    ///
    /// [`StoreError::Postgres`].
    pub async fn games_since(&self, seq: u64) -> Result<Vec<(u64, String)>, StoreError> {
        let seq = i64::try_from(seq).unwrap_or(i64::MAX);
        let rows = self
            .conn()
            .await?
            .client
            .query("SELECT seq, record FROM games WHERE seq > $1 ORDER BY seq", &[&seq])
            .await?;
        Ok(rows.iter().map(|r| (r.get::<_, i64>(0).unsigned_abs(), r.get(1))).collect())
    }
}

fn parse(code: &str, json: &str) -> Result<Value, StoreError> {
    serde_json::from_str(json)
        .map_err(|e| StoreError::Corrupt { code: code.to_owned(), detail: e.to_string() })
}

/// Reads room `code`: its kind, its record (snapshot plus patches, in one statement so one
/// snapshot of the database) and the number of its last patch.
async fn load(client: &Client, code: &str) -> Result<Option<(RoomKind, Value, i64)>, StoreError> {
    let rows = client
        .query(
            "SELECT r.kind, r.snapshot, r.snapshot_n, e.n, e.patch
             FROM rooms r LEFT JOIN room_events e ON e.code = r.code AND e.n > r.snapshot_n
             WHERE r.code = $1 ORDER BY e.n",
            &[&code],
        )
        .await?;
    let Some(first) = rows.first() else { return Ok(None) };
    let kind = match first.get::<_, &str>(0) {
        "chaturaji" => RoomKind::Chaturaji,
        _ => RoomKind::Chess,
    };
    let mut record = parse(code, first.get(1))?;
    let mut last: i64 = first.get(2);
    for row in &rows {
        let (Some(n), Some(p)) = (row.get::<_, Option<i64>>(3), row.get::<_, Option<&str>>(4))
        else {
            continue;
        };
        patch::apply(&mut record, parse(code, p)?)
            .map_err(|detail| StoreError::Corrupt { code: code.to_owned(), detail })?;
        last = n;
    }
    Ok(Some((kind, record, last)))
}

async fn migrate(client: &mut Client) -> Result<(), StoreError> {
    // Under the lock even the version table's creation: nodes starting together would
    // otherwise race on it.
    let tx = client.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK]).await?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS schema_version (
            version integer PRIMARY KEY,
            applied_at timestamptz NOT NULL DEFAULT now()
        )",
    )
    .await?;
    let current: i32 =
        tx.query_one("SELECT coalesce(max(version), 0) FROM schema_version", &[]).await?.get(0);
    for (version, sql) in MIGRATIONS {
        if *version > current {
            tx.batch_execute(sql).await?;
            tx.execute("INSERT INTO schema_version (version) VALUES ($1)", &[version]).await?;
            info!(version, "schema migrated");
        }
    }
    tx.commit().await?;
    Ok(())
}

/// Every write of a player takes the next revision (`excluded.rev`: the new row's default).
const UPSERT_PLAYER: &str = "INSERT INTO players (key, skeleton, record) VALUES ($1, $2, $3)
     ON CONFLICT (key) DO UPDATE SET skeleton = excluded.skeleton, record = excluded.record,
       rev = excluded.rev";

/// The ordered writer: players, games, rated ends, one after the other on its own connection.
async fn side_writer(
    url: String,
    node: String,
    first: Client,
    mut jobs: mpsc::UnboundedReceiver<SideJob>,
    owned: OwnedMap,
) {
    let mut client = Some(first);
    while let Some(job) = jobs.recv().await {
        if client.as_ref().map_or(true, Client::is_closed) {
            client = connect(&url).await.map_err(|e| warn!("postgres writer: {e}")).ok();
        }
        let result = match client.as_mut() {
            None => Err(StoreError::Postgres("cannot connect".into())),
            Some(c) => side_job(c, &node, &job).await,
        };
        let fenced = matches!(result, Err(StoreError::Fenced { .. }));
        match job {
            SideJob::Players(_, _, reply) => {
                let _ = reply.send(result.map(|_| ()));
            }
            SideJob::Game(_, _, reply) => {
                let _ = reply.send(result.map(|seq| seq.unwrap_or_default()));
            }
            SideJob::RoomWithPlayers(write, _, _, reply) => {
                if result.is_err() {
                    PgStore::write_failed(&owned, &write.code, fenced);
                }
                let _ = reply.send(result.map(|_| ()));
            }
        }
    }
}

/// Runs one ordered write in its own transaction; a finished game's number for
/// [`SideJob::Game`].
async fn side_job(
    client: &mut Client,
    node: &str,
    job: &SideJob,
) -> Result<Option<u64>, StoreError> {
    let tx = client.transaction().await?;
    let mut number = None;
    match job {
        SideJob::Players(rows, expected, _) => {
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&PLAYERS_LOCK]).await?;
            check_revisions(&tx, expected).await?;
            for row in rows {
                tx.execute(UPSERT_PLAYER, &[&row.key, &row.skeleton, &row.json]).await?;
            }
        }
        SideJob::Game(key, json, _) => {
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&GAMES_LOCK]).await?;
            // Numbered by the database, so every node gives a game the same id; a game stored
            // before (a room recovered on another node ends it again) keeps its number.
            let inserted = tx
                .query_opt(
                    "WITH n AS (SELECT nextval(pg_get_serial_sequence('games', 'seq')) AS seq)
                     INSERT INTO games (seq, id, key, record) SELECT seq, seq, $1, $2 FROM n
                     ON CONFLICT (key) DO NOTHING RETURNING seq",
                    &[key, json],
                )
                .await?;
            let seq: i64 = match inserted {
                Some(row) => row.get(0),
                None => tx.query_one("SELECT seq FROM games WHERE key = $1", &[key]).await?.get(0),
            };
            number = Some(seq.unsigned_abs());
        }
        SideJob::RoomWithPlayers(w, rows, expected, _) => {
            let sql = "SELECT 1 FROM room_owner o JOIN nodes n ON n.node = o.node
                       WHERE o.code = $1 AND o.node = $2 AND o.epoch = $3
                       AND n.lease_until > now() FOR UPDATE OF o";
            if tx.query_opt(sql, &[&w.code, &node, &w.epoch]).await?.is_none() {
                return Err(StoreError::Fenced { code: w.code.clone() });
            }
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&PLAYERS_LOCK]).await?;
            check_revisions(&tx, expected).await?;
            tx.execute(
                "INSERT INTO room_events (code, n, epoch, patch) VALUES ($1, $2, $3, $4)",
                &[&w.code, &w.n, &w.epoch, &w.patch],
            )
            .await?;
            for row in rows {
                tx.execute(UPSERT_PLAYER, &[&row.key, &row.skeleton, &row.json]).await?;
            }
        }
    }
    tx.commit().await?;
    Ok(number)
}

/// Locks the rows of the `expected` players until the commit and checks that each is still
/// the revision expected (a player expected without a row still has none).
///
/// # Errors
///
/// [`StoreError::StalePlayer`] for the first that is not.
async fn check_revisions(
    tx: &tokio_postgres::Transaction<'_>,
    expected: &[PlayerRev],
) -> Result<(), StoreError> {
    if expected.is_empty() {
        return Ok(());
    }
    let keys: Vec<&str> = expected.iter().map(|e| e.key.as_str()).collect();
    let rows = tx
        .query("SELECT key, rev FROM players WHERE key = ANY($1::text[]) FOR UPDATE", &[&keys])
        .await?;
    let stored: HashMap<String, i64> =
        rows.iter().map(|r| (r.get::<_, String>(0), r.get::<_, i64>(1))).collect();
    for e in expected {
        let now = stored.get(&e.key).copied();
        if now != e.rev {
            return Err(StoreError::StalePlayer {
                key: e.key.clone(),
                expected: e.rev,
                stored: now,
            });
        }
    }
    Ok(())
}

impl Storage for PgStore {
    async fn put_room(&self, kind: RoomKind, code: &str, json: String) -> Result<(), StoreError> {
        let record = parse(code, &json)?;
        let Some((write, checkpoint)) = self.next_write(code, &record) else {
            return self.create(kind, code, json).await;
        };
        let (epoch, n) = (write.epoch, write.n);
        let (reply, answer) = oneshot::channel();
        let i = self.next.fetch_add(1, Ordering::Relaxed) % self.writers.len();
        let result = match self.writers[i].send(EventWrite { write, reply }) {
            Err(_) => Err(StoreError::Closed),
            Ok(()) => match answer.await {
                Err(_) => Err(StoreError::Closed),
                Ok(Err(e)) => Err(StoreError::Postgres(e)),
                Ok(Ok(committed)) => Ok(u64::from(committed)),
            },
        };
        match result {
            Ok(1) => {
                if checkpoint {
                    self.checkpoint(code, epoch, n, json);
                }
                Ok(())
            }
            Ok(_) => {
                PgStore::write_failed(&self.owned, code, true);
                Err(StoreError::Fenced { code: code.to_owned() })
            }
            Err(e) => {
                PgStore::write_failed(&self.owned, code, matches!(e, StoreError::Fenced { .. }));
                Err(e)
            }
        }
    }

    async fn put_room_with_players(
        &self,
        kind: RoomKind,
        code: &str,
        json: String,
        players: Vec<PlayerRow>,
    ) -> Result<(), StoreError> {
        self.put_room_with_players_expecting(kind, code, json, players, Vec::new()).await
    }

    async fn delete_room(&self, _kind: RoomKind, code: &str) -> Result<(), StoreError> {
        let Some(epoch) = lock(&self.owned).remove(code).map(|o| o.epoch) else {
            return Err(StoreError::Fenced { code: code.to_owned() });
        };
        let sql = format!(
            "WITH r AS (DELETE FROM rooms WHERE code = $1 AND {FENCE} RETURNING code),
                  e AS (DELETE FROM room_events WHERE code = $1 AND EXISTS (SELECT 1 FROM r))
             SELECT count(*) FROM r"
        );
        let n: i64 =
            self.conn().await?.client.query_one(&sql, &[&code, &self.node, &epoch]).await?.get(0);
        if n == 0 {
            return Err(StoreError::Fenced { code: code.to_owned() });
        }
        Ok(())
    }

    async fn room(&self, kind: RoomKind, code: &str) -> Result<Option<String>, StoreError> {
        let conn = self.conn().await?;
        Ok(load(&conn.client, code)
            .await?
            .filter(|(k, _, _)| *k == kind)
            .map(|(_, record, _)| record.to_string()))
    }

    async fn put_players(&self, rows: Vec<PlayerRow>) -> Result<(), StoreError> {
        self.queue_players(rows, Vec::new())?.wait().await
    }

    /// The database numbers the game (see [`PgStore::queue_game`]): `id` is not used.
    async fn put_game(&self, _id: u64, key: String, json: String) -> Result<(), StoreError> {
        self.queue_game(key, json)?.wait().await.map(|_| ())
    }

    async fn players(&self) -> Result<Vec<(String, String)>, StoreError> {
        let rows = self.conn().await?.client.query("SELECT key, record FROM players", &[]).await?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    async fn games(&self) -> Result<Vec<String>, StoreError> {
        let rows =
            self.conn().await?.client.query("SELECT record FROM games ORDER BY seq", &[]).await?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }
}
