//! One Chaturaji room as a pure state machine: four seats (people and CPU), device ids, the
//! authoritative game with verifiable dice, CPU stand-ins, the turn timer, rematches and
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
//! - **Dice.** Verifiable ([`maharajah_chaturaji::fair`], wire flow in
//!   [`maharajah_protocol::chaturaji`]): when a game starts, each connected person seat commits
//!   to its device's hash chain (`commit`) and the room to its own, derived from a secret key
//!   drawn from the OS when the room is created; the parties are fixed when every connected
//!   person seat has committed or after [`COMMIT_WINDOW_MS`] (`dice_committed`). Each roll —
//!   a person's `roll` or one the room makes for a CPU seat or a stand-in — asks every party
//!   still in the dice for its next link (`reveal_requested`); a party that is not connected or
//!   does not answer within [`REVEAL_WINDOW_MS`] is dropped from the dice for the rest of the
//!   game (a dropped device's stand-in rolls with the remaining parties' links). The faces
//!   come from [`RecordedGame::roll_revealed`] and the `played` roll carries every link, so
//!   each client re-derives them. The room never chooses a face. The record (commitments and
//!   links) is what is stored; recovery replays and re-verifies it with
//!   [`RecordedGame::resume`]. A stored game from before verifiable dice (with a seed) goes on
//!   with its seeded dice. The same room runs on the online server and on a LAN host.
//! - **Turn timer.** With 30/60 s per turn, the room applies `time_out` when the turn of the seat
//!   to move has lasted that long. After a restart the seat to move gets a fresh full turn.
//! - **Idempotent actions.** Every action carries `step`, the number of steps in the game record
//!   so far. The same action resent by the same seat at an already played step gets the same
//!   ack; any other old or future step is refused as `stale_ply` and changes nothing.
//! - **Rematch.** After a game, any person seat may start the next one: settings
//!   [`Settings::for_next_game`] (the first seat rotates when the rule says so), a new seed
//!   derived from the previous one.

use maharajah_chaturaji::cpu::{self, Level};
use maharajah_chaturaji::fair::{chain_length, DiceProof, Link};
use maharajah_chaturaji::game::{Action as GameAction, Event};
use maharajah_chaturaji::record::{Record, RecordedGame, Step, StepError};
use maharajah_chaturaji::settings::{Player, TurnTime};
use maharajah_chaturaji::{BySeat, GameError, Phase, Seat, Settings};
use maharajah_engine::clock::Millis;
use maharajah_protocol::army::constant_time_eq;
use maharajah_protocol::chaturaji::{COMMIT_WINDOW_MS, REVEAL_WINDOW_MS};
use maharajah_protocol::{
    AccessCode, ChaturajiAction, ChaturajiEvent, ChaturajiMsg, ChaturajiSeatView,
    ChaturajiSnapshot, DieView, ErrorCode, FairDice, ServerMsg,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use maharajah_protocol::identity::PlayerKey;
use maharajah_protocol::{RatedGame, RatingChange, RatingKey, SpeedClass};

use crate::codes::{kept_digest, token_digest};
use crate::room::RatedEnd;
use crate::rooms::{ms, EventLog, Lifetimes, RoomError};

pub mod dice;

use dice::{PendingRoll, RoomDice};

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
    /// The digest of the seat's token ([`crate::codes::token_digest`]), once taken.
    pub token: Option<String>,
    /// The device id of the person who took it.
    pub device: Option<String>,
    /// The CPU is standing in for the absent person.
    pub stand_in: bool,
    /// Connected now (never stored: nobody is connected after a restart).
    #[serde(skip)]
    pub connected: bool,
    /// The identified player who took the seat, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player: Option<PlayerKey>,
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
    /// When the room expires on the server's timeline (Unix milliseconds), so a restart keeps
    /// the original expiry; absent in older records (then `expires_in_ms` from the restart).
    #[serde(default)]
    pub expires_at: Option<Millis>,
    /// The secret key of the room's dice chains (absent in rooms stored before verifiable
    /// dice: their key is derived from the seed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dice_key: Option<Link>,
    /// The verifiable dice of the current game (absent for a seeded game).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dice: Option<RoomDice>,
    /// A rated table (absent in older records: casual).
    #[serde(default)]
    pub rated: bool,
    /// The number of the last game whose places changed the ratings (0: none), stored in the
    /// same transaction as those ratings.
    #[serde(default)]
    pub rated_game: u32,
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
    /// Before the first game: since when no seated person has been connected.
    away_since: Option<Millis>,
    dice_key: Link,
    dice: Option<RoomDice>,
    /// Answers owed to seats' connections (a deferred roll's ack), taken by the runtime.
    replies: Vec<(Seat, ServerMsg)>,
    rated: bool,
    rated_game: u32,
}

/// The dice key of a room created without one: derived from its seed (tests, old records).
fn derived_key(seed: u64) -> Link {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(b"chaturaji-room-key");
    h.update(seed.to_be_bytes());
    Link(h.finalize().into())
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
            player: None,
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
            away_since: None,
            dice_key: derived_key(seed),
            dice: None,
            replies: Vec::new(),
            rated: false,
            rated_game: 0,
        };
        let (seat, _) = room.take_free_seat(token, device, now)?;
        Ok((room, seat))
    }

    /// The room with `key` as the secret of its dice chains (draw it from the OS's random
    /// source; without it the key is derived from the seed, which is fine for tests only).
    #[must_use]
    pub fn with_dice_key(mut self, key: [u8; 32]) -> ChaturajiRoom {
        self.dice_key = Link(key);
        self
    }

    /// Answers owed to seats' connections since the last call (a roll's ack, once its links
    /// are in).
    pub fn take_replies(&mut self) -> Vec<(Seat, ServerMsg)> {
        std::mem::take(&mut self.replies)
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
        let digest = token_digest(token);
        let mut found = None;
        for s in Seat::ALL {
            if let Some(t) = &self.seats[s].token {
                if constant_time_eq(t.as_bytes(), digest.as_bytes()) {
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

    /// Whether the room has expired at `now`: its lifetime is over, or it is still waiting for
    /// its first game and nobody seated has been connected for [`Lifetimes::abandoned`].
    pub fn is_expired(&self, now: Millis) -> bool {
        now >= self.expires_at || self.abandoned_at().is_some_and(|t| now >= t)
    }

    /// When a waiting table whose people are all away is dropped (`None` while one is there).
    fn abandoned_at(&self) -> Option<Millis> {
        self.lifetimes.abandoned_at(self.away_since.filter(|_| self.game.is_none()))
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
        if self.roll_pending() {
            // The roll's reveal window closes first; the turn's time counts on after it.
            return None;
        }
        Some(self.turn_started.saturating_add(self.turn_ms()?))
    }

    fn turn_remaining(&self, now: Millis) -> Option<u64> {
        self.turn_deadline().map(|d| d.saturating_sub(now))
    }

    /// Whether the room plays `seat` now (a CPU seat, or a person's seat with a stand-in).
    pub fn is_room_played(&self, seat: Seat) -> bool {
        !self.seats[seat].person || self.seats[seat].stand_in
    }

    fn roll_pending(&self) -> bool {
        self.dice.as_ref().is_some_and(|d| d.pending.is_some())
    }

    fn dice_deadline(&self) -> Option<Millis> {
        self.live_game()?;
        let d = self.dice.as_ref()?;
        match &d.pending {
            Some(p) if p.open => Some(d.reveal_deadline),
            _ if d.is_committing() => Some(d.commit_deadline),
            _ => None,
        }
    }

    fn cpu_due(&self) -> Option<Millis> {
        if self.roll_pending() {
            return None;
        }
        let g = self.live_game()?;
        self.is_room_played(g.game().to_move())
            .then(|| self.last_step_at.saturating_add(CPU_DELAY_MS))
    }

    /// The next time [`ChaturajiRoom::on_time`] has something to do (turn timer, a CPU step, a
    /// stand-in taking over after a restart, expiry).
    pub fn next_deadline(&self) -> Millis {
        let takeovers = Seat::ALL.iter().filter_map(|&s| self.takeover_at[s]);
        [self.turn_deadline(), self.cpu_due(), self.dice_deadline()]
            .into_iter()
            .flatten()
            .chain(takeovers)
            .chain(self.abandoned_at())
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
        st.token = Some(token_digest(&token));
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

    /// Takes a free person seat with `token`, or gives a device its own seat back (under
    /// `token`: only the digest of the old one is kept, so it cannot be handed out again; the
    /// old token stops working, as the newest connection is the seat's).
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
            self.seats[seat].token = Some(token_digest(&token));
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
        self.away_since = None;
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
        if Seat::ALL.iter().all(|&s| !self.seats[s].connected) {
            self.away_since.get_or_insert(now);
        }
        self.take_over(seat, now);
        // A device that is gone cannot reveal: the roll in progress does not wait for it.
        let party = self.dice.as_ref().and_then(|d| d.party_of(seat));
        if let Some(p) = self.dice.as_mut().and_then(|d| d.pending.as_mut()).filter(|p| p.open) {
            if let Some(i) = party {
                p.waiting[i] = false;
            }
        }
        self.finish_roll_if_ready(now);
        if self.dice.as_ref().is_some_and(RoomDice::is_committing) {
            self.fix_if_ready(now);
        }
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
        let length = chain_length(&self.settings);
        let game =
            RecordedGame::new_verified(self.settings.clone(), DiceProof::new(length, vec![]))
                .map_err(|e| err(ErrorCode::InvalidOptions, e.to_string()))?;
        self.game = Some(game);
        self.dice = Some(RoomDice::new(now.saturating_add(COMMIT_WINDOW_MS)));
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

    /// Plays one step; `action` is `None` for a roll, whose `links` are the parties' revealed
    /// links (`None`: a seeded game from before verifiable dice).
    fn play(
        &mut self,
        seat: Seat,
        person: Option<ChaturajiAction>,
        action: Option<GameAction>,
        links: Option<Vec<Option<Link>>>,
        now: Millis,
    ) -> Result<u64, RoomError> {
        let g = self.game.as_mut().ok_or_else(|| err(ErrorCode::WrongPhase, "no game yet"))?;
        let events = match (action, &links) {
            (None, Some(links)) => g.roll_revealed(links.clone()),
            (None, None) => g.roll(),
            (Some(a), _) => g.act(a),
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
            links,
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
    ) -> Result<Option<(u32, u64)>, RoomError> {
        let seat = self
            .seat_of(token)
            .ok_or_else(|| err(ErrorCode::Forbidden, "this token holds no seat in this room"))?;
        match action {
            ChaturajiAction::Commit { game, commitment } => {
                self.commit(seat, game, commitment, now);
                return Ok(None);
            }
            ChaturajiAction::Reveal { roll, link } => return self.reveal(seat, roll, link, now),
            _ => {}
        }
        let Some(g) = &self.game else {
            return Err(err(ErrorCode::WrongPhase, "the game has not started"));
        };
        let played = self.steps.len();
        let at = usize::try_from(step).unwrap_or(usize::MAX);
        if at < played {
            let info = self.steps[at];
            if info.seat == seat && info.action == Some(action) {
                return Ok(Some((step, info.seq)));
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
            ChaturajiAction::Roll => {
                let pending = self.dice.as_ref().and_then(|d| d.pending.as_ref());
                if pending.is_some_and(|p| p.seat == seat && p.step == step) {
                    // A resend while the links come in: the ack follows with the roll.
                    return Ok(None);
                }
                return Ok(self.request_roll(seat, Some(action), now)?.map(|seq| (step, seq)));
            }
            ChaturajiAction::Move(mv) => GameAction::Move(mv),
            ChaturajiAction::EndTurn => GameAction::EndTurn,
            ChaturajiAction::Resign => GameAction::Resign { seat },
            ChaturajiAction::Commit { .. } | ChaturajiAction::Reveal { .. } => {
                unreachable!("handled above")
            }
        };
        let seq = self.play(seat, Some(action), Some(game_action), None, now)?;
        Ok(Some((step, seq)))
    }

    /// A person seat's dice commitment for game `game`; a late or repeated one is ignored.
    fn commit(&mut self, seat: Seat, game: u32, commitment: Link, now: Millis) {
        let person = self.seats[seat].person;
        let Some(dice) = self.dice.as_mut().filter(|d| d.is_committing()) else { return };
        if game != self.game_number || !person || dice.commits[seat].is_some() {
            return;
        }
        dice.commits[seat] = Some(commitment);
        self.fix_if_ready(now);
    }

    /// Fixes the dice parties once every connected person seat has committed.
    fn fix_if_ready(&mut self, now: Millis) {
        let Some(dice) = self.dice.as_ref().filter(|d| d.is_committing()) else { return };
        let all = Seat::ALL.iter().all(|&s| {
            let st = &self.seats[s];
            !st.person || !st.connected || dice.commits[s].is_some()
        });
        if all {
            self.fix_dice(now);
        }
    }

    /// Fixes the dice parties: the room and every seat that committed (`dice_committed`).
    fn fix_dice(&mut self, now: Millis) {
        let Some(g) = self.game.as_mut() else { return };
        let Some(dice) = self.dice.as_mut().filter(|d| d.is_committing()) else { return };
        let length = chain_length(g.game().settings());
        let room = RoomDice::room_chain(&self.dice_key, self.game_number, length).commitment();
        let proof = dice.fix(room, length);
        if g.commit_dice(proof.clone()).is_err() {
            // A roll cannot have happened before the parties were fixed; nothing to redo.
            return;
        }
        self.emit(ChaturajiEvent::DiceCommitted { proof });
        if self.roll_pending() {
            self.open_reveals(now);
            self.finish_roll_if_ready(now);
        }
    }

    /// A party's link for roll `roll`. A late, repeated or unasked one is ignored.
    ///
    /// # Errors
    /// `illegal_move` for a link that does not hash to the seat's previous link.
    fn reveal(
        &mut self,
        seat: Seat,
        roll: u32,
        link: Link,
        now: Millis,
    ) -> Result<Option<(u32, u64)>, RoomError> {
        let Some(dice) = self.dice.as_ref() else { return Ok(None) };
        let Some(party) = dice.party_of(seat) else { return Ok(None) };
        let Some(p) = dice.pending.as_ref().filter(|p| p.open && p.roll == roll) else {
            return Ok(None);
        };
        if !p.waiting.get(party).copied().unwrap_or(false) {
            return Ok(None);
        }
        let last = self
            .game
            .as_ref()
            .and_then(|g| g.record().dice_proof.as_ref())
            .and_then(|proof| proof.last_links().get(party).copied().flatten());
        if last != Some(link.previous()) {
            return Err(err(
                ErrorCode::IllegalMove,
                format!("roll {roll}: this link does not hash to the seat's previous link"),
            ));
        }
        if let Some(p) = self.dice.as_mut().and_then(|d| d.pending.as_mut()) {
            p.links[party] = Some(link);
            p.waiting[party] = false;
        }
        self.finish_roll_if_ready(now);
        Ok(None)
    }

    /// Starts a roll for `seat` (`person`: the person's `roll`; `None`: the room rolls for a
    /// CPU seat or a stand-in). Returns the event number of the roll when it could be made at
    /// once; otherwise the links are asked for and the roll follows (with the person's ack).
    fn request_roll(
        &mut self,
        seat: Seat,
        person: Option<ChaturajiAction>,
        now: Millis,
    ) -> Result<Option<u64>, RoomError> {
        let g = self.game.as_ref().ok_or_else(|| err(ErrorCode::WrongPhase, "no game yet"))?;
        g.game().check_roll().map_err(|e| step_error(StepError::Rule(e)))?;
        let step = u32::try_from(g.record().actions.len()).unwrap_or(u32::MAX);
        let rolls = g.record().dice_proof.as_ref().map(|p| p.rolls.len());
        let (Some(dice), Some(rolls)) = (self.dice.as_mut(), rolls) else {
            // A seeded game from before verifiable dice.
            return self.play(seat, person, None, None, now).map(Some);
        };
        let roll = u32::try_from(rolls + 1).unwrap_or(u32::MAX);
        dice.pending = Some(PendingRoll {
            seat,
            person,
            step,
            roll,
            links: Vec::new(),
            waiting: Vec::new(),
            open: false,
        });
        if !dice.is_committing() {
            self.open_reveals(now);
        }
        match self.take_ready_roll() {
            // Nobody to wait for: the caller acknowledges the roll itself.
            Some(p) => self.make_roll(p, now).map(Some),
            None => Ok(None),
        }
    }

    /// Asks every party still in the dice for its link of the pending roll.
    fn open_reveals(&mut self, now: Millis) {
        let Some(proof) = self.game.as_ref().and_then(|g| g.record().dice_proof.clone()) else {
            return;
        };
        let last = proof.last_links();
        let chain = RoomDice::room_chain(&self.dice_key, self.game_number, proof.length);
        let Some(dice) = self.dice.as_mut() else { return };
        let parties = dice.parties.clone().unwrap_or_default();
        let Some(p) = dice.pending.as_mut() else { return };
        p.links = vec![None; parties.len()];
        p.waiting = vec![false; parties.len()];
        for (i, party) in parties.iter().enumerate() {
            if last.get(i).copied().flatten().is_none() {
                continue; // dropped earlier
            }
            match party {
                None => p.links[i] = chain.link(p.roll),
                Some(seat) => p.waiting[i] = self.seats[*seat].connected,
            }
        }
        p.open = true;
        let (roll, asks) = (p.roll, p.waiting.iter().any(|&w| w));
        dice.reveal_deadline = now.saturating_add(REVEAL_WINDOW_MS);
        if asks {
            self.emit(ChaturajiEvent::RevealRequested { roll });
        }
    }

    /// The pending roll, taken, once its reveals are open and no party is awaited.
    fn take_ready_roll(&mut self) -> Option<PendingRoll> {
        let dice = self.dice.as_mut()?;
        let ready = dice.pending.as_ref().is_some_and(|p| p.open && !p.waiting.iter().any(|&w| w));
        if ready {
            dice.pending.take()
        } else {
            None
        }
    }

    /// Rolls from the links gathered for `p`.
    fn make_roll(&mut self, p: PendingRoll, now: Millis) -> Result<u64, RoomError> {
        let still =
            self.game.as_ref().is_some_and(|g| g.game().phase() == Phase::Roll { seat: p.seat });
        if !still {
            return Err(err(ErrorCode::WrongPhase, "the turn passed before the dice were rolled"));
        }
        self.play(p.seat, p.person, None, Some(p.links), now)
    }

    /// Makes the pending roll once no party is awaited; a person's roll is acknowledged then.
    fn finish_roll_if_ready(&mut self, now: Millis) {
        let Some(p) = self.take_ready_roll() else { return };
        let (seat, step, person) = (p.seat, p.step, p.person.is_some());
        let result = self.make_roll(p, now);
        if person {
            let answer = match result {
                Ok(seq) => ChaturajiMsg::ChaturajiAck { step, seq }.into(),
                Err(e) => e.to_msg(),
            };
            self.replies.push((seat, answer));
        }
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
        if self.dice_deadline().is_some_and(|d| d <= now) {
            if self.dice.as_ref().is_some_and(RoomDice::is_committing) {
                self.fix_dice(now);
            } else {
                // The window closed: whoever has not revealed is out of the dice from now on.
                if let Some(p) = self.dice.as_mut().and_then(|d| d.pending.as_mut()) {
                    p.waiting.iter_mut().for_each(|w| *w = false);
                }
                self.finish_roll_if_ready(now);
            }
            return;
        }
        if self.turn_deadline().is_some_and(|d| d <= now) {
            if let Some(g) = &self.game {
                let seat = g.game().to_move();
                let _ = self.play(seat, None, Some(GameAction::TimeOut), None, now);
            }
            return;
        }
        if self.cpu_due().is_some_and(|d| d <= now) {
            let _ = self.cpu_step(now);
        }
    }

    fn cpu_step(&mut self, now: Millis) -> Result<Option<u64>, RoomError> {
        let g = self.game.as_ref().ok_or_else(|| err(ErrorCode::WrongPhase, "no game"))?;
        let seat = g.game().to_move();
        let level = match self.settings.players[seat] {
            Player::Cpu { level } => level,
            Player::Person => self.stand_in,
        };
        let action = match g.game().phase() {
            Phase::Roll { .. } => return self.request_roll(seat, None, now),
            Phase::Move { .. } => {
                let step = g.record().actions.len() as u64;
                let mut rng = ChaCha8Rng::seed_from_u64(mix(self.seed ^ mix(step)));
                cpu::choose_action(g.game(), level, &mut rng).unwrap_or(GameAction::EndTurn)
            }
            Phase::Over => return Err(err(ErrorCode::GameOver, "the game is over")),
        };
        self.play(seat, None, Some(action), None, now).map(Some)
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
            fair: self.fair_dice(),
            log: self.game.as_ref().map(|g| g.log().clone()).unwrap_or_default(),
        }
    }

    /// The verifiable dice of the current game as clients see them.
    fn fair_dice(&self) -> Option<FairDice> {
        let proof = self.game.as_ref()?.record().dice_proof.clone()?;
        let dice = self.dice.as_ref()?;
        let reveal = dice.pending.as_ref().filter(|p| p.open).map(|p| p.roll);
        Some(FairDice { committing: dice.is_committing(), proof, reveal })
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
            expires_at: Some(self.expires_at),
            dice_key: Some(self.dice_key),
            dice: self.dice.clone(),
            rated: self.rated,
            rated_game: self.rated_game,
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
            seats[seat].token = seats[seat].token.take().map(kept_digest);
        }
        let grace = now.saturating_add(ms(lifetimes.recovery_grace));
        // The windows start afresh, long enough for the devices to come back.
        let dice = rec.dice.map(|mut d| {
            d.commit_deadline = grace.max(now.saturating_add(COMMIT_WINDOW_MS));
            d.reveal_deadline = grace.max(now.saturating_add(REVEAL_WINDOW_MS));
            d
        });
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
            expires_at: rec.expires_at.unwrap_or_else(|| now.saturating_add(rec.expires_in_ms)),
            // Nobody is connected after a restart: a waiting table's people have the abandon
            // deadline from now to come back.
            away_since: Some(now),
            dice_key: rec.dice_key.unwrap_or_else(|| derived_key(rec.seed)),
            dice,
            replies: Vec::new(),
            rated: rec.rated,
            rated_game: rec.rated_game,
        })
    }

    /// Makes the new table rated, its creator (in `seat`) the identified `player`.
    #[must_use]
    pub fn rated_for(mut self, seat: Seat, player: PlayerKey) -> ChaturajiRoom {
        self.rated = true;
        self.seats[seat].player = Some(player);
        self
    }

    /// [`ChaturajiRoom::join`] by the identified `player`, if any.
    ///
    /// # Errors
    /// As [`ChaturajiRoom::join`]; at a rated table a newcomer also needs a player
    /// (`not_identified`) who has no seat there yet (`forbidden`).
    pub fn join_as(
        &mut self,
        token: String,
        device: String,
        player: Option<PlayerKey>,
        now: Millis,
    ) -> Result<(Seat, String), RoomError> {
        check_device(&device)?;
        if self.rated && self.seat_of_device(&device).is_none() {
            let Some(key) = player else {
                return Err(err(
                    ErrorCode::NotIdentified,
                    "this table is rated: identify as a player to join it",
                ));
            };
            if Seat::ALL.iter().any(|&s| self.seats[s].player == Some(key)) {
                return Err(err(ErrorCode::Forbidden, "you already have a seat at this table"));
            }
        }
        let (seat, token) = self.join(token, device, now)?;
        if self.seats[seat].player.is_none() {
            self.seats[seat].player = player;
        }
        Ok((seat, token))
    }

    /// The settings of the current (or first) game.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Whether the table is rated.
    pub fn is_rated(&self) -> bool {
        self.rated
    }

    /// The number of the current game (0 before the first).
    pub fn game_number(&self) -> u32 {
        self.game_number
    }

    /// Whether the current game's rating (if rated) is still to change.
    pub fn is_rating_pending(&self) -> bool {
        self.rating_due().is_some()
    }

    /// The finished rated game whose places are still to change the ratings: the people's
    /// places (CPU seats do not count), in seat order. Every person seat must be identified.
    pub fn rating_due(&self) -> Option<RatedEnd> {
        if !self.rated || self.rated_game == self.game_number {
            return None;
        }
        let game = self.game.as_ref()?.game();
        if !game.is_over() {
            return None;
        }
        let standings = game.standings();
        let (mut players, mut places) = (Vec::new(), Vec::new());
        for seat in Seat::ALL.into_iter().filter(|&s| self.seats[s].person) {
            players.push(self.seats[seat].player?);
            places.push(standings.iter().find(|line| line.seat == seat)?.place);
        }
        // A turn limit is an increment on a zero base: 30 s a turn is rapid, 60 s classical.
        let per_turn = match self.settings.turn_time {
            TurnTime::None => None,
            TurnTime::Seconds30 => Some((0, 30_000)),
            TurnTime::Seconds60 => Some((0, 60_000)),
        };
        let rating = RatingKey { game: RatedGame::Chaturaji, speed: SpeedClass::of(per_turn) };
        (players.len() >= 2).then_some(RatedEnd { rating, players, places })
    }

    /// Records the changes of [`ChaturajiRoom::rating_due`] (in its order): the
    /// `ratings_changed` event; this game's rating is no longer due.
    pub fn record_ratings(&mut self, changes: &[RatingChange]) {
        let mut ratings = BySeat::splat(None);
        let people = Seat::ALL.into_iter().filter(|&s| self.seats[s].person);
        for (seat, change) in people.zip(changes) {
            ratings[seat] = Some(*change);
        }
        self.rated_game = self.game_number;
        self.emit(ChaturajiEvent::RatingsChanged { ratings: Box::new(ratings) });
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
