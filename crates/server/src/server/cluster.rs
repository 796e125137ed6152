//! Cluster mode: several nodes over one PostgreSQL ([`crate::store::postgres`]), any node
//! serves any player.
//!
//! - **Affinity.** A room lives on one node at a time, its owner in the directory. Rooms are
//!   created on the node the creator reached.
//! - **Routing: proxy, or redirect where the clients can reach the nodes.** A node asked to
//!   join, rejoin or watch a room it does not hold looks the owner up; if the owner is another
//!   node in lease, it opens one WebSocket to the owner's advertised address and copies the
//!   frames both ways for the rest of the connection (the client is unchanged: old clients,
//!   browsers, the app's reconnect logic and a load balancer in front all work as with one
//!   server). The player's verified identity and address travel in headers that only a node
//!   holding the cluster's secret may send. A node started with `--redirect` instead answers a
//!   client whose `hello` said `redirects` with `redirect {url}` (the owner's address) and
//!   closes: the client reconnects there and asks again, so its moves skip the extra hop and
//!   the forwarding node's work (and after a failover the players of a dead node's rooms
//!   spread over the nodes they reached, each claim made once, the other players sent to it).
//!   A redirect goes only to an owner whose lease was renewed lately (more than half of it
//!   left: renewals come every third) and whose port answers a TCP connection now, so nobody
//!   is sent to a node that has just died.
//! - **Leases.** Each node renews its own lease (one row, whatever its number of rooms) every
//!   third of the lease; its rooms are held while it runs. If a renewal finds the lease had
//!   run out, the node looks its rooms up: one another node claimed meanwhile, or whose write
//!   is fenced, is stopped at once and its connections closed, so its clients reconnect and
//!   reach the new owner.
//! - **Failover.** A room whose owner's lease ran out (it died) is claimed, epoch + 1, by the
//!   first node a player of it reaches, or by any node's sweep, and recovered as after a
//!   restart: clocks frozen (`server_restart`, nobody's pause spent) until the side to move is
//!   back.
//! - **Draining.** On shutdown a node stops its rooms, then ends its lease at once, so
//!   another node claims each as soon as its players reconnect.
//! - **Players and finished games** are shared too: each node reads what the others stored
//!   every [`FOLLOW_EVERY`] ([`follow_task`]), a player's record again when they identify, and
//!   the players of a rated game before it changes their ratings (see
//!   [`super::actor`]).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use maharajah_protocol::identity::PlayerKey;
use maharajah_protocol::{
    decode_server, encode, AccessCode, ClientMsg, ServerMsg, PROTOCOL_VERSION,
};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::Message;
use tracing::{debug, error, info, warn};

use super::listing::LiveRoom;
use super::{actor, lock, Link, Out, Shared};
use crate::chaturaji::ChaturajiRoom;
use crate::room::Room;
use crate::store::{PgStore, PlayerRev, RoomKind, StoreError};

/// Header with the cluster's secret: the connection comes from another node.
pub(super) const NODE_HEADER: &str = "x-maharajah-node";
/// The close reason of a forwarded connection whose node drains: its player is handed over.
pub(super) const HANDOVER: &str = "handover";
/// Header with the player a forwarding node has verified.
pub(super) const PLAYER_HEADER: &str = "x-maharajah-player";

/// How a node joins a cluster. See the module documentation.
#[derive(Clone, Debug)]
pub struct ClusterConfig {
    /// PostgreSQL connection URL (`postgres://user@host:port/db`).
    pub postgres: String,
    /// This node's id: unique in the cluster, the same across its restarts.
    pub node: String,
    /// Where other nodes reach this one (`ws://host:port`); `None`: the listening address.
    pub advertise: Option<String>,
    /// How long a room's ownership lasts without renewal: a dead node's rooms move after at
    /// most this long.
    pub lease: Duration,
    /// Connections to PostgreSQL for room writes (pipelined).
    pub pool: usize,
    /// Send clients that follow redirects to the room's owner (its `advertise` address, which
    /// they must be able to reach) instead of forwarding their frames; the others are still
    /// forwarded.
    pub redirect: bool,
}

impl ClusterConfig {
    /// A node `node` on `postgres` with a 10 s lease.
    pub fn new(postgres: impl Into<String>, node: impl Into<String>) -> ClusterConfig {
        ClusterConfig {
            postgres: postgres.into(),
            node: node.into(),
            advertise: None,
            lease: Duration::from_secs(10),
            pool: 4,
            redirect: false,
        }
    }
}

/// Counters for `/metrics`.
#[derive(Default)]
pub(super) struct ClusterStats {
    renewals: AtomicU64,
    renewal_failures: AtomicU64,
    rooms_lost: AtomicU64,
    claims: AtomicU64,
    proxied_open: AtomicU64,
    proxied_total: AtomicU64,
    proxy_failures: AtomicU64,
    redirects: AtomicU64,
    fenced: AtomicU64,
    released: AtomicU64,
    /// When the last renewal succeeded, in ms since the node started.
    renewed_at_ms: AtomicU64,
}

/// How often a node reads the players and finished games the other nodes stored: a rating or
/// name changed on one node shows on the others within about this long.
pub(super) const FOLLOW_EVERY: Duration = Duration::from_secs(1);

/// A node's cluster side.
pub(super) struct Cluster {
    pub(super) pg: Arc<PgStore>,
    pub(super) advertise: String,
    /// Whether clients that follow redirects are sent to a room's owner.
    redirect: bool,
    /// One claim at a time per room on this node, so two players of one room never claim it
    /// twice (claims of different rooms run together: a dead node's rooms move at once).
    claiming: std::sync::Mutex<HashMap<AccessCode, Arc<tokio::sync::Mutex<()>>>>,
    /// Whether this node runs the cluster's lobby (holds its lease).
    lobby: AtomicBool,
    /// The other nodes' games playing now, as of their last heartbeats.
    elsewhere: std::sync::Mutex<Vec<(AccessCode, LiveRoom)>>,
    pub(super) stats: ClusterStats,
    started: Instant,
    /// The revision of the last player read from the database (see [`follow`]).
    players_rev: AtomicI64,
    /// The number of the last finished game read from the database.
    games_seq: AtomicU64,
}

impl Cluster {
    pub(super) fn new(pg: Arc<PgStore>, advertise: String, redirect: bool) -> Cluster {
        Cluster {
            pg,
            advertise,
            redirect,
            claiming: std::sync::Mutex::default(),
            lobby: AtomicBool::new(false),
            elsewhere: std::sync::Mutex::default(),
            stats: ClusterStats::default(),
            started: Instant::now(),
            players_rev: AtomicI64::new(0),
            games_seq: AtomicU64::new(0),
        }
    }

    /// The other nodes' games playing now (as of their last heartbeats).
    pub(super) fn playing_elsewhere(&self) -> Vec<(AccessCode, LiveRoom)> {
        lock(&self.elsewhere).clone()
    }

    fn since_start_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Whether the leases were renewed within the last lease (the node can commit).
    pub(super) fn is_healthy(&self) -> bool {
        let last = self.stats.renewed_at_ms.load(Ordering::Relaxed);
        let lease = u64::try_from(self.pg.lease().as_millis()).unwrap_or(u64::MAX);
        self.since_start_ms().saturating_sub(last) < lease
    }

    pub(super) fn fenced(&self) {
        self.stats.fenced.fetch_add(1, Ordering::Relaxed);
    }

    /// The Prometheus lines of the cluster state.
    pub(super) fn render(&self) -> String {
        use std::fmt::Write as _;
        let s = &self.stats;
        let load = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let mut out = String::new();
        let node = self.pg.node();
        let mut line = |name: &str, kind: &str, help: &str, value: u64| {
            let _ = writeln!(out, "# HELP maharajah_cluster_{name} {help}");
            let _ = writeln!(out, "# TYPE maharajah_cluster_{name} {kind}");
            let _ = writeln!(out, "maharajah_cluster_{name}{{node=\"{node}\"}} {value}");
        };
        line(
            "owned_rooms",
            "gauge",
            "Rooms this node owns (held while its lease runs).",
            self.pg.owned_count() as u64,
        );
        line(
            "lobby_owner",
            "gauge",
            "1 while this node runs the cluster's lobby (holds its lease).",
            u64::from(self.lobby.load(Ordering::Relaxed)),
        );
        line(
            "lease_healthy",
            "gauge",
            "1 while the node's lease was renewed within the last lease.",
            u64::from(self.is_healthy()),
        );
        line(
            "lease_renewals_total",
            "counter",
            "Lease renewals that succeeded.",
            load(&s.renewals),
        );
        line(
            "lease_renewal_failures_total",
            "counter",
            "Lease renewals that failed.",
            load(&s.renewal_failures),
        );
        line(
            "rooms_lost_total",
            "counter",
            "Rooms another node took over from this one.",
            load(&s.rooms_lost),
        );
        line(
            "claims_total",
            "counter",
            "Rooms this node took over (failover, draining).",
            load(&s.claims),
        );
        line(
            "fenced_writes_total",
            "counter",
            "Room writes refused because the lease was gone.",
            load(&s.fenced),
        );
        line(
            "released_rooms_total",
            "counter",
            "Rooms handed back when draining.",
            load(&s.released),
        );
        line(
            "proxied_connections",
            "gauge",
            "Connections forwarded to the owner of their room now.",
            load(&s.proxied_open),
        );
        line(
            "proxied_connections_total",
            "counter",
            "Connections forwarded to another node.",
            load(&s.proxied_total),
        );
        line(
            "redirects_total",
            "counter",
            "Clients sent to the node that holds their room.",
            load(&s.redirects),
        );
        line(
            "proxy_failures_total",
            "counter",
            "Failed attempts to reach a room's owner.",
            load(&s.proxy_failures),
        );
        out
    }
}

/// Stops the room `code` held here (another node owns it now): its connections are closed,
/// so its players reconnect and are routed to the new owner.
pub(super) fn evict(shared: &Shared, code: &AccessCode) {
    let tx = lock(&shared.rooms).remove(code);
    if let Some(tx) = tx {
        info!(room = %code, "room lost to another node: stopped here");
        tx.release();
    }
}

/// Heartbeat and lease renewal, every third of the lease, until shutdown; rooms found lost are
/// evicted; a node that cannot renew for a whole lease stops all its rooms (they can commit
/// nothing anyway: their writes are fenced).
pub(super) async fn lease_task(shared: Arc<Shared>) {
    let Some(cluster) = shared.cluster.clone() else { return };
    let mut shutdown = shared.shutdown.clone();
    let every = cluster.pg.lease() / 3;
    loop {
        // A draining node hands its leases back; it must not renew them meanwhile.
        if shared.shutdown.is_shutdown() {
            return;
        }
        let renewed = async {
            let playing = super::listing::published(&shared);
            cluster.pg.heartbeat(&cluster.advertise, false, &playing).await?;
            let lost = cluster.pg.renew().await?;
            if cluster.lobby.load(Ordering::Relaxed) && !cluster.pg.renew_lobby().await? {
                lobby_lost(&shared, &cluster);
            }
            Ok::<_, StoreError>(lost)
        }
        .await;
        match renewed {
            Ok(lost) => {
                cluster.stats.renewals.fetch_add(1, Ordering::Relaxed);
                cluster.stats.renewed_at_ms.store(cluster.since_start_ms(), Ordering::Relaxed);
                for code in lost {
                    cluster.stats.rooms_lost.fetch_add(1, Ordering::Relaxed);
                    if let Ok(code) = code.parse::<AccessCode>() {
                        evict(&shared, &code);
                    }
                }
            }
            Err(e) => {
                cluster.stats.renewal_failures.fetch_add(1, Ordering::Relaxed);
                warn!("lease renewal failed: {e}");
                if !cluster.is_healthy() {
                    if cluster.lobby.load(Ordering::Relaxed) {
                        lobby_lost(&shared, &cluster);
                    }
                    let codes: Vec<AccessCode> = lock(&shared.rooms).keys().cloned().collect();
                    if !codes.is_empty() {
                        error!(rooms = codes.len(), "leases lost (no database): rooms stopped");
                    }
                    for code in codes {
                        cluster.pg.forget(code.as_str());
                        evict(&shared, &code);
                    }
                }
            }
        }
        match cluster.pg.playing_elsewhere().await {
            Ok(lists) => *lock(&cluster.elsewhere) = super::listing::parse_published(&lists),
            Err(e) => debug!("reading the other nodes' games: {e}"),
        }
        tokio::select! {
            () = tokio::time::sleep(every) => {}
            () = shutdown.recv() => return,
        }
    }
}

/// This node's lease on the lobby is gone (another node claimed it, or the database was away
/// for a whole lease): the lobby here is disbanded, its people reconnect to the new one.
fn lobby_lost(shared: &Shared, cluster: &Cluster) {
    cluster.lobby.store(false, Ordering::Relaxed);
    let closed = shared.lobby.disband();
    warn!(closed, "the lobby moved to another node: its connections here closed");
}

/// Where the cluster's lobby is: here (this node holds its lease, or takes it now that nobody
/// does), or forwarded to the node that runs it, with `first` as the first frame. While that
/// node cannot be reached (it died and its lease still runs) tries again until a lease and a
/// little more have passed; if the database is away, the lobby of this node serves.
pub(super) async fn route_lobby(
    shared: &Arc<Shared>,
    first: &str,
    link: &Link,
    player: Option<PlayerKey>,
    ip: IpAddr,
) -> Route {
    let Some(cluster) = &shared.cluster else { return Route::Here };
    let deadline = Instant::now() + cluster.pg.lease() + Duration::from_secs(2);
    loop {
        if cluster.lobby.load(Ordering::Relaxed) && cluster.is_healthy() {
            return Route::Here;
        }
        // A draining node takes nothing new.
        let claim = !shared.shutdown.is_shutdown();
        match cluster.pg.lobby_owner(claim).await {
            Err(e) => {
                warn!("finding the lobby's node: {e}; this node's lobby serves");
                return Route::Here;
            }
            Ok(Some(owner)) if owner.node == cluster.pg.node() => {
                if !cluster.lobby.swap(true, Ordering::Relaxed) {
                    info!("this node runs the lobby");
                }
                return Route::Here;
            }
            Ok(Some(owner)) => {
                if let Some(url) = owner.advertise.filter(|_| !owner.draining) {
                    match open_upstream(shared, &url, first, link, player, ip).await {
                        Ok(up) => return Route::Proxied(up),
                        Err(e) => {
                            cluster.stats.proxy_failures.fetch_add(1, Ordering::Relaxed);
                            debug!(%url, "the lobby's node not reached: {e}");
                        }
                    }
                }
            }
            Ok(None) => {}
        }
        if Instant::now() >= deadline || shared.shutdown.is_shutdown() {
            warn!("the lobby's node cannot be reached; this node's lobby serves");
            return Route::Here;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Reads the players and finished games the other nodes store, every [`FOLLOW_EVERY`] once the
/// node is loaded, until shutdown.
pub(super) async fn follow_task(shared: Arc<Shared>) {
    let Some(cluster) = shared.cluster.clone() else { return };
    let mut shutdown = shared.shutdown.clone();
    shared.until_loaded().await;
    loop {
        tokio::select! {
            () = tokio::time::sleep(FOLLOW_EVERY) => {}
            () = shutdown.recv() => return,
        }
        if let Err(e) = follow(&shared, &cluster).await {
            warn!("reading the players and games of the other nodes: {e}");
        }
    }
}

/// Puts the players and finished games stored since the last ones read (at start: all of
/// them) into this node's registry and history: the records of players replace the ones
/// held, games are kept under the database's numbers. Revisions and numbers become visible
/// in order (see [`crate::store::postgres`]), so none is skipped.
///
/// # Errors
///
/// The store's failure; what was read before it is kept.
pub(super) async fn follow(shared: &Shared, cluster: &Cluster) -> Result<(), StoreError> {
    let players = cluster.pg.players_since(cluster.players_rev.load(Ordering::Relaxed)).await?;
    if let Some(last) = players.last().map(|p| p.rev) {
        let n = players.len();
        let bad = lock(&shared.players).refresh(players.into_iter().map(|p| (p.key, p.record)));
        for b in bad {
            warn!("not read: {b}");
        }
        cluster.players_rev.store(last, Ordering::Relaxed);
        debug!(players = n, rev = last, "players read");
    }
    let games = cluster.pg.games_since(cluster.games_seq.load(Ordering::Relaxed)).await?;
    if let Some(last) = games.last().map(|(seq, _)| *seq) {
        let n = games.len();
        for b in lock(&shared.history).follow(games) {
            warn!("not read: {b}");
        }
        cluster.games_seq.store(last, Ordering::Relaxed);
        debug!(games = n, seq = last, "finished games read");
    }
    Ok(())
}

/// Reads player `key`'s stored record into the registry (another node may have changed it
/// since it was last followed): the revision read (`rev: None`, no row), for a guarded write
/// of the player; `None` without a cluster.
///
/// # Errors
///
/// The store's failure: the record held is unchanged.
pub(super) async fn read_player(
    shared: &Shared,
    key: &PlayerKey,
) -> Result<Option<PlayerRev>, StoreError> {
    let Some(pg) = shared.store.as_postgres() else { return Ok(None) };
    let key = key.to_string();
    let rows = pg.players_of(std::slice::from_ref(&key)).await?;
    let rev = rows.first().map(|p| p.rev);
    let bad = lock(&shared.players).refresh(rows.into_iter().map(|p| (p.key, p.record)));
    for b in bad {
        warn!("not read: {b}");
    }
    Ok(Some(PlayerRev { key, rev }))
}

/// [`read_player`] where a failure is only logged (the record held is used).
pub(super) async fn refresh_player(shared: &Shared, key: &PlayerKey) {
    if let Err(e) = read_player(shared, key).await {
        warn!(player = %key, "reading the player: {e}");
    }
}

/// Claims rooms whose owner stopped renewing its lease (a dead node's rooms with nobody
/// connected yet, whose clocks must still run out some day), a few at a time, until shutdown.
pub(super) async fn sweep_task(shared: Arc<Shared>) {
    let Some(cluster) = shared.cluster.clone() else { return };
    let mut shutdown = shared.shutdown.clone();
    let lease = cluster.pg.lease();
    // Restarted under the same id, the node still owns its previous run's rooms (its lease
    // never lapsed for the others): it takes them back now, as a single server recovers its
    // rooms at start.
    match cluster.pg.left_over().await {
        Ok(codes) => {
            for code in codes.iter().filter_map(|c| c.parse::<AccessCode>().ok()) {
                if let Err(e) = claim(&shared, &code).await {
                    warn!(room = %code, "taking back a room of a previous run: {e}");
                }
            }
        }
        Err(e) => warn!("looking for the rooms of a previous run: {e}"),
    }
    loop {
        // Spread the nodes' sweeps over time: they race only through the compare-and-set.
        let jitter = Duration::from_millis(rand::random::<u64>() % 500);
        tokio::select! {
            () = tokio::time::sleep(lease / 2 + jitter) => {}
            () = shutdown.recv() => return,
        }
        match cluster.pg.orphans(lease / 4, 64).await {
            Ok(codes) => {
                for code in codes {
                    if shared.shutdown.is_shutdown() {
                        return;
                    }
                    if let Ok(code) = code.parse::<AccessCode>() {
                        if let Err(e) = claim(&shared, &code).await {
                            warn!(room = %code, "claiming an orphaned room: {e}");
                        }
                    }
                }
            }
            Err(e) => debug!("looking for orphaned rooms: {e}"),
        }
    }
}

/// Takes room `code` over and starts it here (recovered as after a restart); true if it is
/// held here afterwards.
///
/// # Errors
///
/// The store's failure.
pub(super) async fn claim(shared: &Arc<Shared>, code: &AccessCode) -> Result<bool, StoreError> {
    let Some(cluster) = &shared.cluster else { return Ok(false) };
    let one = lock(&cluster.claiming).entry(code.clone()).or_default().clone();
    let _one = one.lock().await;
    let claimed = claim_once(shared, cluster, code).await;
    lock(&cluster.claiming).remove(code);
    claimed
}

async fn claim_once(
    shared: &Arc<Shared>,
    cluster: &Cluster,
    code: &AccessCode,
) -> Result<bool, StoreError> {
    if shared.room(code).is_some() {
        return Ok(true);
    }
    let Some((kind, json)) = cluster.pg.claim(code.as_str()).await? else { return Ok(false) };
    cluster.stats.claims.fetch_add(1, Ordering::Relaxed);
    let now = shared.now();
    let corrupt = |e: serde_json::Error| StoreError::Corrupt {
        code: code.to_string(),
        detail: e.to_string(),
    };
    let parsed = match kind {
        RoomKind::Chess => serde_json::from_str(&json).map(|r| {
            actor::recover::<Room>(shared, vec![Ok(r)], now);
        }),
        RoomKind::Chaturaji => serde_json::from_str(&json).map(|r| {
            actor::recover::<ChaturajiRoom>(shared, vec![Ok(r)], now);
        }),
    };
    if let Err(e) = parsed {
        cluster.pg.forget(code.as_str());
        return Err(corrupt(e));
    }
    Ok(shared.room(code).is_some())
}

/// Where a connection's request for a room goes.
pub(super) enum Route {
    /// The room is held here (now): handle it as a single server does.
    Here,
    /// Forwarded to the owner: every later frame goes there.
    Proxied(Upstream),
    /// Sent to the owner at this address (the client follows redirects).
    Redirect(String),
    /// Refused with this reason.
    Unavailable(String),
}

/// The forwarding of one client connection to the owner of its room.
pub(super) struct Upstream {
    tx: mpsc::Sender<String>,
}

impl Upstream {
    /// Passes a client's frame on; false once the owner's side is gone.
    pub(super) fn forward(&self, text: &str) -> bool {
        self.tx.try_send(text.to_owned()).is_ok()
    }
}

/// Finds room `code`: held here, claimed here (its lease ran out), or forwarded to its owner
/// with `first` as the first frame (a client that `redirects`, on a node that redirects, is
/// sent there instead while the owner's lease is fresh). While the owner cannot be reached (it
/// died and its lease still runs), tries again until a lease and a little more have passed.
pub(super) async fn route(
    shared: &Arc<Shared>,
    code: &AccessCode,
    first: &str,
    link: &Link,
    player: Option<PlayerKey>,
    ip: IpAddr,
    redirects: bool,
) -> Route {
    let Some(cluster) = &shared.cluster else { return Route::Here };
    let deadline = Instant::now() + cluster.pg.lease() + Duration::from_secs(2);
    loop {
        let mut wait = Duration::from_millis(200);
        if shared.room(code).is_some() {
            return Route::Here;
        }
        match cluster.pg.owner(code.as_str()).await {
            Err(e) => return Route::Unavailable(format!("the game database is unreachable: {e}")),
            // No such room: answered as a single server does.
            Ok(None) => return Route::Here,
            Ok(Some(owner)) if owner.node == cluster.pg.node() || !owner.in_lease => {
                match claim(shared, code).await {
                    Ok(true) => return Route::Here,
                    Ok(false) => {} // another node was quicker: look again
                    Err(e) => return Route::Unavailable(format!("the room cannot be loaded: {e}")),
                }
            }
            Ok(Some(owner)) => {
                // Renewed lately (renewals come every third of a lease), not draining, and
                // answering now (one that died a moment ago still has a fresh lease).
                let fresh = owner.lease_left > cluster.pg.lease() / 2 && !owner.draining;
                if let (true, Some(url)) =
                    (redirects && cluster.redirect && fresh, &owner.advertise)
                {
                    if answers(url).await {
                        cluster.stats.redirects.fetch_add(1, Ordering::Relaxed);
                        return Route::Redirect(url.clone());
                    }
                }
                if let Some(url) = owner.advertise {
                    match open_upstream(shared, &url, first, link, player, ip).await {
                        Ok(up) => return Route::Proxied(up),
                        Err(e) => {
                            cluster.stats.proxy_failures.fetch_add(1, Ordering::Relaxed);
                            debug!(room = %code, %url, "owner not reached: {e}");
                        }
                    }
                }
                // The owner is away but its lease runs: a dead owner's rooms are free only when
                // it ends. (Every player of a dead node's rooms waits here at once; asking the
                // database again every 200 ms made thousands of queries a second of them.) At
                // most half a lease, for an owner only briefly out of reach; a little spread
                // after the end, so the claims do not all come at one instant.
                let spread = Duration::from_millis(rand::random::<u64>() % 250);
                wait = wait.max((owner.lease_left + spread).min(cluster.pg.lease() / 2));
            }
        }
        let now = Instant::now();
        if now >= deadline || shared.shutdown.is_shutdown() {
            return Route::Unavailable("the room's server is away; try again in a moment".into());
        }
        tokio::time::sleep(wait.min(deadline - now)).await;
    }
}

/// Longest wait for a node's port to answer before a client is sent there.
const PROBE_WITHIN: Duration = Duration::from_millis(300);

/// Whether a TCP connection to the node at `url` (`ws://host:port`) opens now: a node that
/// died a moment ago refuses it (or says nothing) while its lease still looks fresh.
async fn answers(url: &str) -> bool {
    let Ok(request) = url.into_client_request() else { return false };
    let uri = request.uri();
    let Some(host) = uri.host() else { return false };
    let port = uri.port_u16().unwrap_or(if uri.scheme_str() == Some("wss") { 443 } else { 80 });
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let probe = tokio::net::TcpStream::connect((host, port));
    matches!(tokio::time::timeout(PROBE_WITHIN, probe).await, Ok(Ok(_)))
}

/// How long reaching an owner may take (connect, handshake, its `welcome`).
const UPSTREAM_WITHIN: Duration = Duration::from_secs(3);

async fn open_upstream(
    shared: &Arc<Shared>,
    url: &str,
    first: &str,
    link: &Link,
    player: Option<PlayerKey>,
    ip: IpAddr,
) -> Result<Upstream, String> {
    let Some(cluster) = shared.cluster.clone() else { return Err("not a cluster".into()) };
    let mut request = url.into_client_request().map_err(|e| e.to_string())?;
    let headers = request.headers_mut();
    let value = |s: &str| s.parse().map_err(|e| format!("header: {e}"));
    headers.insert(NODE_HEADER, value(cluster.pg.secret())?);
    headers.insert("x-forwarded-for", value(&ip.to_string())?);
    if let Some(key) = player {
        headers.insert(PLAYER_HEADER, value(&key.to_string())?);
    }
    let connect = async {
        let (mut ws, _) =
            tokio_tungstenite::connect_async_with_config(request, Some(super::ws_config()), true)
                .await
                .map_err(|e| e.to_string())?;
        let hello = ClientMsg::Hello {
            version: PROTOCOL_VERSION,
            client: "maharajah-node".into(),
            redirects: false,
        };
        ws.send(Message::text(encode(&hello))).await.map_err(|e| e.to_string())?;
        // The client had its welcome from this node; the owner's is not passed on.
        loop {
            match ws.next().await {
                Some(Ok(Message::Text(t))) => match decode_server(t.as_str()) {
                    Ok(ServerMsg::Welcome { .. }) => break,
                    Ok(other) => return Err(format!("the owner answered {other:?}")),
                    Err(e) => return Err(e.to_string()),
                },
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(e.to_string()),
                None => return Err("the owner closed the connection".into()),
            }
        }
        ws.send(Message::text(first.to_owned())).await.map_err(|e| e.to_string())?;
        Ok(ws)
    };
    let ws = tokio::time::timeout(UPSTREAM_WITHIN, connect)
        .await
        .map_err(|_| "timed out".to_owned())??;
    let (tx, rx) = mpsc::channel(256);
    tokio::spawn(pipe(shared.clone(), ws, rx, link.clone()));
    Ok(Upstream { tx })
}

type OwnerSocket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Copies frames between a client's connection (`link`, `from_client`) and its room's owner,
/// until either side ends; then the client's connection is closed, so it reconnects and is
/// routed afresh (to a new owner after a failover).
async fn pipe(
    shared: Arc<Shared>,
    ws: OwnerSocket,
    mut from_client: mpsc::Receiver<String>,
    link: Link,
) {
    let _alive = shared.alive.clone();
    let Some(cluster) = shared.cluster.clone() else { return };
    cluster.stats.proxied_open.fetch_add(1, Ordering::Relaxed);
    cluster.stats.proxied_total.fetch_add(1, Ordering::Relaxed);
    let (mut sink, mut source) = ws.split();
    let mut shutdown = shared.shutdown.clone();
    let mut draining = false;
    loop {
        tokio::select! {
            frame = source.next() => match frame {
                Some(Ok(Message::Text(t))) => {
                    if !link.send_out(Out::Raw(t.as_str().to_owned())) {
                        break;
                    }
                }
                Some(Ok(Message::Close(_)) | Err(_)) | None => break,
                Some(Ok(_)) => {}
            },
            text = from_client.recv() => match text {
                Some(text) => {
                    if sink.send(Message::text(text)).await.is_err() {
                        break;
                    }
                }
                None => break,
            },
            () = shutdown.recv() => {
                draining = true;
                break;
            }
        }
    }
    // The client's side may have ended first, closed by the same shutdown.
    draining |= shared.shutdown.is_shutdown();
    let close = async {
        if draining {
            // The owner freezes the clock for the player instead of spending its shield.
            let frame = CloseFrame { code: CloseCode::Library(4000), reason: HANDOVER.into() };
            let _ = sink.send(Message::Close(Some(frame))).await;
        }
        let _ = sink.close().await;
    };
    let _ = tokio::time::timeout(Duration::from_secs(1), close).await;
    link.kill.notify_one();
    cluster.stats.proxied_open.fetch_sub(1, Ordering::Relaxed);
}

/// Counts the rooms handed back at a drain.
pub(super) fn released(cluster: &Cluster, n: u64) {
    cluster.stats.released.fetch_add(n, Ordering::Relaxed);
}
