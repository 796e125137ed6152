//! WebSocket transport, room actors, connection limits and explicit shutdown (mini-redis style).
//!
//! Each room is a task that owns its [`Room`] and is the only writer of it: commands from
//! connections arrive on a channel, timers (pause end, flag, expiry) wake it up, and every change
//! is stored before anyone is told about it. Each connection is a reader loop plus a writer task;
//! rooms talk to connections through a bounded channel.

use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use maharajah_protocol::{
    decode_client, encode, version_mismatch_message, AccessCode, ByColor, ChaturajiMsg, ClientMsg,
    Color, ErrorCode, RoomOptions, ServerMsg, MAX_FRAME_BYTES, PROTOCOL_VERSION,
};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot, watch, Notify};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{self, Message};

use crate::clock::Millis;
use crate::codes::{new_code, new_token};
use crate::room::{Action, Lifetimes, Room, RoomError};
use crate::store::{Store, StoreError};

mod chaturaji;

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

enum Out {
    Msg(ServerMsg),
    Chaturaji(Box<ChaturajiMsg>),
    Close,
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

    /// Queues a Chaturaji message, like [`Link::send`].
    fn send_chaturaji(&self, msg: ChaturajiMsg) -> bool {
        self.send_out(Out::Chaturaji(Box::new(msg)))
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

enum RoomCmd {
    Join {
        token: String,
        link: Link,
        reply: oneshot::Sender<Result<Color, RoomError>>,
    },
    Rejoin {
        token: String,
        last_seq: u64,
        link: Link,
        reply: oneshot::Sender<Result<Color, RoomError>>,
    },
    Act {
        token: String,
        action: Action,
        link: Link,
        /// When the frame was decoded (for [`crate::metrics`]).
        received: Instant,
    },
    Detach {
        conn: u64,
    },
    /// A `ping` from a seated connection, answered by the room after every command before it:
    /// a client's barrier ping then follows the refusal of the action it sent first.
    Ping {
        nonce: u64,
        link: Link,
    },
}

type RoomTx = mpsc::Sender<RoomCmd>;

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
    rooms: Mutex<HashMap<AccessCode, RoomTx>>,
    /// Chaturaji rooms; codes are unique across both maps.
    chaturaji_rooms: Mutex<HashMap<AccessCode, chaturaji::ChaturajiTx>>,
    per_ip: Mutex<HashMap<IpAddr, usize>>,
    join_failures: Mutex<HashMap<IpAddr, (Millis, u32)>>,
    creations: Mutex<HashMap<IpAddr, (Millis, u32)>>,
    shutdown: watch::Receiver<bool>,
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
    /// Rooms held now, of both kinds.
    fn room_count(&self) -> usize {
        lock(&self.rooms).len() + lock(&self.chaturaji_rooms).len()
    }

    /// A fresh access code free in both maps (reserve it before releasing the locks).
    fn free_code(&self) -> AccessCode {
        let rooms = lock(&self.rooms);
        let chaturaji = lock(&self.chaturaji_rooms);
        let mut code = new_code();
        while rooms.contains_key(&code) || chaturaji.contains_key(&code) {
            code = new_code();
        }
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
        chaturaji_rooms: Mutex::new(HashMap::new()),
        per_ip: Mutex::new(HashMap::new()),
        join_failures: Mutex::new(HashMap::new()),
        creations: Mutex::new(HashMap::new()),
        shutdown: stop_rx,
        next_conn: AtomicU64::new(1),
        alive,
    });

    let now = shared.now();
    for record in records {
        let record = match record {
            Ok(r) => r,
            Err(e) => {
                eprintln!("maharajah-server: skipping unreadable room: {e}");
                continue;
            }
        };
        let code = record.code.clone();
        match Room::from_record(record, now, shared.config.lifetimes) {
            Ok(room) => {
                if let Err(e) = shared.store.save(&room.to_record(now)).await {
                    eprintln!("maharajah-server: room {code}: {e}");
                }
                spawn_room(&shared, room, ByColor::default());
            }
            Err(e) => eprintln!("maharajah-server: room {code} cannot be recovered: {e}"),
        }
    }

    chaturaji::recover(&shared, chaturaji_records, now).await;

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
    room: Option<(AccessCode, RoomTx)>,
    chaturaji: Option<(AccessCode, chaturaji::ChaturajiTx)>,
    bucket: Bucket,
    refused: u32,
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
        _ => return,
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

    let rate = f64::from(shared.config.messages_per_second.max(1));
    let mut conn = Conn {
        shared: shared.clone(),
        link,
        ip: peer.ip(),
        hello: false,
        room: None,
        chaturaji: None,
        bucket: Bucket { tokens: 2.0 * rate, rate, last: Instant::now() },
        refused: 0,
    };
    let mut shutdown = shared.shutdown.clone();
    let idle = shared.config.idle_timeout;
    loop {
        let next = tokio::select! {
            n = tokio::time::timeout(idle, source.next()) => n,
            () = kill.notified() => break,
            _ = shutdown.changed() => {
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

fn action_of(msg: ClientMsg) -> Option<(String, Action)> {
    Some(match msg {
        ClientMsg::Commit { token, commitment } => (token, Action::Commit { commitment }),
        ClientMsg::Reveal { token, army, nonce } => (token, Action::Reveal { army, nonce }),
        ClientMsg::Move { token, ply, uci } => (token, Action::Move { ply, uci }),
        ClientMsg::Pause { token } => (token, Action::Pause),
        ClientMsg::Resume { token } => (token, Action::Resume),
        ClientMsg::Resign { token } => (token, Action::Resign),
        ClientMsg::OfferDraw { token } => (token, Action::OfferDraw),
        ClientMsg::DeclineDraw { token } => (token, Action::DeclineDraw),
        ClientMsg::ClaimDraw { token } => (token, Action::ClaimDraw),
        ClientMsg::CreateChaturaji { .. }
        | ClientMsg::JoinChaturaji { .. }
        | ClientMsg::RejoinChaturaji { .. }
        | ClientMsg::ChaturajiAct { .. }
        | ClientMsg::ChaturajiRematch { .. }
        | ClientMsg::Hello { .. }
        | ClientMsg::Ping { .. }
        | ClientMsg::CreateRoom { .. }
        | ClientMsg::JoinRoom { .. }
        | ClientMsg::Rejoin { .. } => return None,
    })
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
                    self.hello = true;
                    self.send(ServerMsg::Welcome {
                        version: PROTOCOL_VERSION,
                        server_version: crate::VERSION.to_owned(),
                        engine_version: crate::rules::ENGINE_VERSION.to_owned(),
                    });
                    Flow::Continue
                }
                ClientMsg::Hello { version, .. } => {
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
                let link = self.link.clone();
                let in_room = match (&self.room, &self.chaturaji) {
                    (Some((_, room)), _) => room.send(RoomCmd::Ping { nonce, link }).await.is_ok(),
                    (None, Some((_, room))) => {
                        room.send(chaturaji::Cmd::Ping { nonce, link }).await.is_ok()
                    }
                    (None, None) => false,
                };
                if !in_room {
                    self.send(pong(nonce));
                }
                Flow::Continue
            }
            ClientMsg::CreateRoom { options } => self.create(&options).await,
            ClientMsg::JoinRoom { code } => self.join(code, None).await,
            ClientMsg::Rejoin { code, token, last_seq } => {
                self.join(code, Some((token, last_seq))).await
            }
            ClientMsg::CreateChaturaji { settings, device, stand_in } => {
                self.create_chaturaji(settings, device, stand_in.unwrap_or_default()).await
            }
            ClientMsg::JoinChaturaji { code, device } => {
                self.join_chaturaji(code, device, None).await
            }
            ClientMsg::RejoinChaturaji { code, token, device, last_seq } => {
                self.join_chaturaji(code, device, Some((token, last_seq))).await
            }
            ClientMsg::ChaturajiAct { token, step, action } => {
                self.chaturaji_cmd(chaturaji::Cmd::Act {
                    token,
                    step,
                    action,
                    link: self.link.clone(),
                })
                .await
            }
            ClientMsg::ChaturajiRematch { token } => {
                self.chaturaji_cmd(chaturaji::Cmd::Rematch { token, link: self.link.clone() }).await
            }
            other => {
                let Some((token, action)) = action_of(other) else { return Flow::Continue };
                let Some((_, room)) = &self.room else {
                    return self.refuse(ErrorCode::NotSeated, "join or create a room first");
                };
                let received = Instant::now();
                let cmd = RoomCmd::Act { token, action, link: self.link.clone(), received };
                if room.send(cmd).await.is_err() {
                    self.room = None;
                    return self.refuse(ErrorCode::RoomNotFound, "the room has closed");
                }
                Flow::Continue
            }
        }
    }

    async fn leave_room(&mut self) {
        if let Some((_, room)) = self.room.take() {
            let _ = room.send(RoomCmd::Detach { conn: self.link.id }).await;
        }
        if let Some((_, room)) = self.chaturaji.take() {
            let _ = room.send(chaturaji::Cmd::Detach { conn: self.link.id }).await;
        }
    }

    async fn create(&mut self, options: &RoomOptions) -> Flow {
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
        let seat = options.color.unwrap_or(if rand::random::<bool>() {
            Color::White
        } else {
            Color::Black
        });
        let token = new_token();
        let (tx, rx) = mpsc::channel(64);
        let code = {
            let mut rooms = lock(&shared.rooms);
            let mut code = new_code();
            while rooms.contains_key(&code) || lock(&shared.chaturaji_rooms).contains_key(&code) {
                code = new_code();
            }
            rooms.insert(code.clone(), tx.clone());
            code
        };
        let room = match Room::new(
            code.clone(),
            options,
            seat,
            token.clone(),
            now,
            shared.config.lifetimes,
        ) {
            Ok(r) => r,
            Err(e) => {
                lock(&shared.rooms).remove(&code);
                return self.refuse(e.code, e.message);
            }
        };
        if let Err(e) = shared.store.save(&room.to_record(now)).await {
            lock(&shared.rooms).remove(&code);
            return self.refuse(ErrorCode::Internal, format!("could not store the room: {e}"));
        }
        self.leave_room().await;
        self.send(ServerMsg::Seated { code: code.clone(), seat, token });
        self.send(ServerMsg::Snapshot { snapshot: Box::new(room.snapshot(now)) });
        let mut links = ByColor::default();
        *links.get_mut(seat) = Some(self.link.clone());
        start_room_task(&shared, room, links, rx);
        self.room = Some((code, tx));
        Flow::Continue
    }

    async fn join(&mut self, code: AccessCode, rejoin: Option<(String, u64)>) -> Flow {
        if !self.shared.join_allowed(self.ip) {
            return self.refuse(ErrorCode::RateLimited, "too many failed attempts; wait a minute");
        }
        if rejoin.is_none() && self.room.as_ref().is_some_and(|(c, _)| *c == code) {
            return self.refuse(ErrorCode::WrongPhase, "you already have a seat in this room");
        }
        let Some(room) = self.shared.room(&code) else {
            self.shared.join_failed(self.ip);
            return self.refuse(ErrorCode::RoomNotFound, format!("no room has the code {code}"));
        };
        let (reply, answer) = oneshot::channel();
        let link = self.link.clone();
        let cmd = match rejoin {
            None => RoomCmd::Join { token: new_token(), link, reply },
            Some((token, last_seq)) => RoomCmd::Rejoin { token, last_seq, link, reply },
        };
        // Leave the previous room first so this connection never holds two seats.
        if self.room.as_ref().is_some_and(|(c, _)| *c != code) || self.chaturaji.is_some() {
            self.leave_room().await;
        }
        if room.send(cmd).await.is_err() {
            return self.refuse(ErrorCode::RoomNotFound, "the room has closed");
        }
        match answer.await {
            Ok(Ok(_seat)) => {
                self.room = Some((code, room));
                Flow::Continue
            }
            Ok(Err(e)) => {
                if e.code == ErrorCode::Forbidden {
                    self.shared.join_failed(self.ip);
                }
                self.refuse(e.code, e.message)
            }
            Err(_) => self.refuse(ErrorCode::RoomNotFound, "the room has closed"),
        }
    }
}

/// What the room tasks (chess and Chaturaji) need to store a room before anyone hears of it.
trait Stored: Clone + Send {
    /// What the room's clients are sent.
    type Msg: Clone;
    fn seq(&self) -> u64;
    fn code(&self) -> &AccessCode;
    /// Commits the room's record as of `now`.
    fn save(
        &self,
        store: &Store,
        now: Millis,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// The events after `seq`, while the event ring holds them.
    fn events_after(&self, seq: u64) -> Option<Vec<Self::Msg>>;
    /// The whole room as of `now`.
    fn snapshot_msg(&self, now: Millis) -> Self::Msg;
    /// Queues `msg` on `link` (false if the link is being closed).
    fn send(link: &Link, msg: Self::Msg) -> bool;

    /// What brings a client from event `after` up to date: the missed events while the ring
    /// holds them, a snapshot otherwise (or when `after` is `None`).
    fn catch_up(&self, after: Option<u64>, now: Millis) -> Vec<Self::Msg> {
        after.and_then(|seq| self.events_after(seq)).unwrap_or_else(|| vec![self.snapshot_msg(now)])
    }

    /// Tells `link` its seat (`seated`) and brings it up to date from event `after`.
    fn greet(&self, link: &Link, seated: Self::Msg, after: Option<u64>, now: Millis) {
        Self::send(link, seated);
        for m in self.catch_up(after, now) {
            Self::send(link, m);
        }
    }
}

impl Stored for Room {
    type Msg = ServerMsg;

    fn seq(&self) -> u64 {
        Room::seq(self)
    }

    fn code(&self) -> &AccessCode {
        Room::code(self)
    }

    fn save(
        &self,
        store: &Store,
        now: Millis,
    ) -> impl Future<Output = Result<(), StoreError>> + Send {
        let (store, record) = (store.clone(), self.to_record(now));
        async move { store.save(&record).await }
    }

    fn events_after(&self, seq: u64) -> Option<Vec<ServerMsg>> {
        Room::events_after(self, seq)
    }

    fn snapshot_msg(&self, now: Millis) -> ServerMsg {
        ServerMsg::Snapshot { snapshot: Box::new(self.snapshot(now)) }
    }

    fn send(link: &Link, msg: ServerMsg) -> bool {
        link.send(msg)
    }
}

/// A copy to roll back to if storing fails; in-memory storage cannot fail, so no copy.
fn backup<R: Stored>(store: &Store, room: &R) -> Option<R> {
    store.is_durable().then(|| room.clone())
}

/// Stores `room` if it changed since `before`; on failure restores `backup` and says so.
async fn persist<R: Stored>(
    store: &Store,
    room: &mut R,
    backup: Option<R>,
    before: u64,
    now: Millis,
) -> bool {
    if room.seq() == before {
        return true;
    }
    match room.save(store, now).await {
        Ok(()) => true,
        Err(e) => {
            eprintln!("maharajah-server: room {}: {e}", room.code());
            if let Some(b) = backup {
                *room = b;
            }
            false
        }
    }
}

/// Sends `msgs` in order to each link but connection `skip`; a link that cannot take one more
/// (it is being closed) gets no more.
fn fan_out<M: Clone>(
    links: impl IntoIterator<Item = Option<Link>>,
    skip: Option<u64>,
    msgs: &[M],
    send: impl Fn(&Link, M) -> bool,
) {
    for link in links.into_iter().flatten() {
        if Some(link.id) == skip {
            continue;
        }
        for m in msgs {
            if !send(&link, m.clone()) {
                break;
            }
        }
    }
}

fn spawn_room(shared: &Arc<Shared>, room: Room, links: ByColor<Option<Link>>) {
    let (tx, rx) = mpsc::channel(64);
    lock(&shared.rooms).insert(room.code().clone(), tx);
    start_room_task(shared, room, links, rx);
}

fn start_room_task(
    shared: &Arc<Shared>,
    room: Room,
    links: ByColor<Option<Link>>,
    rx: mpsc::Receiver<RoomCmd>,
) {
    let actor = RoomActor { shared: shared.clone(), room, links };
    tokio::spawn(actor.run(rx));
}

struct RoomActor {
    shared: Arc<Shared>,
    room: Room,
    links: ByColor<Option<Link>>,
}

impl RoomActor {
    async fn run(mut self, mut rx: mpsc::Receiver<RoomCmd>) {
        let _alive = self.shared.alive.clone();
        let mut shutdown = self.shared.shutdown.clone();
        loop {
            let wake = self.shared.instant_at(self.room.next_deadline());
            tokio::select! {
                cmd = rx.recv() => match cmd {
                    Some(cmd) => self.handle(cmd).await,
                    None => break,
                },
                () = tokio::time::sleep_until(wake) => {
                    let now = self.shared.now();
                    let backup = self.backup();
                    let before = self.room.seq();
                    self.room.on_time(now);
                    if self.persist(backup, before, now).await {
                        self.broadcast(before, None);
                    }
                    if self.room.is_expired(now) {
                        self.expire().await;
                        break;
                    }
                }
                _ = shutdown.changed() => break,
            }
        }
    }

    async fn expire(&mut self) {
        let code = self.room.code().clone();
        lock(&self.shared.rooms).remove(&code);
        if let Err(e) = self.shared.store.delete(code.as_str()).await {
            eprintln!("maharajah-server: room {code}: {e}");
        }
        for link in [self.links.white.take(), self.links.black.take()].into_iter().flatten() {
            link.send(ServerMsg::error(ErrorCode::RoomNotFound, "the room has expired"));
        }
    }

    fn backup(&self) -> Option<Room> {
        backup(&self.shared.store, &self.room)
    }

    async fn persist(&mut self, backup: Option<Room>, before: u64, now: Millis) -> bool {
        persist(&self.shared.store, &mut self.room, backup, before, now).await
    }

    /// Sends the events after `before` to both seats, except to connection `skip`.
    fn broadcast(&mut self, before: u64, skip: Option<u64>) {
        if self.room.seq() == before {
            return;
        }
        let msgs = self.room.catch_up(Some(before), self.shared.now());
        fan_out(Color::ALL.iter().map(|&c| self.links.get(c).clone()), skip, &msgs, Link::send);
    }

    fn internal() -> RoomError {
        RoomError::new(ErrorCode::Internal, "the server could not store this; nothing changed")
    }

    fn attach(&mut self, seat: Color, link: Link) {
        if let Some(old) = self.links.get(seat) {
            if old.id != link.id {
                old.send(ServerMsg::error(
                    ErrorCode::Forbidden,
                    "this seat is now used by another connection",
                ));
            }
        }
        // The same connection cannot stand for both seats.
        if self.links.get(seat.other()).as_ref().is_some_and(|l| l.id == link.id) {
            *self.links.get_mut(seat.other()) = None;
        }
        *self.links.get_mut(seat) = Some(link);
    }

    async fn handle(&mut self, cmd: RoomCmd) {
        if let RoomCmd::Ping { nonce, link } = &cmd {
            link.send(pong(*nonce));
            return;
        }
        let now = self.shared.now();
        let backup = self.backup();
        let before = self.room.seq();
        match cmd {
            RoomCmd::Join { token, link, reply } => match self.room.join(token.clone(), now) {
                Ok(seat) => {
                    if !self.persist(backup, before, now).await {
                        let _ = reply.send(Err(Self::internal()));
                        return;
                    }
                    let seated = ServerMsg::Seated { code: self.room.code().clone(), seat, token };
                    self.room.greet(&link, seated, None, now);
                    self.broadcast(before, Some(link.id));
                    self.attach(seat, link);
                    let _ = reply.send(Ok(seat));
                }
                Err(e) => {
                    let _ = reply.send(Err(e));
                }
            },
            RoomCmd::Rejoin { token, last_seq, link, reply } => {
                let Some(seat) = self.room.seat_of(&token) else {
                    let _ = reply.send(Err(RoomError::new(
                        ErrorCode::Forbidden,
                        "this token holds no seat in this room",
                    )));
                    return;
                };
                self.room.connect(seat, now);
                if !self.persist(backup, before, now).await {
                    let _ = reply.send(Err(Self::internal()));
                    return;
                }
                let seated = ServerMsg::Seated { code: self.room.code().clone(), seat, token };
                self.room.greet(&link, seated, Some(last_seq), now);
                self.broadcast(before, Some(link.id));
                self.attach(seat, link);
                let _ = reply.send(Ok(seat));
            }
            RoomCmd::Act { token, action, link, received } => {
                let is_move = matches!(action, Action::Move { .. });
                let result = self.room.act(&token, action, now);
                if !self.persist(backup, before, now).await {
                    link.send(Self::internal().to_msg());
                    return;
                }
                self.broadcast(before, None);
                // Events reached a connection not attached to a seat only through its reply.
                let answer = match result {
                    Ok(reply) => reply.to_msg(),
                    Err(e) => Some(e.to_msg()),
                };
                if let Some(m) = answer {
                    link.send(m);
                }
                if is_move {
                    crate::metrics::record_move(received.elapsed());
                }
            }
            RoomCmd::Ping { .. } => {}
            RoomCmd::Detach { conn } => {
                // Connections closed by our own shutdown are not players leaving: no presence
                // change is stored and no shield pause is spent.
                if *self.shared.shutdown.borrow() {
                    return;
                }
                for c in Color::ALL {
                    if self.links.get(c).as_ref().is_some_and(|l| l.id == conn) {
                        *self.links.get_mut(c) = None;
                        self.room.disconnect(c, now);
                    }
                }
                if self.persist(backup, before, now).await {
                    self.broadcast(before, None);
                }
            }
        }
    }
}
