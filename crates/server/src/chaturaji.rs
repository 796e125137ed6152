//! One Chaturaji room as a pure state machine: four seats (people and CPU), device ids, the
//! authoritative game with server-rolled dice, CPU stand-ins, the turn timer, rematches and
//! numbered events. No I/O and no clock of its own: calls that depend on time take `now`.
//!
//! - **Seats.** The settings say which seats are people (2–4); the others are CPU seats with a
//!   level. The creator takes the first person seat (Red, Blue, Yellow, Green order); joiners take
//!   the next free ones. The first game starts when every person seat is taken.
//! - **Devices.** Each person seat remembers its token and the device id of whoever took it. A
//!   `join` from a device that already holds a seat gets that seat (and its token) back; a
//!   `rejoin` needs both the token and the device; another device is refused (`forbidden`).
//! - **Stand-ins.** When a person's connection drops during a game, the CPU plays their seat
//!   (`cpu_took_over`) until they come back from the same device (`handed_back`).
//! - **Room-played steps.** On the turn of a seat the room plays (a CPU seat or a stand-in) the
//!   room rolls and chooses with [`cpu::choose_action`], one step every [`CPU_DELAY_MS`]. The
//!   CPU's RNG is seeded from the game's dice seed and the step number, so a replay after a
//!   restart makes the same choices.
//! - **Dice.** Rolled by the room from the game's seed through [`RecordedGame`], whose record is
//!   what is stored; recovery replays it with [`RecordedGame::resume`].
//! - **Turn timer.** With 30/60 s per turn, the room applies `time_out` when the turn of the seat
//!   to move has lasted that long. After a restart the seat to move gets a fresh full turn.
//! - **Idempotent actions.** Every action carries `step`, the number of steps in the game record
//!   so far. The same action resent by the same seat at an already played step gets the same
//!   ack; any other old or future step is refused as `stale_ply` and changes nothing.
//! - **Rematch.** After a game, any person seat may start the next one: settings
//!   [`Settings::for_next_game`] (the first seat rotates when the rule says so), a new seed
//!   derived from the previous one.

use maharajah_chaturaji::cpu::{self, Level};
use maharajah_chaturaji::game::{Action as GameAction, Event};
use maharajah_chaturaji::record::{Record, RecordedGame, Step, StepError};
use maharajah_chaturaji::settings::Player;
use maharajah_chaturaji::{BySeat, GameError, Phase, Seat, Settings};
use maharajah_protocol::army::constant_time_eq;
use maharajah_protocol::{
    AccessCode, ChaturajiAction, ChaturajiEvent, ChaturajiMsg, ChaturajiSeatView,
    ChaturajiSnapshot, DieView, ErrorCode,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::clock::Millis;
use crate::rooms::{ms, EventLog, Lifetimes, RoomError};

/// How long the room waits before each step it plays for a CPU seat or a stand-in.
pub const CPU_DELAY_MS: u64 = 600;

/// Shortest and longest accepted device id.
pub const DEVICE_ID_LEN: std::ops::RangeInclusive<usize> = 16..=128;

/// A mixing function (SplitMix64) for derived seeds.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One seat as stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatState {
    /// A person's seat (else a CPU seat).
    pub person: bool,
    /// The seat's token, once taken.
    pub token: Option<String>,
    /// The device id of the person who took it.
    pub device: Option<String>,
    /// The CPU is standing in for the absent person.
    pub stand_in: bool,
    /// Connected now (never stored: nobody is connected after a restart).
    #[serde(skip)]
    pub connected: bool,
}

/// Who played a step, for resends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepInfo {
    /// The seat the step was played for.
    pub seat: Seat,
    /// The person's action, or `None` for a step the room played.
    pub action: Option<ChaturajiAction>,
    /// The event number of its `played` event.
    pub seq: u64,
}

/// Everything about a Chaturaji room that must survive a restart (stored as JSON).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChaturajiRecord {
    /// Code.
    pub code: AccessCode,
    /// Settings of the current (or first) game.
    pub settings: Settings,
    /// Level of the CPU standing in for absent people.
    pub stand_in: Level,
    /// The seats.
    pub seats: BySeat<SeatState>,
    /// Number of the current game (0 before the first).
    pub game_number: u32,
    /// Dice seed of the current game.
    pub seed: u64,
    /// The current game's record (settings, seed, steps), once started.
    pub record: Option<Record>,
    /// Who played each step.
    pub steps: Vec<StepInfo>,
    /// Last event number.
    pub seq: u64,
    /// Milliseconds until the room expires, as of storing.
    pub expires_in_ms: u64,
}

/// A Chaturaji room. See the module documentation.
#[derive(Clone, Debug)]
pub struct ChaturajiRoom {
    code: AccessCode,
    lifetimes: Lifetimes,
    settings: Settings,
    stand_in: Level,
    seats: BySeat<SeatState>,
    game_number: u32,
    seed: u64,
    game: Option<RecordedGame>,
    steps: Vec<StepInfo>,
    log: EventLog<ChaturajiEvent>,
    turn_started: Millis,
    last_step_at: Millis,
    takeover_at: BySeat<Option<Millis>>,
    expires_at: Millis,
}

fn err(code: ErrorCode, message: impl Into<String>) -> RoomError {
    RoomError::new(code, message)
}

fn step_error(e: StepError) -> RoomError {
    let code = match &e {
        StepError::Rule(GameError::GameOver) => ErrorCode::GameOver,
        StepError::Rule(GameError::NotRolled { .. } | GameError::AlreadyRolled { .. }) => {
            ErrorCode::WrongPhase
        }
        _ => ErrorCode::IllegalMove,
    };
    err(code, e.to_string())
}

impl ChaturajiRoom {
    /// A new room; the creator (`token`, `device`) takes the first person seat.
    ///
    /// # Errors
    /// `invalid_options` for settings out of range or fewer than 2 person seats; `malformed`
    /// for a device id of the wrong length.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        code: AccessCode,
        settings: Settings,
        stand_in: Level,
        token: String,
        device: String,
        seed: u64,
        now: Millis,
        lifetimes: Lifetimes,
    ) -> Result<(ChaturajiRoom, Seat), RoomError> {
        settings.validate().map_err(|e| err(ErrorCode::InvalidOptions, e.to_string()))?;
        check_device(&device)?;
        let people = Seat::ALL.iter().filter(|&&s| settings.players[s] == Player::Person).count();
        if people < 2 {
            return Err(err(
                ErrorCode::InvalidOptions,
                "a Chaturaji room needs 2 to 4 person seats; the CPU plays the others",
            ));
        }
        let seats = BySeat::from_fn(|s| SeatState {
            person: settings.players[s] == Player::Person,
            token: None,
            device: None,
            stand_in: false,
            connected: false,
        });
        let mut room = ChaturajiRoom {
            code,
            lifetimes,
            settings,
            stand_in,
            seats,
            game_number: 0,
            seed,
            game: None,
            steps: Vec::new(),
            log: EventLog::default(),
            turn_started: now,
            last_step_at: now,
            takeover_at: BySeat::splat(None),
            expires_at: now.saturating_add(ms(lifetimes.open)),
        };
        let (seat, _) = room.take_free_seat(token, device, now)?;
        Ok((room, seat))
    }

    /// The access code.
    pub fn code(&self) -> &AccessCode {
        &self.code
    }

    /// The last event number.
    pub fn seq(&self) -> u64 {
        self.log.seq()
    }

    /// The current game, once started.
    pub fn game(&self) -> Option<&RecordedGame> {
        self.game.as_ref()
    }

    /// The seats.
    pub fn seats(&self) -> &BySeat<SeatState> {
        &self.seats
    }

    /// The seat a token belongs to (constant-time comparison against every seat).
    pub fn seat_of(&self, token: &str) -> Option<Seat> {
        let mut found = None;
        for s in Seat::ALL {
            if let Some(t) = &self.seats[s].token {
                if constant_time_eq(t.as_bytes(), token.as_bytes()) {
                    found = Some(s);
                }
            }
        }
        found
    }

    fn seat_of_device(&self, device: &str) -> Option<Seat> {
        let mut found = None;
        for s in Seat::ALL {
            if let Some(d) = &self.seats[s].device {
                if constant_time_eq(d.as_bytes(), device.as_bytes()) {
                    found = Some(s);
                }
            }
        }
        found
    }

    /// Whether the room has expired at `now`.
    pub fn is_expired(&self, now: Millis) -> bool {
        now >= self.expires_at
    }

    fn touch(&mut self, now: Millis) {
        let life = match &self.game {
            None => return, // a waiting room lives from its creation
            Some(g) if g.game().is_over() => self.lifetimes.finished,
            Some(_) => self.lifetimes.idle,
        };
        self.expires_at = now.saturating_add(ms(life));
    }

    fn emit(&mut self, event: ChaturajiEvent) {
        self.log.push(event);
    }

    /// The events after `seq` as wire messages, or `None` when a snapshot is needed.
    pub fn events_after(&self, seq: u64) -> Option<Vec<ChaturajiMsg>> {
        let events = self.log.after(seq)?;
        let code = &self.code;
        Some(
            events
                .into_iter()
                .map(|(seq, event)| ChaturajiMsg::ChaturajiEvent { code: code.clone(), seq, event })
                .collect(),
        )
    }

    fn turn_ms(&self) -> Option<u64> {
        self.settings.turn_time.seconds().map(|s| u64::from(s) * 1000)
    }

    fn live_game(&self) -> Option<&RecordedGame> {
        self.game.as_ref().filter(|g| !g.game().is_over())
    }

    /// When the turn of the seat to move times out, if turns are timed and a game is on.
    pub fn turn_deadline(&self) -> Option<Millis> {
        self.live_game()?;
        Some(self.turn_started.saturating_add(self.turn_ms()?))
    }

    fn turn_remaining(&self, now: Millis) -> Option<u64> {
        self.turn_deadline().map(|d| d.saturating_sub(now))
    }

    /// Whether the room plays `seat` now (a CPU seat, or a person's seat with a stand-in).
    pub fn is_room_played(&self, seat: Seat) -> bool {
        !self.seats[seat].person || self.seats[seat].stand_in
    }

    fn cpu_due(&self) -> Option<Millis> {
        let g = self.live_game()?;
        self.is_room_played(g.game().to_move())
            .then(|| self.last_step_at.saturating_add(CPU_DELAY_MS))
    }

    /// The next time [`ChaturajiRoom::on_time`] has something to do (turn timer, a CPU step, a
    /// stand-in taking over after a restart, expiry).
    pub fn next_deadline(&self) -> Millis {
        let takeovers = Seat::ALL.iter().filter_map(|&s| self.takeover_at[s]);
        [self.turn_deadline(), self.cpu_due()]
            .into_iter()
            .flatten()
            .chain(takeovers)
            .fold(self.expires_at, Millis::min)
    }

    fn take_free_seat(
        &mut self,
        token: String,
        device: String,
        now: Millis,
    ) -> Result<(Seat, String), RoomError> {
        let Some(seat) =
            Seat::ALL.into_iter().find(|&s| self.seats[s].person && self.seats[s].token.is_none())
        else {
            return Err(err(ErrorCode::RoomFull, "every person seat of this room is taken"));
        };
        let st = &mut self.seats[seat];
        st.token = Some(token.clone());
        st.device = Some(device);
        st.connected = true;
        self.emit(ChaturajiEvent::SeatTaken { seat });
        if self.game.is_none()
            && Seat::ALL.iter().all(|&s| !self.seats[s].person || self.seats[s].token.is_some())
        {
            self.start_game(now)?;
        }
        Ok((seat, token))
    }

    /// Takes a free person seat with `token`, or gives a device its own seat back (with the
    /// seat's existing token).
    ///
    /// # Errors
    /// `room_full` when no person seat is free; `malformed` for a bad device id.
    pub fn join(
        &mut self,
        token: String,
        device: String,
        now: Millis,
    ) -> Result<(Seat, String), RoomError> {
        check_device(&device)?;
        if let Some(seat) = self.seat_of_device(&device) {
            self.connect(seat, now);
            let token = self.seats[seat].token.clone().unwrap_or_default();
            return Ok((seat, token));
        }
        let taken = self.take_free_seat(token, device, now)?;
        self.touch(now);
        Ok(taken)
    }

    /// Comes back to a seat: the token and the device must both be the seat's.
    ///
    /// # Errors
    /// `forbidden` otherwise.
    pub fn rejoin(&mut self, token: &str, device: &str, now: Millis) -> Result<Seat, RoomError> {
        let seat = self
            .seat_of(token)
            .filter(|&s| {
                self.seats[s]
                    .device
                    .as_ref()
                    .is_some_and(|d| constant_time_eq(d.as_bytes(), device.as_bytes()))
            })
            .ok_or_else(|| {
                err(ErrorCode::Forbidden, "this token and device hold no seat in this room")
            })?;
        self.connect(seat, now);
        Ok(seat)
    }

    /// The seat's person is connected: a stand-in hands the seat back.
    pub fn connect(&mut self, seat: Seat, _now: Millis) {
        self.takeover_at[seat] = None;
        if !self.seats[seat].connected {
            self.seats[seat].connected = true;
            self.emit(ChaturajiEvent::Presence { seat, connected: true });
        }
        if self.seats[seat].stand_in {
            self.seats[seat].stand_in = false;
            self.emit(ChaturajiEvent::HandedBack { seat });
        }
    }

    /// The seat's person dropped: during a game the CPU stands in at once.
    pub fn disconnect(&mut self, seat: Seat, now: Millis) {
        if !self.seats[seat].person || !self.seats[seat].connected {
            return;
        }
        self.seats[seat].connected = false;
        self.emit(ChaturajiEvent::Presence { seat, connected: false });
        self.take_over(seat, now);
    }

    fn take_over(&mut self, seat: Seat, now: Millis) {
        self.takeover_at[seat] = None;
        if self.live_game().is_some() && !self.seats[seat].stand_in {
            self.seats[seat].stand_in = true;
            self.emit(ChaturajiEvent::CpuTookOver { seat });
            if self.game.as_ref().is_some_and(|g| g.game().to_move() == seat) {
                // The stand-in waits its usual delay from now, not from the last step.
                self.last_step_at = self.last_step_at.max(now);
            }
        }
    }

    fn start_game(&mut self, now: Millis) -> Result<(), RoomError> {
        let game = RecordedGame::new(self.settings.clone(), self.seed)
            .map_err(|e| err(ErrorCode::InvalidOptions, e.to_string()))?;
        self.game = Some(game);
        self.game_number += 1;
        self.steps.clear();
        self.turn_started = now;
        self.last_step_at = now;
        self.emit(ChaturajiEvent::GameStarted {
            game: self.game_number,
            settings: self.settings.clone(),
            turn_ms: self.turn_ms(),
        });
        for seat in Seat::ALL {
            if self.seats[seat].person && !self.seats[seat].connected {
                self.take_over(seat, now);
            }
        }
        self.touch(now);
        Ok(())
    }

    /// Plays one step; `action` is `None` for a roll.
    fn play(
        &mut self,
        seat: Seat,
        person: Option<ChaturajiAction>,
        action: Option<GameAction>,
        now: Millis,
    ) -> Result<u64, RoomError> {
        let g = self.game.as_mut().ok_or_else(|| err(ErrorCode::WrongPhase, "no game yet"))?;
        let events = match action {
            None => g.roll(),
            Some(a) => g.act(a),
        }
        .map_err(step_error)?;
        let step = g.record().actions.len() - 1;
        let mut recorded = g.record().actions[step];
        if let Step::Roll { dice: None } = recorded {
            // A roll that ended the turn at once (no usable die) is recorded without its faces
            // (the seed has them); the event always carries them.
            let faces = events.iter().find_map(|e| match e {
                Event::Rolled { dice, .. } => Some([dice[0].face, dice[1].face]),
                _ => None,
            });
            recorded = Step::Roll { dice: faces };
        }
        let game = g.game();
        let (dice, scores, to_move, round) =
            (DieView::of(game), game.scores(), game.to_move(), game.round());
        let outcome = game.outcome().cloned();
        if events.iter().any(|e| matches!(e, Event::TurnEnded { .. } | Event::TurnSkipped { .. })) {
            self.turn_started = now;
        }
        self.last_step_at = now;
        self.emit(ChaturajiEvent::Played {
            step: u32::try_from(step).unwrap_or(u32::MAX),
            seat,
            by_room: person.is_none(),
            action: recorded,
            events,
            dice,
            scores,
            to_move,
            round,
            turn_remaining_ms: self.turn_remaining(now),
        });
        let seq = self.log.seq();
        self.steps.push(StepInfo { seat, action: person, seq });
        if let Some(outcome) = outcome {
            self.emit(ChaturajiEvent::GameOver { outcome });
        }
        self.touch(now);
        Ok(seq)
    }

    /// A person's action. Returns the step and the event number to acknowledge.
    ///
    /// # Errors
    /// `forbidden` (token), `wrong_phase` (no game yet), `stale_ply` (not the next step and not
    /// a resend), `game_over`, `not_your_turn`, `illegal_move`. Nothing changes on error.
    pub fn act(
        &mut self,
        token: &str,
        step: u32,
        action: ChaturajiAction,
        now: Millis,
    ) -> Result<(u32, u64), RoomError> {
        let seat = self
            .seat_of(token)
            .ok_or_else(|| err(ErrorCode::Forbidden, "this token holds no seat in this room"))?;
        let Some(g) = &self.game else {
            return Err(err(ErrorCode::WrongPhase, "the game has not started"));
        };
        let played = self.steps.len();
        let at = usize::try_from(step).unwrap_or(usize::MAX);
        if at < played {
            let info = self.steps[at];
            if info.seat == seat && info.action == Some(action) {
                return Ok((step, info.seq));
            }
            return Err(err(ErrorCode::StalePly, format!("step {step} was already played")));
        }
        if at > played {
            return Err(err(ErrorCode::StalePly, format!("the next step is {played}, not {step}")));
        }
        if g.game().is_over() {
            return Err(err(ErrorCode::GameOver, "the game is over"));
        }
        if action != ChaturajiAction::Resign && g.game().to_move() != seat {
            return Err(err(ErrorCode::NotYourTurn, "it is another seat's turn"));
        }
        let game_action = match action {
            ChaturajiAction::Roll => None,
            ChaturajiAction::Move(mv) => Some(GameAction::Move(mv)),
            ChaturajiAction::EndTurn => Some(GameAction::EndTurn),
            ChaturajiAction::Resign => Some(GameAction::Resign { seat }),
        };
        let seq = self.play(seat, Some(action), game_action, now)?;
        Ok((step, seq))
    }

    /// Starts the next game after a finished one.
    ///
    /// # Errors
    /// `forbidden` (token), `wrong_phase` (no finished game).
    pub fn rematch(&mut self, token: &str, now: Millis) -> Result<(), RoomError> {
        self.seat_of(token)
            .ok_or_else(|| err(ErrorCode::Forbidden, "this token holds no seat in this room"))?;
        if !self.game.as_ref().is_some_and(|g| g.game().is_over()) {
            return Err(err(ErrorCode::WrongPhase, "the game is not over"));
        }
        self.settings = self.settings.for_next_game();
        self.seed = mix(self.seed);
        self.start_game(now)
    }

    /// Does what is due at `now`: stand-ins after the restart grace, the turn timer, and at
    /// most one step of a room-played seat.
    pub fn on_time(&mut self, now: Millis) {
        for seat in Seat::ALL {
            if self.takeover_at[seat].is_some_and(|t| t <= now) {
                self.take_over(seat, now);
            }
        }
        if self.turn_deadline().is_some_and(|d| d <= now) {
            if let Some(g) = &self.game {
                let seat = g.game().to_move();
                let _ = self.play(seat, None, Some(GameAction::TimeOut), now);
            }
            return;
        }
        if self.cpu_due().is_some_and(|d| d <= now) {
            let _ = self.cpu_step(now);
        }
    }

    fn cpu_step(&mut self, now: Millis) -> Result<u64, RoomError> {
        let g = self.game.as_ref().ok_or_else(|| err(ErrorCode::WrongPhase, "no game"))?;
        let seat = g.game().to_move();
        let level = match self.settings.players[seat] {
            Player::Cpu { level } => level,
            Player::Person => self.stand_in,
        };
        let action = match g.game().phase() {
            Phase::Roll { .. } => None,
            Phase::Move { .. } => {
                let step = g.record().actions.len() as u64;
                let mut rng = ChaCha8Rng::seed_from_u64(mix(self.seed ^ mix(step)));
                Some(cpu::choose_action(g.game(), level, &mut rng).unwrap_or(GameAction::EndTurn))
            }
            Phase::Over => return Err(err(ErrorCode::GameOver, "the game is over")),
        };
        self.play(seat, None, action, now)
    }

    /// The whole visible state at `now`.
    pub fn snapshot(&self, now: Millis) -> ChaturajiSnapshot {
        ChaturajiSnapshot {
            code: self.code.clone(),
            seq: self.log.seq(),
            game_number: self.game_number,
            settings: self.settings.clone(),
            seats: BySeat::from_fn(|s| {
                let st = &self.seats[s];
                ChaturajiSeatView {
                    person: st.person,
                    taken: st.token.is_some(),
                    connected: st.connected,
                    cpu_playing: self.is_room_played(s),
                }
            }),
            game: self.game.as_ref().map(|g| g.game().clone()),
            steps: u32::try_from(self.steps.len()).unwrap_or(u32::MAX),
            dice: self.game.as_ref().and_then(|g| DieView::of(g.game())),
            turn_remaining_ms: self.turn_remaining(now),
        }
    }

    /// What to store.
    pub fn to_record(&self, now: Millis) -> ChaturajiRecord {
        ChaturajiRecord {
            code: self.code.clone(),
            settings: self.settings.clone(),
            stand_in: self.stand_in,
            seats: self.seats.clone(),
            game_number: self.game_number,
            seed: self.seed,
            record: self.game.as_ref().map(|g| g.record().clone()),
            steps: self.steps.clone(),
            seq: self.log.seq(),
            expires_in_ms: self.expires_at.saturating_sub(now),
        }
    }

    /// Recovers a stored room at `now`: the game is replayed from its record; nobody is
    /// connected; absent people get a stand-in only after the recovery grace; the seat to move
    /// gets a fresh turn. The event ring is empty, so reconnecting clients get a snapshot.
    ///
    /// # Errors
    /// `internal` if the record does not replay.
    pub fn from_record(
        rec: ChaturajiRecord,
        now: Millis,
        lifetimes: Lifetimes,
    ) -> Result<ChaturajiRoom, RoomError> {
        let game = rec
            .record
            .map(RecordedGame::resume)
            .transpose()
            .map_err(|e| err(ErrorCode::Internal, e.to_string()))?;
        if game.as_ref().is_some_and(|g| g.record().actions.len() != rec.steps.len()) {
            return Err(err(ErrorCode::Internal, "stored steps do not match the record"));
        }
        let mut seats = rec.seats;
        for seat in Seat::ALL {
            seats[seat].connected = false;
        }
        let grace = now.saturating_add(ms(lifetimes.recovery_grace));
        let playing = game.as_ref().is_some_and(|g| !g.game().is_over());
        let takeover_at = BySeat::from_fn(|s| {
            let st = &seats[s];
            (playing && st.person && !st.stand_in).then_some(grace)
        });
        Ok(ChaturajiRoom {
            code: rec.code,
            lifetimes,
            settings: rec.settings,
            stand_in: rec.stand_in,
            seats,
            game_number: rec.game_number,
            seed: rec.seed,
            game,
            steps: rec.steps,
            log: EventLog::starting_at(rec.seq),
            turn_started: now,
            last_step_at: now,
            takeover_at,
            expires_at: now.saturating_add(rec.expires_in_ms),
        })
    }
}

fn check_device(device: &str) -> Result<(), RoomError> {
    if DEVICE_ID_LEN.contains(&device.len()) {
        Ok(())
    } else {
        Err(err(ErrorCode::Malformed, "the device id must be 16 to 128 characters"))
    }
}

#[cfg(test)]
mod tests;
