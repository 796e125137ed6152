//! The connection driver shared by [`crate::Connection`] and [`crate::ChaturajiClient`]: it
//! opens the socket (`hello`/`welcome`), sends requests one at a time, reconnects with backoff,
//! rejoins the seat, pings, and decodes frames. What differs between the two clients (their
//! requests, wire messages, state and events) comes from a [`Flavour`].

use std::collections::VecDeque;
use std::fmt;
use std::time::{Duration, Instant};

use futures_util::stream::SplitSink;
use futures_util::{SinkExt, StreamExt};
use maharajah_protocol::{
    decode_server, encode, AccessCode, ClientMsg, ErrorCode, ServerMsg, PROTOCOL_VERSION,
};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::client::{CloseReason, ConnectOptions, NetError, NetEvent};

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
    /// Anything else (a second `welcome`, other room kinds).
    Ignored,
}

/// The wire messages of a request; `barrier` asks for a `ping` after them whose `pong` answers it.
pub(crate) struct Wire {
    pub(crate) msgs: Vec<ClientMsg>,
    pub(crate) barrier: bool,
}

/// The parts of a [`Flavour`] both clients spell the same way: the reports their event enums
/// (`$event`) share, and the seat and event number kept in `self.state` (read through the
/// module's `lock`).
macro_rules! shared_flavour {
    ($event:ident) => {
        fn disconnected(reason: String, retry_in: Duration) -> $event {
            $event::Disconnected { reason, retry_in }
        }
        fn rejoined(last_seq: u64) -> $event {
            $event::Rejoined { last_seq }
        }
        fn seated(seat: Self::Seat) -> $event {
            $event::Seated(seat)
        }
        fn snapshot(snapshot: Self::Snapshot) -> $event {
            $event::Snapshot(snapshot)
        }
        fn server_error(code: ErrorCode, message: String) -> $event {
            $event::ServerError { code, message }
        }
        fn violation(problem: String) -> $event {
            $event::ProtocolViolation(problem)
        }
        fn closed(reason: CloseReason) -> $event {
            $event::Closed(reason)
        }

        fn seat_code(&self) -> Option<AccessCode> {
            lock(&self.state).seat.as_ref().map(|s| s.code.clone())
        }
        fn set_seat(&self, seat: Self::Seat) {
            lock(&self.state).seat = Some(seat);
        }
        fn last_seq(&self) -> u64 {
            lock(&self.state).last_seq
        }
        fn apply_snapshot(&self, snapshot: &Self::Snapshot) {
            lock(&self.state).apply_snapshot(snapshot);
        }
    };
}
pub(crate) use shared_flavour;

/// What differs between the clients.
pub(crate) trait Flavour: Sized + Send + 'static {
    /// A request.
    type Req: Send + 'static;
    /// A request's answer.
    type Reply: Send + 'static;
    /// What the client reports.
    type Event: Send + 'static;
    /// The seat's credentials.
    type Seat: Clone + Send;
    /// A room snapshot.
    type Snapshot: Send;
    /// A room event.
    type RoomEvent: Send;

    /// Who is at the other end, in drop reasons ("host", "server").
    const PEER: &'static str;

    /// Decodes a text frame.
    fn decode(text: &str) -> Result<Incoming<Self>, String>;

    /// The report of a (re)connection, if the client makes one.
    fn connected(welcome: NetEvent) -> Option<Self::Event>;
    /// The report of a drop.
    fn disconnected(reason: String, retry_in: Duration) -> Self::Event;
    /// The report of a seat taken back.
    fn rejoined(last_seq: u64) -> Self::Event;
    /// The report of a seat taken.
    fn seated(seat: Self::Seat) -> Self::Event;
    /// The report of a snapshot.
    fn snapshot(snapshot: Self::Snapshot) -> Self::Event;
    /// The report of a room event.
    fn room(seq: u64, event: Self::RoomEvent) -> Self::Event;
    /// The report of a periodic round trip, if the client makes one.
    fn rtt(rtt: Duration) -> Option<Self::Event>;
    /// The report of a refusal that answered no request.
    fn server_error(code: ErrorCode, message: String) -> Self::Event;
    /// The report of a frame that is not the protocol.
    fn violation(problem: String) -> Self::Event;
    /// The report of the end.
    fn closed(reason: CloseReason) -> Self::Event;

    /// The room of the seat held, if any.
    fn seat_code(&self) -> Option<AccessCode>;
    /// Records the seat taken.
    fn set_seat(&self, seat: Self::Seat);
    /// The last room event applied.
    fn last_seq(&self) -> u64;
    /// The `rejoin` message for the seat held, if any.
    fn rejoin(&self) -> Option<ClientMsg>;
    /// Applies a snapshot to the state.
    fn apply_snapshot(&self, snapshot: &Self::Snapshot);
    /// Applies the next event to the state; `Err` names why it cannot (the client resyncs).
    fn apply_event(&self, seq: u64, event: &Self::RoomEvent) -> Result<(), String>;

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

/// Connects to `url` and spawns the task that owns the socket from then on.
pub(crate) async fn start<F: Flavour>(
    url: &str,
    options: ConnectOptions,
    flavour: F,
) -> Result<(Handle<F::Req, F::Reply>, mpsc::UnboundedReceiver<F::Event>), NetError> {
    let (ws, welcome) = establish(url, &options).await?;
    let (events, events_rx) = mpsc::unbounded_channel();
    if let Some(e) = F::connected(welcome) {
        let _ = events.send(e);
    }
    let (cmds, cmds_rx) = mpsc::unbounded_channel();
    let task = Task {
        url: url.to_owned(),
        options,
        flavour,
        events,
        cmds: cmds_rx,
        queue: VecDeque::new(),
        in_flight: None,
        nonce: 0,
        periodic: VecDeque::new(),
    };
    tokio::spawn(task.run(ws));
    Ok((Handle { cmds }, events_rx))
}

/// Opens the socket and exchanges `hello`/`welcome`.
pub(crate) async fn establish(
    url: &str,
    options: &ConnectOptions,
) -> Result<(Ws, NetEvent), NetError> {
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
    /// Stop for good.
    Closed(CloseReason),
}

struct Task<F: Flavour> {
    url: String,
    options: ConnectOptions,
    flavour: F,
    events: mpsc::UnboundedSender<F::Event>,
    cmds: mpsc::UnboundedReceiver<Command<F::Req, F::Reply>>,
    queue: VecDeque<(F::Req, Responder<F::Reply>)>,
    in_flight: Option<InFlight<F::Req, F::Reply>>,
    nonce: u64,
    /// Nonces and send times of periodic pings.
    periodic: VecDeque<(u64, Instant)>,
}

impl<F: Flavour> Task<F> {
    fn emit(&self, e: F::Event) {
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
                        if let Some(e) = F::connected(welcome) {
                            self.emit(e);
                        }
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
                End::Dropped(reason) => {
                    self.interrupt();
                    attempt += 1;
                    if !self.backoff(attempt, reason).await {
                        return;
                    }
                }
            }
        }
    }

    /// Reports the drop and waits before the next attempt, queueing requests. False (and
    /// finished) if the connection is to close.
    async fn backoff(&mut self, attempt: u32, reason: String) -> bool {
        let delay = self.options.backoff(attempt);
        self.emit(F::disconnected(reason, delay));
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
        self.emit(F::closed(reason));
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
                            Err(e) => { self.emit(F::violation(e)); Ok(()) }
                        },
                        Some(Ok(Message::Binary(_))) => {
                            self.emit(F::violation("binary frame".into()));
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
                    if let Some(e) = F::rtt(sent.elapsed()) {
                        self.emit(e);
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
                    // The missed events (or a snapshot) follow this report.
                    let last_seq = self.flavour.last_seq();
                    self.emit(F::rejoined(last_seq));
                } else if self.in_flight.as_ref().is_some_and(|f| F::takes_seat(&f.req)) {
                    self.flavour.set_seat(seat.clone());
                    self.emit(F::seated(seat.clone()));
                    self.complete(Ok(F::seated_reply(seat)));
                }
            }
            Incoming::Snapshot(snapshot) => {
                self.flavour.apply_snapshot(&snapshot);
                self.emit(F::snapshot(snapshot));
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
                    self.emit(F::violation(problem.clone()));
                    return Err(End::Dropped(problem));
                }
                self.emit(F::room(seq, event));
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
                    if matches!(code, ErrorCode::RateLimited | ErrorCode::ShuttingDown) {
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
                    _ => self.emit(F::server_error(code, message)),
                }
            }
            Incoming::Ignored => {}
        }
        Ok(())
    }
}
