//! A client for Chaturaji seats: create a table (with CPU seats), join it by code, act, and keep
//! the seat across dropped links and app restarts.
//!
//! [`ChaturajiClient::connect`] opens the socket, sends `hello` and checks the version, then hands
//! back a cheap clonable handle and a channel of [`ChaturajiNetEvent`]s. Like [`crate::Connection`],
//! a background task owns the socket:
//!
//! - Requests go one at a time, in order, each waiting for its own answer: `chaturaji_seated`
//!   (create, join), `chaturaji_ack` (an action, by its game step), `pong` (a rematch is followed
//!   by a `ping` barrier: an `error` before the `pong` is the rematch's) or `error`.
//! - An action carries the game step it was made at (the number of steps already played, from the
//!   client's replica of the game); the server stores it once and answers a resend with the same
//!   ack.
//! - Every client keeps a replica of the game ([`TableState::game`]) from the `played` events and
//!   snapshots, and checks each step against its own rules; a step its replica refuses makes it
//!   resynchronise from a snapshot.
//! - When the link drops the task reconnects with backoff and sends `rejoin_chaturaji` with the
//!   seat's token, the **device id** and the last event number; the missed events or a snapshot
//!   follow. Meanwhile the room's CPU plays the seat, and hands it back on return. An action in
//!   flight is sent again; a create, join or rematch in flight fails with
//!   [`NetError::Interrupted`].
//! - The device id (16–128 characters, stable per device: keep it with the seat) is what lets a
//!   dropped person get the seat back — also through [`ChaturajiClient::join_table`] from the
//!   same device, or [`ChaturajiClient::resume`] after an app restart.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use maharajah_chaturaji::cpu::Level;
use maharajah_chaturaji::{BySeat, Game, Move, Outcome, Seat, Settings};
use maharajah_protocol::chaturaji::{
    ChaturajiAction, ChaturajiEvent, ChaturajiMsg, ChaturajiSeatView, ChaturajiSnapshot, DieView,
};
use maharajah_protocol::{decode_server, AccessCode, ClientMsg, ErrorCode, ServerMsg};
use tokio::sync::mpsc;

use crate::link::{self, ConnectOptions, Flavour, Handle, Incoming, LinkEvent, NetError, Wire};

/// The seat a client acts for. Keep it with the device id to come back after a restart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChaturajiSeat {
    /// The room.
    pub code: AccessCode,
    /// The seat.
    pub seat: Seat,
    /// The seat's secret token.
    pub token: String,
}

/// An action the server stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ActAck {
    /// Its game step.
    pub step: u32,
    /// The event number of its `played` event.
    pub seq: u64,
}

/// What the client knows of its table: the seat, and a view of the replica (the protocol's
/// [`ChaturajiSnapshot::apply`], which checks every step against its own copy of the rules),
/// kept up to date from snapshots and events.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableState {
    /// The seat, once created or joined.
    pub seat: Option<ChaturajiSeat>,
    /// The last room event applied (0 for none).
    pub last_seq: u64,
    /// The game number (0 before the first game).
    pub game_number: u32,
    /// The table settings, once known.
    pub settings: Option<Settings>,
    /// The four seats, once known.
    pub seats: Option<BySeat<ChaturajiSeatView>>,
    /// The replica of the game, once started.
    pub game: Option<Game>,
    /// Steps played in the current game (the next action's step).
    pub steps: u32,
    /// The dice of the turn in progress, with usability.
    pub dice: Option<[DieView; 2]>,
    /// Milliseconds left for the seat to move, when turns are timed.
    pub turn_remaining_ms: Option<u64>,
    /// How the game ended, once over.
    pub outcome: Option<Outcome>,
    /// The replica itself, once a snapshot has come (a client resumed without one asks the
    /// room for a snapshot; events before it only advance `last_seq`).
    replica: Option<ChaturajiSnapshot>,
}

impl TableState {
    fn apply_snapshot(&mut self, s: &ChaturajiSnapshot) {
        self.replica = Some(s.clone());
        self.show(s);
    }

    /// The public view of the replica `s`.
    fn show(&mut self, s: &ChaturajiSnapshot) {
        self.last_seq = s.seq;
        self.game_number = s.game_number;
        self.settings = Some(s.settings.clone());
        self.seats = Some(s.seats);
        self.game.clone_from(&s.game);
        self.steps = s.steps;
        self.dice = s.dice;
        self.turn_remaining_ms = s.turn_remaining_ms;
        self.outcome = s.game.as_ref().and_then(|g| g.outcome().cloned());
    }

    /// Applies an event to the replica; `Err` names a step the replica refuses (the replica is
    /// then dropped: the next rejoin asks for a snapshot).
    fn apply_event(&mut self, seq: u64, e: &ChaturajiEvent) -> Result<(), String> {
        self.last_seq = seq;
        let Some(mut replica) = self.replica.take() else { return Ok(()) };
        replica.apply(seq, e).map_err(|e| e.to_string())?;
        self.show(&replica);
        self.replica = Some(replica);
        Ok(())
    }
}

/// What a [`ChaturajiClient`] reports, in order (room events are already applied to
/// [`TableState`]).
pub type ChaturajiNetEvent = LinkEvent<ChaturajiSeat, Box<ChaturajiSnapshot>, ChaturajiEvent>;

#[derive(Clone, Debug)]
enum Req {
    Create { settings: Settings, stand_in: Option<Level> },
    Join(AccessCode),
    Act(ChaturajiAction),
    Rematch,
}

#[derive(Debug)]
enum Reply {
    Seated(ChaturajiSeat),
    Acked(ActAck),
    Done,
}

/// A handle on a Chaturaji seat's connection. Cheap to clone; it ends when
/// [`ChaturajiClient::close`] is called or every handle is dropped (the seat stays in the room:
/// the CPU plays it until the person comes back from the same device).
#[derive(Clone, Debug)]
pub struct ChaturajiClient {
    link: Handle<Req, Reply>,
    state: Arc<Mutex<TableState>>,
    device: String,
}

fn lock(state: &Mutex<TableState>) -> MutexGuard<'_, TableState> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

fn unexpected(reply: Reply) -> NetError {
    NetError::Protocol(format!("unexpected answer {reply:?}"))
}

impl ChaturajiClient {
    /// Connects to `url` for the device `device` (a stable random id, 16–128 characters).
    /// Create or join a table next.
    ///
    /// # Errors
    ///
    /// [`NetError::Connect`], [`NetError::VersionMismatch`], [`NetError::Protocol`].
    pub async fn connect(
        url: &str,
        options: ConnectOptions,
        device: &str,
    ) -> Result<(ChaturajiClient, mpsc::UnboundedReceiver<ChaturajiNetEvent>), NetError> {
        ChaturajiClient::start(url, options, device, TableState::default()).await
    }

    /// Connects and takes back a seat held before from this device (e.g. after the app was
    /// closed), asking for the events after `last_seq` (0: a snapshot or every event).
    ///
    /// # Errors
    ///
    /// As [`ChaturajiClient::connect`]; a refused seat arrives as
    /// [`ChaturajiNetEvent::Closed`].
    pub async fn resume(
        url: &str,
        options: ConnectOptions,
        device: &str,
        seat: ChaturajiSeat,
        last_seq: u64,
    ) -> Result<(ChaturajiClient, mpsc::UnboundedReceiver<ChaturajiNetEvent>), NetError> {
        let state = TableState { seat: Some(seat), last_seq, ..TableState::default() };
        ChaturajiClient::start(url, options, device, state).await
    }

    async fn start(
        url: &str,
        options: ConnectOptions,
        device: &str,
        state: TableState,
    ) -> Result<(ChaturajiClient, mpsc::UnboundedReceiver<ChaturajiNetEvent>), NetError> {
        let state = Arc::new(Mutex::new(state));
        let flavour = Chaturaji { state: state.clone(), device: device.to_owned() };
        let (link, events) = link::start(url, options, flavour).await?;
        Ok((ChaturajiClient { link, state, device: device.to_owned() }, events))
    }

    async fn request(&self, req: Req) -> Result<Reply, NetError> {
        self.link.request(req).await
    }

    /// Creates a table and takes its first person seat. `settings.players` says which seats are
    /// people (2–4) and which are CPU players (with their level); `stand_in` is the level of the
    /// CPU that plays for a person who dropped.
    ///
    /// # Errors
    ///
    /// [`NetError::Server`] (`invalid_options`…), [`NetError::AlreadySeated`],
    /// [`NetError::Interrupted`], [`NetError::Closed`].
    pub async fn create_table(
        &self,
        settings: Settings,
        stand_in: Option<Level>,
    ) -> Result<ChaturajiSeat, NetError> {
        match self.request(Req::Create { settings, stand_in }).await? {
            Reply::Seated(s) => Ok(s),
            other => Err(unexpected(other)),
        }
    }

    /// Takes a free person seat of the table `code` — or, from a device that already holds a
    /// seat there, that same seat back.
    ///
    /// # Errors
    ///
    /// As [`ChaturajiClient::create_table`] (`room_not_found`, `room_full`…).
    pub async fn join_table(&self, code: AccessCode) -> Result<ChaturajiSeat, NetError> {
        match self.request(Req::Join(code)).await? {
            Reply::Seated(s) => Ok(s),
            other => Err(unexpected(other)),
        }
    }

    /// Plays `action` at the current game step and waits until the server stored it. Survives a
    /// reconnection (sent again; the server acknowledges it once).
    ///
    /// # Errors
    ///
    /// [`NetError::Server`] with `not_your_turn`, `stale_ply` (the step was played meanwhile,
    /// e.g. by the stand-in), `wrong_phase`, `illegal_move`…; [`NetError::NotSeated`];
    /// [`NetError::Closed`].
    pub async fn act(&self, action: ChaturajiAction) -> Result<ActAck, NetError> {
        match self.request(Req::Act(action)).await? {
            Reply::Acked(a) => Ok(a),
            other => Err(unexpected(other)),
        }
    }

    /// Rolls the dice (the server rolls them).
    ///
    /// # Errors
    ///
    /// As [`ChaturajiClient::act`].
    pub async fn roll(&self) -> Result<ActAck, NetError> {
        self.act(ChaturajiAction::Roll).await
    }

    /// Moves a piece with one die.
    ///
    /// # Errors
    ///
    /// As [`ChaturajiClient::act`].
    pub async fn play(&self, mv: Move) -> Result<ActAck, NetError> {
        self.act(ChaturajiAction::Move(mv)).await
    }

    /// Ends the turn, leaving the unused dice.
    ///
    /// # Errors
    ///
    /// As [`ChaturajiClient::act`].
    pub async fn end_turn(&self) -> Result<ActAck, NetError> {
        self.act(ChaturajiAction::EndTurn).await
    }

    /// Resigns the seat (its army stays on the board).
    ///
    /// # Errors
    ///
    /// As [`ChaturajiClient::act`].
    pub async fn resign(&self) -> Result<ActAck, NetError> {
        self.act(ChaturajiAction::Resign).await
    }

    /// After the game is over: starts the next game at the table.
    ///
    /// # Errors
    ///
    /// [`NetError::Server`] (`wrong_phase` while a game is on), [`NetError::Interrupted`].
    pub async fn rematch(&self) -> Result<(), NetError> {
        self.request(Req::Rematch).await.map(drop)
    }

    /// What the client knows of its table now (the seat, the game replica…).
    pub fn table(&self) -> TableState {
        lock(&self.state).clone()
    }

    /// This client's device id.
    pub fn device(&self) -> &str {
        &self.device
    }

    /// Drops the socket as a Wi-Fi loss would; the client reconnects and resyncs by itself.
    pub fn drop_link(&self) {
        self.link.drop_link();
    }

    /// Closes the connection (the seat stays; [`ChaturajiClient::resume`] or a join from the
    /// same device takes it back).
    pub async fn close(&self) {
        self.link.close().await;
    }
}

/// The Chaturaji client's side of the shared driver.
struct Chaturaji {
    state: Arc<Mutex<TableState>>,
    device: String,
}

impl Flavour for Chaturaji {
    type Req = Req;
    type Reply = Reply;
    type Seat = ChaturajiSeat;
    type Snapshot = Box<ChaturajiSnapshot>;
    type RoomEvent = ChaturajiEvent;

    const PEER: &'static str = "server";
    // The table's view does not show the round trip: no periodic `rtt` reports.
    const REPORTS_RTT: bool = false;

    fn decode(text: &str) -> Result<Incoming<Self>, String> {
        Ok(match decode_server(text).map_err(|e| e.to_string())? {
            ServerMsg::Chaturaji(ChaturajiMsg::ChaturajiSeated { code, seat, token }) => {
                Incoming::Seated(ChaturajiSeat { code, seat, token })
            }
            ServerMsg::Chaturaji(ChaturajiMsg::ChaturajiSnapshot { snapshot }) => {
                Incoming::Snapshot(snapshot)
            }
            ServerMsg::Chaturaji(ChaturajiMsg::ChaturajiEvent { seq, event, .. }) => {
                Incoming::Event { seq, event }
            }
            ServerMsg::Chaturaji(ChaturajiMsg::ChaturajiAck { step, seq }) => {
                Incoming::Ack { at: step, seq }
            }
            ServerMsg::Pong { nonce, .. } => Incoming::Pong(nonce),
            ServerMsg::Error { code, message } => Incoming::Error { code, message },
            _ => Incoming::Ignored,
        })
    }

    fn seat_code(&self) -> Option<AccessCode> {
        lock(&self.state).seat.as_ref().map(|s| s.code.clone())
    }
    fn set_seat(&self, seat: ChaturajiSeat) {
        lock(&self.state).seat = Some(seat);
    }
    fn last_seq(&self) -> u64 {
        lock(&self.state).last_seq
    }
    fn apply_snapshot(&self, snapshot: &Box<ChaturajiSnapshot>) -> Result<(), String> {
        lock(&self.state).apply_snapshot(snapshot);
        Ok(())
    }
    fn rejoin(&self) -> Option<ClientMsg> {
        let st = lock(&self.state);
        // Without a replica the missed events cannot be folded: ask for a snapshot.
        let last_seq = if st.replica.is_some() { st.last_seq } else { u64::MAX };
        st.seat.clone().map(|s| ClientMsg::RejoinChaturaji {
            code: s.code,
            token: s.token,
            device: self.device.clone(),
            last_seq,
        })
    }
    fn apply_event(&self, seq: u64, event: &ChaturajiEvent) -> Result<(), String> {
        lock(&self.state).apply_event(seq, event)
    }

    fn wire(&self, req: &Req, at: &mut Option<u32>) -> Wire {
        let st = lock(&self.state);
        let token = st.seat.as_ref().map(|s| s.token.clone()).unwrap_or_default();
        let next_step = st.steps;
        drop(st);
        let device = self.device.clone();
        let (msg, barrier) = match req {
            Req::Create { settings, stand_in } => (
                ClientMsg::CreateChaturaji {
                    settings: settings.clone(),
                    device,
                    stand_in: *stand_in,
                },
                false,
            ),
            Req::Join(code) => (ClientMsg::JoinChaturaji { code: code.clone(), device }, false),
            Req::Act(action) => {
                let step = *at.get_or_insert(next_step);
                (ClientMsg::ChaturajiAct { token, step, action: *action }, false)
            }
            Req::Rematch => (ClientMsg::ChaturajiRematch { token }, true),
        };
        Wire { msgs: vec![msg], barrier }
    }
    fn takes_seat(req: &Req) -> bool {
        matches!(req, Req::Create { .. } | Req::Join(_))
    }
    fn needs_seat(req: &Req) -> bool {
        matches!(req, Req::Act(_) | Req::Rematch)
    }
    /// An action stays in flight (resent at the same step), others fail.
    fn resendable(req: &Req) -> bool {
        matches!(req, Req::Act(_))
    }
    fn acked(req: &Req) -> bool {
        matches!(req, Req::Act(_))
    }
    fn setup(_: &Req) -> bool {
        false
    }
    fn ignores_errors(_: &Req) -> bool {
        false
    }
    fn already_done(_: &Req, _: ErrorCode) -> bool {
        false
    }
    fn seated_reply(seat: ChaturajiSeat) -> Reply {
        Reply::Seated(seat)
    }
    fn ack_reply(step: u32, seq: u64) -> Reply {
        Reply::Acked(ActAck { step, seq })
    }
    fn barrier_reply(_: &Req, _: Duration) -> Reply {
        Reply::Done
    }
    fn done() -> Reply {
        Reply::Done
    }
}
