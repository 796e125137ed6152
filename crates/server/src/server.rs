//! WebSocket transport, connection limits and explicit shutdown (mini-redis style).
//!
//! Each connection is a reader loop plus a writer task; it holds at most one room handle. Each
//! room is a task of the one room runtime ([`actor`]), whatever its kind ([`chess`],
//! [`chaturaji`]); rooms talk to connections through a bounded channel.

use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use maharajah_engine::clock::Millis;
use maharajah_protocol::identity::{verify_hello, Challenge, PlayerKey, NONCE_BYTES};
use maharajah_protocol::{
    decode_client, encode, version_mismatch_message, AccessCode, ChaturajiMsg, ClientMsg,
    ErrorCode, ServerMsg, MAX_FRAME_BYTES, PROTOCOL_VERSION,
};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot, watch, Notify};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::handshake::server::{Request, Response};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{self, Message};
use tracing::{debug, info, warn};

use crate::chaturaji::ChaturajiRoom;
use crate::codes::{new_code, new_token};
use crate::players::Players;
use crate::room::Room;
use crate::rooms::{Lifetimes, RoomError};
use crate::store::{PgStore, Store, StoreError, StoredRooms};

use actor::{Cmd, RoomLogic, RoomTx, ROOM_QUEUE};
use chaturaji::ChaturajiCmd;
pub use cluster::ClusterConfig;

mod actor;
mod admin;
mod chaturaji;
mod chess;
mod cluster;
mod listing;
mod lobby;
mod tables;

/// Server settings. `Default` suits a LAN host: in memory, generous limits.
#[derive(Clone, Debug)]
pub struct Config {
    /// SQLite file for durable rooms; `None` keeps rooms in memory only.
    pub db: Option<PathBuf>,
    /// Room lifetimes and the recovery grace.
    pub lifetimes: Lifetimes,
    /// Most simultaneous connections from one IP address.
    pub max_connections_per_ip: usize,
    /// Sustained messages per second per connection (bursts of twice as many are allowed).
    pub messages_per_second: u32,
    /// Failed join or rejoin attempts per minute per IP address before joins are refused.
    pub join_failures_per_minute: u32,
    /// Rooms one IP address may create per minute.
    pub rooms_per_minute_per_ip: u32,
    /// Most rooms the server holds at once (a full server refuses new rooms).
    pub max_rooms: usize,
    /// Most rooms created from one IP address that wait for players at once (rooms recovered
    /// after a restart are not counted: their creators' addresses are not stored).
    pub waiting_rooms_per_ip: usize,
    /// The lobby's limits (open challenges per connection, request rate) and rating source.
    pub lobby: crate::lobby::LobbyConfig,
    /// How often the server pings an idle connection.
    pub ping_interval: Duration,
    /// A connection that sends nothing (not even a pong) for this long is closed.
    pub idle_timeout: Duration,
    /// Most connections open at once; `None`: the open-files limit less a reserve (see
    /// [`descriptor_cap`]). Connections over it are told `unavailable` and closed.
    pub max_connections: Option<usize>,
    /// A connection that has not said `hello` this long after it opened is closed.
    pub hello_timeout: Duration,
    /// Reverse proxies whose `X-Forwarded-For` header names the real client: connections from
    /// these addresses are counted, limited and logged under the forwarded address. Empty (the
    /// default): the header is ignored, as anyone can send it.
    pub trusted_proxies: Vec<IpAddr>,
    /// Serve `wss://` (TLS) with this certificate and key instead of plain `ws://`; see
    /// [`crate::tls::server_config`]. A server behind a TLS-terminating proxy leaves it `None`.
    /// (Feature `tls`, on by default.)
    #[cfg(feature = "tls")]
    pub tls: Option<Arc<rustls::ServerConfig>>,
    /// The server's name in the identity challenge ([`Challenge::server`]): players sign it,
    /// so a signature made for one server is no use on another. The public host name for an
    /// online server; default `maharajah`.
    pub server_name: String,
    /// Most spectators of one room at once; the next `watch` is refused `too_many_spectators`.
    pub spectators_per_room: usize,
    /// Cluster mode: rooms in PostgreSQL, shared with other nodes (then `db` is not used).
    /// `None` (the default): one server on its own, SQLite or memory.
    pub cluster: Option<ClusterConfig>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            db: None,
            lifetimes: Lifetimes::default(),
            max_connections_per_ip: 64,
            messages_per_second: 20,
            join_failures_per_minute: 20,
            rooms_per_minute_per_ip: 10,
            max_rooms: 100_000,
            waiting_rooms_per_ip: 8,
            lobby: crate::lobby::LobbyConfig::default(),
            ping_interval: Duration::from_secs(5),
            idle_timeout: Duration::from_secs(15),
            trusted_proxies: Vec::new(),
            max_connections: None,
            hello_timeout: Duration::from_secs(10),
            #[cfg(feature = "tls")]
            tls: None,
            server_name: "maharajah".to_owned(),
            spectators_per_room: 200,
            cluster: None,
        }
    }
}

impl Config {
    /// Whether connections are plain WebSocket (no TLS here).
    fn tls_off(&self) -> bool {
        #[cfg(feature = "tls")]
        return self.tls.is_none();
        #[cfg(not(feature = "tls"))]
        true
    }
}

/// Descriptors kept free for the database, the logs, the admin port and the polite refusal of
/// connections over the cap.
pub const DESCRIPTOR_RESERVE: u64 = 64;

/// The default connection cap: the soft open-files limit (`RLIMIT_NOFILE`) less
/// [`DESCRIPTOR_RESERVE`], and at least 16. The binary raises the soft limit to the hard one
/// first ([`raise_descriptor_limit`]).
pub fn descriptor_cap() -> usize {
    #[cfg(unix)]
    if let Ok((soft, _)) =
        nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE)
    {
        let cap = soft.saturating_sub(DESCRIPTOR_RESERVE).max(16);
        return usize::try_from(cap).unwrap_or(usize::MAX);
    }
    1024 - 64
}

/// Raises this process's soft open-files limit to its hard limit; the new soft limit.
///
/// # Errors
///
/// The system's refusal, as text.
pub fn raise_descriptor_limit() -> Result<u64, String> {
    #[cfg(unix)]
    {
        use nix::sys::resource::{getrlimit, setrlimit, Resource};
        let (_, hard) = getrlimit(Resource::RLIMIT_NOFILE).map_err(|e| e.to_string())?;
        // macOS refuses more than OPEN_MAX for the soft limit however high the hard one.
        let soft = if cfg!(target_os = "macos") { hard.min(10_240) } else { hard };
        setrlimit(Resource::RLIMIT_NOFILE, soft, hard).map_err(|e| e.to_string())?;
        Ok(soft)
    }
    #[cfg(not(unix))]
    Ok(0)
}

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The database could not be opened.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The listener failed.
    #[error("listener: {0}")]
    Io(#[from] std::io::Error),
}

/// What a connection's writer task sends.
enum Out {
    Msg(ServerMsg),
    Chaturaji(Box<ChaturajiMsg>),
    /// A frame from the room's owner on another node, passed on as it came.
    Raw(String),
    Close,
}

impl From<ServerMsg> for Out {
    fn from(msg: ServerMsg) -> Out {
        Out::Msg(msg)
    }
}

impl From<ChaturajiMsg> for Out {
    fn from(msg: ChaturajiMsg) -> Out {
        Out::Chaturaji(Box::new(msg))
    }
}

/// The receiving half of the server's shutdown signal (mini-redis's `Shutdown`): every task
/// holds one and stops when it fires.
#[derive(Clone)]
struct Shutdown {
    rx: watch::Receiver<bool>,
}

impl Shutdown {
    /// Whether the server is shutting down.
    fn is_shutdown(&self) -> bool {
        *self.rx.borrow()
    }

    /// Waits until the server shuts down (at once if it already is).
    async fn recv(&mut self) {
        if !self.is_shutdown() {
            // An error means the sender is gone: that is a shutdown too.
            let _ = self.rx.changed().await;
        }
    }
}

#[derive(Clone)]
struct Link {
    id: u64,
    tx: mpsc::Sender<Out>,
    kill: Arc<Notify>,
}

impl Link {
    /// Queues a message; a connection too slow to take it is closed (it will resync).
    fn send(&self, msg: ServerMsg) -> bool {
        self.send_out(Out::Msg(msg))
    }

    fn send_out(&self, out: Out) -> bool {
        match self.tx.try_send(out) {
            Ok(()) => true,
            Err(_) => {
                self.kill.notify_one();
                false
            }
        }
    }
}

/// The wall clock in Unix milliseconds.
fn unix_ms() -> Millis {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// The answer to `ping`, with the server's wall clock.
fn pong(nonce: u64) -> ServerMsg {
    ServerMsg::Pong { nonce, server_time_ms: unix_ms() }
}

struct Shared {
    config: Config,
    store: Store,
    /// The start of the rooms' timeline ([`Shared::now`]): this instant is `epoch_unix` ms.
    epoch: Instant,
    epoch_unix: Millis,
    /// Every room, of every kind, by its code.
    rooms: Mutex<HashMap<AccessCode, RoomTx>>,
    per_ip: Mutex<HashMap<IpAddr, usize>>,
    /// Rooms created from each address that still wait for players.
    waiting_per_ip: Mutex<HashMap<IpAddr, usize>>,
    join_failures: Mutex<HashMap<IpAddr, (Millis, u32)>>,
    creations: Mutex<HashMap<IpAddr, (Millis, u32)>>,
    /// Lobby requests and lookups per address, in one-minute windows.
    lobby_requests: Mutex<HashMap<IpAddr, (Millis, u32)>>,
    lookups: Mutex<HashMap<IpAddr, (Millis, u32)>>,
    /// Open challenges, their subscribers and the quick-pairing queue.
    lobby: lobby::LobbyHub,
    shutdown: Shutdown,
    next_conn: AtomicU64,
    /// Held by every task; `run` waits until all clones are dropped.
    alive: mpsc::Sender<()>,
    /// Counters for `/metrics` and the readiness flag.
    stats: admin::Stats,
    /// Turns true once the stored rooms are back (at once without storage).
    loaded: watch::Receiver<bool>,
    /// Accepted sockets open now, and the most there may be.
    open: AtomicUsize,
    connection_cap: usize,
    /// Over-cap connections being refused now.
    refusing: AtomicUsize,
    /// Every player with a name or a rating (read from the store before `loaded`).
    players: Mutex<Players>,
    /// Finished games of identified players, for profiles (read from the store before
    /// `loaded`).
    history: Mutex<crate::history::History>,
    /// The rooms with a game on, as "playing now" lists them (kept by each room's task).
    live: Mutex<HashMap<AccessCode, listing::LiveRoom>>,
    /// The cluster side, in cluster mode.
    cluster: Option<Arc<cluster::Cluster>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding one of these small maps cannot leave it inconsistent.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Shared {
    /// The rooms' time: Unix milliseconds at the start plus the monotonic time since, so a
    /// deadline stored in a record (a room's expiry) means the same after a restart.
    fn now(&self) -> Millis {
        let since = Instant::now().duration_since(self.epoch).as_millis();
        self.epoch_unix.saturating_add(u64::try_from(since).unwrap_or(u64::MAX))
    }

    fn instant_at(&self, t: Millis) -> Instant {
        let since = t.saturating_sub(self.epoch_unix);
        self.epoch + Duration::from_millis(since.min(u64::MAX / 4))
    }

    fn room(&self, code: &AccessCode) -> Option<RoomTx> {
        lock(&self.rooms).get(code).cloned()
    }

    /// Counts one more connection from `ip`, or `None` when it already has the most allowed.
    fn admit(self: &Arc<Self>, ip: IpAddr) -> Option<IpGuard> {
        IpGuard::take(self, ip, |s| &s.per_ip, self.config.max_connections_per_ip)
    }

    /// Counts one more waiting room created from `ip`, or `None` when it already has
    /// [`Config::waiting_rooms_per_ip`] open. The room's task holds the guard while it waits.
    fn open_waiting(self: &Arc<Self>, ip: IpAddr) -> Option<IpGuard> {
        IpGuard::take(self, ip, |s| &s.waiting_per_ip, self.config.waiting_rooms_per_ip)
    }

    /// The client behind a connection from `peer`: the peer itself, or, from a trusted proxy,
    /// the rightmost `X-Forwarded-For` address that is not one of the trusted proxies.
    fn client_ip(&self, peer: IpAddr, forwarded: Option<&str>) -> IpAddr {
        let trusted = &self.config.trusted_proxies;
        if !trusted.contains(&peer) {
            return peer;
        }
        forwarded
            .into_iter()
            .flat_map(|list| list.rsplit(','))
            .map_while(|hop| hop.trim().parse::<IpAddr>().ok())
            .find(|ip| !trusted.contains(ip))
            .unwrap_or(peer)
    }

    fn join_allowed(&self, ip: IpAddr) -> bool {
        within_limit(&self.join_failures, ip, self.now(), self.config.join_failures_per_minute)
    }

    fn join_failed(&self, ip: IpAddr) {
        count(&self.join_failures, ip, self.now());
    }
}

/// Whether `ip` has had fewer than `limit` counted events in the current minute.
fn within_limit(
    map: &Mutex<HashMap<IpAddr, (Millis, u32)>>,
    ip: IpAddr,
    now: Millis,
    limit: u32,
) -> bool {
    match lock(map).get(&ip) {
        Some((start, n)) if now.saturating_sub(*start) < 60_000 => *n < limit,
        _ => true,
    }
}

/// Counts one event for `ip` in its current one-minute window.
fn count(map: &Mutex<HashMap<IpAddr, (Millis, u32)>>, ip: IpAddr, now: Millis) {
    let mut map = lock(map);
    if map.len() > 100_000 {
        map.retain(|_, (start, _)| now.saturating_sub(*start) < 60_000);
    }
    let e = map.entry(ip).or_insert((now, 0));
    if now.saturating_sub(e.0) >= 60_000 {
        *e = (now, 0);
    }
    e.1 += 1;
}

impl Shared {
    /// Makes the room of a match made outside the lobby's queue (a rematch) and seats both
    /// players; the room's task cannot call the lobby itself (the lobby starts room tasks).
    fn open_match(self: &Arc<Self>, m: actor::Match) {
        tokio::spawn(lobby::open_room(self.clone(), m));
    }
}

impl Shared {
    /// Whether the stored rooms are back, connections are accepted and no shutdown began.
    fn is_ready(&self) -> bool {
        self.stats.ready.load(Ordering::Relaxed)
            && !self.shutdown.is_shutdown()
            && self.cluster.as_ref().map_or(true, |c| c.is_healthy())
    }

    /// Waits until the stored rooms are back (connections are served meanwhile: `hello`,
    /// `ping`), so that no join of a stored room is told it does not exist.
    async fn until_loaded(&self) {
        let mut loaded = self.loaded.clone();
        let _ = loaded.wait_for(|done| *done).await;
    }

    /// Rooms held now, of every kind.
    fn room_count(&self) -> usize {
        lock(&self.rooms).len()
    }

    /// Registers `tx` under a fresh access code and returns the code.
    fn reserve_code(&self, tx: RoomTx) -> AccessCode {
        let mut rooms = lock(&self.rooms);
        let mut code = new_code();
        while rooms.contains_key(&code) {
            code = new_code();
        }
        rooms.insert(code.clone(), tx);
        code
    }
}

/// Runs the server on `listener` until `shutdown` completes, then closes every connection and
/// room task and returns.
///
/// Rooms stored in `config.db` are recovered first (clocks frozen until the side to move is back,
/// see [`crate::room`]).
///
/// # Errors
///
/// [`ServerError::Store`] if the database cannot be opened; [`ServerError::Io`] if accepting
/// fails for good.
pub async fn run(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()>,
) -> Result<(), ServerError> {
    run_with_admin(listener, None, config, shutdown).await
}

/// [`run`], also serving `/healthz`, `/readyz` and `/metrics` over plain HTTP on `admin`
/// (from the start, so a probe sees `/readyz` turn ready once the stored rooms are back).
///
/// # Errors
///
/// As [`run`].
pub async fn run_with_admin(
    listener: TcpListener,
    admin: Option<TcpListener>,
    config: Config,
    shutdown: impl Future<Output = ()>,
) -> Result<(), ServerError> {
    let mut cluster = None;
    let (store, stored) = match (&config.cluster, &config.db) {
        (Some(c), _) => {
            let pg = PgStore::connect(&c.postgres, &c.node, c.lease, c.pool).await?;
            let advertise = match &c.advertise {
                Some(url) => url.clone(),
                None => format!("ws://{}", listener.local_addr()?),
            };
            pg.heartbeat(&advertise, false, "[]").await?;
            info!(node = c.node, advertise, lease_ms = c.lease.as_millis(), "cluster node");
            cluster = Some(Arc::new(cluster::Cluster::new(pg.clone(), advertise, c.redirect)));
            (Store::postgres(pg), None)
        }
        (None, Some(path)) => {
            let (store, stored) = Store::open_lazy(path)?;
            (store, Some(stored))
        }
        (None, None) => (Store::memory(), None),
    };
    let (loaded_tx, loaded) = watch::channel(false);
    let connection_cap = config.max_connections.unwrap_or_else(descriptor_cap);
    info!(connection_cap, "connection cap");
    let (stop_tx, stop_rx) = watch::channel(false);
    let (alive, mut all_done) = mpsc::channel::<()>(1);
    let shared = Arc::new(Shared {
        config,
        store,
        epoch: Instant::now(),
        epoch_unix: unix_ms(),
        rooms: Mutex::new(HashMap::new()),
        per_ip: Mutex::new(HashMap::new()),
        waiting_per_ip: Mutex::new(HashMap::new()),
        join_failures: Mutex::new(HashMap::new()),
        creations: Mutex::new(HashMap::new()),
        lobby_requests: Mutex::new(HashMap::new()),
        lookups: Mutex::new(HashMap::new()),
        lobby: lobby::LobbyHub::default(),
        shutdown: Shutdown { rx: stop_rx },
        next_conn: AtomicU64::new(1),
        alive,
        stats: admin::Stats::default(),
        loaded,
        open: AtomicUsize::new(0),
        connection_cap,
        refusing: AtomicUsize::new(0),
        players: Mutex::new(Players::default()),
        history: Mutex::new(crate::history::History::default()),
        live: Mutex::new(HashMap::new()),
        cluster,
    });
    if let Some(admin) = admin {
        tokio::spawn(admin::serve(shared.clone(), admin));
    }
    tokio::spawn(lobby::pairing_task(shared.clone()));
    if shared.cluster.is_some() {
        tokio::spawn(cluster::lease_task(shared.clone()));
        tokio::spawn(cluster::sweep_task(shared.clone()));
        tokio::spawn(cluster::follow_task(shared.clone()));
    }

    // Connections are accepted at once; the stored rooms come back meanwhile (joins wait for
    // them), each with its recovery grace starting when it is back.
    let recovery = recover(shared.clone(), stored, loaded_tx);
    let result = tokio::select! {
        r = accept_loop(&shared, &listener) => r,
        Err(e) = recovery => Err(e),
        () = shutdown => Ok(()),
    };
    // Tell every task to stop, then wait for them.
    let _ = stop_tx.send(true);
    drop(listener);
    // Draining: the rooms' leases end now, while the connections close, so other nodes claim
    // each room as soon as its players reconnect. A room task still finishing a change when
    // its lease ends is fenced: that change is refused, never acknowledged, and the player
    // sends it again to the new owner.
    if let Some(cluster) = shared.cluster.clone() {
        match cluster.pg.release_all().await {
            Ok(n) => {
                cluster::released(&cluster, n);
                info!(rooms = n, "drained: rooms handed back");
            }
            Err(e) => warn!("handing the rooms back failed (their leases will run out): {e}"),
        }
    }
    let drained = shared.store.drained();
    let alive = shared.alive.clone();
    drop(shared);
    drop(alive);
    let _ = all_done.recv().await;
    // Every handle of the store is gone with the tasks: what they queued and nobody awaits (a
    // finished game, new ratings) is committed before the server says it stopped.
    if tokio::time::timeout(DRAIN_WAIT, drained.wait()).await.is_err() {
        warn!("the store's last writes did not finish within {DRAIN_WAIT:?}");
    }
    result
}

/// The longest a stop waits for the store to commit what was queued.
const DRAIN_WAIT: Duration = Duration::from_secs(10);

/// Brings the stored rooms back (read on a blocking thread, no re-save: the first change of
/// each stores it), then says the server is ready. Resolves only on failure.
async fn recover(
    shared: Arc<Shared>,
    stored: Option<StoredRooms>,
    loaded: watch::Sender<bool>,
) -> Result<(), ServerError> {
    let started = Instant::now();
    if let Some(cluster) = &shared.cluster {
        // Every player and game stored so far; the ones stored later are followed.
        cluster::follow(&shared, cluster).await?;
        info!(players = lock(&shared.players).len(), "players back");
    }
    if let Some(stored) = stored {
        let read = tokio::task::spawn_blocking(move || {
            let players = stored.read_players()?;
            let games = stored.read_games()?;
            stored.read().map(|rooms| (players, games, rooms))
        })
        .await;
        let read = read.map(|r| {
            r.map(|(players, games, rooms)| {
                let (players, bad) = Players::from_rows(players);
                for b in bad {
                    warn!("not recovered: {b}");
                }
                info!(players = players.len(), "players back");
                *lock(&shared.players) = players;
                let (history, bad) = crate::history::History::from_rows(games);
                for b in bad {
                    warn!("not recovered: {b}");
                }
                *lock(&shared.history) = history;
                rooms
            })
        });
        let (records, chaturaji_records) = match read {
            Ok(read) => read?,
            Err(e) => {
                let detail = format!("reading the stored rooms: {e}");
                return Err(StoreError::Corrupt { code: String::new(), detail }.into());
            }
        };
        let now = shared.now();
        actor::recover::<Room>(&shared, records, now);
        actor::recover::<ChaturajiRoom>(&shared, chaturaji_records, now);
    }
    shared.stats.ready.store(true, Ordering::Relaxed);
    let _ = loaded.send(true);
    let ms = started.elapsed().as_millis();
    info!(rooms = shared.room_count(), ms, "ready");
    std::future::pending().await
}

/// How many times a name is written when another node of a cluster changed the player
/// meanwhile (each time from the record as stored then).
const REGISTER_TRIES: usize = 3;

/// Shortest and longest wait after a failed `accept`.
const ACCEPT_BACKOFF: (Duration, Duration) = (Duration::from_millis(10), Duration::from_secs(1));
/// Most connections being refused at once for a full server (each holds a descriptor).
const MAX_REFUSING: usize = 32;

/// Accepts connections until the server stops. It never gives up: a failure to accept (out of
/// descriptors, out of memory) is logged and retried after a short back-off while the open
/// connections are served; the connection cap keeps it from happening in the first place.
async fn accept_loop(shared: &Arc<Shared>, listener: &TcpListener) -> Result<(), ServerError> {
    let mut backoff = ACCEPT_BACKOFF.0;
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(x) => {
                backoff = ACCEPT_BACKOFF.0;
                x
            }
            Err(e) => {
                warn!("accepting a connection failed, retrying in {backoff:?}: {e}");
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(ACCEPT_BACKOFF.1);
                continue;
            }
        };
        let open = Open::count(shared);
        let full = open.before >= shared.connection_cap;
        if full && shared.refusing.fetch_add(1, Ordering::Relaxed) >= MAX_REFUSING {
            shared.refusing.fetch_sub(1, Ordering::Relaxed);
            continue; // too many refusals at once: just close
        }
        if full {
            let shared = shared.clone();
            tokio::spawn(async move {
                let _open = open;
                if shared.config.tls_off() {
                    refuse_full(stream).await;
                }
                shared.refusing.fetch_sub(1, Ordering::Relaxed);
            });
            continue;
        }
        let ip = peer.ip();
        // A trusted proxy carries many clients: those are counted by their forwarded address
        // once the handshake has named it.
        let guard = if shared.config.trusted_proxies.contains(&ip) || shared.cluster.is_some() {
            // In a cluster, other nodes forward many players: counted once the handshake
            // has shown which connections those are.
            None
        } else {
            match shared.admit(ip) {
                Some(guard) => Some(guard),
                None => {
                    info!(%peer, "connection refused: too many from this address");
                    continue; // dropping the stream closes it
                }
            }
        };
        let shared = shared.clone();
        tokio::spawn(async move {
            let _guard = guard;
            let _open = open;
            let _alive = shared.alive.clone();
            let _ = stream.set_nodelay(true);
            #[cfg(feature = "tls")]
            if let Some(tls) = shared.config.tls.clone() {
                // The TLS handshake shares the WebSocket handshake's ten seconds.
                let accept = tokio_rustls::TlsAcceptor::from(tls).accept(stream);
                if let Ok(Ok(stream)) = tokio::time::timeout(HANDSHAKE, accept).await {
                    serve_connection(&shared, stream, peer).await;
                }
                return;
            }
            serve_connection(&shared, stream, peer).await;
        });
    }
}

/// Tells a connection over the server's cap, over plain WebSocket, that the server is full,
/// and closes it (a TLS server just closes it: the handshake would cost more than it saves).
async fn refuse_full(stream: tokio::net::TcpStream) {
    let refuse = async {
        let mut ws = tokio_tungstenite::accept_async_with_config(stream, Some(ws_config())).await?;
        let full = ServerMsg::error(ErrorCode::Unavailable, "the server is full; try again soon");
        ws.send(Message::text(encode(&full))).await?;
        ws.close(None).await
    };
    let _ = tokio::time::timeout(Duration::from_secs(2), refuse).await;
}

/// An accepted socket, counted against the connection cap while held.
struct Open {
    shared: Arc<Shared>,
    /// Sockets open before this one.
    before: usize,
}

impl Open {
    fn count(shared: &Arc<Shared>) -> Open {
        let before = shared.open.fetch_add(1, Ordering::Relaxed);
        Open { shared: shared.clone(), before }
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.shared.open.fetch_sub(1, Ordering::Relaxed);
    }
}

/// One open connection in `/metrics`, for as long as it is held.
struct Connected<'a>(&'a Shared);

impl Connected<'_> {
    fn count(shared: &Shared) -> Connected<'_> {
        shared.stats.connections.fetch_add(1, Ordering::Relaxed);
        Connected(shared)
    }
}

impl Drop for Connected<'_> {
    fn drop(&mut self) {
        self.0.stats.connections.fetch_sub(1, Ordering::Relaxed);
    }
}

/// One unit of a per-address count (connections, waiting rooms), given back when dropped.
pub(crate) struct IpGuard {
    shared: Arc<Shared>,
    ip: IpAddr,
    counts: fn(&Shared) -> &Mutex<HashMap<IpAddr, usize>>,
}

impl IpGuard {
    fn take(
        shared: &Arc<Shared>,
        ip: IpAddr,
        counts: fn(&Shared) -> &Mutex<HashMap<IpAddr, usize>>,
        most: usize,
    ) -> Option<IpGuard> {
        let mut map = lock(counts(shared));
        let n = map.entry(ip).or_insert(0);
        if *n >= most {
            if *n == 0 {
                map.remove(&ip);
            }
            return None;
        }
        *n += 1;
        Some(IpGuard { shared: shared.clone(), ip, counts })
    }
}

impl Drop for IpGuard {
    fn drop(&mut self) {
        let mut per_ip = lock((self.counts)(&self.shared));
        if let Some(n) = per_ip.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                per_ip.remove(&self.ip);
            }
        }
    }
}

fn ws_config() -> WebSocketConfig {
    // Frames a little over the protocol limit are read and refused with a typed error;
    // anything far larger ends the connection inside tungstenite.
    // The read buffer starts small (frames are tiny; it grows for a larger one): the default
    // 128 KiB, zero-filled on the first read, was most of the memory of an idle connection.
    WebSocketConfig::default()
        .max_message_size(Some(4 * MAX_FRAME_BYTES))
        .max_frame_size(Some(4 * MAX_FRAME_BYTES))
        .read_buffer_size(READ_BUFFER_BYTES)
}

/// Initial read buffer of a connection.
const READ_BUFFER_BYTES: usize = 4096;

/// Token bucket for the per-connection message rate.
struct Bucket {
    tokens: f64,
    rate: f64,
    last: Instant,
}

impl Bucket {
    fn take(&mut self) -> bool {
        let now = Instant::now();
        let capacity = 2.0 * self.rate;
        self.tokens =
            (self.tokens + now.duration_since(self.last).as_secs_f64() * self.rate).min(capacity);
        self.last = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

struct Conn {
    shared: Arc<Shared>,
    link: Link,
    ip: IpAddr,
    hello: bool,
    /// The identity challenge sent in `welcome`.
    challenge: [u8; NONCE_BYTES],
    /// The player this connection acts for, once identified.
    player: Option<PlayerKey>,
    /// The room this connection sits in, if any.
    room: Option<RoomHandle>,
    /// The room this connection watches as a spectator, if any.
    watching: Option<RoomHandle>,
    bucket: Bucket,
    /// Its side of the lobby (request bucket, the rooms the lobby seats it in).
    lobby: lobby::LobbyConn,
    /// Lookups (leaderboard, profile, game record, playing now) left; made at the first.
    lookups: Option<crate::lobby::RequestBucket>,
    refused: u32,
    /// In a cluster: the owner of this connection's room, on another node, which every frame
    /// goes to once set.
    upstream: Option<cluster::Upstream>,
    /// The connection comes from another node of the cluster, forwarding a player.
    from_node: bool,
    /// Its `hello` said it follows a `redirect`.
    redirects: bool,
    /// That node closed it because it drains: the player is handed over, not gone.
    handed_over: bool,
}

/// A connection's room: its code and its task's channel.
struct RoomHandle {
    code: AccessCode,
    tx: RoomTx,
}

enum Flow {
    Continue,
    Close,
}

/// Most frames a connection's writer puts in one write.
const COALESCE: usize = 32;

/// Longest wait for a new connection's TLS and WebSocket handshakes.
const HANDSHAKE: Duration = Duration::from_secs(10);

/// One client connection, over plain TCP or TLS.
async fn serve_connection<S>(shared: &Arc<Shared>, stream: S, peer: SocketAddr)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let mut forwarded = None;
    let (mut node_secret, mut node_player) = (None, None);
    // The error type (a whole HTTP response) is tungstenite's callback signature, not ours.
    #[allow(clippy::result_large_err)]
    let read_forwarded = |request: &Request, response: Response| {
        let header = |name: &str| {
            request.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned)
        };
        forwarded = header("x-forwarded-for");
        node_secret = header(cluster::NODE_HEADER);
        node_player = header(cluster::PLAYER_HEADER);
        Ok(response)
    };
    let handshake =
        tokio_tungstenite::accept_hdr_async_with_config(stream, read_forwarded, Some(ws_config()));
    let mut ws = match tokio::time::timeout(HANDSHAKE, handshake).await {
        Ok(Ok(ws)) => ws,
        Ok(Err(e)) => {
            debug!(%peer, "WebSocket handshake failed: {e}");
            return;
        }
        Err(_) => {
            debug!(%peer, "WebSocket handshake timed out");
            return;
        }
    };
    // Another node forwarding a player: it names the player's address and verified key.
    let from_node = shared
        .cluster
        .as_ref()
        .zip(node_secret.as_deref())
        .is_some_and(|(c, secret)| c.pg.secret() == secret);
    let ip = if from_node {
        forwarded
            .as_deref()
            .and_then(|f| f.rsplit(',').next())
            .and_then(|a| a.trim().parse().ok())
            .unwrap_or(peer.ip())
    } else {
        shared.client_ip(peer.ip(), forwarded.as_deref())
    };
    let forwarded_player: Option<PlayerKey> =
        if from_node { node_player.and_then(|k| k.parse().ok()) } else { None };
    let deferred = shared.config.trusted_proxies.contains(&peer.ip()) || shared.cluster.is_some();
    let _proxied_guard = if !deferred {
        None // counted at accept
    } else if let Some(guard) = shared.admit(ip) {
        Some(guard)
    } else {
        info!(%peer, client = %ip, "connection refused: too many from this address");
        let refusal = ServerMsg::error(ErrorCode::RateLimited, "too many connections from here");
        let _ = ws.send(Message::text(encode(&refusal))).await;
        let _ = ws.close(None).await;
        return;
    };
    let _counted = Connected::count(shared);
    let (mut sink, mut source) = ws.split();
    let (tx, mut rx) = mpsc::channel::<Out>(1024);
    let kill = Arc::new(Notify::new());
    let link =
        Link { id: shared.next_conn.fetch_add(1, Ordering::Relaxed), tx, kill: kill.clone() };
    let ping_every = shared.config.ping_interval;
    // When the reader last got a frame; a connection that spoke within the last interval is
    // alive and needs no ping (a game in progress rarely gets one).
    let heard = Arc::new(AtomicU64::new(shared.now()));
    let writer_heard = heard.clone();
    let writer_shared = shared.clone();
    let writer = tokio::spawn(async move {
        let mut ping = tokio::time::interval_at(Instant::now() + ping_every, ping_every);
        ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let every_ms = u64::try_from(ping_every.as_millis()).unwrap_or(u64::MAX);
        loop {
            let out = tokio::select! {
                out = rx.recv() => out,
                _ = ping.tick() => {
                    let quiet = writer_shared
                        .now()
                        .saturating_sub(writer_heard.load(Ordering::Relaxed));
                    if quiet >= every_ms / 2
                        && sink.send(Message::Ping(Vec::new().into())).await.is_err()
                    {
                        break;
                    }
                    continue;
                }
            };
            // This frame and whatever else is queued already go out in one write (a move's
            // answer and its news often come together): a system call per frame was the
            // largest part of a busy node's CPU.
            let mut next = out;
            let mut queued = 0;
            let (mut closing, mut failed) = (false, false);
            while let Some(out) = next.take() {
                let frame = match out {
                    Out::Msg(m) => Message::text(encode(&m)),
                    Out::Chaturaji(m) => Message::text(encode(&*m)),
                    Out::Raw(text) => Message::text(text),
                    Out::Close => {
                        closing = true;
                        break;
                    }
                };
                if sink.feed(frame).await.is_err() {
                    failed = true;
                    break;
                }
                queued += 1;
                if queued < COALESCE {
                    next = rx.try_recv().ok();
                }
            }
            if failed {
                break;
            }
            if closing || queued == 0 {
                let _ = sink.close().await;
                break;
            }
            if sink.flush().await.is_err() {
                break;
            }
        }
    });

    info!(conn = link.id, %peer, client = %ip, "connection opened");
    let rate = f64::from(shared.config.messages_per_second.max(1));
    let mut conn = Conn {
        shared: shared.clone(),
        link,
        ip,
        hello: false,
        challenge: rand::random(),
        player: forwarded_player,
        room: None,
        watching: None,
        bucket: Bucket { tokens: 2.0 * rate, rate, last: Instant::now() },
        lobby: lobby::LobbyConn::default(),
        lookups: None,
        refused: 0,
        upstream: None,
        from_node,
        redirects: false,
        handed_over: false,
    };
    let mut shutdown = shared.shutdown.clone();
    let idle = shared.config.idle_timeout;
    // Pings and pongs (or the pieces of a message never finished) keep a connection alive, but
    // not one that never says hello.
    let hello_by = Instant::now() + shared.config.hello_timeout;
    loop {
        let next = tokio::select! {
            n = tokio::time::timeout(idle, source.next()) => n,
            () = tokio::time::sleep_until(hello_by), if !conn.hello => {
                conn.send(ServerMsg::error(ErrorCode::HelloRequired, "no hello in time"));
                break;
            }
            () = kill.notified() => break,
            () = shutdown.recv() => {
                conn.send(ServerMsg::error(ErrorCode::ShuttingDown, "the server is shutting down"));
                break;
            }
        };
        let frame = match next {
            Err(_) | Ok(None) => break,
            Ok(Some(Err(tungstenite::Error::Capacity(e)))) => {
                conn.send(ServerMsg::error(ErrorCode::FrameTooLarge, e.to_string()));
                break;
            }
            Ok(Some(Err(_))) => break,
            Ok(Some(Ok(frame))) => frame,
        };
        heard.store(shared.now(), Ordering::Relaxed);
        let flow = match frame {
            Message::Text(text) => conn.on_text(text.as_str()).await,
            Message::Binary(_) => conn.on_binary(),
            Message::Close(frame) => {
                let reason = frame.as_ref().map(|f| f.reason.as_str());
                conn.handed_over = conn.from_node && reason == Some(cluster::HANDOVER);
                Flow::Close
            }
            Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => Flow::Continue,
        };
        if matches!(flow, Flow::Close) {
            break;
        }
    }
    conn.leave_lobby().await;
    conn.leave_room().await;
    conn.unwatch().await;
    info!(conn = conn.link.id, "connection closed");
    // A peer that stopped reading can block the writer forever: give it a moment, then cut.
    let tx = conn.link.tx.clone();
    drop(conn);
    let mut writer = writer;
    let closing = async {
        let _ = tx.send(Out::Close).await;
        let _ = (&mut writer).await;
    };
    if tokio::time::timeout(Duration::from_secs(5), closing).await.is_err() {
        writer.abort();
    }
}

impl Conn {
    fn send(&self, msg: ServerMsg) {
        self.link.send(msg);
    }

    fn refuse(&mut self, code: ErrorCode, message: impl Into<String>) -> Flow {
        self.shared.stats.refused(code.as_str());
        self.send(ServerMsg::error(code, message));
        self.refused += 1;
        // A peer that keeps sending garbage is not a client we can help.
        if self.refused > 100 {
            Flow::Close
        } else {
            Flow::Continue
        }
    }

    /// A binary frame (the protocol has none): refused, and counted like any message against
    /// the rate limit and the refusal cut-off.
    fn on_binary(&mut self) -> Flow {
        if !self.bucket.take() {
            return self.refuse(ErrorCode::RateLimited, "too many messages; slow down");
        }
        let flow = self.refuse(ErrorCode::Malformed, "binary frames are not used");
        if self.hello {
            flow
        } else {
            Flow::Close
        }
    }

    async fn on_text(&mut self, text: &str) -> Flow {
        if let Some(up) = &self.upstream {
            if !self.bucket.take() {
                return self.refuse(ErrorCode::RateLimited, "too many messages; slow down");
            }
            // The owner answers everything now; a gone owner closes this connection.
            return if up.forward(text) { Flow::Continue } else { Flow::Close };
        }
        self.adopt_seats().await;
        if !self.bucket.take() {
            return self.refuse(ErrorCode::RateLimited, "too many messages; slow down");
        }
        let msg = match decode_client(text) {
            Ok(m) => m,
            Err(e) => {
                let flow = self.refuse(e.code(), e.to_string());
                return if self.hello { flow } else { Flow::Close };
            }
        };
        if self.hello && self.shared.cluster.is_some() {
            if let Some(flow) = self.route(&msg, text).await {
                return flow;
            }
        }
        if !self.hello {
            return match msg {
                ClientMsg::Hello { version, redirects, .. } if version == PROTOCOL_VERSION => {
                    info!(conn = self.link.id, version, "hello");
                    self.hello = true;
                    self.redirects = redirects && !self.from_node;
                    self.send(ServerMsg::Welcome {
                        version: PROTOCOL_VERSION,
                        server_version: crate::VERSION.to_owned(),
                        engine_version: crate::rules::ENGINE_VERSION.to_owned(),
                        challenge: Some(Challenge {
                            nonce: hex::encode(self.challenge),
                            server: self.shared.config.server_name.clone(),
                        }),
                    });
                    Flow::Continue
                }
                ClientMsg::Hello { version, .. } => {
                    info!(conn = self.link.id, version, "hello refused: protocol version");
                    self.send(ServerMsg::error(
                        ErrorCode::VersionMismatch,
                        version_mismatch_message(version, PROTOCOL_VERSION),
                    ));
                    Flow::Close
                }
                _ => {
                    self.send(ServerMsg::error(ErrorCode::HelloRequired, "say hello first"));
                    Flow::Close
                }
            };
        }
        match msg {
            ClientMsg::Hello { .. } => self.refuse(ErrorCode::WrongPhase, "hello was already said"),
            ClientMsg::Ping { nonce } => {
                // In a room the room answers, in order with what it answers to earlier frames;
                // its refusals come from its own task, and a pong sent from here could pass them.
                let in_room = match self.room.as_ref().or(self.watching.as_ref()) {
                    Some(room) => room.tx.ping(nonce, self.link.clone()).await,
                    None => false,
                };
                if !in_room {
                    self.send(pong(nonce));
                }
                Flow::Continue
            }
            ClientMsg::CreateRoom { options, rated } => self.create_chess(&options, rated).await,
            ClientMsg::JoinRoom { code } => self.join::<Room>(code, self.player, None).await,
            ClientMsg::Rejoin { code, token, last_seq } => {
                self.join::<Room>(code, self.player, Some((token, last_seq))).await
            }
            msg @ (ClientMsg::LobbySubscribe { .. }
            | ClientMsg::LobbyUnsubscribe
            | ClientMsg::CreateChallenge { .. }
            | ClientMsg::CancelChallenge { .. }
            | ClientMsg::AcceptChallenge { .. }
            | ClientMsg::PlayNow { .. }
            | ClientMsg::CancelPlayNow) => self.on_lobby(msg).await,
            ClientMsg::CreateChaturaji { settings, device, stand_in, rated } => {
                self.create_chaturaji(settings, device, stand_in.unwrap_or_default(), rated).await
            }
            ClientMsg::JoinChaturaji { code, device } => {
                self.join::<ChaturajiRoom>(code, (device, self.player), None).await
            }
            ClientMsg::RejoinChaturaji { code, token, device, last_seq } => {
                let rejoin = Some((token, last_seq));
                self.join::<ChaturajiRoom>(code, (device, self.player), rejoin).await
            }
            ClientMsg::ChaturajiAct { token, step, action } => {
                self.act::<ChaturajiRoom>(token, ChaturajiCmd::Step { step, action }).await
            }
            ClientMsg::ChaturajiRematch { token } => {
                self.act::<ChaturajiRoom>(token, ChaturajiCmd::Rematch).await
            }
            ClientMsg::Identify { key, signature } => self.identify(key, &signature).await,
            ClientMsg::RegisterName { name } => self.register_name(&name).await,
            ClientMsg::Watch { code } => self.watch(code).await,
            ClientMsg::Unwatch => {
                self.unwatch().await;
                Flow::Continue
            }
            msg @ (ClientMsg::Leaderboard { .. }
            | ClientMsg::Profile { .. }
            | ClientMsg::GameRecord { .. }
            | ClientMsg::PlayingNow { .. }) => self.on_listing(msg).await,
            ClientMsg::Rematch { token } => self.rematch(token).await,
            other => match chess::action_of(other) {
                Some((token, action)) => self.act::<Room>(token, action).await,
                None => Flow::Continue,
            },
        }
    }

    /// In a cluster, a request for a room held on another node: forwarded to its owner (every
    /// later frame too), or the room is claimed here if its owner is gone; a lobby request:
    /// see [`Conn::route_lobby`]. `None`: handled here as by a single server.
    async fn route(&mut self, msg: &ClientMsg, text: &str) -> Option<Flow> {
        let code = match msg {
            ClientMsg::JoinRoom { code }
            | ClientMsg::Rejoin { code, .. }
            | ClientMsg::JoinChaturaji { code, .. }
            | ClientMsg::RejoinChaturaji { code, .. }
            | ClientMsg::Watch { code } => code,
            ClientMsg::LobbySubscribe { .. }
            | ClientMsg::CreateChallenge { .. }
            | ClientMsg::AcceptChallenge { .. }
            | ClientMsg::PlayNow { .. } => return self.route_lobby(text).await,
            _ => return None,
        };
        if self.shared.room(code).is_some() {
            return None;
        }
        let (link, player, ip) = (&self.link, self.player, self.ip);
        let route = cluster::route(&self.shared, code, text, link, player, ip, self.redirects);
        let route = route.await;
        self.routed(route, &format!("room {code}")).await
    }

    /// In a cluster, a lobby request: forwarded (every later frame too) to the node that runs
    /// the lobby, so players who reached different nodes meet in one lobby. A connection
    /// another node forwarded here, or one that watches or plays a game in progress here,
    /// keeps to this node.
    async fn route_lobby(&mut self, text: &str) -> Option<Flow> {
        let playing =
            self.room.as_ref().is_some_and(|r| lock(&self.shared.live).contains_key(&r.code));
        if self.from_node || self.watching.is_some() || playing {
            return None;
        }
        let route = cluster::route_lobby(&self.shared, text, &self.link, self.player, self.ip);
        let route = route.await;
        self.routed(route, "the lobby").await
    }

    async fn routed(&mut self, route: cluster::Route, to: &str) -> Option<Flow> {
        match route {
            cluster::Route::Here => None,
            cluster::Route::Proxied(up) => {
                // Whatever this node held for the connection is left: the other node has it now.
                self.leave_lobby().await;
                self.leave_room().await;
                self.unwatch().await;
                info!(conn = self.link.id, "forwarded to the node of {to}");
                self.upstream = Some(up);
                Some(Flow::Continue)
            }
            cluster::Route::Redirect(url) => {
                info!(conn = self.link.id, %url, "sent to the node of {to}");
                self.send(ServerMsg::Redirect { url });
                Some(Flow::Close)
            }
            cluster::Route::Unavailable(why) => Some(self.refuse(ErrorCode::Unavailable, why)),
        }
    }

    /// Checks the signature of the challenge and, if it holds, acts for the player `key`.
    async fn identify(&mut self, key: PlayerKey, signature: &str) -> Flow {
        if let Some(current) = self.player {
            let message = if current == key {
                "this connection is already identified".to_owned()
            } else {
                "this connection already acts for another player".to_owned()
            };
            return self.refuse(ErrorCode::WrongPhase, message);
        }
        let server = &self.shared.config.server_name;
        if let Err(e) = verify_hello(&key, &self.challenge, server, signature) {
            info!(conn = self.link.id, "identity refused: {e}");
            return self.refuse(
                ErrorCode::BadSignature,
                format!("{e}; you can still play unrated as a guest"),
            );
        }
        // The stored players must be back before the key is looked up; in a cluster, as
        // stored now (another node may have rated or named them since).
        self.shared.until_loaded().await;
        cluster::refresh_player(&self.shared, &key).await;
        self.player = Some(key);
        info!(conn = self.link.id, player = %key, "identified");
        let view = lock(&self.shared.players).view(&key, unix_ms());
        self.send(ServerMsg::Player { player: view });
        Flow::Continue
    }

    /// Gives the connection's player a display name, stored before it is confirmed. In a
    /// cluster the whole record is written from the player as stored now, guarded against
    /// another node's change meanwhile (a rating it gave them is never written back), and
    /// tried again from the newer record if that happened.
    async fn register_name(&mut self, name: &str) -> Flow {
        let Some(key) = self.player else {
            return self.refuse(ErrorCode::NotIdentified, "identify before choosing a name");
        };
        let now = unix_ms();
        for attempt in 1..=REGISTER_TRIES {
            let expected = match cluster::read_player(&self.shared, &key).await {
                Ok(rev) => rev.into_iter().collect(),
                Err(e) => {
                    return self.refuse(ErrorCode::Internal, format!("could not read you: {e}"))
                }
            };
            let queued = {
                let mut players = lock(&self.shared.players);
                match players.register(key, name, now) {
                    Err(refusal) => Err(refusal),
                    Ok(None) => Ok(None),
                    Ok(Some(record)) => {
                        let queued = record
                            .row()
                            .map_err(|e| StoreError::Corrupt {
                                code: String::new(),
                                detail: e.to_string(),
                            })
                            .and_then(|row| {
                                self.shared.store.queue_players_expecting(vec![row], expected)
                            });
                        if queued.is_err() {
                            players.unregister(&key, name);
                        }
                        Ok(Some(queued))
                    }
                }
            };
            let stored = match queued {
                Err(refusal) => return self.refuse(refusal.code, refusal.message),
                Ok(None) | Ok(Some(Ok(None))) => Ok(()),
                Ok(Some(Ok(Some(committed)))) => committed.wait().await,
                Ok(Some(Err(e))) => Err(e),
            };
            match stored {
                Ok(()) => break,
                Err(e) => {
                    lock(&self.shared.players).unregister(&key, name);
                    let stale = matches!(e, StoreError::StalePlayer { .. });
                    if !stale || attempt == REGISTER_TRIES {
                        let message = format!("could not store the name: {e}");
                        return self.refuse(ErrorCode::Internal, message);
                    }
                }
            }
        }
        info!(conn = self.link.id, player = %key, name, "name registered");
        // In a cluster the record as stored (a follow of the database may have run meanwhile).
        cluster::refresh_player(&self.shared, &key).await;
        let view = lock(&self.shared.players).view(&key, now);
        self.send(ServerMsg::Player { player: view });
        Flow::Continue
    }

    /// `watch`: attaches this connection to room `code` as a spectator (the room sends the
    /// snapshot and then its events); the room watched before is left.
    async fn watch(&mut self, code: AccessCode) -> Flow {
        // The room may be a stored one that is not back yet.
        self.shared.until_loaded().await;
        // Watching needs only the room's code, so guessing codes is limited as joins are.
        if !self.shared.join_allowed(self.ip) {
            return self.refuse(ErrorCode::RateLimited, "too many failed attempts; wait a minute");
        }
        let Some(tx) = self.shared.room(&code) else {
            self.shared.join_failed(self.ip);
            return self.refuse(ErrorCode::RoomNotFound, format!("no room has the code {code}"));
        };
        self.unwatch().await;
        let (reply, answer) = oneshot::channel();
        if !tx.watch(self.link.clone(), reply).await {
            return self.refuse(ErrorCode::RoomNotFound, "the room has closed");
        }
        match answer.await {
            Ok(Ok(())) => {
                info!(conn = self.link.id, room = %code, "watching the room");
                self.watching = Some(RoomHandle { code, tx });
                Flow::Continue
            }
            Ok(Err(e)) => self.refuse(e.code, e.message),
            Err(_) => self.refuse(ErrorCode::RoomNotFound, "the room has closed"),
        }
    }

    /// Stops watching the room this connection watches, if any.
    async fn unwatch(&mut self) {
        if let Some(room) = self.watching.take() {
            info!(conn = self.link.id, room = %room.code, "stopped watching");
            room.tx.unwatch(self.link.id).await;
        }
    }

    async fn leave_room(&mut self) {
        if let Some(room) = self.room.take() {
            info!(conn = self.link.id, room = %room.code, "left the room");
            room.tx.detach(self.link.id, self.handed_over).await;
        }
    }

    /// Creates a room of kind `R` with this connection seated: `build` makes it from its code,
    /// the creator's token, the time and the lifetimes, and says the creator's seat.
    async fn create<R: RoomLogic>(
        &mut self,
        build: impl FnOnce(AccessCode, String, Millis, Lifetimes) -> Result<(R, R::Seat), RoomError>,
    ) -> Flow {
        // A new code must not collide with a stored room that is not back yet.
        self.shared.until_loaded().await;
        let shared = self.shared.clone();
        let now = shared.now();
        let limit = shared.config.rooms_per_minute_per_ip;
        if !within_limit(&shared.creations, self.ip, now, limit) {
            return self.refuse(ErrorCode::RateLimited, "too many new rooms; wait a minute");
        }
        if shared.room_count() >= shared.config.max_rooms {
            return self.refuse(ErrorCode::Unavailable, "the server is full; try again later");
        }
        let Some(waiting) = shared.open_waiting(self.ip) else {
            let most = shared.config.waiting_rooms_per_ip;
            return self.refuse(
                ErrorCode::RateLimited,
                format!("{most} rooms from your address already wait for players; join one or let one expire"),
            );
        };
        count(&shared.creations, self.ip, now);
        let token = new_token();
        let (tx, rx) = mpsc::channel(ROOM_QUEUE);
        let code = shared.reserve_code(R::wrap(tx.clone()));
        let (room, seat) = match build(code.clone(), token.clone(), now, shared.config.lifetimes) {
            Ok(r) => r,
            Err(e) => {
                lock(&shared.rooms).remove(&code);
                return self.refuse(e.code, e.message);
            }
        };
        let started = Instant::now();
        let saved = room.save(&shared.store, now).await;
        if shared.store.is_durable() && saved.is_ok() {
            shared.stats.committed(started.elapsed());
        }
        if let Err(e) = saved {
            lock(&shared.rooms).remove(&code);
            return self.refuse(ErrorCode::Internal, format!("could not store the room: {e}"));
        }
        self.leave_room().await;
        self.link.send_out(R::seated(code.clone(), seat, token).into());
        self.link.send_out(room.snapshot_msg(now).into());
        info!(conn = self.link.id, room = %code, kind = R::KIND, "room created");
        actor::start(&shared, room, vec![(seat, self.link.clone())], rx, Some(waiting));
        self.room = Some(RoomHandle { code, tx: R::wrap(tx) });
        Flow::Continue
    }

    /// Joins the room `code` of kind `R` (or, with `rejoin`'s token and last event number,
    /// comes back to a seat there).
    async fn join<R: RoomLogic>(
        &mut self,
        code: AccessCode,
        joiner: R::Joiner,
        rejoin: Option<(String, u64)>,
    ) -> Flow {
        // The room may be a stored one that is not back yet.
        self.shared.until_loaded().await;
        // Over the limit, new joins are refused outright; a rejoin is still tried, because a
        // seat's token (256 random bits) cannot be guessed and the failures counted against
        // this address may be somebody else's (the opponent on the same Wi-Fi, a carrier NAT).
        // Every other outcome then answers `rate_limited` alike, so guessing room codes learns
        // nothing while the limit holds.
        const LIMITED: &str = "too many failed attempts; wait a minute";
        let limited = !self.shared.join_allowed(self.ip);
        if limited && rejoin.is_none() {
            return self.refuse(ErrorCode::RateLimited, LIMITED);
        }
        let sits_here = self
            .room
            .as_ref()
            .is_some_and(|room| room.code == code && R::unwrap(&room.tx).is_some());
        if R::ONE_JOIN_PER_CONNECTION && rejoin.is_none() && sits_here {
            return self.refuse(ErrorCode::WrongPhase, "you already have a seat in this room");
        }
        let tx = self.shared.room(&code);
        let Some(room) = tx.as_ref().and_then(R::unwrap) else {
            self.shared.join_failed(self.ip);
            if limited {
                return self.refuse(ErrorCode::RateLimited, LIMITED);
            }
            return self.refuse(ErrorCode::RoomNotFound, format!("no room has the code {code}"));
        };
        let room = room.clone();
        let (reply, answer) = oneshot::channel();
        let link = self.link.clone();
        let rejoining = rejoin.is_some();
        let cmd = match rejoin {
            None => Cmd::Join { token: new_token(), joiner, link, reply },
            Some((token, last_seq)) => Cmd::Rejoin { token, last_seq, joiner, link, reply },
        };
        // Leave any other room first so this connection never holds seats in two rooms.
        if self.room.as_ref().is_some_and(|r| r.code != code) {
            self.leave_room().await;
        }
        if room.send(cmd).await.is_err() {
            return self.refuse(ErrorCode::RoomNotFound, "the room has closed");
        }
        match answer.await {
            Ok(Ok(_seat)) => {
                let how = if rejoining { "rejoined" } else { "joined" };
                info!(conn = self.link.id, room = %code, kind = R::KIND, "{how} the room");
                self.room = Some(RoomHandle { code, tx: R::wrap(room) });
                Flow::Continue
            }
            Ok(Err(e)) => {
                if R::counts_as_failed_join(e.code) {
                    self.shared.join_failed(self.ip);
                }
                if limited {
                    return self.refuse(ErrorCode::RateLimited, LIMITED);
                }
                self.refuse(e.code, e.message)
            }
            Err(_) => self.refuse(ErrorCode::RoomNotFound, "the room has closed"),
        }
    }

    /// Sends a seat's action to this connection's room, which must be of kind `R`.
    async fn act<R: RoomLogic>(&mut self, token: String, action: R::Action) -> Flow {
        let Some(room) = self.room.as_ref().and_then(|room| R::unwrap(&room.tx)) else {
            return self.refuse(ErrorCode::NotSeated, R::NOT_SEATED);
        };
        let cmd = Cmd::Act { token, action, link: self.link.clone(), received: Instant::now() };
        if room.send(cmd).await.is_err() {
            self.room = None;
            return self.refuse(ErrorCode::RoomNotFound, "the room has closed");
        }
        Flow::Continue
    }
}
