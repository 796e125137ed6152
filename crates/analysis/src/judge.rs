//! How good a move was: the win-probability model, inaccuracy / mistake / blunder, accuracy.
//!
//! The model is lichess's, checked against its source (lila, `modules/analyse/src/main/`
//! `WinPercent.scala`, `Advice.scala` — now `modules/tree/src/main/Advice.scala` — and
//! `AccuracyPercent.scala`):
//!
//! * **Win %** of a side for an evaluation of `cp` centipawns (clamped to ±1000, lichess's
//!   `Cp.ceiled`): `50 + 50 · (2 / (1 + e^(−0.00368208 · cp)) − 1)` (lila pull request 11148).
//!   A forced mate is 100 % for the mating side and 0 % for the mated one (lichess ceils a mate
//!   to ±1000 cp instead, 97.5 %; a mate is a certainty here).
//! * **Judgement** by the drop of the mover's win % from the position before the move to the
//!   position after it. Lichess's cut-offs are 0.1 / 0.2 / 0.3 on `winningChances`, the
//!   `[−1, +1]` scale (`2 / (1 + e^(…)) − 1`); on the win-% scale (`50 + 50 · winningChances`)
//!   they are **5 / 10 / 15 points**: ≥ 5 an inaccuracy (`?!`, NAG 6), ≥ 10 a mistake (`?`,
//!   NAG 2), ≥ 15 a blunder (`??`, NAG 4). (Lichess judges moves into or out of a forced mate
//!   with separate rules; with mates at 0 / 100 % the drop rule covers them.)
//! * **Accuracy** of a move: `103.1668 · e^(−0.04354 · drop) − 3.1669 + 1` (the `+ 1` is
//!   lichess's "uncertainty bonus"), clamped to 0–100, and 100 when the move loses nothing.
//!   A side's accuracy here is the plain mean of its moves' accuracies (lichess's game figure
//!   also weights moves by the position's volatility and mixes in a harmonic mean).

use std::fmt;

use maharajah_engine::Color;

use crate::eval::{Eval, PovEval};

/// Lichess's slope of the win-% logistic, per centipawn (lila pull request 11148).
pub const WIN_SLOPE: f64 = 0.003_682_08;
/// Centipawn evaluations are clamped to ± this before the model (lichess's `Cp.CEILING`).
pub const CP_CEILING: i32 = 1000;
/// Drop of the mover's win % (points) from which a move is an inaccuracy.
pub const INACCURACY_DROP: f64 = 5.0;
/// Drop of the mover's win % (points) from which a move is a mistake.
pub const MISTAKE_DROP: f64 = 10.0;
/// Drop of the mover's win % (points) from which a move is a blunder.
pub const BLUNDER_DROP: f64 = 15.0;

/// Win % (0–100) of a side whose evaluation is `cp` centipawns.
#[must_use]
pub fn win_percent_cp(cp: i32) -> f64 {
    let cp = f64::from(cp.clamp(-CP_CEILING, CP_CEILING));
    let chances = 2.0 / (1.0 + (-WIN_SLOPE * cp).exp()) - 1.0;
    50.0 + 50.0 * chances.clamp(-1.0, 1.0)
}

/// Win % (0–100) of `color` for an evaluation (a forced mate is 0 or 100).
#[must_use]
pub fn win_percent(eval: Eval, color: Color) -> f64 {
    match eval.pov(color) {
        PovEval::Cp(cp) => win_percent_cp(cp),
        PovEval::Mates(_) => 100.0,
        PovEval::Mated(_) => 0.0,
    }
}

/// What a move that lost winning chances was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Judgement {
    /// `?!` — lost at least [`INACCURACY_DROP`] points of win %.
    Inaccuracy,
    /// `?` — lost at least [`MISTAKE_DROP`] points.
    Mistake,
    /// `??` — lost at least [`BLUNDER_DROP`] points.
    Blunder,
}

impl Judgement {
    /// Every judgement, mildest first.
    pub const ALL: [Judgement; 3] = [Judgement::Inaccuracy, Judgement::Mistake, Judgement::Blunder];

    /// Judges a move by the mover's win % before and after it; `None` for a good move.
    #[must_use]
    pub fn from_win_percents(before: f64, after: f64) -> Option<Judgement> {
        let drop = before - after;
        if drop >= BLUNDER_DROP {
            Some(Judgement::Blunder)
        } else if drop >= MISTAKE_DROP {
            Some(Judgement::Mistake)
        } else if drop >= INACCURACY_DROP {
            Some(Judgement::Inaccuracy)
        } else {
            None
        }
    }

    /// The PGN numeric annotation glyph: 6 (`?!`), 2 (`?`), 4 (`??`).
    #[must_use]
    pub const fn nag(self) -> u8 {
        match self {
            Judgement::Inaccuracy => 6,
            Judgement::Mistake => 2,
            Judgement::Blunder => 4,
        }
    }

    /// The judgement a move-assessment NAG stands for, if it is one of these three.
    #[must_use]
    pub const fn from_nag(nag: u8) -> Option<Judgement> {
        match nag {
            6 => Some(Judgement::Inaccuracy),
            2 => Some(Judgement::Mistake),
            4 => Some(Judgement::Blunder),
            _ => None,
        }
    }

    /// The glyph written after a move: `?!`, `?`, `??`.
    #[must_use]
    pub const fn glyph(self) -> &'static str {
        match self {
            Judgement::Inaccuracy => "?!",
            Judgement::Mistake => "?",
            Judgement::Blunder => "??",
        }
    }

    /// English name, as lichess writes it in comments: `Inaccuracy`, `Mistake`, `Blunder`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Judgement::Inaccuracy => "Inaccuracy",
            Judgement::Mistake => "Mistake",
            Judgement::Blunder => "Blunder",
        }
    }
}

impl fmt::Display for Judgement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Accuracy (0–100) of a move that took the mover's win % from `before` to `after`.
#[must_use]
pub fn move_accuracy(before: f64, after: f64) -> f64 {
    if after >= before {
        return 100.0;
    }
    let drop = before - after;
    let raw =
        103.166_810_071_164_9 * (-0.043_544_153_867_539_51 * drop).exp() - 3.166_924_740_191_411;
    (raw + 1.0).clamp(0.0, 100.0)
}

/// The mean of some move accuracies; `None` for no moves.
#[must_use]
pub fn mean_accuracy(accuracies: impl IntoIterator<Item = f64>) -> Option<f64> {
    let (sum, n) = accuracies.into_iter().fold((0.0, 0u32), |(s, n), a| (s + a, n + 1));
    (n > 0).then(|| sum / f64::from(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6
    }

    #[test]
    fn win_percent_follows_lichess_curve() {
        assert!(close(win_percent_cp(0), 50.0));
        assert!(close(win_percent_cp(100), 59.102_589_719));
        assert!(close(win_percent_cp(-100), 40.897_410_281));
        assert!(close(win_percent_cp(300), 75.112_550_094));
        assert!(close(win_percent_cp(1000), 97.544_743_634));
        // Clamped at the ceiling.
        assert!(close(win_percent_cp(5000), win_percent_cp(1000)));
        assert!(close(win_percent_cp(-5000), 100.0 - 97.544_743_634));
    }

    #[test]
    fn win_percent_takes_sides_and_mates() {
        assert!(close(win_percent(Eval::Cp(100), Color::Black), 40.897_410_281));
        let white_mates = Eval::Mate { winner: Color::White, moves: 4 };
        assert!(close(win_percent(white_mates, Color::White), 100.0));
        assert!(close(win_percent(white_mates, Color::Black), 0.0));
        let over = Eval::Mate { winner: Color::Black, moves: 0 };
        assert!(close(win_percent(over, Color::Black), 100.0));
    }

    #[test]
    fn thresholds_are_five_ten_fifteen_points() {
        assert_eq!(Judgement::from_win_percents(50.0, 45.01), None);
        assert_eq!(Judgement::from_win_percents(50.0, 45.0), Some(Judgement::Inaccuracy));
        assert_eq!(Judgement::from_win_percents(50.0, 40.01), Some(Judgement::Inaccuracy));
        assert_eq!(Judgement::from_win_percents(50.0, 40.0), Some(Judgement::Mistake));
        assert_eq!(Judgement::from_win_percents(50.0, 35.01), Some(Judgement::Mistake));
        assert_eq!(Judgement::from_win_percents(50.0, 35.0), Some(Judgement::Blunder));
        assert_eq!(Judgement::from_win_percents(100.0, 0.0), Some(Judgement::Blunder));
        // Gaining is never judged.
        assert_eq!(Judgement::from_win_percents(30.0, 90.0), None);
    }

    #[test]
    fn centipawn_losses_judged_by_win_percent_not_by_pawns() {
        let judge = |before: i32, after: i32| {
            Judgement::from_win_percents(win_percent_cp(before), win_percent_cp(after))
        };
        // Level to −0.50: 4.6 points, fine; to −0.60: 5.5 points, an inaccuracy.
        assert_eq!(judge(0, -50), None);
        assert_eq!(judge(0, -60), Some(Judgement::Inaccuracy));
        assert_eq!(judge(0, -120), Some(Judgement::Mistake));
        assert_eq!(judge(0, -170), Some(Judgement::Blunder));
        // The same three pawns matter little when far ahead: +10 to +7 is 4.6 points.
        assert_eq!(judge(1000, 700), None);
        // A hung queen from level is a blunder.
        assert_eq!(judge(20, -880), Some(Judgement::Blunder));
    }

    #[test]
    fn nags_and_glyphs() {
        for j in Judgement::ALL {
            assert_eq!(Judgement::from_nag(j.nag()), Some(j));
        }
        assert_eq!(Judgement::Blunder.nag(), 4);
        assert_eq!(Judgement::Mistake.glyph(), "?");
        assert_eq!(Judgement::from_nag(1), None);
    }

    #[test]
    fn accuracy_formula() {
        assert!(close(move_accuracy(50.0, 50.0), 100.0));
        assert!(close(move_accuracy(40.0, 60.0), 100.0));
        assert!((move_accuracy(50.0, 45.0) - 80.815_299_920).abs() < 1e-6);
        assert!((move_accuracy(60.0, 50.0) - 64.579_828_454).abs() < 1e-6);
        assert!((move_accuracy(80.0, 50.0) - 25.772_047_747).abs() < 1e-6);
        assert!(close(move_accuracy(100.0, 0.0), 0.0));
        assert_eq!(mean_accuracy([100.0, 50.0]), Some(75.0));
        assert_eq!(mean_accuracy([]), None);
    }
}
