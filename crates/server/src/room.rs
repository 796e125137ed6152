//! One room as a pure state machine: seats and tokens, hidden setup, moves, clock, pauses,
//! results, numbered events. No I/O and no clock of its own: every call that depends on time
//! takes `now` ([`Millis`]), so tests drive it by hand.
//!
//! The room keeps its last events in a small ring buffer so a reconnecting client can be sent
//! exactly what it missed; older gaps are answered with a [`Snapshot`].
//!
//! Rules of time (play-modes.md, "Clocks, pauses, disconnects"):
//! - White's clock starts when the game starts; each move charges the mover and adds the
//!   increment (Fischer). The room reports its next deadline so the owner can wake it up to
//!   detect a fallen flag without waiting for a client.
//! - A flag that falls before the flagged side's first move annuls the game; otherwise the
//!   flagged side loses, or draws if the opponent has no mating material.
//! - One pause per seat, 60 s at most, both clocks frozen; the pauser may resume early.
//! - The disconnect shield: whenever the side whose clock runs is not connected and still has
//!   its pause, the room spends that pause for it (reason `disconnected`); it ends when the
//!   player returns or after 60 s. This also covers a player who dropped during the opponent's
//!   turn: the shield starts when their clock starts.
//! - After a server restart the clocks stay frozen (reason `server_restart`, nobody's pause)
//!   until the side to move is back or the recovery grace ends, so nobody loses time because
//!   the server was down.
//! - Connection state never decides a result.
//!
//! No lag compensation: the server's time of arrival of a move is what counts.

use maharajah_engine::clock::{Clock, Millis};
use maharajah_protocol::army;
use maharajah_protocol::identity::PlayerKey;
use maharajah_protocol::{
    AccessCode, ByColor, ClockView, Color, EndReason, ErrorCode, GameResult, Outcome, PauseReason,
    PauseView, Phase, RoomEvent, RoomOptions, SeatView, ServerMsg, Snapshot, TimeControl, Variant,
    SETUP_ROUNDS,
};
use maharajah_protocol::{RatedGame, RatingChange, RatingKey, SpeedClass};
use serde::{Deserialize, Serialize};

use crate::codes::{kept_digest, token_digest};
use crate::rooms::{ms, EventLog, Lifetimes, RoomError};
use crate::rules::{self, Game, RulesError};

/// Longest pause, and the length of the disconnect shield.
pub const PAUSE_MS: u64 = 60_000;

impl From<RulesError> for RoomError {
    fn from(e: RulesError) -> Self {
        let code = match e {
            RulesError::IllegalMove { .. } => ErrorCode::IllegalMove,
            RulesError::InvalidArmy(_) | RulesError::InvalidStart(_) => ErrorCode::InvalidArmy,
            RulesError::Unavailable(_) => ErrorCode::Unavailable,
        };
        RoomError::new(code, e.to_string())
    }
}

/// What a seat asks the room to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Hidden setup: commit.
    Commit {
        /// Hex commitment.
        commitment: String,
    },
    /// Hidden setup: reveal.
    Reveal {
        /// Army text.
        army: String,
        /// Hex nonce.
        nonce: String,
    },
    /// Play a move.
    Move {
        /// Expected ply.
        ply: u32,
        /// UCI.
        uci: String,
    },
    /// Use the seat's pause.
    Pause,
    /// End the seat's pause early.
    Resume,
    /// Resign.
    Resign,
    /// Offer or accept a draw.
    OfferDraw,
    /// Decline a draw offer.
    DeclineDraw,
    /// Claim a draw.
    ClaimDraw,
}

/// The private answer to the seat that acted (room events go to both seats separately).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// Nothing beyond the events.
    Done,
    /// The move was accepted (or had been already).
    MoveAck {
        /// Ply.
        ply: u32,
        /// Its event number.
        seq: u64,
    },
    /// A setup step was accepted.
    SetupAck(&'static str),
}

impl Reply {
    /// The wire form, if any.
    pub fn to_msg(&self) -> Option<ServerMsg> {
        match self {
            Reply::Done => None,
            Reply::MoveAck { ply, seq } => Some(ServerMsg::MoveAck { ply: *ply, seq: *seq }),
            Reply::SetupAck(step) => Some(ServerMsg::SetupAck { step: (*step).to_owned() }),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct ActivePause {
    by: Color,
    reason: PauseReason,
    ends_at: Millis,
}

/// Everything about a room that must survive a restart (stored as JSON).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomRecord {
    /// Code.
    pub code: AccessCode,
    /// Variant.
    pub variant: Variant,
    /// Clock settings.
    pub time_control: Option<TimeControl>,
    /// Hidden setup.
    pub hidden_setup: bool,
    /// Digests of the seat tokens ([`crate::codes::token_digest`]; plain tokens in records
    /// written before digests).
    pub tokens: ByColor<Option<String>>,
    /// Phase.
    pub phase: Phase,
    /// Commitments.
    pub commitments: ByColor<Option<String>>,
    /// Accepted reveals (canonical armies), possibly only one so far: never shown until both.
    pub reveals: ByColor<Option<String>>,
    /// The nonces of the accepted reveals (hex), shown only once both are in.
    #[serde(default)]
    pub nonces: ByColor<Option<String>>,
    /// Moves played (UCI).
    pub moves: Vec<String>,
    /// Event number of each move.
    pub move_seqs: Vec<u64>,
    /// Remaining clock times at the last stored state (the running side's as of that moment).
    pub clock_ms: Option<ByColor<u64>>,
    /// Unused pauses.
    pub pause_available: ByColor<bool>,
    /// Pending draw offer.
    pub draw_offer: Option<Color>,
    /// Result.
    pub result: Option<GameResult>,
    /// Last event number.
    pub seq: u64,
    /// When the room expires, on the server's timeline (Unix milliseconds), so a restart keeps
    /// it; absent in records written before it was stored (they then count from the restart).
    #[serde(default)]
    pub expires_at: Option<Millis>,
    /// Hidden setup rounds whose two armies could not start together.
    #[serde(default)]
    pub failed_setups: u32,
    /// Whether the game is rated (absent in records written before ratings: casual).
    #[serde(default)]
    pub rated: bool,
    /// The identified player in each seat, if any.
    #[serde(default)]
    pub players: ByColor<Option<PlayerKey>>,
    /// Whether a rated result has changed the ratings (stored in the same transaction as the
    /// new ratings, so a restart neither loses nor repeats the change).
    #[serde(default)]
    pub ratings_applied: bool,
}

/// A room. See the module documentation.
#[derive(Clone, Debug)]
pub struct Room {
    code: AccessCode,
    variant: Variant,
    time_control: Option<TimeControl>,
    hidden_setup: bool,
    tokens: ByColor<Option<String>>,
    connected: ByColor<bool>,
    phase: Phase,
    commitments: ByColor<Option<String>>,
    reveals: ByColor<Option<String>>,
    nonces: ByColor<Option<String>>,
    game: Option<Game>,
    start_fen: Option<String>,
    moves: Vec<String>,
    move_seqs: Vec<u64>,
    clock: Option<Clock>,
    pause_available: ByColor<bool>,
    pause: Option<ActivePause>,
    draw_offer: Option<Color>,
    result: Option<GameResult>,
    log: EventLog<RoomEvent>,
    expires_at: Millis,
    /// While waiting for the opponent: since when no seated player has been connected.
    away_since: Option<Millis>,
    /// Hidden setup rounds whose two armies could not start together.
    failed_setups: u32,
    lifetimes: Lifetimes,
    rated: bool,
    players: ByColor<Option<PlayerKey>>,
    ratings_applied: bool,
}

/// A finished rated game whose ratings are still to change: who played, and their places
/// (1 and 2 for a win, 1 and 1 for a draw).
#[derive(Clone, Debug, PartialEq)]
pub struct RatedEnd {
    /// Which rating the game changes.
    pub rating: RatingKey,
    /// The players, in seat order (White, Black).
    pub players: Vec<PlayerKey>,
    /// Their places, in the same order.
    pub places: Vec<u8>,
}

pub(crate) fn check_options(o: &RoomOptions) -> Result<(), RoomError> {
    if o.hidden_setup && o.variant != Variant::Maharajah {
        return Err(RoomError::new(
            ErrorCode::InvalidOptions,
            "hidden setup exists only in the Maharajah variant",
        ));
    }
    if let Some(tc) = o.time_control {
        const WEEK_MS: u64 = 7 * 24 * 3600 * 1000;
        if tc.base_ms == 0 || tc.base_ms > WEEK_MS || tc.increment_ms > WEEK_MS {
            return Err(RoomError::new(
                ErrorCode::InvalidOptions,
                "the base time must be positive and times at most a week",
            ));
        }
    }
    Ok(())
}

/// The result when `flagged`'s flag falls: annulled before its first move, a draw if the
/// opponent cannot mate, otherwise a loss on time.
pub fn flag_result(flagged: Color, has_moved: bool, opponent_can_mate: bool) -> GameResult {
    if !has_moved {
        GameResult { outcome: Outcome::Annulled, reason: EndReason::TimeoutBeforeFirstMove }
    } else if !opponent_can_mate {
        GameResult { outcome: Outcome::Draw, reason: EndReason::TimeoutVsInsufficientMaterial }
    } else {
        GameResult { outcome: Outcome::win_for(flagged.other()), reason: EndReason::Timeout }
    }
}

impl Room {
    /// A new room with its creator seated at `seat` with `token`.
    ///
    /// # Errors
    ///
    /// [`ErrorCode::InvalidOptions`] for options that make no sense.
    pub fn new(
        code: AccessCode,
        options: &RoomOptions,
        seat: Color,
        token: String,
        now: Millis,
        lifetimes: Lifetimes,
    ) -> Result<Room, RoomError> {
        check_options(options)?;
        let mut tokens = ByColor::default();
        *tokens.get_mut(seat) = Some(token_digest(&token));
        let mut connected = ByColor::default();
        *connected.get_mut(seat) = true;
        let mut room = Room {
            code,
            variant: options.variant,
            time_control: options.time_control,
            hidden_setup: options.hidden_setup,
            tokens,
            connected,
            phase: Phase::WaitingForOpponent,
            commitments: ByColor::default(),
            reveals: ByColor::default(),
            nonces: ByColor::default(),
            game: None,
            start_fen: None,
            moves: Vec::new(),
            move_seqs: Vec::new(),
            clock: None,
            pause_available: ByColor { white: true, black: true },
            pause: None,
            draw_offer: None,
            result: None,
            log: EventLog::default(),
            expires_at: 0,
            away_since: None,
            failed_setups: 0,
            lifetimes,
            rated: false,
            players: ByColor::default(),
            ratings_applied: false,
        };
        room.emit(RoomEvent::SeatTaken { seat });
        room.touch(now);
        Ok(room)
    }

    /// Makes the new room rated, its creator (in `seat`) the identified `player`.
    #[must_use]
    pub fn rated_for(mut self, seat: Color, player: PlayerKey) -> Room {
        self.rated = true;
        *self.players.get_mut(seat) = Some(player);
        self
    }

    /// Whether the game is rated.
    pub fn is_rated(&self) -> bool {
        self.rated
    }

    /// The finished rated game whose ratings are still to change, if this is one: both seats
    /// identified, a result that is not annulled, not applied yet.
    pub fn rating_due(&self) -> Option<RatedEnd> {
        if !self.rated || self.ratings_applied {
            return None;
        }
        let (white, black) = (self.players.white?, self.players.black?);
        let places = match self.result?.outcome {
            Outcome::WhiteWins => vec![1, 2],
            Outcome::BlackWins => vec![2, 1],
            Outcome::Draw => vec![1, 1],
            Outcome::Annulled => return None,
        };
        let game = match self.variant {
            Variant::Chess => RatedGame::Chess,
            Variant::Maharajah => RatedGame::Maharajah,
            Variant::Horde => RatedGame::Horde,
        };
        let speed = SpeedClass::of(self.time_control.map(|tc| (tc.base_ms, tc.increment_ms)));
        Some(RatedEnd { rating: RatingKey { game, speed }, players: vec![white, black], places })
    }

    /// Records the rating changes of [`Room::rating_due`] (White's, then Black's): the
    /// `ratings_changed` event, and no rating is due any more.
    pub fn record_ratings(&mut self, changes: &[RatingChange]) {
        if let [white, black] = changes {
            self.ratings_applied = true;
            self.emit(RoomEvent::RatingsChanged {
                ratings: Box::new(ByColor { white: *white, black: *black }),
            });
        }
    }

    /// The access code.
    pub fn code(&self) -> &AccessCode {
        &self.code
    }

    /// The number of the last event.
    pub fn seq(&self) -> u64 {
        self.log.seq()
    }

    /// The phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The result, once finished.
    pub fn result(&self) -> Option<GameResult> {
        self.result
    }

    /// The identified player of each seat (for a casual room, those who identified before
    /// taking it).
    pub fn players(&self) -> ByColor<Option<PlayerKey>> {
        self.players
    }

    /// Records who took `seat` in a casual room (a rated room's creator comes with
    /// [`Room::rated_for`]); it changes nothing of the game.
    pub fn set_player(&mut self, seat: Color, player: Option<PlayerKey>) {
        *self.players.get_mut(seat) = player;
    }

    /// The variant.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The time control, if any.
    pub fn time_control(&self) -> Option<TimeControl> {
        self.time_control
    }

    /// Whether the armies are built in hidden setup.
    pub fn hidden_setup(&self) -> bool {
        self.hidden_setup
    }

    /// Half-moves played.
    pub fn ply(&self) -> u32 {
        u32::try_from(self.moves.len()).unwrap_or(u32::MAX)
    }

    /// Whether each seat has been taken.
    pub fn seats_taken(&self) -> ByColor<bool> {
        ByColor { white: self.tokens.white.is_some(), black: self.tokens.black.is_some() }
    }

    /// The game as PGN with the players' `names` (`?` for none), once it has started; the
    /// `Result` is the room's (a resignation or a fallen flag too).
    pub fn pgn(&self, names: ByColor<Option<String>>) -> Option<String> {
        let game = self.game.as_ref()?;
        let name = |n: Option<String>| n.unwrap_or_else(|| "?".to_owned());
        let tags = maharajah_engine::PgnTags {
            extra: vec![
                ("Event".into(), "Maharajah online".into()),
                ("Site".into(), self.code.to_string()),
                ("White".into(), name(names.white)),
                ("Black".into(), name(names.black)),
            ],
        };
        let mut pgn = maharajah_engine::to_pgn(game.engine(), &tags);
        let result = match self.result.map(|r| r.outcome) {
            Some(Outcome::WhiteWins) => "1-0",
            Some(Outcome::BlackWins) => "0-1",
            Some(Outcome::Draw) => "1/2-1/2",
            _ => "*",
        };
        if result != "*" && game.engine().outcome().is_none() {
            pgn = pgn.replacen("[Result \"*\"]", &format!("[Result \"{result}\"]"), 1);
            let trimmed = pgn.trim_end();
            if let Some(body) = trimmed.strip_suffix('*') {
                pgn = format!("{body}{result}\n");
            }
        }
        Some(pgn)
    }

    /// Whether a seat's player is connected.
    pub fn is_connected(&self, seat: Color) -> bool {
        *self.connected.get(seat)
    }

    /// The seat a token belongs to (constant-time comparison against both seats).
    pub fn seat_of(&self, token: &str) -> Option<Color> {
        let digest = token_digest(token);
        let mut found = None;
        for c in Color::ALL {
            if let Some(t) = self.tokens.get(c) {
                if army::constant_time_eq(t.as_bytes(), digest.as_bytes()) {
                    found = Some(c);
                }
            }
        }
        found
    }

    /// When the room expires.
    pub fn expires_at(&self) -> Millis {
        self.expires_at
    }

    /// Whether the room has expired at `now`: its lifetime is over, or it is waiting for the
    /// opponent and its creator has been gone for [`Lifetimes::abandoned`].
    pub fn is_expired(&self, now: Millis) -> bool {
        now >= self.expires_at || self.abandoned_at().is_some_and(|t| now >= t)
    }

    /// When a waiting room whose creator is away is dropped (`None` while someone is there).
    fn abandoned_at(&self) -> Option<Millis> {
        let waiting = self.phase == Phase::WaitingForOpponent;
        self.lifetimes.abandoned_at(self.away_since.filter(|_| waiting))
    }

    /// Postpones expiry after activity.
    pub fn touch(&mut self, now: Millis) {
        let life = match self.phase {
            Phase::WaitingForOpponent => self.lifetimes.open,
            Phase::Setup | Phase::Playing => self.lifetimes.idle,
            Phase::Finished => self.lifetimes.finished,
        };
        let candidate = now.saturating_add(ms(life));
        // A waiting room's lifetime counts from its creation, not from its creator's pings.
        if self.phase != Phase::WaitingForOpponent || self.expires_at == 0 {
            self.expires_at = candidate;
        }
    }

    fn emit(&mut self, event: RoomEvent) {
        self.log.push(event);
    }

    /// The events numbered after `seq` as wire messages, if the ring buffer still holds all of
    /// them; `None` means the client needs a snapshot.
    pub fn events_after(&self, seq: u64) -> Option<Vec<ServerMsg>> {
        let events = self.log.after(seq)?;
        let code = &self.code;
        Some(
            events
                .into_iter()
                .map(|(seq, event)| ServerMsg::Event { code: code.clone(), seq, event })
                .collect(),
        )
    }

    fn clock_view(&self, now: Millis) -> Option<ClockView> {
        self.clock.as_ref().map(|c| ClockView::of(c, now))
    }

    fn pause_view(&self, now: Millis) -> Option<PauseView> {
        self.pause.map(|p| PauseView {
            by: p.by,
            reason: p.reason,
            remaining_ms: p.ends_at.saturating_sub(now),
        })
    }

    /// The whole visible state at `now`.
    pub fn snapshot(&self, now: Millis) -> Snapshot {
        let both_revealed = self.reveals.white.is_some() && self.reveals.black.is_some();
        Snapshot {
            code: self.code.clone(),
            seq: self.log.seq(),
            variant: self.variant,
            time_control: self.time_control,
            hidden_setup: self.hidden_setup,
            phase: self.phase,
            seats: ByColor::new_with(|c| SeatView {
                taken: self.tokens.get(c).is_some(),
                connected: *self.connected.get(c),
                pause_available: *self.pause_available.get(c),
                committed: self.commitments.get(c).is_some(),
                revealed: self.reveals.get(c).is_some(),
            }),
            armies: if both_revealed { self.armies() } else { None },
            commitments: self.commitments.clone(),
            nonces: if both_revealed { self.both_nonces() } else { None },
            start_fen: self.start_fen.clone(),
            moves: self.moves.clone(),
            fen: self.game.as_ref().map(Game::fen),
            clock: self.clock_view(now),
            pause: self.pause_view(now),
            draw_offer: self.draw_offer,
            result: self.result,
        }
    }

    fn both_nonces(&self) -> Option<ByColor<String>> {
        Some(ByColor { white: self.nonces.white.clone()?, black: self.nonces.black.clone()? })
    }

    fn armies(&self) -> Option<ByColor<String>> {
        Some(ByColor { white: self.reveals.white.clone()?, black: self.reveals.black.clone()? })
    }

    /// Takes the free seat with `token`.
    ///
    /// # Errors
    ///
    /// [`ErrorCode::RoomFull`] when both seats are taken; an engine error if the game cannot
    /// start (the seat is then not taken).
    pub fn join(&mut self, token: String, now: Millis) -> Result<Color, RoomError> {
        self.join_as(token, None, now)
    }

    /// [`Room::join`] by the identified `player`, if any.
    ///
    /// # Errors
    ///
    /// As [`Room::join`]; for a rated room also [`ErrorCode::NotIdentified`] without a player
    /// and [`ErrorCode::Forbidden`] for the player already in the other seat.
    pub fn join_as(
        &mut self,
        token: String,
        player: Option<PlayerKey>,
        now: Millis,
    ) -> Result<Color, RoomError> {
        let seat = match (&self.tokens.white, &self.tokens.black) {
            (None, _) => Color::White,
            (_, None) => Color::Black,
            _ => return Err(RoomError::new(ErrorCode::RoomFull, "both seats are taken")),
        };
        if self.rated {
            let Some(key) = player else {
                return Err(RoomError::new(
                    ErrorCode::NotIdentified,
                    "this game is rated: identify as a player to join it",
                ));
            };
            if *self.players.get(seat.other()) == Some(key) {
                return Err(RoomError::new(
                    ErrorCode::Forbidden,
                    "you cannot play yourself in a rated game",
                ));
            }
        }
        let game = if self.hidden_setup { None } else { Some(Game::start(self.variant)?) };
        *self.players.get_mut(seat) = player;
        *self.tokens.get_mut(seat) = Some(token_digest(&token));
        *self.connected.get_mut(seat) = true;
        self.emit(RoomEvent::SeatTaken { seat });
        match game {
            None => {
                self.phase = Phase::Setup;
                self.emit(RoomEvent::SetupStarted);
            }
            Some(g) => self.start_game(g, None, now),
        }
        self.touch(now);
        Ok(seat)
    }

    fn start_game(&mut self, game: Game, armies: Option<ByColor<String>>, now: Millis) {
        let fen = game.fen();
        self.start_fen = Some(fen.clone());
        self.game = Some(game);
        self.phase = Phase::Playing;
        if let Some(tc) = self.time_control {
            let mut clock = Clock::new(tc);
            clock.start(Color::White, now);
            self.clock = Some(clock);
        }
        let clock = self.clock_view(now);
        self.emit(RoomEvent::GameStarted { start_fen: fen, armies, clock });
        self.check_shield(now);
    }

    /// A seat's connection came back.
    pub fn connect(&mut self, seat: Color, now: Millis) {
        if !*self.connected.get(seat) {
            *self.connected.get_mut(seat) = true;
            self.emit(RoomEvent::Presence { seat, connected: true });
        }
        self.away_since = None;
        if let Some(p) = self.pause {
            let ends = match p.reason {
                PauseReason::Disconnected | PauseReason::ServerRestart => p.by == seat,
                PauseReason::Requested => false,
            };
            if ends {
                self.end_pause(now);
            }
        }
    }

    /// A seat's connection dropped.
    pub fn disconnect(&mut self, seat: Color, now: Millis) {
        if *self.connected.get(seat) {
            *self.connected.get_mut(seat) = false;
            self.emit(RoomEvent::Presence { seat, connected: false });
        }
        if !self.connected.white && !self.connected.black {
            self.away_since.get_or_insert(now);
        }
        self.check_shield(now);
    }

    /// A seat's connection was handed over by a node of a cluster that is draining: the
    /// player will be back through another node in a moment. As after a restart, the side to
    /// move's clock is frozen (a `server_restart` pause, nobody's pause spent) until it is
    /// back or the recovery grace ends, instead of the disconnect shield spending its pause.
    pub fn hand_over(&mut self, seat: Color, now: Millis) {
        let running = self.clock.as_ref().and_then(Clock::running);
        if self.is_live() && self.pause.is_none() && running == Some(seat) {
            let ends = now.saturating_add(ms(self.lifetimes.recovery_grace));
            self.begin_pause(seat, PauseReason::ServerRestart, ends, now);
        }
        self.disconnect(seat, now);
    }

    fn is_live(&self) -> bool {
        self.phase == Phase::Playing && self.result.is_none()
    }

    /// The disconnect shield: spend the absent running side's pause for it.
    fn check_shield(&mut self, now: Millis) {
        if !self.is_live() || self.pause.is_some() {
            return;
        }
        let Some(side) = self.clock.as_ref().and_then(Clock::running) else { return };
        if *self.connected.get(side) || !*self.pause_available.get(side) {
            return;
        }
        *self.pause_available.get_mut(side) = false;
        self.begin_pause(side, PauseReason::Disconnected, now.saturating_add(PAUSE_MS), now);
    }

    fn begin_pause(&mut self, by: Color, reason: PauseReason, ends_at: Millis, now: Millis) {
        if let Some(c) = self.clock.as_mut() {
            c.stop(now);
        }
        self.pause = Some(ActivePause { by, reason, ends_at });
        let pause = self.pause_view(now).unwrap_or(PauseView { by, reason, remaining_ms: 0 });
        let clock = self.clock_view(now);
        self.emit(RoomEvent::Paused { pause, clock });
    }

    fn end_pause(&mut self, now: Millis) {
        if self.pause.take().is_none() {
            return;
        }
        let to_move = self.side_to_move();
        if let Some(c) = self.clock.as_mut() {
            c.start(to_move, now);
        }
        let clock = self.clock_view(now);
        self.emit(RoomEvent::Resumed { clock });
        self.check_shield(now);
    }

    fn side_to_move(&self) -> Color {
        self.game.as_ref().map_or(Color::White, Game::side_to_move)
    }

    fn has_moved(&self, side: Color) -> bool {
        match side {
            Color::White => !self.moves.is_empty(),
            Color::Black => self.moves.len() >= 2,
        }
    }

    fn finish(&mut self, result: GameResult, now: Millis) {
        if let Some(c) = self.clock.as_mut() {
            c.stop(now);
        }
        self.pause = None;
        self.draw_offer = None;
        self.result = Some(result);
        self.phase = Phase::Finished;
        let clock = self.clock_view(now);
        self.emit(RoomEvent::GameOver { result, clock });
        self.touch(now);
    }

    fn flag(&mut self, side: Color, now: Millis) {
        let opponent_can_mate =
            self.game.as_ref().is_some_and(|g| g.has_mating_material(side.other()));
        self.finish(flag_result(side, self.has_moved(side), opponent_can_mate), now);
    }

    /// The next moment the room must be woken up: a pause ending, a flag falling or expiry.
    pub fn next_deadline(&self) -> Millis {
        let mut d = self.abandoned_at().map_or(self.expires_at, |t| t.min(self.expires_at));
        if let Some(p) = self.pause {
            d = d.min(p.ends_at);
        }
        if self.is_live() {
            if let Some(f) = self.clock.as_ref().and_then(Clock::deadline) {
                d = d.min(f);
            }
        }
        d
    }

    /// Applies whatever time alone does at `now`: automatic resume, fallen flags, the shield.
    pub fn on_time(&mut self, now: Millis) {
        if self.pause.is_some_and(|p| now >= p.ends_at) {
            self.end_pause(now);
        }
        if self.is_live() && self.pause.is_none() {
            if let Some(side) = self.clock.as_ref().and_then(|c| c.flagged(now)) {
                self.flag(side, now);
            }
        }
        self.check_shield(now);
    }

    /// Performs `action` for the seat holding `token`.
    ///
    /// # Errors
    ///
    /// A [`RoomError`] when refused. A refused request changes nothing, except that time is
    /// applied first (a flag that has fallen by `now` ends the game even if the request fails).
    pub fn act(&mut self, token: &str, action: Action, now: Millis) -> Result<Reply, RoomError> {
        let seat = self
            .seat_of(token)
            .ok_or_else(|| RoomError::new(ErrorCode::Forbidden, "this token holds no seat here"))?;
        self.on_time(now);
        let reply = match action {
            Action::Commit { commitment } => self.commit(seat, &commitment),
            Action::Reveal { army, nonce } => self.reveal(seat, &army, &nonce, now),
            Action::Move { ply, uci } => self.play(seat, ply, &uci, now),
            Action::Pause => self.request_pause(seat, now),
            Action::Resume => self.resume(seat, now),
            Action::Resign => self.resign(seat, now),
            Action::OfferDraw => self.offer_draw(seat, now),
            Action::DeclineDraw => self.decline_draw(seat),
            Action::ClaimDraw => self.claim_draw(seat, now),
        }?;
        self.touch(now);
        Ok(reply)
    }

    /// Resigning a game in play loses it; leaving before the game started (waiting for an
    /// opponent, or in hidden setup, e.g. stuck with a commitment to an army the rules refuse)
    /// ends the room with no result.
    fn resign(&mut self, seat: Color, now: Millis) -> Result<Reply, RoomError> {
        let outcome = match self.phase {
            Phase::Playing => Outcome::win_for(seat.other()),
            Phase::WaitingForOpponent | Phase::Setup => Outcome::Annulled,
            Phase::Finished => return Err(RoomError::new(ErrorCode::GameOver, "the game is over")),
        };
        self.finish(GameResult { outcome, reason: EndReason::Resignation }, now);
        Ok(Reply::Done)
    }

    fn live_check(&self) -> Result<(), RoomError> {
        match self.phase {
            Phase::Playing => Ok(()),
            Phase::Finished => Err(RoomError::new(ErrorCode::GameOver, "the game is over")),
            Phase::WaitingForOpponent | Phase::Setup => {
                Err(RoomError::new(ErrorCode::WrongPhase, "the game has not started"))
            }
        }
    }

    fn commit(&mut self, seat: Color, commitment: &str) -> Result<Reply, RoomError> {
        if self.phase != Phase::Setup {
            return Err(RoomError::new(ErrorCode::WrongPhase, "not in hidden setup"));
        }
        if self.commitments.get(seat).is_some() {
            return Err(RoomError::new(ErrorCode::AlreadyCommitted, "you have already committed"));
        }
        let c = army::normalize_commitment(commitment)
            .map_err(|e| RoomError::new(ErrorCode::BadCommitment, e.to_string()))?;
        *self.commitments.get_mut(seat) = Some(c.clone());
        self.emit(RoomEvent::Committed { seat, commitment: c });
        if self.commitments.white.is_some() && self.commitments.black.is_some() {
            self.emit(RoomEvent::RevealOpen);
        }
        Ok(Reply::SetupAck("commit"))
    }

    fn reveal(
        &mut self,
        seat: Color,
        army_text: &str,
        nonce: &str,
        now: Millis,
    ) -> Result<Reply, RoomError> {
        if self.phase != Phase::Setup {
            return Err(RoomError::new(ErrorCode::WrongPhase, "not in hidden setup"));
        }
        let Some(commitment) = self.commitments.get(seat).clone() else {
            return Err(RoomError::new(ErrorCode::WrongPhase, "commit before you reveal"));
        };
        if self.commitments.get(seat.other()).is_none() {
            return Err(RoomError::new(
                ErrorCode::WrongPhase,
                "wait for your opponent's commitment before revealing",
            ));
        }
        if self.reveals.get(seat).is_some() {
            return Err(RoomError::new(ErrorCode::AlreadyCommitted, "you have already revealed"));
        }
        let bad = |e: army::ArmyTextError| RoomError::new(ErrorCode::BadCommitment, e.to_string());
        let nonce_bytes = army::parse_nonce(nonce).map_err(bad)?;
        if !army::opens(&commitment, army_text, &nonce_bytes).map_err(bad)? {
            return Err(RoomError::new(
                ErrorCode::CommitmentMismatch,
                "this army and nonce do not match your commitment",
            ));
        }
        let canonical = army::canonical_army(army_text).map_err(bad)?;
        rules::validate_army(seat, &canonical)?;
        *self.reveals.get_mut(seat) = Some(canonical);
        *self.nonces.get_mut(seat) = Some(hex::encode(nonce_bytes));
        self.emit(RoomEvent::Revealed { seat });
        if let (Some(armies), Some(nonces)) = (self.armies(), self.both_nonces()) {
            match Game::from_armies(&armies.white, &armies.black) {
                Ok(game) => {
                    self.emit(RoomEvent::ArmiesOpened { armies: armies.clone(), nonces });
                    self.start_game(game, Some(armies), now);
                }
                Err(_) => {
                    // Each army is valid alone but together they may not start (e.g. a king
                    // in check). Nobody can be blamed: setup starts over, commitments included.
                    // The reason names no square, so neither army leaks into the next round.
                    // Still, a failed round tells a player one bit about the hidden army (a
                    // probe rook on e4 fails against an open e-file), so rounds are few: after
                    // SETUP_ROUNDS the game is annulled, and a prober learns at most
                    // SETUP_ROUNDS - 1 bits per game, each one visible to the opponent.
                    self.commitments = ByColor::default();
                    self.reveals = ByColor::default();
                    self.nonces = ByColor::default();
                    self.failed_setups += 1;
                    if self.failed_setups >= SETUP_ROUNDS {
                        let result = GameResult {
                            outcome: Outcome::Annulled,
                            reason: EndReason::SetupFailed,
                        };
                        self.finish(result, now);
                        return Ok(Reply::SetupAck("reveal"));
                    }
                    let left = SETUP_ROUNDS - self.failed_setups;
                    let reason = format!(
                        "these two armies cannot start together (a king would begin in check, or \
                         White would have no legal move); build again ({left} more {} before the \
                         game is annulled)",
                        if left == 1 { "try" } else { "tries" }
                    );
                    self.emit(RoomEvent::SetupRejected { reason });
                    self.emit(RoomEvent::SetupStarted);
                }
            }
        }
        Ok(Reply::SetupAck("reveal"))
    }

    fn play(&mut self, seat: Color, ply: u32, uci: &str, now: Millis) -> Result<Reply, RoomError> {
        let uci = uci.trim().to_ascii_lowercase();
        let index = usize::try_from(ply).unwrap_or(usize::MAX);
        // A resent move is answered as the first time, even after the game ended.
        if let Some(played) = self.moves.get(index) {
            let mover = if index % 2 == 0 { Color::White } else { Color::Black };
            if *played == uci && mover == seat {
                let seq = self.move_seqs.get(index).copied().unwrap_or(0);
                return Ok(Reply::MoveAck { ply, seq });
            }
            return Err(RoomError::new(
                ErrorCode::StalePly,
                format!("ply {ply} has already been played; the next ply is {}", self.moves.len()),
            ));
        }
        self.live_check()?;
        if index != self.moves.len() {
            return Err(RoomError::new(
                ErrorCode::StalePly,
                format!("the next ply is {}, not {ply}", self.moves.len()),
            ));
        }
        if self.side_to_move() != seat {
            return Err(RoomError::new(ErrorCode::NotYourTurn, "it is your opponent's turn"));
        }
        if self.pause.is_some() {
            return Err(RoomError::new(ErrorCode::GamePaused, "the game is paused"));
        }
        let Some(game) = self.game.as_mut() else {
            return Err(RoomError::new(ErrorCode::Internal, "no position"));
        };
        let mut next = game.clone();
        next.play_uci(&uci)?;
        if let Some(clock) = self.clock.as_mut() {
            if let Err(f) = clock.press(now) {
                // Unreachable after on_time, kept so a late move can never be accepted.
                self.flag(f.0, now);
                return Err(RoomError::new(ErrorCode::GameOver, "your time ran out"));
            }
        }
        let fen = next.fen();
        let outcome = next.outcome();
        self.game = Some(next);
        self.moves.push(uci.clone());
        let seq = self.log.seq() + 1;
        self.move_seqs.push(seq);
        let clock = self.clock_view(now);
        self.emit(RoomEvent::Moved { ply, uci, fen, clock });
        if self.draw_offer == Some(seat.other()) {
            self.draw_offer = None;
            self.emit(RoomEvent::DrawDeclined { by: seat });
        }
        if let Some(result) = outcome {
            self.finish(result, now);
        } else {
            self.check_shield(now);
        }
        Ok(Reply::MoveAck { ply, seq })
    }

    fn request_pause(&mut self, seat: Color, now: Millis) -> Result<Reply, RoomError> {
        self.live_check()?;
        if self.clock.is_none() {
            return Err(RoomError::new(ErrorCode::NoClock, "an untimed game has no pauses"));
        }
        if self.pause.is_some() {
            return Err(RoomError::new(ErrorCode::GamePaused, "the game is already paused"));
        }
        if !*self.pause_available.get(seat) {
            return Err(RoomError::new(ErrorCode::PauseUsed, "you have used your pause"));
        }
        *self.pause_available.get_mut(seat) = false;
        self.begin_pause(seat, PauseReason::Requested, now.saturating_add(PAUSE_MS), now);
        Ok(Reply::Done)
    }

    fn resume(&mut self, seat: Color, now: Millis) -> Result<Reply, RoomError> {
        match self.pause {
            Some(p) if p.by == seat && p.reason != PauseReason::ServerRestart => {
                self.end_pause(now);
                Ok(Reply::Done)
            }
            _ => Err(RoomError::new(ErrorCode::NotPaused, "there is no pause of yours to end")),
        }
    }

    fn offer_draw(&mut self, seat: Color, now: Millis) -> Result<Reply, RoomError> {
        self.live_check()?;
        match self.draw_offer {
            Some(by) if by == seat.other() => {
                let result = GameResult { outcome: Outcome::Draw, reason: EndReason::Agreement };
                self.finish(result, now);
            }
            Some(_) => {}
            None => {
                self.draw_offer = Some(seat);
                self.emit(RoomEvent::DrawOffered { by: seat });
            }
        }
        Ok(Reply::Done)
    }

    fn decline_draw(&mut self, seat: Color) -> Result<Reply, RoomError> {
        self.live_check()?;
        if self.draw_offer != Some(seat.other()) {
            return Err(RoomError::new(ErrorCode::NoDraw, "there is no draw offer to decline"));
        }
        self.draw_offer = None;
        self.emit(RoomEvent::DrawDeclined { by: seat });
        Ok(Reply::Done)
    }

    fn claim_draw(&mut self, seat: Color, now: Millis) -> Result<Reply, RoomError> {
        self.live_check()?;
        if self.side_to_move() != seat {
            return Err(RoomError::new(
                ErrorCode::NotYourTurn,
                "only the player to move may claim",
            ));
        }
        let reason = self
            .game
            .as_ref()
            .and_then(Game::claimable_draw)
            .ok_or_else(|| RoomError::new(ErrorCode::NoDraw, "no draw can be claimed now"))?;
        self.finish(GameResult { outcome: Outcome::Draw, reason }, now);
        Ok(Reply::Done)
    }

    /// What must be stored so the room survives a restart.
    pub fn to_record(&self, now: Millis) -> RoomRecord {
        RoomRecord {
            code: self.code.clone(),
            variant: self.variant,
            time_control: self.time_control,
            hidden_setup: self.hidden_setup,
            tokens: self.tokens.clone(),
            phase: self.phase,
            commitments: self.commitments.clone(),
            reveals: self.reveals.clone(),
            nonces: self.nonces.clone(),
            moves: self.moves.clone(),
            move_seqs: self.move_seqs.clone(),
            clock_ms: self.clock.as_ref().map(|c| c.remaining_both(now)),
            pause_available: self.pause_available,
            draw_offer: self.draw_offer,
            result: self.result,
            seq: self.log.seq(),
            expires_at: Some(self.expires_at),
            failed_setups: self.failed_setups,
            rated: self.rated,
            players: self.players,
            ratings_applied: self.ratings_applied,
        }
    }

    /// Rebuilds a room after a restart. Both seats start disconnected; a game in progress with
    /// a clock starts frozen (a `server_restart` pause that spends nobody's pause) until the
    /// side to move is back or the recovery grace ends. The event ring starts empty, so
    /// reconnecting clients get a snapshot.
    ///
    /// # Errors
    ///
    /// A [`RulesError`] if the stored moves no longer replay.
    pub fn from_record(
        r: RoomRecord,
        now: Millis,
        lifetimes: Lifetimes,
    ) -> Result<Room, RulesError> {
        let mut game = None;
        let mut start_fen = None;
        if matches!(r.phase, Phase::Playing | Phase::Finished) {
            let mut g = match (&r.reveals.white, &r.reveals.black, r.hidden_setup) {
                (Some(w), Some(b), true) => Game::from_armies(w, b)?,
                _ => Game::start(r.variant)?,
            };
            start_fen = Some(g.fen());
            for m in &r.moves {
                g.play_uci(m)?;
            }
            game = Some(g);
        }
        let clock = match (r.time_control, r.clock_ms) {
            (Some(tc), Some(left)) => Some(Clock::with_remaining(tc, left)),
            (Some(tc), None) => (r.phase == Phase::Playing).then(|| Clock::new(tc)),
            _ => None,
        };
        let mut room = Room {
            code: r.code,
            variant: r.variant,
            time_control: r.time_control,
            hidden_setup: r.hidden_setup,
            tokens: ByColor {
                white: r.tokens.white.map(kept_digest),
                black: r.tokens.black.map(kept_digest),
            },
            connected: ByColor::default(),
            phase: r.phase,
            commitments: r.commitments,
            reveals: r.reveals,
            nonces: r.nonces,
            game,
            start_fen,
            moves: r.moves,
            move_seqs: r.move_seqs,
            clock,
            pause_available: r.pause_available,
            pause: None,
            draw_offer: r.draw_offer,
            result: r.result,
            log: EventLog::starting_at(r.seq),
            expires_at: r.expires_at.unwrap_or(0),
            // Nobody is connected after a restart: a waiting room's creator has the abandon
            // deadline from now to come back.
            away_since: Some(now),
            failed_setups: r.failed_setups,
            lifetimes,
            rated: r.rated,
            players: r.players,
            ratings_applied: r.ratings_applied,
        };
        if room.is_live() && room.clock.is_some() {
            let by = room.side_to_move();
            let ends = now.saturating_add(ms(lifetimes.recovery_grace));
            room.begin_pause(by, PauseReason::ServerRestart, ends, now);
        }
        if room.expires_at == 0 {
            room.touch(now);
        }
        Ok(room)
    }
}

#[cfg(test)]
mod tests;
