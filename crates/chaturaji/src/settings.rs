//! Table settings: every option of the rules as a field, with the spec's defaults.

use serde::{Deserialize, Serialize};

use crate::dice::DiceKind;
use crate::seat::{BySeat, Seat};

/// How strong a CPU player is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Plays a uniformly random legal move with every usable die.
    Random,
    /// Captures the most valuable piece it can with each die, otherwise moves at random.
    Greedy,
    /// Searches every way to play its two dice and scores the result, weighing which of its
    /// pieces the other seats could capture with the dice they may roll.
    Medium,
    /// Medium's search, then expectimax for its best candidate plans: the exact expectation over
    /// the next seat's ten dice-class pairs, that seat answering each as Medium would.
    #[default]
    Strong,
}

/// Who plays a seat. People fill seats; the computer plays the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Player {
    /// A person (on this device or another).
    Person,
    /// A CPU player of the given level.
    Cpu {
        /// How strong it plays.
        level: Level,
    },
}

/// Time per turn. When it runs out, the unused dice are discarded and the turn passes; the room
/// (which owns the clock) calls [`crate::Game::time_out`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnTime {
    /// No limit.
    #[default]
    None,
    /// 30 seconds per turn.
    Seconds30,
    /// 60 seconds per turn.
    Seconds60,
}

impl TurnTime {
    /// The limit in seconds, if any.
    #[must_use]
    pub const fn seconds(self) -> Option<u32> {
        match self {
            TurnTime::None => None,
            TurnTime::Seconds30 => Some(30),
            TurnTime::Seconds60 => Some(60),
        }
    }
}

/// What happens to the seat of someone who leaves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LeaveRule {
    /// The CPU plays the seat until its person returns from the same device (device token), who
    /// then gets the seat back. The room applies this; the game itself is unaffected.
    #[default]
    CpuUntilReturn,
}

/// How a shared place counts in rated play.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RatedTies {
    /// A shared place counts half-way between a win and a loss
    /// ([`crate::Standing::rated_result`]).
    #[default]
    HalfWay,
}

/// When a pawn on its far edge is promoted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Promotion {
    /// The pawn becomes the marked type only if its owner has no piece of that type left; until
    /// then it waits, re-checked at the end of each of its owner's moves.
    #[default]
    OnlyMissingTypes,
    /// The pawn becomes the marked type at once, except on the two king squares, where it stays a
    /// pawn.
    Always,
}

/// Whether usable dice may be left unused.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiceUse {
    /// The player may end the turn with usable dice left.
    #[default]
    MayLeaveUnused,
    /// Every die that allows a move must be used.
    MustUseAll,
}

/// Who moves first in the next game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FirstSeatRule {
    /// The first seat moves one seat clockwise each game.
    #[default]
    Rotating,
    /// The same seat always starts.
    Fixed,
}

/// The table settings of a game. `Default` is the spec's default table; records may omit any
/// field to take its default.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// Who plays each seat (default: four people; the app puts the CPU in empty seats).
    pub players: BySeat<Player>,
    /// Time per turn (default none); enforced by whoever owns the clock.
    pub turn_time: TurnTime,
    /// Cubic (default) or long dice.
    pub dice: DiceKind,
    /// Promotion rule (default: only missing types).
    pub promotion: Promotion,
    /// Boat triumph (default on).
    pub boat_triumph: bool,
    /// Throne points (default off).
    pub throne_points: bool,
    /// Whether usable dice may be left unused (default: may).
    pub dice_use: DiceUse,
    /// The game ends after this many rounds (default 30; must be positive).
    pub round_limit: u32,
    /// The game ends after this many consecutive rounds without a capture (default 12; must be
    /// positive).
    pub no_capture_rounds: u32,
    /// The seat that moves first in this game (default Red).
    pub first_seat: Seat,
    /// How the first seat changes for the next game (default rotating).
    pub first_seat_rule: FirstSeatRule,
    /// What happens when someone leaves (the CPU keeps the seat until they return).
    pub leave: LeaveRule,
    /// How shared places count in rated play (half-way between a win and a loss).
    pub rated_ties: RatedTies,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            players: BySeat::splat(Player::Person),
            turn_time: TurnTime::None,
            dice: DiceKind::Cubic,
            promotion: Promotion::OnlyMissingTypes,
            boat_triumph: true,
            throne_points: false,
            dice_use: DiceUse::MayLeaveUnused,
            round_limit: 30,
            no_capture_rounds: 12,
            first_seat: Seat::Red,
            first_seat_rule: FirstSeatRule::Rotating,
            leave: LeaveRule::CpuUntilReturn,
            rated_ties: RatedTies::HalfWay,
        }
    }
}

/// A settings value outside its allowed range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SettingsError {
    /// `round_limit` is zero.
    #[error("the round limit must be a positive number")]
    ZeroRoundLimit,
    /// `no_capture_rounds` is zero.
    #[error("the rounds-without-capture limit must be a positive number")]
    ZeroNoCaptureRounds,
}

impl Settings {
    /// Checks the ranges of the numeric settings.
    ///
    /// # Errors
    /// [`SettingsError`] naming the first field out of range.
    pub fn validate(&self) -> Result<(), SettingsError> {
        if self.round_limit == 0 {
            return Err(SettingsError::ZeroRoundLimit);
        }
        if self.no_capture_rounds == 0 {
            return Err(SettingsError::ZeroNoCaptureRounds);
        }
        Ok(())
    }

    /// The settings for the next game at this table: the first seat moves one seat clockwise
    /// when the rule is rotating, and everything else stays.
    #[must_use]
    pub fn for_next_game(&self) -> Settings {
        let mut next = self.clone();
        if self.first_seat_rule == FirstSeatRule::Rotating {
            next.first_seat = self.first_seat.next();
        }
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_follow_the_spec_table() {
        let s = Settings::default();
        assert_eq!(s.players, BySeat::splat(Player::Person));
        assert_eq!(s.turn_time.seconds(), None);
        assert_eq!(s.dice, DiceKind::Cubic);
        assert_eq!(s.promotion, Promotion::OnlyMissingTypes);
        assert!(s.boat_triumph);
        assert!(!s.throne_points);
        assert_eq!(s.dice_use, DiceUse::MayLeaveUnused);
        assert_eq!(s.round_limit, 30);
        assert_eq!(s.no_capture_rounds, 12);
        assert_eq!(s.first_seat, Seat::Red);
        assert_eq!(s.first_seat_rule, FirstSeatRule::Rotating);
        assert_eq!(s.leave, LeaveRule::CpuUntilReturn);
        assert_eq!(s.rated_ties, RatedTies::HalfWay);
        assert_eq!(s.validate(), Ok(()));
    }

    #[test]
    fn first_seat_rotates_or_stays() {
        let s = Settings::default();
        assert_eq!(s.for_next_game().first_seat, Seat::Blue);
        assert_eq!(s.for_next_game().for_next_game().first_seat, Seat::Yellow);
        let fixed = Settings { first_seat_rule: FirstSeatRule::Fixed, ..Settings::default() };
        assert_eq!(fixed.for_next_game().first_seat, Seat::Red);
    }

    #[test]
    fn limits_must_be_positive() {
        let s = Settings { round_limit: 0, ..Settings::default() };
        assert_eq!(s.validate(), Err(SettingsError::ZeroRoundLimit));
        let s = Settings { no_capture_rounds: 0, ..Settings::default() };
        assert_eq!(s.validate(), Err(SettingsError::ZeroNoCaptureRounds));
    }

    #[test]
    fn settings_parse_from_partial_json() {
        let s: Settings =
            serde_json::from_str(r#"{"dice":"long","throne_points":true,"turn_time":"seconds30"}"#)
                .expect("partial settings parse");
        assert_eq!(s.dice, DiceKind::Long);
        assert!(s.throne_points);
        assert_eq!(s.turn_time.seconds(), Some(30));
        assert_eq!(s.round_limit, 30);
        let cpu: Settings = serde_json::from_str(r#"{"players":{"red":{"kind":"person"},"blue":{"kind":"cpu","level":"strong"},"yellow":{"kind":"cpu","level":"random"},"green":{"kind":"person"}}}"#)
            .expect("players parse");
        assert_eq!(cpu.players.blue, Player::Cpu { level: Level::Strong });
        assert_eq!(cpu.players.red, Player::Person);
        assert!(serde_json::from_str::<Settings>(r#"{"dice":"octahedral"}"#).is_err());
        assert!(serde_json::from_str::<Settings>(r#"{"colour":"red"}"#).is_err());
    }
}
