//! A WebSocket client of the Maharajah protocol that survives dropped connections.
//!
//! [`Connection::connect`] opens the socket, sends `hello` and checks the version, then hands back
//! a cheap clonable handle and a channel of [`NetEvent`]s. A background task (the driver in
//! `link.rs`, shared with the Chaturaji client) owns the socket:
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

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use maharajah_engine::{Game, Position, Role};
use maharajah_protocol::{
    decode_server, AccessCode, Challenge, ChallengeId, ChallengeOptions, ClientMsg, Color,
    ErrorCode, GameId, GameResult, LeaderboardEntry, LiveGame, LobbyGame, LobbyMsg, Move, Phase,
    PlayerView, Profile, RemovedReason, RoomEvent, RoomOptions, ServerMsg, Snapshot, SpeedClass,
    TimeControl,
};
use tokio::sync::mpsc;

use crate::link::{self, Flavour, Handle, Incoming, Wire};
pub use crate::link::{CloseReason, ConnectOptions, LinkEvent, NetError, Welcome, EXTRA_CA_ENV};

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

/// One move of the replica's game as a screen shows it, worked out once when the move was
/// applied, so that no view walks the game from its start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedMove {
    /// The side that played it.
    pub color: Color,
    /// The move in SAN, as written in the position it was played in (`Nf3`, `exd6`, `Qh4#`).
    pub san: String,
    /// The piece it took, if any (en passant takes a pawn).
    pub captured: Option<Role>,
}

impl PlayedMove {
    /// `mv`, legal in `before`, as shown.
    fn of(before: &Position, mv: Move) -> PlayedMove {
        let color = before.turn();
        let captured = if before.is_en_passant(mv) {
            Some(Role::Pawn)
        } else {
            // A king taking its own rook is castling, not a capture.
            before.piece_at(mv.to).filter(|p| p.color != color).map(|p| p.role)
        };
        PlayedMove { color, san: before.san(mv), captured }
    }
}

/// What the client knows of its room: the seat, and the replica kept up to date from snapshots
/// and events (the protocol's [`Snapshot::apply`], one fold per event) with the game on the
/// board advanced move by move (no replay of the whole game per event).
#[derive(Clone, Debug, Default)]
pub struct RoomState {
    /// The seat, once created or joined.
    pub seat: Option<SeatCredentials>,
    /// The last room event applied (0 for none).
    pub last_seq: u64,
    /// The room as of `last_seq`, once a snapshot has come. (A client resumed without one asks
    /// the room for a snapshot; events before it only advance `last_seq`.)
    pub room: Option<Snapshot>,
    /// The game on the board, once it has started: the engine's [`Game`] from the start
    /// position and every move, advanced by each `moved` event.
    pub game: Option<Game>,
    /// The moves of `game` as shown (SAN, captures), one per move, in order.
    pub played: Vec<PlayedMove>,
    /// The room watched as a spectator (no seat); watched again after a reconnection.
    pub watching: Option<AccessCode>,
}

impl RoomState {
    /// The room's phase, once known.
    pub fn phase(&self) -> Option<Phase> {
        self.room.as_ref().map(|r| r.phase)
    }

    /// The moves played, UCI; the next move's ply is their number.
    pub fn moves(&self) -> &[String] {
        self.room.as_ref().map_or(&[], |r| r.moves.as_slice())
    }

    /// The result, once finished.
    pub fn result(&self) -> Option<GameResult> {
        self.room.as_ref().and_then(|r| r.result)
    }

    /// The ply of the next move.
    pub fn next_ply(&self) -> u32 {
        self.room.as_ref().map_or(0, Snapshot::next_ply)
    }

    fn apply_snapshot(&mut self, s: &Snapshot) -> Result<(), String> {
        self.last_seq = s.seq;
        self.room = Some(s.clone());
        self.played.clear();
        self.game = match &s.start_fen {
            None => None,
            Some(fen) => {
                let mut game = start(s.variant, fen)?;
                for uci in &s.moves {
                    play(&mut game, &mut self.played, uci)?;
                }
                Some(game)
            }
        };
        Ok(())
    }

    fn apply_event(&mut self, seq: u64, e: &RoomEvent) -> Result<(), String> {
        self.last_seq = seq;
        let Some(room) = self.room.as_mut() else { return Ok(()) };
        let before = room.moves.len();
        room.apply(seq, e);
        match e {
            RoomEvent::GameStarted { start_fen, .. } => {
                self.game = Some(start(room.variant, start_fen)?);
                self.played.clear();
            }
            RoomEvent::Moved { uci, .. } if room.moves.len() > before => {
                let game = self.game.as_mut().ok_or("a move before the game started")?;
                play(game, &mut self.played, uci)?;
            }
            _ => {}
        }
        Ok(())
    }

    /// Forgets the replica (it cannot follow the room): the next rejoin asks for a snapshot.
    fn reset(&mut self) {
        self.room = None;
        self.game = None;
        self.played.clear();
    }
}

fn start(variant: maharajah_protocol::Variant, fen: &str) -> Result<Game, String> {
    Position::from_fen(variant, fen)
        .map(Game::new)
        .map_err(|e| format!("the room's start position is refused: {e}"))
}

fn play(game: &mut Game, played: &mut Vec<PlayedMove>, uci: &str) -> Result<(), String> {
    let mv: Move = uci.parse().map_err(|e| format!("the room sent a bad move {uci}: {e}"))?;
    let before = game.position().clone();
    game.play(mv).map_err(|_| format!("the replica refuses the room's move {uci}"))?;
    played.push(PlayedMove::of(&before, mv));
    Ok(())
}

/// Our place in the quick-pairing queue, as the server confirmed it (the app shows it as is).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Seeking {
    /// The game.
    pub game: LobbyGame,
    /// The clock.
    pub time_control: TimeControl,
    /// Rated or casual.
    pub rated: bool,
    /// The rating the pairing uses.
    pub rating: u32,
}

/// What the client knows of the lobby and of its player, folded from the server's messages as
/// they come (before they are reported, so a request's answer reads them as they stand).
#[derive(Clone, Debug, Default)]
pub struct LobbyState {
    /// The connection's player (from `welcome`'s identify, then every `player`).
    pub player: Option<PlayerView>,
    /// Why the server refused the identity at the last (re)connection, if it did.
    pub refused: Option<String>,
    /// The open challenges of the subscription, oldest first.
    pub challenges: Vec<Challenge>,
    /// The ones this connection posted.
    pub mine: Vec<ChallengeId>,
    /// Our wait for quick pairing.
    pub seeking: Option<Seeking>,
    /// The room a lobby match made for us.
    pub matched: Option<AccessCode>,
    /// The game of that match (Chaturaji: take the seat with a Chaturaji client).
    pub matched_game: Option<LobbyGame>,
    /// The Chaturaji table we wait at (posted or joined), as it is now.
    pub table: Option<Challenge>,
    /// A Chaturaji table we asked to join: when our seat fills it, it starts at once (no
    /// `table_joined`), and its match is known by this.
    pub joining: Option<ChallengeId>,
    /// The last leaderboard asked for: its game, speed class and players.
    pub leaderboard: Option<(LobbyGame, SpeedClass, Vec<LeaderboardEntry>)>,
    /// The last profile asked for.
    pub profile: Option<Profile>,
    /// The last game record asked for: its number and PGN (chess family).
    pub record: Option<(GameId, Option<String>)>,
    /// The last "playing now" list asked for.
    pub playing_now: Vec<LiveGame>,
    /// A rematch offered in our finished room: the room and who offered.
    pub rematch: Option<(AccessCode, Color)>,
}

impl LobbyState {
    /// Folds one lobby message.
    pub fn apply(&mut self, msg: &LobbyMsg) {
        match msg {
            LobbyMsg::LobbyList { challenges } => self.challenges.clone_from(challenges),
            LobbyMsg::LobbyAdded { challenge } | LobbyMsg::ChallengeCreated { challenge } => {
                if matches!(msg, LobbyMsg::ChallengeCreated { .. }) {
                    self.mine.push(challenge.id);
                    if challenge.game == LobbyGame::Chaturaji {
                        self.table = Some(challenge.clone());
                    }
                }
                if !self.challenges.iter().any(|c| c.id == challenge.id) {
                    self.challenges.push(challenge.clone());
                }
            }
            LobbyMsg::LobbyRemoved { id, reason } => {
                self.challenges.retain(|c| c.id != *id);
                self.mine.retain(|m| m != id);
                // A table that starts is removed before its `lobby_matched`: keep it until then.
                let started = *reason == RemovedReason::Accepted;
                if !started && self.table.as_ref().is_some_and(|t| t.id == *id) {
                    self.table = None;
                }
            }
            LobbyMsg::PairingQueued { game, time_control, rated, rating } => {
                self.seeking = Some(Seeking {
                    game: *game,
                    time_control: *time_control,
                    rated: *rated,
                    rating: *rating,
                });
            }
            LobbyMsg::PairingCancelled => self.seeking = None,
            LobbyMsg::LobbyMatched { code, challenge, rematch_of } => {
                let table = self.table.take().filter(|t| Some(t.id) == *challenge);
                self.matched_game = if rematch_of.is_some() {
                    None
                } else if let Some(t) = table {
                    Some(t.game)
                } else if challenge.is_some() && *challenge == self.joining {
                    Some(LobbyGame::Chaturaji)
                } else if let Some(id) = challenge {
                    self.challenges.iter().find(|c| c.id == *id).map(|c| c.game)
                } else {
                    self.seeking.map(|s| s.game)
                };
                self.matched = Some(code.clone());
                self.joining = None;
                self.seeking = None;
                self.mine.clear();
                self.rematch = None;
            }
            LobbyMsg::LobbyUpdated { challenge } | LobbyMsg::TableJoined { challenge } => {
                if let Some(c) = self.challenges.iter_mut().find(|c| c.id == challenge.id) {
                    *c = challenge.clone();
                }
                let ours = self.table.as_ref().is_some_and(|t| t.id == challenge.id);
                if ours || matches!(msg, LobbyMsg::TableJoined { .. }) {
                    self.table = Some(challenge.clone());
                }
            }
            LobbyMsg::Leaderboard { game, speed, players } => {
                self.leaderboard = Some((*game, *speed, players.clone()));
            }
            LobbyMsg::Profile { profile } => self.profile = Some((**profile).clone()),
            LobbyMsg::GameRecord { id, pgn, .. } => self.record = Some((*id, pgn.clone())),
            LobbyMsg::PlayingNow { games } => self.playing_now.clone_from(games),
            LobbyMsg::RematchOffered { code, by } => self.rematch = Some((code.clone(), *by)),
            LobbyMsg::RematchWithdrawn { .. } => self.rematch = None,
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

/// What a [`Connection`] reports, in order.
pub type NetEvent = LinkEvent<SeatCredentials, Box<Snapshot>, RoomEvent>;

#[derive(Clone, Debug)]
enum Req {
    Create(RoomOptions),
    Join(AccessCode),
    Move(String),
    Commit(String),
    Reveal {
        army: String,
        nonce: String,
    },
    Action(Action),
    Ping,
    /// A lobby or player request answered by messages the events carry (`lobby_list`,
    /// `challenge_created`, `pairing_queued`, `player`…) or an `error`, before a barrier `pong`.
    Lobby(ClientMsg),
    /// Accepts a challenge: answered by the `seated` of the room made.
    Accept(ChallengeId),
}

#[derive(Clone, Copy, Debug)]
enum Action {
    Pause,
    Resume,
    Resign,
    OfferDraw,
    DeclineDraw,
    ClaimDraw,
    Rematch,
}

#[derive(Debug)]
enum Reply {
    Seated(SeatCredentials),
    Move(MoveAcked),
    Done,
    Rtt(Duration),
}

/// A handle on a connection to a Maharajah server (online or a LAN host). Cheap to clone; the
/// connection ends when [`Connection::close`] is called or every handle is dropped.
#[derive(Clone, Debug)]
pub struct Connection {
    link: Handle<Req, Reply>,
    state: Arc<Mutex<RoomState>>,
    lobby: Arc<Mutex<LobbyState>>,
}

fn lock(state: &Mutex<RoomState>) -> MutexGuard<'_, RoomState> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

impl Connection {
    /// Connects to `url` (e.g. `ws://192.168.1.20:40123/`), sends `hello` and checks the
    /// protocol version. Create or join a room next. `url` may name several nodes of one
    /// service (`ws://a:7878/, ws://b:7878/`): they are tried in turn, at the first connection
    /// and at every reconnection (the one that answered last first).
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
        let state = Arc::new(Mutex::new(state));
        let lobby = Arc::new(Mutex::new(LobbyState::default()));
        let chess = Chess { state: state.clone(), lobby: lobby.clone() };
        let (link, events) = link::start(url, options, chess).await?;
        Ok((Connection { link, state, lobby }, events))
    }

    async fn request(&self, req: Req) -> Result<Reply, NetError> {
        self.link.request(req).await
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

    async fn lobby(&self, msg: ClientMsg) -> Result<(), NetError> {
        self.request(Req::Lobby(msg)).await.map(drop)
    }

    /// Subscribes to the lobby's open challenges of `games` (empty: all): the list and its
    /// changes arrive as [`NetEvent::Lobby`].
    ///
    /// # Errors
    ///
    /// [`NetError::Server`] (`rate_limited`…), [`NetError::Interrupted`], [`NetError::Closed`].
    pub async fn lobby_subscribe(&self, games: Vec<LobbyGame>) -> Result<(), NetError> {
        self.lobby(ClientMsg::LobbySubscribe { games }).await
    }

    /// Posts a challenge; `challenge_created` arrives as a [`NetEvent::Lobby`] before this
    /// returns, and once someone accepts it the connection is seated ([`NetEvent::Seated`]).
    ///
    /// # Errors
    ///
    /// [`NetError::Server`] (`not_identified` for a rated one, `too_many_challenges`,
    /// `unavailable`, `rate_limited`…).
    pub async fn create_challenge(&self, options: ChallengeOptions) -> Result<(), NetError> {
        self.lobby(ClientMsg::CreateChallenge { options, device: None }).await
    }

    /// Posts a Chaturaji challenge: its table's first seat goes to `device` (16–128
    /// characters); `challenge_created` arrives before this returns, and when the table starts
    /// `lobby_matched` follows (take the seat with a Chaturaji client of the same device).
    ///
    /// # Errors
    ///
    /// As [`Connection::create_challenge`]; `invalid_options` for bad table options or device.
    pub async fn create_table(
        &self,
        options: ChallengeOptions,
        device: String,
    ) -> Result<(), NetError> {
        self.lobby(ClientMsg::CreateChallenge { options, device: Some(device) }).await
    }

    /// Sits `device` at the table of Chaturaji challenge `id`: `table_joined` arrives before
    /// this returns; `lobby_matched` follows when the table starts.
    ///
    /// # Errors
    ///
    /// [`NetError::Server`] (`challenge_not_found`, `wrong_phase` when already there,
    /// `not_identified` for a rated one, `invalid_options`…).
    pub async fn join_table(&self, id: ChallengeId, device: String) -> Result<(), NetError> {
        self.with_lobby_mut(|l| l.joining = Some(id));
        let joined = self.lobby(ClientMsg::AcceptChallenge { id, device: Some(device) }).await;
        if joined.is_err() {
            self.with_lobby_mut(|l| l.joining = l.joining.filter(|j| *j != id));
        }
        joined
    }

    /// Withdraws one of this connection's challenges, or leaves the Chaturaji table of
    /// challenge `id` where it sits (the table stays for the others).
    ///
    /// # Errors
    ///
    /// [`NetError::Server`] (`challenge_not_found`).
    pub async fn cancel_challenge(&self, id: ChallengeId) -> Result<(), NetError> {
        self.lobby(ClientMsg::CancelChallenge { id }).await?;
        // The request waits for the server's answer: `lobby_removed` for ours, or the table
        // without us (`lobby_updated`), already folded; either way we sit there no longer.
        self.with_lobby_mut(|l| l.table = l.table.take().filter(|t| t.id != id));
        Ok(())
    }

    /// Accepts a challenge and takes the seat of the room made for it.
    ///
    /// # Errors
    ///
    /// [`NetError::Server`] (`challenge_not_found`, `not_identified`…),
    /// [`NetError::AlreadySeated`].
    pub async fn accept_challenge(&self, id: ChallengeId) -> Result<SeatCredentials, NetError> {
        match self.request(Req::Accept(id)).await? {
            Reply::Seated(s) => Ok(s),
            other => Err(NetError::Protocol(format!("unexpected answer {other:?}"))),
        }
    }

    /// Quick pairing: queues for an opponent; the match seats the connection later
    /// ([`NetEvent::Seated`]).
    ///
    /// # Errors
    ///
    /// [`NetError::Server`] (`not_identified` for rated, `unavailable`, `rate_limited`…).
    pub async fn play_now(
        &self,
        game: LobbyGame,
        time_control: TimeControl,
        rated: bool,
    ) -> Result<(), NetError> {
        let msg = ClientMsg::PlayNow { game, time_control, rated, cpu_after_s: None, device: None };
        self.lobby(msg).await
    }

    /// Quick pairing for a Chaturaji table: `device` waits for people; CPUs take the empty
    /// seats `cpu_after_s` seconds after the longest wait began (5–300). `lobby_matched`
    /// comes when the table starts.
    ///
    /// # Errors
    ///
    /// As [`Connection::play_now`]; `invalid_options` for a bad wait or device.
    pub async fn play_now_table(
        &self,
        time_control: TimeControl,
        rated: bool,
        cpu_after_s: u32,
        device: String,
    ) -> Result<(), NetError> {
        let msg = ClientMsg::PlayNow {
            game: LobbyGame::Chaturaji,
            time_control,
            rated,
            cpu_after_s: Some(cpu_after_s),
            device: Some(device),
        };
        self.lobby(msg).await
    }

    /// Leaves the quick-pairing queue.
    ///
    /// # Errors
    ///
    /// [`NetError::Closed`], [`NetError::Interrupted`].
    pub async fn cancel_play_now(&self) -> Result<(), NetError> {
        self.lobby(ClientMsg::CancelPlayNow).await
    }

    /// Gives the identified player a display name; the new [`NetEvent::Player`] arrives before
    /// this returns.
    ///
    /// # Errors
    ///
    /// [`NetError::Server`] with `invalid_name`, `name_taken`, `not_identified`, `wrong_phase`.
    pub async fn register_name(&self, name: &str) -> Result<(), NetError> {
        self.lobby(ClientMsg::RegisterName { name: name.to_owned() }).await
    }

    /// Watches room `code` as a spectator: its snapshot is in the replica before this returns,
    /// then every event follows; after a reconnection the room is watched again (a fresh
    /// snapshot).
    ///
    /// # Errors
    ///
    /// [`NetError::Server`] (`room_not_found`, `too_many_spectators`), [`NetError::AlreadySeated`].
    pub async fn watch(&self, code: AccessCode) -> Result<(), NetError> {
        if let Some(seat) = lock(&self.state).seat.as_ref() {
            return Err(NetError::AlreadySeated(seat.code.clone()));
        }
        self.lobby(ClientMsg::Watch { code: code.clone() }).await?;
        lock(&self.state).watching = Some(code);
        Ok(())
    }

    /// After a finished game: offers (or accepts) a rematch with colours swapped. When both
    /// have offered, the lobby seats this connection in the new room ([`NetEvent::Seated`],
    /// then its snapshot); the old room's replica is dropped.
    ///
    /// # Errors
    ///
    /// [`NetError::Server`] (`wrong_phase` before the end…), [`NetError::NotSeated`].
    pub async fn rematch(&self) -> Result<(), NetError> {
        self.action(Action::Rematch).await
    }

    fn lobby_answer<T>(
        &self,
        what: &str,
        f: impl FnOnce(&LobbyState) -> Option<T>,
    ) -> Result<T, NetError> {
        self.with_lobby(f).ok_or_else(|| NetError::Protocol(format!("no {what} came")))
    }

    /// The best players of `game` in speed class `speed`.
    ///
    /// # Errors
    ///
    /// [`NetError::Server`] (`rate_limited`…), [`NetError::Closed`].
    pub async fn leaderboard(
        &self,
        game: LobbyGame,
        speed: SpeedClass,
    ) -> Result<Vec<LeaderboardEntry>, NetError> {
        self.lobby(ClientMsg::Leaderboard { game, speed }).await?;
        self.lobby_answer("leaderboard", |l| {
            l.leaderboard.as_ref().filter(|b| b.0 == game && b.1 == speed).map(|b| b.2.clone())
        })
    }

    /// The profile of the player named `name` (look-alike-insensitive).
    ///
    /// # Errors
    ///
    /// [`NetError::Server`] (`player_not_found`, `rate_limited`…), [`NetError::Closed`].
    pub async fn profile(&self, name: &str) -> Result<Profile, NetError> {
        self.lobby(ClientMsg::Profile { name: name.to_owned() }).await?;
        self.lobby_answer("profile", |l| l.profile.clone())
    }

    /// The PGN of finished game `id` (chess family; `None` for a Chaturaji game).
    ///
    /// # Errors
    ///
    /// [`NetError::Server`] (`game_not_found`…), [`NetError::Closed`].
    pub async fn game_record(&self, id: GameId) -> Result<Option<String>, NetError> {
        self.lobby(ClientMsg::GameRecord { id }).await?;
        self.lobby_answer("game record", |l| {
            l.record.as_ref().filter(|r| r.0 == id).map(|r| r.1.clone())
        })
    }

    /// The games being played now of `games` (empty: all), the most watched first.
    ///
    /// # Errors
    ///
    /// [`NetError::Server`] (`rate_limited`…), [`NetError::Closed`].
    pub async fn playing_now(&self, games: Vec<LobbyGame>) -> Result<Vec<LiveGame>, NetError> {
        self.lobby(ClientMsg::PlayingNow { games }).await?;
        Ok(self.with_lobby(|l| l.playing_now.clone()))
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

    /// What the client knows of its room now (a copy; see [`Connection::with_room`]).
    pub fn room(&self) -> RoomState {
        lock(&self.state).clone()
    }

    /// Reads what the client knows of its room now without copying it. The replica cannot
    /// move while `f` runs (the link waits for it), so everything `f` reads is of one moment:
    /// keep it short.
    pub fn with_room<T>(&self, f: impl FnOnce(&RoomState) -> T) -> T {
        f(&lock(&self.state))
    }

    /// Reads what the client knows of the lobby and its player now (see [`LobbyState`]).
    pub fn with_lobby<T>(&self, f: impl FnOnce(&LobbyState) -> T) -> T {
        f(&self.lobby.lock().unwrap_or_else(|e| e.into_inner()))
    }

    fn with_lobby_mut<T>(&self, f: impl FnOnce(&mut LobbyState) -> T) -> T {
        f(&mut self.lobby.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Drops the socket as a Wi-Fi loss would; the connection reconnects and resyncs by itself.
    pub fn drop_link(&self) {
        self.link.drop_link();
    }

    /// Closes the connection (the seat stays in the room; [`Connection::resume`] takes it back).
    pub async fn close(&self) {
        self.link.close().await;
    }
}

/// The chess client's side of the shared driver.
struct Chess {
    state: Arc<Mutex<RoomState>>,
    lobby: Arc<Mutex<LobbyState>>,
}

impl Flavour for Chess {
    type Req = Req;
    type Reply = Reply;
    type Seat = SeatCredentials;
    type Snapshot = Box<Snapshot>;
    type RoomEvent = RoomEvent;

    const PEER: &'static str = "host";

    fn decode(text: &str) -> Result<Incoming<Self>, String> {
        Ok(match decode_server(text).map_err(|e| e.to_string())? {
            ServerMsg::Pong { nonce, .. } => Incoming::Pong(nonce),
            ServerMsg::Seated { code, seat, token } => {
                Incoming::Seated(SeatCredentials { code, seat, token })
            }
            ServerMsg::Snapshot { snapshot } => Incoming::Snapshot(snapshot),
            ServerMsg::Event { seq, event, .. } => Incoming::Event { seq, event },
            ServerMsg::MoveAck { ply, seq } => Incoming::Ack { at: ply, seq },
            ServerMsg::SetupAck { .. } => Incoming::SetupAck,
            ServerMsg::Error { code, message } => Incoming::Error { code, message },
            ServerMsg::Lobby(msg) => Incoming::Lobby(msg),
            ServerMsg::Player { player } => Incoming::Player(player),
            ServerMsg::Redirect { url } => Incoming::Redirect(url),
            // A second `welcome`, or messages of other room kinds: nothing to do here.
            _ => Incoming::Ignored,
        })
    }

    fn seat_code(&self) -> Option<AccessCode> {
        lock(&self.state).seat.as_ref().map(|s| s.code.clone())
    }
    fn on_welcome(&self, welcome: &link::Welcome) {
        let mut lobby = self.lobby.lock().unwrap_or_else(|e| e.into_inner());
        // A new connection: the server forgot the subscription, challenges and pairing wait.
        *lobby = LobbyState {
            player: welcome.player.clone(),
            refused: welcome.refused.clone(),
            ..LobbyState::default()
        };
    }
    fn on_lobby(&self, msg: Option<&LobbyMsg>, player: Option<&PlayerView>) {
        let mut lobby = self.lobby.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(msg) = msg {
            lobby.apply(msg);
            // A rematch moves the seated connection to a new room: its `seated` and snapshot
            // follow, and the finished room's replica is done with.
            if let LobbyMsg::LobbyMatched { rematch_of: Some(_), .. } = msg {
                let mut st = lock(&self.state);
                st.seat = None;
                st.last_seq = 0;
                st.reset();
            }
        }
        if let Some(player) = player {
            lobby.player = Some(player.clone());
        }
    }
    fn set_seat(&self, seat: SeatCredentials) {
        lock(&self.state).seat = Some(seat);
    }
    fn last_seq(&self) -> u64 {
        lock(&self.state).last_seq
    }

    fn rejoin(&self) -> Option<ClientMsg> {
        let st = lock(&self.state);
        // Without a replica, the events since `last_seq` cannot be folded: ask for a snapshot
        // (a number beyond the room's newest event always gets one).
        let last_seq = if st.room.is_some() { st.last_seq } else { u64::MAX };
        match (st.seat.clone(), st.watching.clone()) {
            (Some(s), _) => Some(ClientMsg::Rejoin { code: s.code, token: s.token, last_seq }),
            // A spectator watches again; the room answers with a snapshot.
            (None, Some(code)) => Some(ClientMsg::Watch { code }),
            (None, None) => None,
        }
    }
    fn apply_snapshot(&self, snapshot: &Box<Snapshot>) -> Result<(), String> {
        let mut st = lock(&self.state);
        let applied = st.apply_snapshot(snapshot);
        if applied.is_err() {
            st.reset();
        }
        applied
    }
    fn apply_event(&self, seq: u64, event: &RoomEvent) -> Result<(), String> {
        let mut st = lock(&self.state);
        let applied = st.apply_event(seq, event);
        if applied.is_err() {
            st.reset();
        }
        applied
    }

    /// The wire messages of a request (the token and ply filled in now).
    fn wire(&self, req: &Req, at: &mut Option<u32>) -> Wire {
        let st = lock(&self.state);
        let token = st.seat.as_ref().map(|s| s.token.clone()).unwrap_or_default();
        let next_ply = st.next_ply();
        drop(st);
        let msg = match req {
            Req::Create(options) => {
                ClientMsg::CreateRoom { options: options.clone(), rated: false }
            }
            Req::Join(code) => ClientMsg::JoinRoom { code: code.clone() },
            Req::Accept(id) => ClientMsg::AcceptChallenge { id: *id, device: None },
            Req::Lobby(msg) => return Wire { msgs: vec![msg.clone()], barrier: true },
            Req::Move(uci) => {
                let ply = *at.get_or_insert(next_ply);
                ClientMsg::Move { token, ply, uci: uci.clone() }
            }
            Req::Commit(c) => ClientMsg::Commit { token, commitment: c.clone() },
            Req::Reveal { army, nonce } => {
                ClientMsg::Reveal { token, army: army.clone(), nonce: nonce.clone() }
            }
            Req::Ping => return Wire { msgs: Vec::new(), barrier: true },
            Req::Action(a) => {
                let msg = match a {
                    Action::Pause => ClientMsg::Pause { token },
                    Action::Resume => ClientMsg::Resume { token },
                    Action::Resign => ClientMsg::Resign { token },
                    Action::OfferDraw => ClientMsg::OfferDraw { token },
                    Action::DeclineDraw => ClientMsg::DeclineDraw { token },
                    Action::ClaimDraw => ClientMsg::ClaimDraw { token },
                    Action::Rematch => ClientMsg::Rematch { token },
                };
                return Wire { msgs: vec![msg], barrier: true };
            }
        };
        Wire { msgs: vec![msg], barrier: false }
    }
    fn takes_seat(req: &Req) -> bool {
        matches!(req, Req::Create(_) | Req::Join(_) | Req::Accept(_))
    }
    fn needs_seat(req: &Req) -> bool {
        !matches!(req, Req::Create(_) | Req::Join(_) | Req::Accept(_) | Req::Ping | Req::Lobby(_))
    }
    fn resendable(req: &Req) -> bool {
        matches!(req, Req::Move(_) | Req::Commit(_) | Req::Reveal { .. } | Req::Ping)
    }
    fn acked(req: &Req) -> bool {
        matches!(req, Req::Move(_))
    }
    fn setup(req: &Req) -> bool {
        matches!(req, Req::Commit(_) | Req::Reveal { .. })
    }
    fn ignores_errors(req: &Req) -> bool {
        matches!(req, Req::Ping)
    }
    fn already_done(req: &Req, code: ErrorCode) -> bool {
        code == ErrorCode::AlreadyCommitted && Chess::setup(req)
    }
    fn seated_reply(seat: SeatCredentials) -> Reply {
        Reply::Seated(seat)
    }
    fn ack_reply(ply: u32, seq: u64) -> Reply {
        Reply::Move(MoveAcked { ply, seq })
    }
    fn barrier_reply(req: &Req, rtt: Duration) -> Reply {
        if matches!(req, Req::Ping) {
            Reply::Rtt(rtt)
        } else {
            Reply::Done
        }
    }
    fn done() -> Reply {
        Reply::Done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn played_moves_are_written_once_with_their_captures() {
        let fen = Position::new(maharajah_protocol::Variant::Chess).to_string();
        let mut game = start(maharajah_protocol::Variant::Chess, &fen).expect("the start");
        let mut played = Vec::new();
        for uci in ["e2e4", "d7d5", "e4d5", "c7c5", "d5c6", "d8d2"] {
            play(&mut game, &mut played, uci).expect(uci);
        }
        let sans: Vec<&str> = played.iter().map(|p| p.san.as_str()).collect();
        assert_eq!(sans, ["e4", "d5", "exd5", "c5", "dxc6", "Qxd2+"]);
        let taken: Vec<Option<Role>> = played.iter().map(|p| p.captured).collect();
        let pawn = Some(Role::Pawn);
        assert_eq!(taken, [None, None, pawn, None, pawn, pawn], "en passant takes a pawn");
        assert_eq!(played[4].color, Color::White);
        assert_eq!(played[5].color, Color::Black);
        assert!(play(&mut game, &mut played, "e1e2").is_err(), "in check, Ke2 is refused");
        assert_eq!((played.len(), game.moves().len()), (6, 6), "a refused move is not recorded");
    }

    #[test]
    fn the_lobby_state_follows_its_messages() {
        let challenge = |id| Challenge {
            id,
            game: LobbyGame::Chess,
            time_control: None,
            rated: false,
            color: maharajah_protocol::ColorChoice::Random,
            creator: None,
            rating: 1500,
            provisional: true,
            table: None,
        };
        let mut l = LobbyState::default();
        l.apply(&LobbyMsg::LobbyList { challenges: vec![challenge(1)] });
        l.apply(&LobbyMsg::ChallengeCreated { challenge: challenge(2) });
        l.apply(&LobbyMsg::LobbyAdded { challenge: challenge(2) });
        assert_eq!(l.challenges.iter().map(|c| c.id).collect::<Vec<_>>(), [1, 2], "no twice");
        assert_eq!(l.mine, [2]);
        let removed = maharajah_protocol::RemovedReason::Cancelled;
        l.apply(&LobbyMsg::LobbyRemoved { id: 2, reason: removed });
        assert!(l.mine.is_empty());
        let blitz = TimeControl { base_ms: 180_000, increment_ms: 2_000 };
        let queued = LobbyMsg::PairingQueued {
            game: LobbyGame::Horde,
            time_control: blitz,
            rated: true,
            rating: 1612,
        };
        l.apply(&queued);
        assert_eq!(l.seeking.map(|s| s.rating), Some(1612));
        let code: AccessCode = "ABCD2345".parse().expect("a code");
        l.apply(&LobbyMsg::LobbyMatched { code: code.clone(), challenge: None, rematch_of: None });
        assert_eq!((l.seeking, l.matched), (None, Some(code)));
    }

    #[test]
    fn a_chaturaji_table_we_sit_at_is_followed_until_it_starts() {
        let table = |joined| Challenge {
            id: 7,
            game: LobbyGame::Chaturaji,
            time_control: None,
            rated: false,
            color: maharajah_protocol::ColorChoice::Random,
            creator: Some("ann".into()),
            rating: 1500,
            provisional: true,
            table: Some(maharajah_protocol::TableView { people: 4, joined, cpu_after_s: 30 }),
        };
        let mut l = LobbyState::default();
        l.apply(&LobbyMsg::LobbyList { challenges: vec![table(1)] });
        l.apply(&LobbyMsg::TableJoined { challenge: table(2) });
        assert_eq!(l.table.as_ref().and_then(|t| t.table).map(|t| t.joined), Some(2));
        assert_eq!(l.challenges[0].table.map(|t| t.joined), Some(2), "the list follows");
        l.apply(&LobbyMsg::LobbyUpdated { challenge: table(3) });
        assert_eq!(l.table.as_ref().and_then(|t| t.table).map(|t| t.joined), Some(3));
        let accepted = maharajah_protocol::RemovedReason::Accepted;
        l.apply(&LobbyMsg::LobbyRemoved { id: 7, reason: accepted });
        assert!(l.challenges.is_empty());
        let code: AccessCode = "ABCD2345".parse().expect("a code");
        l.apply(&LobbyMsg::LobbyMatched { code, challenge: Some(7), rematch_of: None });
        assert_eq!((l.matched_game, l.table.is_some()), (Some(LobbyGame::Chaturaji), false));

        // A table our seat fills starts at once: no `table_joined`, and it may leave the list
        // first; the table we asked to join says what the match is.
        l.joining = Some(8);
        l.apply(&LobbyMsg::LobbyRemoved { id: 8, reason: accepted });
        let code: AccessCode = "ABCD2346".parse().expect("a code");
        l.apply(&LobbyMsg::LobbyMatched { code, challenge: Some(8), rematch_of: None });
        assert_eq!((l.matched_game, l.joining), (Some(LobbyGame::Chaturaji), None));

        // A table that goes without starting is forgotten.
        l.apply(&LobbyMsg::TableJoined { challenge: table(2) });
        let left = maharajah_protocol::RemovedReason::CreatorLeft;
        l.apply(&LobbyMsg::LobbyRemoved { id: 7, reason: left });
        assert!(l.table.is_none());
    }

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
