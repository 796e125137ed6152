//! The one connection driver of [`crate::Connection`] and [`crate::ChaturajiClient`]: it opens
//! the socket (`hello`/`welcome`), sends requests one at a time, reconnects with backoff, rejoins
//! the seat, pings, decodes frames and reports [`LinkEvent`]s. What differs between the two
//! clients (their requests, wire messages and replicas) comes from a [`Flavour`]. The types both
//! clients share live here: [`ConnectOptions`], [`NetError`], [`CloseReason`], [`Welcome`].

use std::collections::VecDeque;
use std::fmt;
use std::time::{Duration, Instant};

use futures_util::stream::SplitSink;
use futures_util::{SinkExt, StreamExt};
use maharajah_protocol::identity::PlayerSecret;
use maharajah_protocol::{
    decode_server, encode, AccessCode, ClientMsg, ErrorCode, LobbyMsg, PlayerView, ServerMsg,
    PROTOCOL_VERSION,
};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// The environment variable naming a PEM file of extra trusted certificate authorities for
/// `wss://`; read by `ConnectOptions::default()`.
pub const EXTRA_CA_ENV: &str = "MAHARAJAH_EXTRA_CA";

/// How a client ([`crate::Connection`], [`crate::ChaturajiClient`]) behaves: names, timeouts,
/// backoff.
#[derive(Clone, Debug)]
pub struct ConnectOptions {
    /// Sent in `hello`, for the server's logs.
    pub client_name: String,
    /// Longest wait for the TCP + WebSocket handshake and the `welcome`.
    pub connect_timeout: Duration,
    /// First delay before reconnecting; doubled after each failed attempt.
    pub backoff_initial: Duration,
    /// Longest delay between reconnection attempts.
    pub backoff_max: Duration,
    /// How often a `ping` measures the round trip (and proves the link alive).
    pub ping_interval: Duration,
    /// A connection that delivers nothing for this long is considered dropped.
    pub silence_timeout: Duration,
    /// A PEM file of certificate authorities trusted for `wss://` besides the built-in public
    /// ones (a self-hosted server's own CA). Default: the file named by the environment variable
    /// `MAHARAJAH_EXTRA_CA` ([`EXTRA_CA_ENV`]), if set. (Used with the `tls` feature, on by
    /// default; without it a `wss://` address is refused.)
    pub extra_ca: Option<std::path::PathBuf>,
    /// The player this client acts for: with it, every connection (and every reconnection)
    /// answers the `welcome` challenge with a signed `identify` before anything else. `None`
    /// plays as a guest.
    pub identity: Option<PlayerSecret>,
}

impl Default for ConnectOptions {
    fn default() -> ConnectOptions {
        ConnectOptions {
            client_name: format!("maharajah-net {}", crate::VERSION),
            connect_timeout: Duration::from_secs(3),
            backoff_initial: Duration::from_millis(100),
            backoff_max: Duration::from_secs(3),
            ping_interval: Duration::from_secs(2),
            silence_timeout: Duration::from_secs(7),
            extra_ca: std::env::var_os(EXTRA_CA_ENV).map(Into::into),
            identity: None,
        }
    }
}

impl ConnectOptions {
    /// The delay before reconnection attempt `attempt` (1-based).
    pub fn backoff(&self, attempt: u32) -> Duration {
        let factor = 1u32.checked_shl(attempt.saturating_sub(1).min(16)).unwrap_or(u32::MAX);
        self.backoff_initial.saturating_mul(factor).min(self.backoff_max)
    }
}

/// Why a connection ended for good.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CloseReason {
    /// `close` was called on the client, or every handle was dropped.
    ByUser,
    /// The server speaks another protocol version (message for people).
    VersionMismatch(String),
    /// The seat cannot be taken back: the room is gone or the token is refused.
    SeatLost {
        /// The server's code.
        code: ErrorCode,
        /// For people.
        message: String,
    },
}

/// Why a request failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NetError {
    /// The server could not be reached.
    #[error("cannot connect to {url}: {reason}")]
    Connect {
        /// The address tried.
        url: String,
        /// Why.
        reason: String,
    },
    /// The server speaks another protocol version.
    #[error("{0}")]
    VersionMismatch(String),
    /// The server refused the request; nothing changed.
    #[error("{message}")]
    Server {
        /// For programs.
        code: ErrorCode,
        /// For people.
        message: String,
    },
    /// The server answered with something that is not the protocol.
    #[error("the server broke the protocol: {0}")]
    Protocol(String),
    /// The action needs a seat and the connection has none yet.
    #[error("not seated in a room")]
    NotSeated,
    /// Create or join on a client that already has a seat.
    #[error("already seated in room {0}")]
    AlreadySeated(AccessCode),
    /// The link dropped before the answer came; the resynced room state tells whether the
    /// request took effect.
    #[error("the connection dropped before the server answered")]
    Interrupted,
    /// The connection has ended.
    #[error("the connection is closed")]
    Closed,
}

/// What a server said of itself in `welcome`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Welcome {
    /// The server program's version.
    pub server_version: String,
    /// The rules engine's version on the server.
    pub engine_version: String,
    /// The player the connection acts for, once identified (see [`ConnectOptions::identity`]).
    pub player: Option<PlayerView>,
    /// Why the identity was refused, if it was (the connection then plays as a guest).
    pub refused: Option<String>,
}

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;
type Sink = SplitSink<Ws, Message>;
type Responder<R> = oneshot::Sender<Result<R, NetError>>;

/// What a handle asks of the background task.
pub(crate) enum Command<Q, R> {
    Request(Q, Responder<R>),
    Drop,
    Close(oneshot::Sender<()>),
}

/// The sending side of a client: requests, link drops and closing.
pub(crate) struct Handle<Q, R> {
    cmds: mpsc::UnboundedSender<Command<Q, R>>,
}

impl<Q, R> Clone for Handle<Q, R> {
    fn clone(&self) -> Self {
        Handle { cmds: self.cmds.clone() }
    }
}

impl<Q, R> fmt::Debug for Handle<Q, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handle").field("cmds", &self.cmds).finish()
    }
}

impl<Q, R> Handle<Q, R> {
    /// Queues `req` and waits for its answer.
    pub(crate) async fn request(&self, req: Q) -> Result<R, NetError> {
        let (tx, rx) = oneshot::channel();
        self.cmds.send(Command::Request(req, tx)).map_err(|_| NetError::Closed)?;
        rx.await.map_err(|_| NetError::Closed)?
    }

    /// Drops the socket as a Wi-Fi loss would.
    pub(crate) fn drop_link(&self) {
        let _ = self.cmds.send(Command::Drop);
    }

    /// Ends the connection and waits until the task has let go.
    pub(crate) async fn close(&self) {
        let (tx, rx) = oneshot::channel();
        if self.cmds.send(Command::Close(tx)).is_ok() {
            let _ = rx.await;
        }
    }
}

/// A server frame as the driver sees it.
pub(crate) enum Incoming<F: Flavour> {
    /// `seated` / `chaturaji_seated`.
    Seated(F::Seat),
    /// The whole room.
    Snapshot(F::Snapshot),
    /// A numbered room event.
    Event { seq: u64, event: F::RoomEvent },
    /// `move_ack {ply}` / `chaturaji_ack {step}`.
    Ack { at: u32, seq: u64 },
    /// `setup_ack`.
    SetupAck,
    /// `pong`.
    Pong(u64),
    /// `error`.
    Error { code: ErrorCode, message: String },
    /// A lobby message.
    Lobby(LobbyMsg),
    /// `player`.
    Player(PlayerView),
    /// `redirect`: the room is on the node at this address; ask there.
    Redirect(String),
    /// Anything else (a second `welcome`, other room kinds).
    Ignored,
}

/// The wire messages of a request; `barrier` asks for a `ping` after them whose `pong` answers it.
pub(crate) struct Wire {
    pub(crate) msgs: Vec<ClientMsg>,
    pub(crate) barrier: bool,
}

/// What a client reports, in order: the same reports for every kind of room, with the room
/// kind's seat (`S`), snapshot (`Snap`) and event (`E`). [`crate::NetEvent`] and
/// [`crate::ChaturajiNetEvent`] are this for chess and Chaturaji rooms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkEvent<S, Snap, E> {
    /// A (re)connection completed its `hello`.
    Connected {
        /// The server program's version.
        server_version: String,
        /// The rules engine's version on the server.
        engine_version: String,
        /// The identified player (with [`ConnectOptions::identity`] and a server that knows
        /// identities); `None` for a guest.
        player: Option<Box<PlayerView>>,
    },
    /// The client acts for this seat (after create or join, or a match the lobby made).
    Seated(S),
    /// The whole room (on join, or after a gap too old for the event ring).
    Snapshot(Snap),
    /// A room event, in `seq` order, never twice; already applied to the client's replica.
    Room {
        /// Event number.
        seq: u64,
        /// What happened.
        event: E,
    },
    /// The link dropped; the next attempt is in `retry_in`.
    Disconnected {
        /// Why, for people and logs.
        reason: String,
        /// Delay before the next attempt.
        retry_in: Duration,
    },
    /// After a reconnection the seat is back; the events missed after `last_seq` (or a
    /// snapshot) follow at once.
    Rejoined {
        /// The last event applied before the drop.
        last_seq: u64,
    },
    /// A measured round trip (periodic `ping`).
    Rtt(Duration),
    /// News of the lobby: the list of open challenges and its changes, answers to challenge
    /// and pairing requests, a match made (its `seated` and `snapshot` follow).
    Lobby(LobbyMsg),
    /// The connection's player changed (a name registered).
    Player(Box<PlayerView>),
    /// A refusal that answered no request of ours.
    ServerError {
        /// For programs.
        code: ErrorCode,
        /// For people.
        message: String,
    },
    /// The server sent a frame that is not the protocol (or an event the replica refuses); it
    /// was ignored.
    ProtocolViolation(String),
    /// The connection ended for good.
    Closed(CloseReason),
}

impl<S, Snap, E> LinkEvent<S, Snap, E> {
    fn connected(w: Welcome) -> Self {
        LinkEvent::Connected {
            server_version: w.server_version,
            engine_version: w.engine_version,
            player: w.player.map(Box::new),
        }
    }
}

/// The reports of flavour `F`.
type EventOf<F> =
    LinkEvent<<F as Flavour>::Seat, <F as Flavour>::Snapshot, <F as Flavour>::RoomEvent>;

/// What differs between the clients: their requests, wire messages and replicas.
pub(crate) trait Flavour: Sized + Send + 'static {
    /// A request.
    type Req: Send + 'static;
    /// A request's answer.
    type Reply: Send + 'static;
    /// The seat's credentials.
    type Seat: Clone + Send + 'static;
    /// A room snapshot.
    type Snapshot: Send + 'static;
    /// A room event.
    type RoomEvent: Send + 'static;

    /// Who is at the other end, in drop reasons ("host", "server").
    const PEER: &'static str;
    /// Whether the client reports each periodic round trip ([`LinkEvent::Rtt`]).
    const REPORTS_RTT: bool = true;

    /// Decodes a text frame.
    fn decode(text: &str) -> Result<Incoming<Self>, String>;

    /// The room of the seat held, if any.
    fn seat_code(&self) -> Option<AccessCode>;
    /// Records the seat taken.
    fn set_seat(&self, seat: Self::Seat);
    /// The last room event applied.
    fn last_seq(&self) -> u64;
    /// The `rejoin` message for the seat held, if any.
    fn rejoin(&self) -> Option<ClientMsg>;
    /// Applies a snapshot to the replica; `Err` names why it cannot (the client resyncs).
    fn apply_snapshot(&self, snapshot: &Self::Snapshot) -> Result<(), String>;
    /// Applies the next event to the state; `Err` names why it cannot (the client resyncs).
    fn apply_event(&self, seq: u64, event: &Self::RoomEvent) -> Result<(), String>;
    /// Notes what the server's `welcome` said (the identified player), before it is reported.
    fn on_welcome(&self, _welcome: &Welcome) {}
    /// Folds a lobby or player message into the client's state, before it is reported (so a
    /// request's answer is never older than the news that came before it).
    fn on_lobby(&self, _msg: Option<&LobbyMsg>, _player: Option<&PlayerView>) {}
    /// Messages the client sends by itself, unasked and unanswered (Chaturaji's dice
    /// commitments and reveals); taken after every frame handled.
    fn outgoing(&self) -> Vec<ClientMsg> {
        Vec::new()
    }

    /// The wire messages of `req`; `at` keeps the ply or step a move was first sent at.
    fn wire(&self, req: &Self::Req, at: &mut Option<u32>) -> Wire;
    /// Create or join: answered by `seated`, refused while a seat is held.
    fn takes_seat(req: &Self::Req) -> bool;
    /// Refused without a seat.
    fn needs_seat(req: &Self::Req) -> bool;
    /// Safe to send again after a drop (the server answers a repeat the same way).
    fn resendable(req: &Self::Req) -> bool;
    /// Answered by an `Ack`.
    fn acked(req: &Self::Req) -> bool;
    /// Answered by `setup_ack`.
    fn setup(req: &Self::Req) -> bool;
    /// An `error` while it is in flight is not its answer (a bare ping).
    fn ignores_errors(req: &Self::Req) -> bool;
    /// A resend refused with `code` had in fact taken effect before the drop.
    fn already_done(req: &Self::Req, code: ErrorCode) -> bool;
    /// The answer to a take-seat request.
    fn seated_reply(seat: Self::Seat) -> Self::Reply;
    /// The answer to an acknowledged request.
    fn ack_reply(at: u32, seq: u64) -> Self::Reply;
    /// The answer to a request its barrier `pong` completes, `rtt` after it was sent.
    fn barrier_reply(req: &Self::Req, rtt: Duration) -> Self::Reply;
    /// The answer to a request done without more to say.
    fn done() -> Self::Reply;
}

/// Most redirects followed in a row (within [`REDIRECTS_APART`] of each other) before the
/// client backs off as after a drop: a room moving between nodes is not chased for ever.
const MAX_REDIRECTS: u32 = 3;
const REDIRECTS_APART: Duration = Duration::from_secs(30);

/// The addresses in a client's server address: one `ws://` or `wss://` URL, or several
/// separated by commas or spaces (the nodes of one service, any of which serves any player).
pub(crate) fn addresses(url: &str) -> Vec<String> {
    let list: Vec<String> = url
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    if list.is_empty() {
        vec![url.to_owned()]
    } else {
        list
    }
}

/// The order in which a client tries its `n` addresses: `from` (the one that answered last)
/// first, then the others from one picked at random and in turn, so the players of a node that
/// died spread over the others instead of all trying the next one.
fn try_order(n: usize, from: usize, pick: usize) -> impl Iterator<Item = usize> {
    let others = n.saturating_sub(1).max(1);
    std::iter::once(from % n.max(1)).chain((0..n.saturating_sub(1)).map(move |i| {
        let step = 1 + (pick + i) % others;
        (from + step) % n
    }))
}

/// Connects to the first of `urls` that answers, in [`try_order`] (`pick` 0: in turn from
/// `from`): the socket, the welcome and which address it was. A refused protocol version ends
/// the search (another node of the same service would refuse it too); else the last address's
/// error.
async fn establish_any(
    urls: &[String],
    from: usize,
    pick: usize,
    options: &ConnectOptions,
) -> Result<(Ws, Welcome, usize), NetError> {
    let mut last = None;
    for at in try_order(urls.len(), from, pick) {
        match establish(&urls[at], options).await {
            Ok((ws, welcome)) => return Ok((ws, welcome, at)),
            Err(e @ NetError::VersionMismatch(_)) => return Err(e),
            Err(e) => last = Some(e),
        }
    }
    Err(last
        .unwrap_or_else(|| NetError::Connect { url: String::new(), reason: "no address".into() }))
}

/// Connects to `url` (one address or several, see [`addresses`]) and spawns the task that owns
/// the socket from then on; a reconnection tries the address that last answered first, then
/// the others in turn.
pub(crate) async fn start<F: Flavour>(
    url: &str,
    options: ConnectOptions,
    flavour: F,
) -> Result<(Handle<F::Req, F::Reply>, mpsc::UnboundedReceiver<EventOf<F>>), NetError> {
    let urls = addresses(url);
    // The first connection tries the addresses in the order given.
    let (ws, welcome, at) = establish_any(&urls, 0, 0, &options).await?;
    let (events, events_rx) = mpsc::unbounded_channel();
    flavour.on_welcome(&welcome);
    let _ = events.send(LinkEvent::connected(welcome));
    let (cmds, cmds_rx) = mpsc::unbounded_channel();
    let task = Task {
        urls,
        at,
        node: None,
        options,
        flavour,
        events,
        cmds: cmds_rx,
        queue: VecDeque::new(),
        in_flight: None,
        nonce: 0,
        periodic: VecDeque::new(),
        settled: false,
    };
    tokio::spawn(task.run(ws));
    Ok((Handle { cmds }, events_rx))
}

/// Opens the socket and exchanges `hello`/`welcome`.
pub(crate) async fn establish(
    url: &str,
    options: &ConnectOptions,
) -> Result<(Ws, Welcome), NetError> {
    let connect_err = |reason: String| NetError::Connect { url: url.to_owned(), reason };
    let attempt = async {
        // No Nagle delay: frames are small and each is wanted at once. (A request and its
        // barrier `ping` then often arrive together; the server answers a seated connection's
        // ping from the room, after the room's answer to the request.)
        #[cfg(feature = "tls")]
        let opened = {
            let tls =
                crate::tls::connector(url, options.extra_ca.as_deref()).map_err(connect_err)?;
            tokio_tungstenite::connect_async_tls_with_config(url, None, true, tls).await
        };
        #[cfg(not(feature = "tls"))]
        let opened = {
            if url.starts_with("wss://") {
                return Err(connect_err("this build has no TLS for wss:// addresses".into()));
            }
            tokio_tungstenite::connect_async_with_config(url, None, true).await
        };
        let (mut ws, _) = opened.map_err(|e| connect_err(e.to_string()))?;
        let hello = ClientMsg::Hello {
            version: PROTOCOL_VERSION,
            client: options.client_name.clone(),
            redirects: true,
        };
        ws.send(Message::text(encode(&hello))).await.map_err(|e| connect_err(e.to_string()))?;
        loop {
            let msg = ws
                .next()
                .await
                .ok_or_else(|| connect_err("closed during hello".into()))?
                .map_err(|e| connect_err(e.to_string()))?;
            let text = match msg {
                Message::Text(t) => t,
                Message::Close(_) => return Err(connect_err("closed during hello".into())),
                Message::Binary(_) => return Err(NetError::Protocol("binary frame".into())),
                _ => continue,
            };
            return match decode_server(text.as_str()) {
                Ok(ServerMsg::Welcome { server_version, engine_version, challenge, .. }) => {
                    let mut welcome =
                        Welcome { server_version, engine_version, player: None, refused: None };
                    if let (Some(secret), Some(challenge)) = (&options.identity, challenge) {
                        identify(url, &mut ws, secret, &challenge, &mut welcome).await?;
                    }
                    Ok((ws, welcome))
                }
                Ok(ServerMsg::Error { code: ErrorCode::VersionMismatch, message }) => {
                    Err(NetError::VersionMismatch(message))
                }
                Ok(other) => Err(NetError::Protocol(format!("expected welcome, got {other:?}"))),
                Err(e) => Err(NetError::Protocol(e.to_string())),
            };
        }
    };
    tokio::time::timeout(options.connect_timeout, attempt)
        .await
        .map_err(|_| connect_err("timed out".into()))?
}

/// Answers the `welcome` challenge with a signed `identify` and waits for the `player` (or the
/// refusal, which leaves the connection a guest).
async fn identify(
    url: &str,
    ws: &mut Ws,
    secret: &PlayerSecret,
    challenge: &maharajah_protocol::identity::Challenge,
    welcome: &mut Welcome,
) -> Result<(), NetError> {
    let dropped = |reason: String| NetError::Connect { url: url.to_owned(), reason };
    let nonce = challenge.nonce_bytes().map_err(|e| NetError::Protocol(e.to_string()))?;
    let msg = ClientMsg::Identify {
        key: secret.public(),
        signature: secret.sign_hello(&nonce, &challenge.server),
    };
    ws.send(Message::text(encode(&msg))).await.map_err(|e| dropped(e.to_string()))?;
    loop {
        let frame = ws
            .next()
            .await
            .ok_or_else(|| dropped("closed during identify".into()))?
            .map_err(|e| dropped(e.to_string()))?;
        let Message::Text(text) = frame else { continue };
        match decode_server(text.as_str()) {
            Ok(ServerMsg::Player { player }) => {
                welcome.player = Some(player);
                return Ok(());
            }
            Ok(ServerMsg::Error { message, .. }) => {
                welcome.refused = Some(message);
                return Ok(());
            }
            Ok(_) => {}
            Err(e) => return Err(NetError::Protocol(e.to_string())),
        }
    }
}

struct InFlight<Q, R> {
    req: Q,
    reply: Responder<R>,
    /// The ply or game step a move was sent at (kept for a resend).
    at: Option<u32>,
    /// The nonce of the `ping` that answers this request (ping requests and barriers).
    barrier: Option<u64>,
    sent_at: Instant,
    /// Sent on the current socket.
    sent: bool,
    /// Sent again after a drop.
    resent: bool,
}

enum End {
    /// The link dropped; reconnect.
    Dropped(String),
    /// The server sent us to the node at this address; connect there at once.
    Redirected(String),
    /// Stop for good.
    Closed(CloseReason),
}

struct Task<F: Flavour> {
    /// The server's addresses, and the one that answered last.
    urls: Vec<String>,
    at: usize,
    /// The node a `redirect` named (a cluster's node that holds the room): tried before
    /// `urls` while it answers.
    node: Option<String>,
    options: ConnectOptions,
    flavour: F,
    events: mpsc::UnboundedSender<EventOf<F>>,
    cmds: mpsc::UnboundedReceiver<Command<F::Req, F::Reply>>,
    queue: VecDeque<(F::Req, Responder<F::Reply>)>,
    in_flight: Option<InFlight<F::Req, F::Reply>>,
    nonce: u64,
    /// Nonces and send times of periodic pings.
    periodic: VecDeque<(u64, Instant)>,
    /// Whether the current session got past its rejoin (or needed none): only such a session
    /// resets the back-off, so a server that welcomes and then refuses is not hammered.
    settled: bool,
}

impl<F: Flavour> Task<F> {
    fn emit(&self, e: EventOf<F>) {
        let _ = self.events.send(e);
    }

    async fn run(mut self, first: Ws) {
        let mut ws = Some(first);
        let mut attempt = 0u32;
        let (mut redirects, mut last_redirect) = (0, None);
        loop {
            let socket = match ws.take() {
                Some(s) => s,
                None => match self.reconnect().await {
                    Ok((s, welcome)) => {
                        self.flavour.on_welcome(&welcome);
                        self.emit(LinkEvent::connected(welcome));
                        s
                    }
                    Err(NetError::VersionMismatch(m)) => {
                        self.finish(CloseReason::VersionMismatch(m));
                        return;
                    }
                    Err(e) => {
                        attempt += 1;
                        if !self.backoff(attempt, e.to_string()).await {
                            return;
                        }
                        continue;
                    }
                },
            };
            match self.session(socket).await {
                End::Closed(reason) => {
                    self.finish(reason);
                    return;
                }
                // The request that was answered by the redirect is sent again there (the server
                // did nothing with it); a room that keeps moving is not chased for ever.
                End::Redirected(url) => {
                    // Counted while they come close together.
                    if last_redirect.is_some_and(|t: Instant| t.elapsed() > REDIRECTS_APART) {
                        redirects = 0;
                    }
                    last_redirect = Some(Instant::now());
                    redirects += 1;
                    if redirects <= MAX_REDIRECTS {
                        self.periodic.clear();
                        self.node = Some(url);
                        continue;
                    }
                    redirects = 0;
                    self.interrupt();
                    attempt += 1;
                    if !self.backoff(attempt, "redirected too many times".into()).await {
                        return;
                    }
                }
                End::Dropped(reason) => {
                    self.interrupt();
                    if std::mem::take(&mut self.settled) {
                        attempt = 0;
                    }
                    attempt += 1;
                    if !self.backoff(attempt, reason).await {
                        return;
                    }
                }
            }
        }
    }

    /// Opens a new socket: to the node a redirect named while it answers, else to the first of
    /// the server's addresses that does.
    async fn reconnect(&mut self) -> Result<(Ws, Welcome), NetError> {
        if let Some(node) = &self.node {
            match establish(node, &self.options).await {
                Ok(done) => return Ok(done),
                Err(e @ NetError::VersionMismatch(_)) => return Err(e),
                Err(_) => self.node = None,
            }
        }
        let pick = rand::random::<u32>() as usize;
        let (ws, welcome, at) = establish_any(&self.urls, self.at, pick, &self.options).await?;
        self.at = at;
        Ok((ws, welcome))
    }

    /// Reports the drop and waits before the next attempt, queueing requests. False (and
    /// finished) if the connection is to close.
    async fn backoff(&mut self, attempt: u32, reason: String) -> bool {
        let delay = self.options.backoff(attempt);
        self.emit(LinkEvent::Disconnected { reason, retry_in: delay });
        let deadline = tokio::time::Instant::now() + delay;
        loop {
            tokio::select! {
                _ = tokio::time::sleep_until(deadline) => return true,
                cmd = self.cmds.recv() => match cmd {
                    None => { self.finish(CloseReason::ByUser); return false; }
                    Some(Command::Close(ack)) => {
                        self.finish(CloseReason::ByUser);
                        let _ = ack.send(());
                        return false;
                    }
                    Some(Command::Drop) => {}
                    Some(Command::Request(req, reply)) => self.enqueue(req, reply),
                },
            }
        }
    }

    fn finish(&mut self, reason: CloseReason) {
        if let Some(f) = self.in_flight.take() {
            let _ = f.reply.send(Err(NetError::Closed));
        }
        for (_, reply) in self.queue.drain(..) {
            let _ = reply.send(Err(NetError::Closed));
        }
        self.emit(LinkEvent::Closed(reason));
    }

    /// After a drop: requests that are safe to repeat stay in flight, others fail.
    fn interrupt(&mut self) {
        self.periodic.clear();
        if let Some(f) = self.in_flight.take() {
            if F::resendable(&f.req) {
                self.in_flight = Some(InFlight { resent: true, sent: false, ..f });
            } else {
                let _ = f.reply.send(Err(NetError::Interrupted));
            }
        }
    }

    fn enqueue(&mut self, req: F::Req, reply: Responder<F::Reply>) {
        match self.flavour.seat_code() {
            Some(code) if F::takes_seat(&req) => {
                let _ = reply.send(Err(NetError::AlreadySeated(code)));
            }
            None if F::needs_seat(&req) => {
                let _ = reply.send(Err(NetError::NotSeated));
            }
            _ => self.queue.push_back((req, reply)),
        }
    }

    fn next_nonce(&mut self) -> u64 {
        self.nonce += 1;
        self.nonce
    }

    async fn send(sink: &mut Sink, msg: &ClientMsg) -> Result<(), End> {
        sink.send(Message::text(encode(msg))).await.map_err(|e| End::Dropped(e.to_string()))
    }

    /// Sends the request in flight again after a drop, or else the next queued one.
    async fn pump(&mut self, sink: &mut Sink) -> Result<(), End> {
        let mut f = match self.in_flight.take() {
            Some(f) if f.sent => {
                self.in_flight = Some(f);
                return Ok(());
            }
            Some(f) => f,
            None => match self.queue.pop_front() {
                Some((req, reply)) => InFlight {
                    req,
                    reply,
                    at: None,
                    barrier: None,
                    sent_at: Instant::now(),
                    sent: false,
                    resent: false,
                },
                None => return Ok(()),
            },
        };
        f.sent_at = Instant::now();
        f.sent = true;
        let Wire { mut msgs, barrier } = self.flavour.wire(&f.req, &mut f.at);
        if barrier {
            let nonce = self.next_nonce();
            f.barrier = Some(nonce);
            msgs.push(ClientMsg::Ping { nonce });
        }
        self.in_flight = Some(f);
        for m in &msgs {
            Self::send(sink, m).await?;
        }
        Ok(())
    }

    fn complete(&mut self, r: Result<F::Reply, NetError>) {
        if let Some(f) = self.in_flight.take() {
            let _ = f.reply.send(r);
        }
    }

    async fn session(&mut self, ws: Ws) -> End {
        let (mut sink, mut stream) = ws.split();
        let rejoin = self.flavour.rejoin();
        let mut awaiting_rejoin = rejoin.is_some();
        self.settled = !awaiting_rejoin;
        if let Some(msg) = rejoin {
            if let Err(e) = Self::send(&mut sink, &msg).await {
                return e;
            }
        }
        let mut ticker = tokio::time::interval(self.options.ping_interval);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        ticker.tick().await;
        let mut last_heard = Instant::now();
        let closed_by_peer = || End::Dropped(format!("closed by the {}", F::PEER));
        loop {
            if !awaiting_rejoin {
                if let Err(e) = self.pump(&mut sink).await {
                    return e;
                }
                for m in self.flavour.outgoing() {
                    if let Err(e) = Self::send(&mut sink, &m).await {
                        return e;
                    }
                }
            }
            let step = tokio::select! {
                cmd = self.cmds.recv() => match cmd {
                    None => {
                        let _ = sink.send(Message::Close(None)).await;
                        return End::Closed(CloseReason::ByUser);
                    }
                    Some(Command::Close(ack)) => {
                        let _ = sink.send(Message::Close(None)).await;
                        let _ = ack.send(());
                        return End::Closed(CloseReason::ByUser);
                    }
                    Some(Command::Drop) => return End::Dropped("link dropped".into()),
                    Some(Command::Request(req, reply)) => { self.enqueue(req, reply); Ok(()) }
                },
                _ = ticker.tick() => {
                    if last_heard.elapsed() > self.options.silence_timeout {
                        return End::Dropped(format!("the {} went silent", F::PEER));
                    }
                    let nonce = self.next_nonce();
                    self.periodic.push_back((nonce, Instant::now()));
                    if self.periodic.len() > 8 { self.periodic.pop_front(); }
                    Self::send(&mut sink, &ClientMsg::Ping { nonce }).await
                }
                msg = stream.next() => {
                    last_heard = Instant::now();
                    match msg {
                        None => return closed_by_peer(),
                        Some(Err(e)) => return End::Dropped(e.to_string()),
                        Some(Ok(Message::Close(_))) => return closed_by_peer(),
                        Some(Ok(Message::Text(t))) => match F::decode(t.as_str()) {
                            Ok(m) => self.handle(m, &mut awaiting_rejoin),
                            Err(e) => { self.emit(LinkEvent::ProtocolViolation(e)); Ok(()) }
                        },
                        Some(Ok(Message::Binary(_))) => {
                            self.emit(LinkEvent::ProtocolViolation("binary frame".into()));
                            Ok(())
                        }
                        Some(Ok(_)) => Ok(()),
                    }
                }
            };
            if let Err(e) = step {
                return e;
            }
        }
    }

    fn handle(&mut self, msg: Incoming<F>, awaiting_rejoin: &mut bool) -> Result<(), End> {
        match msg {
            Incoming::Pong(nonce) => {
                if let Some(pos) = self.periodic.iter().position(|(n, _)| *n == nonce) {
                    let sent = self.periodic[pos].1;
                    self.periodic.drain(..=pos);
                    if F::REPORTS_RTT {
                        self.emit(LinkEvent::Rtt(sent.elapsed()));
                    }
                } else if let Some(f) = &self.in_flight {
                    if f.barrier == Some(nonce) {
                        let reply = F::barrier_reply(&f.req, f.sent_at.elapsed());
                        self.complete(Ok(reply));
                    }
                }
            }
            Incoming::Seated(seat) => {
                if *awaiting_rejoin {
                    *awaiting_rejoin = false;
                    self.settled = true;
                    // The missed events (or a snapshot) follow this report.
                    let last_seq = self.flavour.last_seq();
                    self.emit(LinkEvent::Rejoined { last_seq });
                } else if self.in_flight.as_ref().is_some_and(|f| F::takes_seat(&f.req)) {
                    self.flavour.set_seat(seat.clone());
                    self.emit(LinkEvent::Seated(seat.clone()));
                    self.complete(Ok(F::seated_reply(seat)));
                } else if self.flavour.seat_code().is_none() {
                    // A seat given unasked: the lobby matched a challenge or a pairing of ours.
                    self.flavour.set_seat(seat.clone());
                    self.emit(LinkEvent::Seated(seat));
                }
            }
            Incoming::Snapshot(snapshot) => {
                if *awaiting_rejoin {
                    // A spectator's `watch` is answered by the snapshot alone.
                    *awaiting_rejoin = false;
                    self.settled = true;
                    self.emit(LinkEvent::Rejoined { last_seq: self.flavour.last_seq() });
                }
                if let Err(problem) = self.flavour.apply_snapshot(&snapshot) {
                    self.emit(LinkEvent::ProtocolViolation(problem.clone()));
                    return Err(End::Dropped(problem));
                }
                self.emit(LinkEvent::Snapshot(snapshot));
            }
            Incoming::Event { seq, event } => {
                let last = self.flavour.last_seq();
                if seq <= last {
                    return Ok(());
                }
                if seq > last + 1 {
                    // A gap can only come from a server bug or a lost frame: resync.
                    return Err(End::Dropped(format!("missed events {}..{}", last + 1, seq)));
                }
                if let Err(problem) = self.flavour.apply_event(seq, &event) {
                    self.emit(LinkEvent::ProtocolViolation(problem.clone()));
                    return Err(End::Dropped(problem));
                }
                self.emit(LinkEvent::Room { seq, event });
            }
            Incoming::Ack { at, seq } => {
                if self.in_flight.as_ref().is_some_and(|f| F::acked(&f.req) && f.at == Some(at)) {
                    self.complete(Ok(F::ack_reply(at, seq)));
                }
            }
            Incoming::SetupAck => {
                if self.in_flight.as_ref().is_some_and(|f| F::setup(&f.req)) {
                    self.complete(Ok(F::done()));
                }
            }
            Incoming::Error { code, message } => {
                if code == ErrorCode::VersionMismatch {
                    return Err(End::Closed(CloseReason::VersionMismatch(message)));
                }
                if *awaiting_rejoin {
                    // Busy, stopping, or (in a cluster) the room's node away for a moment: the
                    // seat is still ours, try again.
                    let retry =
                        [ErrorCode::RateLimited, ErrorCode::ShuttingDown, ErrorCode::Unavailable];
                    if retry.contains(&code) {
                        return Err(End::Dropped(message));
                    }
                    return Err(End::Closed(CloseReason::SeatLost { code, message }));
                }
                match self.in_flight.as_ref() {
                    Some(f) if f.sent && !F::ignores_errors(&f.req) => {
                        // A step resent after a drop that the server had already stored.
                        if f.resent && F::already_done(&f.req, code) {
                            self.complete(Ok(F::done()));
                        } else {
                            self.complete(Err(NetError::Server { code, message }));
                        }
                    }
                    _ => self.emit(LinkEvent::ServerError { code, message }),
                }
            }
            Incoming::Lobby(msg) => {
                self.flavour.on_lobby(Some(&msg), None);
                self.emit(LinkEvent::Lobby(msg));
            }
            Incoming::Player(player) => {
                self.flavour.on_lobby(None, Some(&player));
                self.emit(LinkEvent::Player(Box::new(player)));
            }
            Incoming::Redirect(url) => {
                if let Some(f) = self.in_flight.as_mut() {
                    f.sent = false;
                }
                return Err(End::Redirected(url));
            }
            Incoming::Ignored => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{addresses, try_order};

    #[test]
    fn the_last_address_first_then_the_others_from_a_random_one() {
        for n in 1..6 {
            for from in 0..n {
                let in_turn: Vec<usize> = (0..n).map(|i| (from + i) % n).collect();
                assert_eq!(try_order(n, from, 0).collect::<Vec<_>>(), in_turn, "pick 0: in turn");
                let mut starts = std::collections::BTreeSet::<usize>::new();
                for pick in 0..2 * n {
                    let order: Vec<usize> = try_order(n, from, pick).collect();
                    assert_eq!(order[0], from, "{order:?}");
                    let mut sorted = order.clone();
                    sorted.sort_unstable();
                    assert_eq!(sorted, (0..n).collect::<Vec<_>>(), "each once: {order:?}");
                    starts.extend(order.get(1));
                }
                // After the one that answered last, every other address comes first for some
                // pick: a dead node's players spread over all the others.
                assert_eq!(starts.len(), n - 1, "n {n} from {from}: {starts:?}");
            }
        }
    }

    #[test]
    fn a_server_address_names_one_node_or_several() {
        assert_eq!(addresses("ws://a:1/"), ["ws://a:1/"]);
        assert_eq!(
            addresses(" ws://a:1/, wss://b:2/ ws://c:3/ "),
            ["ws://a:1/", "wss://b:2/", "ws://c:3/"]
        );
        assert_eq!(addresses(""), [""], "an empty address fails to connect with its own error");
    }
}
