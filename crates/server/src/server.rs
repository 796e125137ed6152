//! WebSocket transport, connection limits and explicit shutdown (mini-redis style).
//!
//! Each connection is a reader loop plus a writer task; it holds at most one room handle. Each
//! room is a task of the one room runtime ([`actor`]), whatever its kind ([`chess`],
//! [`chaturaji`]); rooms talk to connections through a bounded channel.

use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use maharajah_protocol::{
    decode_client, encode, version_mismatch_message, AccessCode, ChaturajiMsg, ClientMsg,
    ErrorCode, ServerMsg, MAX_FRAME_BYTES, PROTOCOL_VERSION,
};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot, watch, Notify};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{self, Message};
use tracing::{debug, info};

use crate::chaturaji::ChaturajiRoom;
use crate::clock::Millis;
use crate::codes::{new_code, new_token};
use crate::room::Room;
use crate::rooms::{Lifetimes, RoomError};
use crate::store::{Store, StoreError};

use actor::{Cmd, RoomLogic, RoomTx, ROOM_QUEUE};
use chaturaji::ChaturajiCmd;

mod actor;
mod chaturaji;
mod chess;

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
    /// How often the server pings an idle connection.
    pub ping_interval: Duration,
    /// A connection that sends nothing (not even a pong) for this long is closed.
    pub idle_timeout: Duration,
    /// Serve `wss://` (TLS) with this certificate and key instead of plain `ws://`; see
    /// [`crate::tls::server_config`]. A server behind a TLS-terminating proxy leaves it `None`.
    /// (Feature `tls`, on by default.)
    #[cfg(feature = "tls")]
    pub tls: Option<Arc<rustls::ServerConfig>>,
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
            ping_interval: Duration::from_secs(5),
            idle_timeout: Duration::from_secs(15),
            #[cfg(feature = "tls")]
            tls: None,
        }
    }
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

/// The answer to `ping`, with the server's wall clock.
fn pong(nonce: u64) -> ServerMsg {
    let server_time_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    ServerMsg::Pong { nonce, server_time_ms }
}

struct Shared {
    config: Config,
    store: Store,
    epoch: Instant,
    /// Every room, of every kind, by its code.
    rooms: Mutex<HashMap<AccessCode, RoomTx>>,
    per_ip: Mutex<HashMap<IpAddr, usize>>,
    join_failures: Mutex<HashMap<IpAddr, (Millis, u32)>>,
    creations: Mutex<HashMap<IpAddr, (Millis, u32)>>,
    shutdown: Shutdown,
    next_conn: AtomicU64,
    /// Held by every task; `run` waits until all clones are dropped.
    alive: mpsc::Sender<()>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding one of these small maps cannot leave it inconsistent.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Shared {
    fn now(&self) -> Millis {
        u64::try_from(Instant::now().duration_since(self.epoch).as_millis()).unwrap_or(u64::MAX)
    }

    fn instant_at(&self, t: Millis) -> Instant {
        self.epoch + Duration::from_millis(t.min(u64::MAX / 4))
    }

    fn room(&self, code: &AccessCode) -> Option<RoomTx> {
        lock(&self.rooms).get(code).cloned()
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
    let (store, records, chaturaji_records) = match &config.db {
        Some(path) => Store::open_all(path)?,
        None => (Store::memory(), Vec::new(), Vec::new()),
    };
    let (stop_tx, stop_rx) = watch::channel(false);
    let (alive, mut all_done) = mpsc::channel::<()>(1);
    let shared = Arc::new(Shared {
        config,
        store,
        epoch: Instant::now(),
        rooms: Mutex::new(HashMap::new()),
        per_ip: Mutex::new(HashMap::new()),
        join_failures: Mutex::new(HashMap::new()),
        creations: Mutex::new(HashMap::new()),
        shutdown: Shutdown { rx: stop_rx },
        next_conn: AtomicU64::new(1),
        alive,
    });

    let now = shared.now();
    actor::recover::<Room>(&shared, records, now).await;
    actor::recover::<ChaturajiRoom>(&shared, chaturaji_records, now).await;

    let result = tokio::select! {
        r = accept_loop(&shared, &listener) => r,
        () = shutdown => Ok(()),
    };
    // Tell every task to stop, then wait for them.
    let _ = stop_tx.send(true);
    drop(listener);
    let alive = shared.alive.clone();
    drop(shared);
    drop(alive);
    let _ = all_done.recv().await;
    result
}

async fn accept_loop(shared: &Arc<Shared>, listener: &TcpListener) -> Result<(), ServerError> {
    let mut backoff = 1;
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(x) => {
                backoff = 1;
                x
            }
            Err(e) => {
                // Out of file descriptors and the like: wait and retry, give up eventually.
                if backoff > 64 {
                    return Err(e.into());
                }
                tokio::time::sleep(Duration::from_secs(backoff)).await;
                backoff *= 2;
                continue;
            }
        };
        let ip = peer.ip();
        {
            let mut per_ip = lock(&shared.per_ip);
            let n = per_ip.entry(ip).or_insert(0);
            if *n >= shared.config.max_connections_per_ip {
                info!(%peer, "connection refused: too many from this address");
                continue; // dropping the stream closes it
            }
            *n += 1;
        }
        let guard = IpGuard { shared: shared.clone(), ip };
        let shared = shared.clone();
        tokio::spawn(async move {
            let _guard = guard;
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

struct IpGuard {
    shared: Arc<Shared>,
    ip: IpAddr,
}

impl Drop for IpGuard {
    fn drop(&mut self) {
        let mut per_ip = lock(&self.shared.per_ip);
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
    /// The room this connection sits in, if any.
    room: Option<RoomHandle>,
    bucket: Bucket,
    refused: u32,
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

/// Longest wait for a new connection's TLS and WebSocket handshakes.
const HANDSHAKE: Duration = Duration::from_secs(10);

/// One client connection, over plain TCP or TLS.
async fn serve_connection<S>(shared: &Arc<Shared>, stream: S, peer: SocketAddr)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let handshake = tokio_tungstenite::accept_async_with_config(stream, Some(ws_config()));
    let ws = match tokio::time::timeout(HANDSHAKE, handshake).await {
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
            match out {
                Some(Out::Msg(m)) => {
                    if sink.send(Message::text(encode(&m))).await.is_err() {
                        break;
                    }
                }
                Some(Out::Chaturaji(m)) => {
                    if sink.send(Message::text(encode(&*m))).await.is_err() {
                        break;
                    }
                }
                Some(Out::Close) | None => {
                    let _ = sink.close().await;
                    break;
                }
            }
        }
    });

    info!(conn = link.id, %peer, "connection opened");
    let rate = f64::from(shared.config.messages_per_second.max(1));
    let mut conn = Conn {
        shared: shared.clone(),
        link,
        ip: peer.ip(),
        hello: false,
        room: None,
        bucket: Bucket { tokens: 2.0 * rate, rate, last: Instant::now() },
        refused: 0,
    };
    let mut shutdown = shared.shutdown.clone();
    let idle = shared.config.idle_timeout;
    loop {
        let next = tokio::select! {
            n = tokio::time::timeout(idle, source.next()) => n,
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
            Message::Binary(_) => {
                conn.send(ServerMsg::error(ErrorCode::Malformed, "binary frames are not used"));
                Flow::Continue
            }
            Message::Close(_) => Flow::Close,
            Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => Flow::Continue,
        };
        if matches!(flow, Flow::Close) {
            break;
        }
    }
    conn.leave_room().await;
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
        self.send(ServerMsg::error(code, message));
        self.refused += 1;
        // A peer that keeps sending garbage is not a client we can help.
        if self.refused > 100 {
            Flow::Close
        } else {
            Flow::Continue
        }
    }

    async fn on_text(&mut self, text: &str) -> Flow {
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
        if !self.hello {
            return match msg {
                ClientMsg::Hello { version, .. } if version == PROTOCOL_VERSION => {
                    info!(conn = self.link.id, version, "hello");
                    self.hello = true;
                    self.send(ServerMsg::Welcome {
                        version: PROTOCOL_VERSION,
                        server_version: crate::VERSION.to_owned(),
                        engine_version: crate::rules::ENGINE_VERSION.to_owned(),
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
                let in_room = match &self.room {
                    Some(room) => room.tx.ping(nonce, self.link.clone()).await,
                    None => false,
                };
                if !in_room {
                    self.send(pong(nonce));
                }
                Flow::Continue
            }
            ClientMsg::CreateRoom { options } => self.create_chess(&options).await,
            ClientMsg::JoinRoom { code } => self.join::<Room>(code, (), None).await,
            ClientMsg::Rejoin { code, token, last_seq } => {
                self.join::<Room>(code, (), Some((token, last_seq))).await
            }
            ClientMsg::CreateChaturaji { settings, device, stand_in } => {
                self.create_chaturaji(settings, device, stand_in.unwrap_or_default()).await
            }
            ClientMsg::JoinChaturaji { code, device } => {
                self.join::<ChaturajiRoom>(code, device, None).await
            }
            ClientMsg::RejoinChaturaji { code, token, device, last_seq } => {
                self.join::<ChaturajiRoom>(code, device, Some((token, last_seq))).await
            }
            ClientMsg::ChaturajiAct { token, step, action } => {
                self.act::<ChaturajiRoom>(token, ChaturajiCmd::Step { step, action }).await
            }
            ClientMsg::ChaturajiRematch { token } => {
                self.act::<ChaturajiRoom>(token, ChaturajiCmd::Rematch).await
            }
            other => match chess::action_of(other) {
                Some((token, action)) => self.act::<Room>(token, action).await,
                None => Flow::Continue,
            },
        }
    }

    async fn leave_room(&mut self) {
        if let Some(room) = self.room.take() {
            info!(conn = self.link.id, room = %room.code, "left the room");
            room.tx.detach(self.link.id).await;
        }
    }

    /// Creates a room of kind `R` with this connection seated: `build` makes it from its code,
    /// the creator's token, the time and the lifetimes, and says the creator's seat.
    async fn create<R: RoomLogic>(
        &mut self,
        build: impl FnOnce(AccessCode, String, Millis, Lifetimes) -> Result<(R, R::Seat), RoomError>,
    ) -> Flow {
        let shared = self.shared.clone();
        let now = shared.now();
        let limit = shared.config.rooms_per_minute_per_ip;
        if !within_limit(&shared.creations, self.ip, now, limit) {
            return self.refuse(ErrorCode::RateLimited, "too many new rooms; wait a minute");
        }
        if shared.room_count() >= shared.config.max_rooms {
            return self.refuse(ErrorCode::Unavailable, "the server is full; try again later");
        }
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
        if let Err(e) = room.save(&shared.store, now).await {
            lock(&shared.rooms).remove(&code);
            return self.refuse(ErrorCode::Internal, format!("could not store the room: {e}"));
        }
        self.leave_room().await;
        self.link.send_out(R::seated(code.clone(), seat, token).into());
        self.link.send_out(room.snapshot_msg(now).into());
        info!(conn = self.link.id, room = %code, kind = R::KIND, "room created");
        actor::start(&shared, room, vec![(seat, self.link.clone())], rx);
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
        if !self.shared.join_allowed(self.ip) {
            return self.refuse(ErrorCode::RateLimited, "too many failed attempts; wait a minute");
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
