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
use maharajah_chaturaji::game::Action as GameAction;
use maharajah_chaturaji::{BySeat, Game, Move, Outcome, Seat, Settings, Step};
use maharajah_protocol::chaturaji::{
    ChaturajiAction, ChaturajiEvent, ChaturajiMsg, ChaturajiSeatView, ChaturajiSnapshot, DieView,
};
use maharajah_protocol::{decode_server, AccessCode, ClientMsg, ErrorCode, ServerMsg};
use tokio::sync::mpsc;

use crate::client::{CloseReason, ConnectOptions, NetError, NetEvent};
use crate::link::{self, Flavour, Handle, Incoming, Wire};

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

/// What the client knows of its table, kept up to date from snapshots and events.
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
}

fn to_game_action(step: Step) -> Option<GameAction> {
    Some(match step {
        Step::Roll { dice } => GameAction::Roll { dice: dice? },
        Step::Move(mv) => GameAction::Move(mv),
        Step::EndTurn => GameAction::EndTurn,
        Step::TimeOut => GameAction::TimeOut,
        Step::Resign { seat } => GameAction::Resign { seat },
    })
}

impl TableState {
    fn apply_snapshot(&mut self, s: &ChaturajiSnapshot) {
        self.last_seq = s.seq;
        self.game_number = s.game_number;
        self.settings = Some(s.settings.clone());
        self.seats = Some(s.seats);
        self.game = s.game.clone();
        self.steps = s.steps;
        self.dice = s.dice;
        self.turn_remaining_ms = s.turn_remaining_ms;
        self.outcome = s.game.as_ref().and_then(|g| g.outcome().cloned());
    }

    /// Applies an event to the replica; `Err` names a step the replica refuses.
    fn apply_event(&mut self, seq: u64, e: &ChaturajiEvent) -> Result<(), String> {
        self.last_seq = seq;
        let seats = self.seats.get_or_insert_with(|| {
            BySeat::splat(ChaturajiSeatView {
                person: false,
                taken: false,
                connected: false,
                cpu_playing: false,
            })
        });
        match e {
            ChaturajiEvent::SeatTaken { seat } => {
                seats[*seat].person = true;
                seats[*seat].taken = true;
            }
            ChaturajiEvent::Presence { seat, connected } => seats[*seat].connected = *connected,
            ChaturajiEvent::CpuTookOver { seat } => seats[*seat].cpu_playing = true,
            ChaturajiEvent::HandedBack { seat } => seats[*seat].cpu_playing = false,
            ChaturajiEvent::GameStarted { game, settings, turn_ms } => {
                self.game_number = *game;
                self.settings = Some(settings.clone());
                self.game = Some(Game::new(settings.clone()).map_err(|e| e.to_string())?);
                self.steps = 0;
                self.dice = None;
                self.outcome = None;
                self.turn_remaining_ms = *turn_ms;
            }
            ChaturajiEvent::Played {
                step,
                action,
                dice,
                scores,
                to_move,
                turn_remaining_ms,
                ..
            } => {
                if *step < self.steps {
                    return Ok(());
                }
                if *step > self.steps {
                    return Err(format!("step {step} arrived after step {}", self.steps));
                }
                let game = self.game.as_mut().ok_or("a step before the game started")?;
                let action =
                    to_game_action(*action).ok_or("a roll without its faces".to_owned())?;
                game.apply(action).map_err(|e| format!("step {step} breaks the rules: {e}"))?;
                if game.scores() != *scores || game.to_move() != *to_move {
                    return Err(format!("after step {step} the replica disagrees with the room"));
                }
                self.steps += 1;
                self.dice = *dice;
                self.turn_remaining_ms = *turn_remaining_ms;
                self.outcome = game.outcome().cloned();
            }
            ChaturajiEvent::GameOver { outcome } => self.outcome = Some(outcome.clone()),
        }
        Ok(())
    }
}

/// What a [`ChaturajiClient`] reports, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChaturajiNetEvent {
    /// A (re)connection completed its `hello`.
    Connected {
        /// The server program's version.
        server_version: String,
    },
    /// The client acts for this seat (after create or join).
    Seated(ChaturajiSeat),
    /// The whole table (on join, or after a gap too old for the event ring).
    Snapshot(Box<ChaturajiSnapshot>),
    /// A room event, in `seq` order, never twice; already applied to [`TableState`].
    Table {
        /// Event number.
        seq: u64,
        /// What happened.
        event: ChaturajiEvent,
    },
    /// The link dropped; the next attempt is in `retry_in`.
    Disconnected {
        /// Why.
        reason: String,
        /// Delay before the next attempt.
        retry_in: Duration,
    },
    /// After a reconnection the seat is back; missed events or a snapshot follow.
    Rejoined {
        /// The last event applied before the drop.
        last_seq: u64,
    },
    /// A refusal that answered no request of ours.
    ServerError {
        /// For programs.
        code: ErrorCode,
        /// For people.
        message: String,
    },
    /// The server sent something that is not the protocol (or a step the replica refuses).
    ProtocolViolation(String),
    /// The connection ended for good.
    Closed(CloseReason),
}

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
    type Event = ChaturajiNetEvent;
    type Seat = ChaturajiSeat;
    type Snapshot = Box<ChaturajiSnapshot>;
    type RoomEvent = ChaturajiEvent;

    const PEER: &'static str = "server";

    link::shared_flavour!(ChaturajiNetEvent);

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

    fn connected(welcome: NetEvent) -> Option<ChaturajiNetEvent> {
        match welcome {
            NetEvent::Connected { server_version, .. } => {
                Some(ChaturajiNetEvent::Connected { server_version })
            }
            _ => None,
        }
    }
    fn room(seq: u64, event: ChaturajiEvent) -> ChaturajiNetEvent {
        ChaturajiNetEvent::Table { seq, event }
    }
    fn rtt(_: Duration) -> Option<ChaturajiNetEvent> {
        None
    }

    fn rejoin(&self) -> Option<ClientMsg> {
        let st = lock(&self.state);
        let last_seq = st.last_seq;
        st.seat.clone().map(|s| ClientMsg::RejoinChaturaji {
            code: s.code,
            token: s.token,
            device: self.device.clone(),
            last_seq,
        })
    }
    fn apply_event(&self, seq: u64, event: &ChaturajiEvent) -> Result<(), String> {
        let mut st = lock(&self.state);
        let applied = st.apply_event(seq, event);
        if applied.is_err() {
            // The replica cannot follow: start again from a snapshot.
            st.last_seq = 0;
        }
        applied
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_replica_follows_played_steps_and_refuses_a_gap() {
        let mut state = TableState::default();
        let settings = Settings::default();
        state
            .apply_event(
                1,
                &ChaturajiEvent::GameStarted { game: 1, settings: settings.clone(), turn_ms: None },
            )
            .expect("a game starts");
        let mut game = Game::new(settings).expect("default settings are valid");
        game.apply(GameAction::Roll { dice: [3, 3] }).expect("a roll");
        let played = ChaturajiEvent::Played {
            step: 0,
            seat: Seat::Red,
            by_room: false,
            action: Step::Roll { dice: Some([3, 3]) },
            events: Vec::new(),
            dice: DieView::of(&game),
            scores: game.scores(),
            to_move: game.to_move(),
            round: game.round(),
            turn_remaining_ms: None,
        };
        state.apply_event(2, &played).expect("the roll applies");
        assert_eq!(state.steps, 1);
        assert_eq!(state.game.as_ref(), Some(&game));
        // The same step again is ignored; a step from the future is refused.
        state.apply_event(3, &played).expect("a repeat is ignored");
        assert_eq!(state.steps, 1);
        let future = ChaturajiEvent::Played {
            step: 5,
            seat: Seat::Red,
            by_room: false,
            action: Step::EndTurn,
            events: Vec::new(),
            dice: None,
            scores: game.scores(),
            to_move: game.to_move(),
            round: 1,
            turn_remaining_ms: None,
        };
        assert!(state.apply_event(4, &future).is_err());
        // A roll without faces cannot be replayed.
        let mut fresh = state.clone();
        fresh.steps = 0;
        fresh.game = Some(Game::new(Settings::default()).expect("valid"));
        let blind = ChaturajiEvent::Played {
            step: 0,
            seat: Seat::Red,
            by_room: false,
            action: Step::Roll { dice: None },
            events: Vec::new(),
            dice: None,
            scores: BySeat::splat(0),
            to_move: Seat::Red,
            round: 1,
            turn_remaining_ms: None,
        };
        assert!(fresh.apply_event(5, &blind).is_err());
    }
}
