//! A WebSocket client of the Maharajah protocol that survives dropped connections.
//!
//! [`Connection::connect`] opens the socket, sends `hello` and checks the version, then hands back
//! a cheap clonable handle and a channel of [`NetEvent`]s. A background task owns the socket:
//!
//! - Requests are sent one at a time, in the order they were made, and each waits for its own
//!   answer (`seated`, `move_ack`, `setup_ack`, `pong` or `error`). Actions the server answers
//!   only with a room event (pause, resign, draw offers…) are followed by a `ping` barrier: an
//!   `error` before its `pong` is the action's, the `pong` means it was accepted.
//! - A move carries the ply it was made at; it is acknowledged by `move_ack {ply, seq}`.
//! - When the socket drops (closed, or silent for [`ConnectOptions::silence_timeout`]) the task
//!   reconnects with exponential backoff, sends `rejoin {code, token, last_seq}`, and receives the
//!   missed events or a snapshot. A move, commit or reveal that was in flight is sent again (the
//!   server answers a resent move with the same ack); a request that is not safe to repeat
//!   (create, join, pause, resign…) fails with [`NetError::Interrupted`] and the resynced room
//!   state tells whether it happened.
//! - Version mismatch and a lost seat (room gone, token refused) end the connection for good.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use futures_util::stream::SplitSink;
use futures_util::{SinkExt, StreamExt};
use maharajah_protocol::{
    decode_server, encode, AccessCode, ClientMsg, Color, ErrorCode, GameResult, Phase, RoomEvent,
    RoomOptions, ServerMsg, Snapshot, PROTOCOL_VERSION,
};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// How a [`Connection`] behaves: names, timeouts, backoff.
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

/// The seat a connection acts for. Keep it (e.g. on disk) to come back after the app restarts
/// ([`Connection::resume`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatCredentials {
    /// The room.
    pub code: AccessCode,
    /// The seat.
    pub seat: Color,
    /// The seat's secret token.
    pub token: String,
}

/// What the client knows of its room, kept up to date from snapshots and events.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RoomState {
    /// The seat, once created or joined.
    pub seat: Option<SeatCredentials>,
    /// The last room event applied (0 for none).
    pub last_seq: u64,
    /// The room's phase, once known.
    pub phase: Option<Phase>,
    /// Moves played, UCI; the next move's ply is its length.
    pub moves: Vec<String>,
    /// The starting position, once the game has started.
    pub start_fen: Option<String>,
    /// The current position, once the game has started.
    pub fen: Option<String>,
    /// Both armies once both are revealed (hidden setup).
    pub armies: Option<maharajah_protocol::ByColor<String>>,
    /// The result, once finished.
    pub result: Option<GameResult>,
}

impl RoomState {
    fn apply_snapshot(&mut self, s: &Snapshot) {
        self.last_seq = s.seq;
        self.phase = Some(s.phase);
        self.moves = s.moves.clone();
        self.start_fen = s.start_fen.clone();
        self.fen = s.fen.clone();
        self.armies = s.armies.clone();
        self.result = s.result;
    }

    fn apply_event(&mut self, seq: u64, e: &RoomEvent) {
        self.last_seq = seq;
        match e {
            RoomEvent::SetupStarted | RoomEvent::SetupRejected { .. } => {
                self.phase = Some(Phase::Setup)
            }
            RoomEvent::SeatTaken { .. } if self.phase.is_none() => {
                self.phase = Some(Phase::WaitingForOpponent)
            }
            RoomEvent::GameStarted { start_fen, armies, .. } => {
                self.phase = Some(Phase::Playing);
                self.start_fen = Some(start_fen.clone());
                self.fen = Some(start_fen.clone());
                self.armies = armies.clone();
                self.moves.clear();
            }
            RoomEvent::Moved { ply, uci, fen, .. } => {
                if *ply as usize == self.moves.len() {
                    self.moves.push(uci.clone());
                }
                self.fen = Some(fen.clone());
            }
            RoomEvent::GameOver { result, .. } => {
                self.phase = Some(Phase::Finished);
                self.result = Some(*result);
            }
            _ => {}
        }
    }
}

/// A move accepted and stored by the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveAcked {
    /// The move's ply.
    pub ply: u32,
    /// Its event number.
    pub seq: u64,
}

/// Why a connection ended for good.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CloseReason {
    /// [`Connection::close`] was called, or every handle was dropped.
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

/// What a [`Connection`] reports, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetEvent {
    /// A (re)connection completed its `hello`.
    Connected {
        /// The server program's version.
        server_version: String,
        /// The rules engine's version on the server.
        engine_version: String,
    },
    /// The connection acts for this seat (after create or join).
    Seated(SeatCredentials),
    /// The whole room state (on join, or after a gap too old for the event ring).
    Snapshot(Box<Snapshot>),
    /// A room event, in `seq` order, never twice.
    Room {
        /// Event number.
        seq: u64,
        /// What happened.
        event: RoomEvent,
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
    /// A refusal that answered no request of ours.
    ServerError {
        /// For programs.
        code: ErrorCode,
        /// For people.
        message: String,
    },
    /// The server sent a frame that is not the protocol; it was ignored.
    ProtocolViolation(String),
    /// The connection ended for good.
    Closed(CloseReason),
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
    /// Create or join on a connection that already has a seat.
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

#[derive(Clone, Debug)]
enum Req {
    Create(RoomOptions),
    Join(AccessCode),
    Move(String),
    Commit(String),
    Reveal { army: String, nonce: String },
    Action(Action),
    Ping,
}

#[derive(Clone, Copy, Debug)]
enum Action {
    Pause,
    Resume,
    Resign,
    OfferDraw,
    DeclineDraw,
    ClaimDraw,
}

#[derive(Debug)]
enum Reply {
    Seated(SeatCredentials),
    Move(MoveAcked),
    Done,
    Rtt(Duration),
}

type Responder = oneshot::Sender<Result<Reply, NetError>>;

enum Command {
    Request(Req, Responder),
    Drop,
    Close(oneshot::Sender<()>),
}

/// A handle on a connection to a Maharajah server (online or a LAN host). Cheap to clone; the
/// connection ends when [`Connection::close`] is called or every handle is dropped.
#[derive(Clone, Debug)]
pub struct Connection {
    cmds: mpsc::UnboundedSender<Command>,
    state: Arc<Mutex<RoomState>>,
}

fn lock(state: &Mutex<RoomState>) -> MutexGuard<'_, RoomState> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

impl Connection {
    /// Connects to `url` (e.g. `ws://192.168.1.20:40123/`), sends `hello` and checks the
    /// protocol version. Create or join a room next.
    ///
    /// # Errors
    ///
    /// [`NetError::Connect`] if the server cannot be reached in time,
    /// [`NetError::VersionMismatch`] if it speaks another version, [`NetError::Protocol`] if it
    /// answers something else.
    pub async fn connect(
        url: &str,
        options: ConnectOptions,
    ) -> Result<(Connection, mpsc::UnboundedReceiver<NetEvent>), NetError> {
        Connection::start(url, options, RoomState::default()).await
    }

    /// Connects and takes back a seat held before (e.g. after the app was closed), asking for
    /// the events after `last_seq`. The room replays them while its event ring still holds
    /// them (so 0 replays a short game from its first event) and sends a snapshot otherwise;
    /// a `last_seq` beyond the room's newest event (e.g. `u64::MAX`) always gets a snapshot.
    ///
    /// # Errors
    ///
    /// As [`Connection::connect`]; a refused seat arrives as [`NetEvent::Closed`].
    pub async fn resume(
        url: &str,
        options: ConnectOptions,
        seat: SeatCredentials,
        last_seq: u64,
    ) -> Result<(Connection, mpsc::UnboundedReceiver<NetEvent>), NetError> {
        let state = RoomState { seat: Some(seat), last_seq, ..RoomState::default() };
        Connection::start(url, options, state).await
    }

    async fn start(
        url: &str,
        options: ConnectOptions,
        state: RoomState,
    ) -> Result<(Connection, mpsc::UnboundedReceiver<NetEvent>), NetError> {
        let (ws, welcome) = establish(url, &options).await?;
        let (events, events_rx) = mpsc::unbounded_channel();
        let _ = events.send(welcome);
        let (cmds, cmds_rx) = mpsc::unbounded_channel();
        let state = Arc::new(Mutex::new(state));
        let task = Task {
            url: url.to_owned(),
            options,
            state: state.clone(),
            events,
            cmds: cmds_rx,
            queue: VecDeque::new(),
            in_flight: None,
            nonce: 0,
            periodic: VecDeque::new(),
        };
        tokio::spawn(task.run(ws));
        Ok((Connection { cmds, state }, events_rx))
    }

    async fn request(&self, req: Req) -> Result<Reply, NetError> {
        let (tx, rx) = oneshot::channel();
        self.cmds.send(Command::Request(req, tx)).map_err(|_| NetError::Closed)?;
        rx.await.map_err(|_| NetError::Closed)?
    }

    /// Creates a room and takes a seat in it.
    ///
    /// # Errors
    ///
    /// [`NetError::Server`] (e.g. `invalid_options`), [`NetError::AlreadySeated`],
    /// [`NetError::Interrupted`], [`NetError::Closed`].
    pub async fn create_room(&self, options: RoomOptions) -> Result<SeatCredentials, NetError> {
        match self.request(Req::Create(options)).await? {
            Reply::Seated(s) => Ok(s),
            other => Err(NetError::Protocol(format!("unexpected answer {other:?}"))),
        }
    }

    /// Takes the free seat of the room `code`.
    ///
    /// # Errors
    ///
    /// As [`Connection::create_room`] (`room_not_found`, `room_full`…).
    pub async fn join_room(&self, code: AccessCode) -> Result<SeatCredentials, NetError> {
        match self.request(Req::Join(code)).await? {
            Reply::Seated(s) => Ok(s),
            other => Err(NetError::Protocol(format!("unexpected answer {other:?}"))),
        }
    }

    /// Plays a move (UCI) at the current ply and waits until the server has stored it. Survives
    /// a reconnection (the move is sent again; the server acknowledges it once).
    ///
    /// # Errors
    ///
    /// [`NetError::Server`] with `illegal_move`, `not_your_turn`, `stale_ply`, `game_paused`…;
    /// [`NetError::NotSeated`]; [`NetError::Closed`].
    pub async fn play(&self, uci: &str) -> Result<MoveAcked, NetError> {
        match self.request(Req::Move(uci.to_owned())).await? {
            Reply::Move(a) => Ok(a),
            other => Err(NetError::Protocol(format!("unexpected answer {other:?}"))),
        }
    }

    /// Hidden setup, step 1: sends the commitment (see [`crate::HiddenSetup::commitment`]).
    ///
    /// # Errors
    ///
    /// [`NetError::Server`] (`wrong_phase`, `already_committed`, `bad_commitment`…).
    pub async fn commit(&self, commitment: &str) -> Result<(), NetError> {
        self.request(Req::Commit(commitment.to_owned())).await.map(drop)
    }

    /// Hidden setup, step 2: sends the army and its nonce (hex). Use
    /// [`crate::HiddenSetup::reveal`], which refuses to open before both commitments are fixed.
    ///
    /// # Errors
    ///
    /// [`NetError::Server`] (`wrong_phase`, `commitment_mismatch`, `invalid_army`…).
    pub async fn reveal(&self, army: &str, nonce_hex: &str) -> Result<(), NetError> {
        let req = Req::Reveal { army: army.to_owned(), nonce: nonce_hex.to_owned() };
        self.request(req).await.map(drop)
    }

    async fn action(&self, a: Action) -> Result<(), NetError> {
        self.request(Req::Action(a)).await.map(drop)
    }

    /// Uses the seat's one pause.
    ///
    /// # Errors
    ///
    /// [`NetError::Server`] (`pause_used`, `no_clock`…), [`NetError::Interrupted`].
    pub async fn pause(&self) -> Result<(), NetError> {
        self.action(Action::Pause).await
    }

    /// Ends the seat's own pause early.
    ///
    /// # Errors
    ///
    /// As [`Connection::pause`].
    pub async fn resume_play(&self) -> Result<(), NetError> {
        self.action(Action::Resume).await
    }

    /// Resigns (before the game starts: leaves the room).
    ///
    /// # Errors
    ///
    /// As [`Connection::pause`].
    pub async fn resign(&self) -> Result<(), NetError> {
        self.action(Action::Resign).await
    }

    /// Offers a draw or accepts the opponent's offer.
    ///
    /// # Errors
    ///
    /// As [`Connection::pause`].
    pub async fn offer_draw(&self) -> Result<(), NetError> {
        self.action(Action::OfferDraw).await
    }

    /// Declines the opponent's draw offer.
    ///
    /// # Errors
    ///
    /// As [`Connection::pause`].
    pub async fn decline_draw(&self) -> Result<(), NetError> {
        self.action(Action::DeclineDraw).await
    }

    /// Claims a draw (threefold repetition, fifty moves).
    ///
    /// # Errors
    ///
    /// As [`Connection::pause`].
    pub async fn claim_draw(&self) -> Result<(), NetError> {
        self.action(Action::ClaimDraw).await
    }

    /// Measures one round trip to the server now.
    ///
    /// # Errors
    ///
    /// [`NetError::Closed`].
    pub async fn ping(&self) -> Result<Duration, NetError> {
        match self.request(Req::Ping).await? {
            Reply::Rtt(d) => Ok(d),
            other => Err(NetError::Protocol(format!("unexpected answer {other:?}"))),
        }
    }

    /// What the client knows of its room now.
    pub fn room(&self) -> RoomState {
        lock(&self.state).clone()
    }

    /// Drops the socket as a Wi-Fi loss would; the connection reconnects and resyncs by itself.
    pub fn drop_link(&self) {
        let _ = self.cmds.send(Command::Drop);
    }

    /// Closes the connection (the seat stays in the room; [`Connection::resume`] takes it back).
    pub async fn close(&self) {
        let (tx, rx) = oneshot::channel();
        if self.cmds.send(Command::Close(tx)).is_ok() {
            let _ = rx.await;
        }
    }
}

/// Opens the socket and exchanges `hello`/`welcome`.
pub(crate) async fn establish(
    url: &str,
    options: &ConnectOptions,
) -> Result<(Ws, NetEvent), NetError> {
    let connect_err = |reason: String| NetError::Connect { url: url.to_owned(), reason };
    let attempt = async {
        let (mut ws, _) =
            tokio_tungstenite::connect_async(url).await.map_err(|e| connect_err(e.to_string()))?;
        let hello =
            ClientMsg::Hello { version: PROTOCOL_VERSION, client: options.client_name.clone() };
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
                Ok(ServerMsg::Welcome { server_version, engine_version, .. }) => {
                    Ok((ws, NetEvent::Connected { server_version, engine_version }))
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

struct InFlight {
    req: Req,
    reply: Responder,
    /// The ply a move was sent at (kept for a resend).
    ply: Option<u32>,
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
    /// Stop for good.
    Closed(CloseReason),
}

struct Task {
    url: String,
    options: ConnectOptions,
    state: Arc<Mutex<RoomState>>,
    events: mpsc::UnboundedSender<NetEvent>,
    cmds: mpsc::UnboundedReceiver<Command>,
    queue: VecDeque<(Req, Responder)>,
    in_flight: Option<InFlight>,
    nonce: u64,
    /// Nonces and send times of periodic pings.
    periodic: VecDeque<(u64, Instant)>,
}

type Sink = SplitSink<Ws, Message>;

impl Task {
    fn emit(&self, e: NetEvent) {
        let _ = self.events.send(e);
    }

    async fn run(mut self, first: Ws) {
        let mut ws = Some(first);
        let mut attempt = 0u32;
        loop {
            let socket = match ws.take() {
                Some(s) => s,
                None => match establish(&self.url, &self.options).await {
                    Ok((s, welcome)) => {
                        attempt = 0;
                        self.emit(welcome);
                        s
                    }
                    Err(NetError::VersionMismatch(m)) => {
                        self.finish(CloseReason::VersionMismatch(m));
                        return;
                    }
                    Err(e) => {
                        attempt += 1;
                        let delay = self.options.backoff(attempt);
                        self.emit(NetEvent::Disconnected {
                            reason: e.to_string(),
                            retry_in: delay,
                        });
                        if !self.idle(delay).await {
                            self.finish(CloseReason::ByUser);
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
                End::Dropped(reason) => {
                    self.interrupt();
                    attempt += 1;
                    let delay = self.options.backoff(attempt);
                    self.emit(NetEvent::Disconnected { reason, retry_in: delay });
                    if !self.idle(delay).await {
                        self.finish(CloseReason::ByUser);
                        return;
                    }
                }
            }
        }
    }

    /// Waits `delay` while queueing requests. False if the connection is to close.
    async fn idle(&mut self, delay: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + delay;
        loop {
            tokio::select! {
                _ = tokio::time::sleep_until(deadline) => return true,
                cmd = self.cmds.recv() => match cmd {
                    None => return false,
                    Some(Command::Close(ack)) => { let _ = ack.send(()); return false; }
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
        self.emit(NetEvent::Closed(reason));
    }

    /// After a drop: requests that are safe to repeat stay in flight, others fail.
    fn interrupt(&mut self) {
        self.periodic.clear();
        if let Some(f) = self.in_flight.take() {
            match f.req {
                Req::Move(_) | Req::Commit(_) | Req::Reveal { .. } | Req::Ping => {
                    self.in_flight = Some(InFlight { resent: true, sent: false, ..f });
                }
                _ => {
                    let _ = f.reply.send(Err(NetError::Interrupted));
                }
            }
        }
    }

    fn enqueue(&mut self, req: Req, reply: Responder) {
        let st = lock(&self.state);
        let seated = st.seat.clone();
        drop(st);
        let needs_seat = !matches!(req, Req::Create(_) | Req::Join(_) | Req::Ping);
        match (&req, seated) {
            (Req::Create(_) | Req::Join(_), Some(s)) => {
                let _ = reply.send(Err(NetError::AlreadySeated(s.code)));
            }
            (_, None) if needs_seat => {
                let _ = reply.send(Err(NetError::NotSeated));
            }
            _ => self.queue.push_back((req, reply)),
        }
    }

    fn next_nonce(&mut self) -> u64 {
        self.nonce += 1;
        self.nonce
    }

    /// The wire messages of a request (the token and ply filled in now).
    fn wire(&mut self, f: &mut InFlight) -> Vec<ClientMsg> {
        let st = lock(&self.state);
        let token = st.seat.as_ref().map(|s| s.token.clone()).unwrap_or_default();
        let next_ply = st.moves.len() as u32;
        drop(st);
        let msg = match &f.req {
            Req::Create(options) => ClientMsg::CreateRoom { options: options.clone() },
            Req::Join(code) => ClientMsg::JoinRoom { code: code.clone() },
            Req::Move(uci) => {
                let ply = *f.ply.get_or_insert(next_ply);
                ClientMsg::Move { token, ply, uci: uci.clone() }
            }
            Req::Commit(c) => ClientMsg::Commit { token, commitment: c.clone() },
            Req::Reveal { army, nonce } => {
                ClientMsg::Reveal { token, army: army.clone(), nonce: nonce.clone() }
            }
            Req::Ping => {
                let nonce = self.next_nonce();
                f.barrier = Some(nonce);
                return vec![ClientMsg::Ping { nonce }];
            }
            Req::Action(a) => {
                let msg = match a {
                    Action::Pause => ClientMsg::Pause { token },
                    Action::Resume => ClientMsg::Resume { token },
                    Action::Resign => ClientMsg::Resign { token },
                    Action::OfferDraw => ClientMsg::OfferDraw { token },
                    Action::DeclineDraw => ClientMsg::DeclineDraw { token },
                    Action::ClaimDraw => ClientMsg::ClaimDraw { token },
                };
                let nonce = self.next_nonce();
                f.barrier = Some(nonce);
                return vec![msg, ClientMsg::Ping { nonce }];
            }
        };
        vec![msg]
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
                    ply: None,
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
        let msgs = self.wire(&mut f);
        self.in_flight = Some(f);
        for m in &msgs {
            Task::send(sink, m).await?;
        }
        Ok(())
    }

    fn complete(&mut self, r: Result<Reply, NetError>) {
        if let Some(f) = self.in_flight.take() {
            let _ = f.reply.send(r);
        }
    }

    async fn session(&mut self, ws: Ws) -> End {
        let (mut sink, mut stream) = ws.split();
        let (seat, last_seq) = {
            let st = lock(&self.state);
            (st.seat.clone(), st.last_seq)
        };
        let rejoin = seat.map(|s| ClientMsg::Rejoin { code: s.code, token: s.token, last_seq });
        let mut awaiting_rejoin = rejoin.is_some();
        if let Some(msg) = rejoin {
            if let Err(e) = Task::send(&mut sink, &msg).await {
                return e;
            }
        }
        let mut ticker = tokio::time::interval(self.options.ping_interval);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        ticker.tick().await;
        let mut last_heard = Instant::now();
        loop {
            if !awaiting_rejoin {
                if let Err(e) = self.pump(&mut sink).await {
                    return e;
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
                        return End::Dropped("the host went silent".into());
                    }
                    let nonce = self.next_nonce();
                    self.periodic.push_back((nonce, Instant::now()));
                    if self.periodic.len() > 8 { self.periodic.pop_front(); }
                    Task::send(&mut sink, &ClientMsg::Ping { nonce }).await
                }
                msg = stream.next() => {
                    last_heard = Instant::now();
                    match msg {
                        None => return End::Dropped("closed by the host".into()),
                        Some(Err(e)) => return End::Dropped(e.to_string()),
                        Some(Ok(Message::Close(_))) => return End::Dropped("closed by the host".into()),
                        Some(Ok(Message::Text(t))) => match decode_server(t.as_str()) {
                            Ok(m) => self.handle(m, &mut awaiting_rejoin),
                            Err(e) => { self.emit(NetEvent::ProtocolViolation(e.to_string())); Ok(()) }
                        },
                        Some(Ok(Message::Binary(_))) => {
                            self.emit(NetEvent::ProtocolViolation("binary frame".into()));
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

    fn handle(&mut self, msg: ServerMsg, awaiting_rejoin: &mut bool) -> Result<(), End> {
        match msg {
            ServerMsg::Pong { nonce, .. } => {
                if let Some(pos) = self.periodic.iter().position(|(n, _)| *n == nonce) {
                    let sent = self.periodic[pos].1;
                    self.periodic.drain(..=pos);
                    self.emit(NetEvent::Rtt(sent.elapsed()));
                } else if let Some(f) = &self.in_flight {
                    if f.barrier == Some(nonce) {
                        let rtt = f.sent_at.elapsed();
                        let reply =
                            if matches!(f.req, Req::Ping) { Reply::Rtt(rtt) } else { Reply::Done };
                        self.complete(Ok(reply));
                    }
                }
            }
            ServerMsg::Seated { code, seat, token } => {
                let creds = SeatCredentials { code, seat, token };
                if *awaiting_rejoin {
                    *awaiting_rejoin = false;
                    // The missed events (or a snapshot) follow this report.
                    let last_seq = lock(&self.state).last_seq;
                    self.emit(NetEvent::Rejoined { last_seq });
                } else if matches!(
                    self.in_flight.as_ref().map(|f| &f.req),
                    Some(Req::Create(_) | Req::Join(_))
                ) {
                    lock(&self.state).seat = Some(creds.clone());
                    self.emit(NetEvent::Seated(creds.clone()));
                    self.complete(Ok(Reply::Seated(creds)));
                }
            }
            ServerMsg::Snapshot { snapshot } => {
                lock(&self.state).apply_snapshot(&snapshot);
                self.emit(NetEvent::Snapshot(snapshot));
            }
            ServerMsg::Event { seq, event, .. } => {
                let last = lock(&self.state).last_seq;
                if seq <= last {
                    return Ok(());
                }
                if seq > last + 1 {
                    // A gap can only come from a server bug or a lost frame: resync.
                    return Err(End::Dropped(format!("missed events {}..{}", last + 1, seq)));
                }
                lock(&self.state).apply_event(seq, &event);
                self.emit(NetEvent::Room { seq, event });
            }
            ServerMsg::MoveAck { ply, seq } => {
                if let Some(f) = &self.in_flight {
                    if matches!(f.req, Req::Move(_)) && f.ply == Some(ply) {
                        self.complete(Ok(Reply::Move(MoveAcked { ply, seq })));
                    }
                }
            }
            ServerMsg::SetupAck { .. } => {
                if matches!(
                    self.in_flight.as_ref().map(|f| &f.req),
                    Some(Req::Commit(_) | Req::Reveal { .. })
                ) {
                    self.complete(Ok(Reply::Done));
                }
            }
            ServerMsg::Error { code, message } => {
                if code == ErrorCode::VersionMismatch {
                    return Err(End::Closed(CloseReason::VersionMismatch(message)));
                }
                if *awaiting_rejoin {
                    if matches!(code, ErrorCode::RateLimited | ErrorCode::ShuttingDown) {
                        return Err(End::Dropped(message));
                    }
                    return Err(End::Closed(CloseReason::SeatLost { code, message }));
                }
                match self.in_flight.as_ref() {
                    Some(f) if !matches!(f.req, Req::Ping) => {
                        // A setup step resent after a drop that the server had already stored.
                        let already = f.resent
                            && code == ErrorCode::AlreadyCommitted
                            && matches!(f.req, Req::Commit(_) | Req::Reveal { .. });
                        if already {
                            self.complete(Ok(Reply::Done));
                        } else {
                            self.complete(Err(NetError::Server { code, message }));
                        }
                    }
                    _ => self.emit(NetEvent::ServerError { code, message }),
                }
            }
            // A second `welcome`, or messages of other room kinds: nothing to do here.
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        let o = ConnectOptions {
            backoff_initial: Duration::from_millis(100),
            backoff_max: Duration::from_secs(1),
            ..ConnectOptions::default()
        };
        assert_eq!(o.backoff(1), Duration::from_millis(100));
        assert_eq!(o.backoff(2), Duration::from_millis(200));
        assert_eq!(o.backoff(4), Duration::from_millis(800));
        assert_eq!(o.backoff(5), Duration::from_secs(1));
        assert_eq!(o.backoff(500), Duration::from_secs(1));
    }
}
