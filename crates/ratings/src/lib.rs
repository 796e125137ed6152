//! Glicko-2 ratings for Maharajah: pure functions and the rating vocabulary.
//!
//! Layout:
//! - [`glicko2`]: [`Rating`], [`Rating::update`] (Glickman's steps 1–8 with fractional rating
//!   periods), [`Rating::after_inactivity`], [`Rating::is_provisional`] (deviation above 110,
//!   lichess's threshold), and [`places_update`] for a multi-player game's places (Chaturaji),
//!   a shared place counting half way between a win and a loss.
//! - [`RatedGame`], [`SpeedClass`], [`RatingKey`]: one rating per game and speed class; the
//!   class comes from the time control by lichess's estimated duration, base + 40 × increment.
//! - [`periods_between`]: wall-clock milliseconds as rating periods (the caller passes the
//!   time in; this crate reads no clock).
//!
//! ```
//! use maharajah_ratings::{RatedGame, RatingKey, SpeedClass};
//! // 3+2: 180 s + 40 × 2 s = 260 s, blitz.
//! assert_eq!(SpeedClass::of(Some((180_000, 2_000))), SpeedClass::Blitz);
//! let key = RatingKey { game: RatedGame::Chess, speed: SpeedClass::Blitz };
//! assert_eq!(key.to_string(), "chess/blitz");
//! assert_eq!("chess/blitz".parse::<RatingKey>(), Ok(key));
//! ```

pub mod glicko2;

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

pub use glicko2::{
    place_score, places_update, Game, Rating, DEFAULT_TAU, MAX_DEVIATION, MIN_DEVIATION,
    PROVISIONAL_DEVIATION,
};

/// A game with its own ratings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RatedGame {
    /// Standard chess.
    Chess,
    /// Maharajah (hidden setup or not).
    Maharajah,
    /// Horde.
    Horde,
    /// Four-player dice chess.
    Chaturaji,
}

impl RatedGame {
    /// Every game, in declaration order.
    pub const ALL: [RatedGame; 4] =
        [RatedGame::Chess, RatedGame::Maharajah, RatedGame::Horde, RatedGame::Chaturaji];

    /// The name on the wire and in the store, e.g. `"horde"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            RatedGame::Chess => "chess",
            RatedGame::Maharajah => "maharajah",
            RatedGame::Horde => "horde",
            RatedGame::Chaturaji => "chaturaji",
        }
    }
}

/// How fast a game is, from its time control (lichess's classes, its ultrabullet counted as
/// bullet).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpeedClass {
    /// Estimated duration under 3 minutes.
    Bullet,
    /// Under 8 minutes.
    Blitz,
    /// Under 25 minutes.
    Rapid,
    /// 25 minutes or more, and games without a clock.
    Classical,
}

impl SpeedClass {
    /// Every class, fastest first.
    pub const ALL: [SpeedClass; 4] =
        [SpeedClass::Bullet, SpeedClass::Blitz, SpeedClass::Rapid, SpeedClass::Classical];

    /// The class of a Fischer time control `(base_ms, increment_ms)` by lichess's estimated
    /// duration, base + 40 × increment: under 179 s bullet, under 479 s blitz, under 1499 s
    /// rapid, else classical. `None` (no clock) is classical: nothing hurries the players.
    /// A per-turn time limit (Chaturaji's 30 or 60 s a turn) is an increment on a zero base.
    ///
    /// # Examples
    ///
    /// ```
    /// use maharajah_ratings::SpeedClass;
    /// assert_eq!(SpeedClass::of(Some((60_000, 0))), SpeedClass::Bullet); // 1+0
    /// assert_eq!(SpeedClass::of(Some((300_000, 3_000))), SpeedClass::Blitz); // 5+3: 420 s
    /// assert_eq!(SpeedClass::of(Some((600_000, 0))), SpeedClass::Rapid); // 10+0
    /// assert_eq!(SpeedClass::of(Some((1_800_000, 0))), SpeedClass::Classical); // 30+0
    /// assert_eq!(SpeedClass::of(None), SpeedClass::Classical);
    /// ```
    #[must_use]
    pub fn of(time_control: Option<(u64, u64)>) -> SpeedClass {
        let Some((base_ms, increment_ms)) = time_control else {
            return SpeedClass::Classical;
        };
        let seconds = base_ms.saturating_add(increment_ms.saturating_mul(40)) / 1000;
        match seconds {
            0..179 => SpeedClass::Bullet,
            179..479 => SpeedClass::Blitz,
            479..1499 => SpeedClass::Rapid,
            _ => SpeedClass::Classical,
        }
    }

    /// The name on the wire and in the store, e.g. `"blitz"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            SpeedClass::Bullet => "bullet",
            SpeedClass::Blitz => "blitz",
            SpeedClass::Rapid => "rapid",
            SpeedClass::Classical => "classical",
        }
    }
}

/// Which of a player's ratings: one per game and speed class. Its text form is
/// `game/speed`, e.g. `maharajah/rapid`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RatingKey {
    /// The game.
    pub game: RatedGame,
    /// The speed class.
    pub speed: SpeedClass,
}

impl fmt::Display for RatingKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.game.name(), self.speed.name())
    }
}

/// A text that is not `game/speed`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RatingKeyError(pub String);

impl fmt::Display for RatingKeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "'{}' is not a rating (game/speed, e.g. chess/blitz)", self.0)
    }
}

impl std::error::Error for RatingKeyError {}

impl FromStr for RatingKey {
    type Err = RatingKeyError;

    fn from_str(s: &str) -> Result<RatingKey, RatingKeyError> {
        let bad = || RatingKeyError(s.to_owned());
        let (game, speed) = s.split_once('/').ok_or_else(bad)?;
        let game = RatedGame::ALL.into_iter().find(|g| g.name() == game).ok_or_else(bad)?;
        let speed = SpeedClass::ALL.into_iter().find(|c| c.name() == speed).ok_or_else(bad)?;
        Ok(RatingKey { game, speed })
    }
}

/// Length of one rating period: lichess's 0.21436 periods a day, about 4.7 days. A player's
/// deviation grows by one period's volatility for each period without a rated game.
pub const PERIOD_MS: f64 = 86_400_000.0 / 0.21436;

/// The rating periods (fractions allowed) from `from_ms` to `to_ms` (Unix milliseconds); 0 if
/// time went backwards.
///
/// # Examples
///
/// ```
/// let week = 7 * 86_400_000;
/// let p = maharajah_ratings::periods_between(0, week);
/// assert!((p - 1.5).abs() < 0.01);
/// ```
#[must_use]
#[allow(clippy::cast_precision_loss)] // milliseconds far below 2^52
pub fn periods_between(from_ms: u64, to_ms: u64) -> f64 {
    to_ms.saturating_sub(from_ms) as f64 / PERIOD_MS
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn class_boundaries_follow_lichess() {
        let class = |base_s: u64, inc_s: u64| SpeedClass::of(Some((base_s * 1000, inc_s * 1000)));
        assert_eq!(class(0, 4), SpeedClass::Bullet); // 160 s
        assert_eq!(class(178, 0), SpeedClass::Bullet);
        assert_eq!(class(179, 0), SpeedClass::Blitz);
        assert_eq!(class(180, 2), SpeedClass::Blitz); // 3+2
        assert_eq!(class(478, 0), SpeedClass::Blitz);
        assert_eq!(class(479, 0), SpeedClass::Rapid);
        assert_eq!(class(0, 30), SpeedClass::Rapid); // Chaturaji's 30 s a turn: 1200 s
        assert_eq!(class(900, 10), SpeedClass::Rapid); // 15+10: 1300 s
        assert_eq!(class(1498, 0), SpeedClass::Rapid);
        assert_eq!(class(1499, 0), SpeedClass::Classical);
        assert_eq!(class(0, 60), SpeedClass::Classical); // 60 s a turn: 2400 s
    }

    #[test]
    fn keys_round_trip_as_text_and_json() {
        for game in RatedGame::ALL {
            for speed in SpeedClass::ALL {
                let key = RatingKey { game, speed };
                assert_eq!(key.to_string().parse::<RatingKey>(), Ok(key));
                let json = serde_json::to_string(&key).unwrap();
                assert_eq!(serde_json::from_str::<RatingKey>(&json).unwrap(), key);
            }
        }
        assert_eq!(
            serde_json::to_string(&RatingKey { game: RatedGame::Horde, speed: SpeedClass::Rapid })
                .unwrap(),
            r#"{"game":"horde","speed":"rapid"}"#
        );
        for bad in ["chess", "chess/", "shogi/blitz", "chess/ultrabullet", "Chess/blitz"] {
            assert!(bad.parse::<RatingKey>().is_err(), "{bad}");
        }
    }
}
