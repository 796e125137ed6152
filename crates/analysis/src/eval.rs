//! [`Eval`]: an engine evaluation seen from White's side, as PGN's `[%eval …]` comment writes it.

use std::fmt;
use std::str::FromStr;

use maharajah_engine::search::Score;
use maharajah_engine::{Color, Outcome, Position};

/// An evaluation from White's point of view (positive: White is better), the convention of
/// PGN `[%eval …]` comments and of evaluation bars.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Eval {
    /// Centipawns, White's view.
    Cp(i32),
    /// A forced mate: `winner` mates in `moves` moves (0: the position is already won, e.g.
    /// checkmate on the board).
    Mate {
        /// The side that mates.
        winner: Color,
        /// Moves to mate (0 when the game is already over).
        moves: u32,
    },
}

impl Eval {
    /// The level evaluation.
    pub const EVEN: Eval = Eval::Cp(0);

    /// Converts a search [`Score`] (side to move's view) for a position with `turn` to move.
    #[must_use]
    pub fn from_score(score: Score, turn: Color) -> Eval {
        let white = |v: i32| if turn == Color::White { v } else { -v };
        match score {
            Score::Cp(cp) => Eval::Cp(white(cp)),
            // Mate(n > 0): the side to move mates; Mate(n <= 0): it is mated (0: now).
            Score::Mate(n) if n > 0 => Eval::Mate { winner: turn, moves: n.unsigned_abs() },
            Score::Mate(n) => Eval::Mate { winner: turn.other(), moves: n.unsigned_abs() },
        }
    }

    /// The evaluation of a finished game: a win for the winner (mate in 0), 0 for a draw.
    #[must_use]
    pub fn from_outcome(outcome: Outcome) -> Eval {
        match outcome {
            Outcome::Decisive { winner, .. } => Eval::Mate { winner, moves: 0 },
            Outcome::Draw { .. } => Eval::EVEN,
        }
    }

    /// The evaluation of `position` if its rules have already ended the game there.
    #[must_use]
    pub fn of_finished(position: &Position) -> Option<Eval> {
        position.outcome().map(Eval::from_outcome)
    }

    /// The same evaluation from `color`'s point of view.
    #[must_use]
    pub fn pov(self, color: Color) -> PovEval {
        match self {
            Eval::Cp(cp) => PovEval::Cp(if color == Color::White { cp } else { -cp }),
            Eval::Mate { winner, moves } if winner == color => PovEval::Mates(moves),
            Eval::Mate { moves, .. } => PovEval::Mated(moves),
        }
    }
}

/// An evaluation from one side's point of view (see [`Eval::pov`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PovEval {
    /// Centipawns for this side.
    Cp(i32),
    /// This side mates in so many moves.
    Mates(u32),
    /// This side is mated in so many moves.
    Mated(u32),
}

impl fmt::Display for Eval {
    /// The `[%eval …]` form: pawns with two decimals (`0.35`, `-1.20`) or `#3` / `#-3`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Eval::Cp(cp) => {
                let sign = if cp < 0 { "-" } else { "" };
                let abs = cp.unsigned_abs();
                write!(f, "{sign}{}.{:02}", abs / 100, abs % 100)
            }
            Eval::Mate { winner: Color::White, moves } => write!(f, "#{moves}"),
            Eval::Mate { winner: Color::Black, moves } => write!(f, "#-{moves}"),
        }
    }
}

/// Why a `[%eval …]` value could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseEvalError(pub String);

impl fmt::Display for ParseEvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not an evaluation: {:?}", self.0)
    }
}

impl std::error::Error for ParseEvalError {}

impl FromStr for Eval {
    type Err = ParseEvalError;

    /// Reads `0.35`, `-1.2`, `+3`, `#3`, `#-3` (the forms lichess and ChessBase write).
    fn from_str(s: &str) -> Result<Eval, ParseEvalError> {
        let bad = || ParseEvalError(s.to_owned());
        let s = s.trim();
        if let Some(m) = s.strip_prefix('#') {
            let (winner, digits) = match m.strip_prefix('-') {
                Some(d) => (Color::Black, d),
                None => (Color::White, m.strip_prefix('+').unwrap_or(m)),
            };
            let moves = digits.parse().map_err(|_| bad())?;
            return Ok(Eval::Mate { winner, moves });
        }
        let (negative, body) = match s.strip_prefix('-') {
            Some(b) => (true, b),
            None => (false, s.strip_prefix('+').unwrap_or(s)),
        };
        let (int, frac) = body.split_once('.').unwrap_or((body, ""));
        if int.is_empty() && frac.is_empty()
            || !int.bytes().all(|b| b.is_ascii_digit())
            || !frac.bytes().all(|b| b.is_ascii_digit())
        {
            return Err(bad());
        }
        let pawns: i64 = if int.is_empty() { 0 } else { int.parse().map_err(|_| bad())? };
        // Hundredths, rounded from any further digits.
        let mut frac_digits = frac.bytes().map(|b| i64::from(b - b'0'));
        let tenths = frac_digits.next().unwrap_or(0);
        let hundredths = frac_digits.next().unwrap_or(0);
        let round = i64::from(frac_digits.next().unwrap_or(0) >= 5);
        let cp = pawns
            .checked_mul(100)
            .and_then(|c| c.checked_add(tenths * 10 + hundredths + round))
            .and_then(|c| i32::try_from(c).ok())
            .ok_or_else(bad)?;
        Ok(Eval::Cp(if negative { -cp } else { cp }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_and_parse_round_trip() {
        for (eval, text) in [
            (Eval::Cp(35), "0.35"),
            (Eval::Cp(-120), "-1.20"),
            (Eval::Cp(-5), "-0.05"),
            (Eval::Cp(1234), "12.34"),
            (Eval::Mate { winner: Color::White, moves: 3 }, "#3"),
            (Eval::Mate { winner: Color::Black, moves: 2 }, "#-2"),
            (Eval::Mate { winner: Color::Black, moves: 0 }, "#-0"),
        ] {
            assert_eq!(eval.to_string(), text);
            assert_eq!(text.parse::<Eval>(), Ok(eval), "{text}");
        }
        assert_eq!("+1.5".parse::<Eval>(), Ok(Eval::Cp(150)));
        assert_eq!("-.5".parse::<Eval>(), Ok(Eval::Cp(-50)));
        assert_eq!("0.125".parse::<Eval>(), Ok(Eval::Cp(13)));
        for bad in ["", "abc", "#", "1.2.3", "#x", "--1"] {
            assert!(bad.parse::<Eval>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn scores_turn_to_whites_view() {
        assert_eq!(Eval::from_score(Score::Cp(50), Color::Black), Eval::Cp(-50));
        assert_eq!(
            Eval::from_score(Score::Mate(2), Color::Black),
            Eval::Mate { winner: Color::Black, moves: 2 }
        );
        assert_eq!(
            Eval::from_score(Score::Mate(-1), Color::Black),
            Eval::Mate { winner: Color::White, moves: 1 }
        );
        // Checkmated now: the side to move lost.
        assert_eq!(
            Eval::from_score(Score::Mate(0), Color::White),
            Eval::Mate { winner: Color::Black, moves: 0 }
        );
        assert_eq!(Eval::Cp(-50).pov(Color::Black), PovEval::Cp(50));
        assert_eq!(
            Eval::Mate { winner: Color::White, moves: 1 }.pov(Color::Black),
            PovEval::Mated(1)
        );
    }
}
