//! Game records: settings, dice seed and/or faces, and every action, in JSON; exact replay.
//!
//! # Format (version 1)
//!
//! ```json
//! {
//!   "format": "chaturaji-record",
//!   "version": 1,
//!   "settings": { "dice": "cubic", "round_limit": 30 },
//!   "seed": 42,
//!   "actions": [
//!     { "t": "roll", "dice": [3, 5] },
//!     { "t": "move", "die": 0, "from": "b1", "to": "c3" },
//!     { "t": "end_turn" },
//!     { "t": "roll" },
//!     { "t": "time_out" },
//!     { "t": "resign", "seat": "green" }
//!   ]
//! }
//! ```
//!
//! - `settings`: any field of [`Settings`] (snake_case values); missing fields take the default.
//! - `seed` (optional): the dice are drawn from `ChaCha8Rng::seed_from_u64(seed)`, two
//!   [`crate::DiceKind::roll`] draws per roll, in order. A roll may then omit `dice`; if it lists
//!   them they must equal the seeded faces. Without a seed every roll must list its `dice`.
//! - `dice_proof` (optional, instead of `seed`): verifiable dice ([`crate::fair`]):
//!   `{ "length": 120, "parties": [{ "name": "room", "commitment": "<64 hex>" }, ...],
//!   "rolls": [["<64 hex>", null, ...], ...] }`, one list of links per roll in order (`null` for
//!   a party that missed its reveal). Every roll is re-verified: each link against the party's
//!   previous one, the faces against the links.
//! - `actions`: [`Step`]s in order. Turns that end by themselves (no usable die left, the last
//!   usable die played) need no `end_turn`. `die` is 0 or 1 (the order of `dice`).
//!
//! Replaying applies the steps one by one and stops at the first that breaks a rule.

use std::collections::VecDeque;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::fair::{DiceError, DiceProof, Link, Verifier};
use crate::game::{log_events, Action, Event, Game, GameError, Move};
use crate::seat::Seat;
use crate::settings::{Settings, SettingsError};

/// The `format` field of every record.
pub const RECORD_FORMAT: &str = "chaturaji-record";
/// The record version this crate writes and reads.
pub const RECORD_VERSION: u32 = 1;

/// One recorded action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case", deny_unknown_fields)]
pub enum Step {
    /// The seat to move rolled; the faces may be omitted when the record has a seed.
    Roll {
        /// The two faces, if recorded.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        dice: Option<[u8; 2]>,
    },
    /// A move with one die.
    Move(Move),
    /// The seat to move ended its turn.
    EndTurn,
    /// The time per turn ran out.
    TimeOut,
    /// A seat resigned.
    Resign {
        /// The seat.
        seat: Seat,
    },
}

impl From<Action> for Step {
    fn from(action: Action) -> Step {
        match action {
            Action::Roll { dice } => Step::Roll { dice: Some(dice) },
            Action::Move(mv) => Step::Move(mv),
            Action::EndTurn => Step::EndTurn,
            Action::TimeOut => Step::TimeOut,
            Action::Resign { seat } => Step::Resign { seat },
        }
    }
}

/// A whole game: settings, dice and actions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// Always [`RECORD_FORMAT`].
    pub format: String,
    /// Always [`RECORD_VERSION`].
    pub version: u32,
    /// The table settings.
    #[serde(default)]
    pub settings: Settings,
    /// The dice seed, if the dice were drawn from one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Verifiable dice ([`crate::fair`]): the parties' commitments and every roll's links.
    /// Every roll is then checked against them (instead of a seed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dice_proof: Option<DiceProof>,
    /// The actions, in order.
    #[serde(default)]
    pub actions: Vec<Step>,
}

/// A record that cannot be read at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    /// Not valid JSON, or not the shape of a record.
    #[error("malformed record: {0}")]
    Malformed(String),
    /// The `format` field is not [`RECORD_FORMAT`].
    #[error("not a Chaturaji record (format {found:?}, expected {RECORD_FORMAT:?})")]
    WrongFormat {
        /// The format found.
        found: String,
    },
    /// The version is not one this crate reads.
    #[error("unsupported record version {found} (this program reads version {RECORD_VERSION})")]
    UnsupportedVersion {
        /// The version found.
        found: u32,
    },
    /// The settings are out of range.
    #[error("invalid settings: {0}")]
    Settings(#[from] SettingsError),
}

/// Why a recorded step could not be applied.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StepError {
    /// The rules do not allow it.
    #[error(transparent)]
    Rule(#[from] GameError),
    /// A roll without faces in a record without a seed.
    #[error("the roll lists no dice and the record has no seed")]
    MissingDice,
    /// A roll of a verified-dice record has no links in the proof.
    #[error("the dice proof lists no links for this roll")]
    MissingLinks,
    /// The roll's links do not verify against the commitments.
    #[error("the roll does not verify: {0}")]
    Unverified(#[from] DiceError),
    /// The recorded faces differ from what the verified links give.
    #[error("recorded dice {recorded:?} differ from the verified roll {verified:?}")]
    RollMismatch {
        /// The faces in the record.
        recorded: [u8; 2],
        /// The faces the links give.
        verified: [u8; 2],
    },
    /// The recorded faces differ from what the seed rolls.
    #[error("recorded dice {recorded:?} differ from the seeded roll {seeded:?}")]
    DiceMismatch {
        /// The faces in the record.
        recorded: [u8; 2],
        /// The faces the seed gives.
        seeded: [u8; 2],
    },
}

/// The first step of a record that breaks the rules.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("action {index} ({step:?}) by {seat}: {error}")]
pub struct Violation {
    /// Its index in `actions`, from 0.
    pub index: usize,
    /// The step.
    pub step: Step,
    /// The seat to move when it was tried.
    pub seat: Seat,
    /// What is wrong with it.
    pub error: StepError,
}

/// The result of replaying a record.
#[derive(Clone, Debug)]
pub struct Replay {
    /// The game after the last step applied.
    pub game: Game,
    /// What every applied step reported, in order.
    pub events: Vec<Vec<Event>>,
    /// The first step that broke the rules; later steps were not applied.
    pub violation: Option<Violation>,
}

impl Record {
    /// An empty record for a new game.
    #[must_use]
    pub fn new(settings: Settings, seed: Option<u64>) -> Record {
        Record {
            format: RECORD_FORMAT.to_owned(),
            version: RECORD_VERSION,
            settings,
            seed,
            dice_proof: None,
            actions: Vec::new(),
        }
    }

    /// Reads a record from JSON and checks its format, version and settings.
    ///
    /// # Errors
    /// [`RecordError`] describing what is wrong.
    pub fn from_json(text: &str) -> Result<Record, RecordError> {
        let record: Record =
            serde_json::from_str(text).map_err(|e| RecordError::Malformed(e.to_string()))?;
        if record.format != RECORD_FORMAT {
            return Err(RecordError::WrongFormat { found: record.format });
        }
        if record.version != RECORD_VERSION {
            return Err(RecordError::UnsupportedVersion { found: record.version });
        }
        record.settings.validate()?;
        if record.seed.is_some() && record.dice_proof.is_some() {
            return Err(RecordError::Malformed(
                "a record has a dice seed or a dice proof, not both".to_owned(),
            ));
        }
        Ok(record)
    }

    /// The record as pretty-printed JSON.
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self)
            .expect("a record is plain data with string keys, which always serialises")
    }

    /// Replays every step from the start, stopping at the first violation.
    ///
    /// # Errors
    /// [`RecordError::Settings`] if the settings are out of range.
    pub fn replay(&self) -> Result<Replay, RecordError> {
        let mut player = Replayer::start(self.settings.clone(), self.seed)?;
        player.verifier = self.dice_proof.as_ref().map(|p| p.verifier(self.settings.dice));
        let mut events = Vec::with_capacity(self.actions.len());
        let mut rolls = 0;
        for (index, &step) in self.actions.iter().enumerate() {
            let seat = player.game.to_move();
            let links = self.links_for(step, &mut rolls);
            match player.step(step, links) {
                Ok(ev) => events.push(ev),
                Err(error) => {
                    let violation = Some(Violation { index, step, seat, error });
                    return Ok(Replay { game: player.game, events, violation });
                }
            }
        }
        Ok(Replay { game: player.game, events, violation: None })
    }
}

impl Record {
    /// The proof's links for `step` if it is a roll (counting rolls in `rolls`).
    fn links_for(&self, step: Step, rolls: &mut usize) -> Option<&[Option<Link>]> {
        if !matches!(step, Step::Roll { .. }) {
            return None;
        }
        let links = self.dice_proof.as_ref()?.rolls.get(*rolls).map(Vec::as_slice);
        *rolls += 1;
        links
    }
}

/// Applies steps to a game, drawing seeded dice or verifying revealed links as needed.
#[derive(Clone, Debug)]
struct Replayer {
    game: Game,
    rng: Option<ChaCha8Rng>,
    /// For verified dice: every roll must come with links that verify.
    verifier: Option<Verifier>,
}

impl Replayer {
    fn start(settings: Settings, seed: Option<u64>) -> Result<Replayer, RecordError> {
        settings.validate()?;
        let game = Game::new(settings).map_err(|e| match e {
            GameError::Settings { error } => RecordError::Settings(error),
            other => RecordError::Malformed(other.to_string()),
        })?;
        Ok(Replayer { game, rng: seed.map(ChaCha8Rng::seed_from_u64), verifier: None })
    }

    /// Applies `step`; a roll of verified dice takes the turn's `links`.
    fn step(
        &mut self,
        step: Step,
        links: Option<&[Option<Link>]>,
    ) -> Result<Vec<Event>, StepError> {
        let action = match step {
            Step::Roll { dice } if self.verifier.is_some() => {
                self.game.check_roll()?;
                let links = links.ok_or(StepError::MissingLinks)?;
                let mut verifier = self.verifier.clone().ok_or(StepError::MissingLinks)?;
                let verified = verifier.roll(links)?;
                if let Some(recorded) = dice.filter(|d| *d != verified) {
                    return Err(StepError::RollMismatch { recorded, verified });
                }
                self.verifier = Some(verifier);
                Action::Roll { dice: verified }
            }
            Step::Roll { dice } => {
                // Check the phase before drawing, so a misplaced roll does not consume dice.
                self.game.check_roll()?;
                let kind = self.game.settings().dice;
                let seeded = self.rng.as_mut().map(|rng| [kind.roll(rng), kind.roll(rng)]);
                let faces = match (dice, seeded) {
                    (Some(recorded), Some(seeded)) if recorded != seeded => {
                        return Err(StepError::DiceMismatch { recorded, seeded })
                    }
                    (Some(faces), _) | (None, Some(faces)) => faces,
                    (None, None) => return Err(StepError::MissingDice),
                };
                Action::Roll { dice: faces }
            }
            Step::Move(mv) => Action::Move(mv),
            Step::EndTurn => Action::EndTurn,
            Step::TimeOut => Action::TimeOut,
            Step::Resign { seat } => Action::Resign { seat },
        };
        Ok(self.game.apply(action)?)
    }
}

/// A live game that writes its own record: the server room or the app holds one per table.
/// Dice are drawn from a seeded `ChaCha8Rng`, so the record replays exactly.
#[derive(Clone, Debug)]
pub struct RecordedGame {
    player: Replayer,
    record: Record,
    /// The last [`LOG_LEN`](crate::game::LOG_LEN) events of its steps, rebuilt by
    /// [`RecordedGame::resume`], so a table opened again shows what happened lately.
    log: VecDeque<Event>,
}

impl RecordedGame {
    /// A new game whose dice come from `seed`.
    ///
    /// # Errors
    /// [`RecordError::Settings`] if a setting is out of range.
    pub fn new(settings: Settings, seed: u64) -> Result<RecordedGame, RecordError> {
        let player = Replayer::start(settings.clone(), Some(seed))?;
        Ok(RecordedGame { player, record: Record::new(settings, Some(seed)), log: VecDeque::new() })
    }

    /// A new game with verifiable dice ([`crate::fair`]): `proof` holds every party's
    /// commitment; each roll then goes through [`RecordedGame::roll_revealed`].
    ///
    /// # Errors
    /// [`RecordError::Settings`] if a setting is out of range.
    pub fn new_verified(settings: Settings, proof: DiceProof) -> Result<RecordedGame, RecordError> {
        let mut player = Replayer::start(settings.clone(), None)?;
        player.verifier = Some(proof.verifier(settings.dice));
        let mut record = Record::new(settings, None);
        record.dice_proof = Some(DiceProof { rolls: Vec::new(), ..proof });
        Ok(RecordedGame { player, record, log: VecDeque::new() })
    }

    /// Fixes the parties of a verified-dice game whose commitments were collected after it
    /// started (a networked room gathers them before the first roll): `proof` replaces the
    /// record's proof and the verifier.
    ///
    /// # Errors
    /// Hands `proof` back when the game has no verified dice or a roll was already made.
    pub fn commit_dice(&mut self, proof: DiceProof) -> Result<(), DiceProof> {
        let Some(current) = self.record.dice_proof.as_mut() else { return Err(proof) };
        if !current.rolls.is_empty() {
            return Err(proof);
        }
        self.player.verifier = Some(proof.verifier(self.record.settings.dice));
        *current = DiceProof { rolls: Vec::new(), ..proof };
        Ok(())
    }

    /// Rolls verified dice from the turn's revealed `links` (one per party, `None` for a party
    /// that missed its reveal); the links and the faces go into the record.
    ///
    /// # Errors
    /// Why the roll is not allowed now, or [`StepError::Unverified`] for links that do not
    /// verify; nothing is recorded then.
    pub fn roll_revealed(&mut self, links: Vec<Option<Link>>) -> Result<Vec<Event>, StepError> {
        let events = self.player.step(Step::Roll { dice: None }, Some(&links))?;
        let dice = self.player.game.dice().map(|d| [d[0].face, d[1].face]);
        self.record.actions.push(Step::Roll { dice });
        if let Some(proof) = self.record.dice_proof.as_mut() {
            proof.rolls.push(links);
        }
        Ok(self.logged(events))
    }

    /// Resumes a game from its record (for example after a restart), ready for the next action.
    ///
    /// # Errors
    /// The record's own error, or its first violation.
    pub fn resume(record: Record) -> Result<RecordedGame, ResumeError> {
        let mut player = Replayer::start(record.settings.clone(), record.seed)?;
        player.verifier = record.dice_proof.as_ref().map(|p| p.verifier(record.settings.dice));
        let mut rolls = 0;
        let mut log = VecDeque::new();
        for (index, &step) in record.actions.iter().enumerate() {
            let seat = player.game.to_move();
            let links = record.links_for(step, &mut rolls);
            let events = player
                .step(step, links)
                .map_err(|error| ResumeError::Violation(Violation { index, step, seat, error }))?;
            log_events(&mut log, events);
        }
        Ok(RecordedGame { player, record, log })
    }

    /// The game.
    #[must_use]
    pub fn game(&self) -> &Game {
        &self.player.game
    }

    /// The record so far.
    #[must_use]
    pub fn record(&self) -> &Record {
        &self.record
    }

    /// What happened lately: the events of its last steps, oldest first (at most
    /// [`LOG_LEN`](crate::game::LOG_LEN)).
    #[must_use]
    pub fn log(&self) -> &VecDeque<Event> {
        &self.log
    }

    /// Keeps `events` (a step's) in the log and hands them back.
    fn logged(&mut self, events: Vec<Event>) -> Vec<Event> {
        log_events(&mut self.log, events.iter().cloned());
        events
    }

    /// Rolls for the seat to move (from the seed, or — for a resumed record without seed — this
    /// fails with [`StepError::MissingDice`]).
    ///
    /// # Errors
    /// Why the roll is not allowed now.
    pub fn roll(&mut self) -> Result<Vec<Event>, StepError> {
        let events = self.player.step(Step::Roll { dice: None }, None)?;
        let dice = self.player.game.dice().map(|d| [d[0].face, d[1].face]);
        self.record.actions.push(Step::Roll { dice });
        Ok(self.logged(events))
    }

    /// Applies a move, end of turn, time-out or resignation (a roll must go through
    /// [`RecordedGame::roll`] when a seed is in use; a given roll is checked against it).
    ///
    /// # Errors
    /// Why the action is not allowed now; nothing is recorded.
    pub fn act(&mut self, action: Action) -> Result<Vec<Event>, StepError> {
        let step = Step::from(action);
        if matches!(step, Step::Roll { .. }) && self.player.verifier.is_some() {
            return Err(StepError::MissingLinks);
        }
        let events = self.player.step(step, None)?;
        self.record.actions.push(step);
        Ok(self.logged(events))
    }
}

/// Why a record could not be resumed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ResumeError {
    /// The record itself is unusable.
    #[error(transparent)]
    Record(#[from] RecordError),
    /// A recorded step breaks the rules.
    #[error("{0}")]
    Violation(Violation),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example_in_the_module_docs_parses() {
        let text = r#"{
          "format": "chaturaji-record", "version": 1,
          "settings": { "dice": "cubic", "round_limit": 30 },
          "seed": 42,
          "actions": [
            { "t": "roll", "dice": [3, 5] },
            { "t": "move", "die": 0, "from": "b1", "to": "c3" },
            { "t": "end_turn" }, { "t": "roll" }, { "t": "time_out" },
            { "t": "resign", "seat": "green" }
          ]
        }"#;
        let record = Record::from_json(text).expect("documented example parses");
        assert_eq!(record.actions.len(), 6);
        assert_eq!(record.actions[3], Step::Roll { dice: None });
    }

    #[test]
    fn explicit_dice_replay_without_seed() {
        let mut record = Record::new(Settings::default(), None);
        record.actions.push(Step::Roll { dice: Some([3, 3]) });
        let b1 = "b1".parse().expect("square");
        let c3 = "c3".parse().expect("square");
        let e4 = "e4".parse().expect("square");
        record.actions.push(Step::Move(Move { die: 0, from: b1, to: c3 }));
        record.actions.push(Step::Move(Move { die: 1, from: c3, to: e4 }));
        let replay = record.replay().expect("valid settings");
        assert_eq!(replay.violation, None);
        assert_eq!(replay.game.to_move(), Seat::Blue);
        assert!(replay.game.board().get(e4).is_some());
    }

    #[test]
    fn missing_dice_without_seed_is_a_violation() {
        let mut record = Record::new(Settings::default(), None);
        record.actions.push(Step::Roll { dice: None });
        let replay = record.replay().expect("valid settings");
        let violation = replay.violation.expect("violation");
        assert_eq!(violation.index, 0);
        assert_eq!(violation.error, StepError::MissingDice);
    }

    #[test]
    fn wrong_format_and_version_are_rejected() {
        assert!(matches!(
            Record::from_json(r#"{"format":"pgn","version":1,"actions":[]}"#),
            Err(RecordError::WrongFormat { .. })
        ));
        assert!(matches!(
            Record::from_json(r#"{"format":"chaturaji-record","version":9,"actions":[]}"#),
            Err(RecordError::UnsupportedVersion { found: 9 })
        ));
        assert!(matches!(Record::from_json("{"), Err(RecordError::Malformed(_))));
        assert!(matches!(
            Record::from_json(
                r#"{"format":"chaturaji-record","version":1,"settings":{"round_limit":0}}"#
            ),
            Err(RecordError::Settings(SettingsError::ZeroRoundLimit))
        ));
    }

    #[test]
    fn recorded_game_writes_a_record_that_resumes() {
        let mut live = RecordedGame::new(Settings::default(), 5).expect("valid");
        live.roll().expect("roll");
        if let Some(&mv) = live.game().legal_moves().first() {
            live.act(Action::Move(mv)).expect("legal move");
        }
        let resumed = RecordedGame::resume(live.record().clone()).expect("resumes");
        assert_eq!(resumed.game(), live.game());
        let mut a = live.clone();
        let mut b = resumed;
        let _ = a.act(Action::TimeOut);
        let _ = b.act(Action::TimeOut);
        assert_eq!(a.roll().map_err(|e| e.to_string()), b.roll().map_err(|e| e.to_string()));
        assert_eq!(a.game(), b.game());
    }

    /// The log holds the last steps' events as they were handed out, capped, and a resumed
    /// record rebuilds the same log (a table opened again, a room after a restart).
    #[test]
    fn the_log_keeps_the_last_events_and_a_resumed_record_rebuilds_it() {
        let mut live = RecordedGame::new(Settings::default(), 11).expect("valid");
        let mut all = Vec::new();
        while live.record().actions.len() < 60 && !live.game().is_over() {
            let events = match live.game().legal_moves().first() {
                Some(&mv) if live.game().dice().is_some() => live.act(Action::Move(mv)),
                _ if live.game().dice().is_some() => live.act(Action::EndTurn),
                _ => live.roll(),
            }
            .expect("a legal step");
            all.extend(events);
        }
        assert!(all.len() > crate::game::LOG_LEN, "{} events", all.len());
        let tail: Vec<Event> = all[all.len() - crate::game::LOG_LEN..].to_vec();
        assert_eq!(live.log().iter().cloned().collect::<Vec<_>>(), tail);
        let resumed = RecordedGame::resume(live.record().clone()).expect("resumes");
        assert_eq!(resumed.log(), live.log());
    }
}
