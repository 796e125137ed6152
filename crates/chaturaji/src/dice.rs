//! Dice: cubic and long dice, the piece class each face allows, and why a die can be unusable.

use std::fmt;

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::board::Role;

/// Which dice the table plays with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DiceKind {
    /// Six faces: 1 or 5 → pawn or king; 2 → boat; 3 → horse; 4 or 6 → elephant.
    #[default]
    Cubic,
    /// Long dice show only 2–5, each class equally likely: 2 → boat, 3 → horse, 4 → elephant,
    /// 5 → pawn or king.
    Long,
}

impl DiceKind {
    /// The class of pieces a face allows, or `None` if this kind of die has no such face.
    #[must_use]
    pub const fn class_of(self, face: u8) -> Option<DieClass> {
        match (self, face) {
            (DiceKind::Cubic, 1 | 5) | (DiceKind::Long, 5) => Some(DieClass::PawnOrKing),
            (_, 2) => Some(DieClass::Boat),
            (_, 3) => Some(DieClass::Horse),
            (DiceKind::Cubic, 4 | 6) | (DiceKind::Long, 4) => Some(DieClass::Elephant),
            _ => None,
        }
    }

    /// Rolls one die: cubic dice give 1–6 and long dice 2–5, uniformly, drawn with
    /// `rng.random_range` (this exact draw is what seeded game records replay).
    pub fn roll(self, rng: &mut impl Rng) -> u8 {
        match self {
            DiceKind::Cubic => rng.random_range(1..=6),
            DiceKind::Long => rng.random_range(2..=5),
        }
    }

    /// The probability that one die of this kind shows `class`.
    #[must_use]
    pub const fn probability(self, class: DieClass) -> f64 {
        match (self, class) {
            (DiceKind::Long, _) => 0.25,
            (DiceKind::Cubic, DieClass::PawnOrKing | DieClass::Elephant) => 2.0 / 6.0,
            (DiceKind::Cubic, DieClass::Boat | DieClass::Horse) => 1.0 / 6.0,
        }
    }

    /// One face that shows each class (the lowest), for building dice from classes.
    #[must_use]
    pub const fn face_for(self, class: DieClass) -> u8 {
        match (self, class) {
            (DiceKind::Cubic, DieClass::PawnOrKing) => 1,
            (DiceKind::Long, DieClass::PawnOrKing) => 5,
            (_, DieClass::Boat) => 2,
            (_, DieClass::Horse) => 3,
            (_, DieClass::Elephant) => 4,
        }
    }
}

impl fmt::Display for DiceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DiceKind::Cubic => "cubic",
            DiceKind::Long => "long",
        })
    }
}

/// The class of piece a die face lets the player move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DieClass {
    /// A pawn or the king.
    PawnOrKing,
    /// A boat.
    Boat,
    /// A horse.
    Horse,
    /// An elephant.
    Elephant,
}

impl DieClass {
    /// All four classes.
    pub const ALL: [DieClass; 4] =
        [DieClass::PawnOrKing, DieClass::Boat, DieClass::Horse, DieClass::Elephant];

    /// Whether a piece of `role` may move with this die.
    #[must_use]
    pub const fn allows(self, role: Role) -> bool {
        matches!(
            (self, role),
            (DieClass::PawnOrKing, Role::Pawn | Role::King)
                | (DieClass::Boat, Role::Boat)
                | (DieClass::Horse, Role::Horse)
                | (DieClass::Elephant, Role::Elephant)
        )
    }
}

impl fmt::Display for DieClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DieClass::PawnOrKing => "pawn or king",
            DieClass::Boat => "boat",
            DieClass::Horse => "horse",
            DieClass::Elephant => "elephant",
        })
    }
}

/// Why a die was not (or cannot now be) used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unusable {
    /// The player has no piece of the class the die names.
    NoPiece,
    /// The player has pieces of that class, but none of them has a legal move.
    Blocked,
    /// The player ended the turn without using it.
    Declined,
    /// The time per turn ran out.
    TimeRanOut,
    /// The player resigned during the turn.
    Resigned,
    /// The game ended during the turn.
    GameOver,
}

impl fmt::Display for Unusable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Unusable::NoPiece => "no piece of that kind is left",
            Unusable::Blocked => "every piece of that kind is blocked",
            Unusable::Declined => "the player ended the turn",
            Unusable::TimeRanOut => "the time per turn ran out",
            Unusable::Resigned => "the player resigned",
            Unusable::GameOver => "the game ended",
        })
    }
}

/// What has become of a rolled die.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "state", content = "reason", rename_all = "snake_case")]
pub enum DieState {
    /// Not used yet.
    Unused,
    /// A move was made with it.
    Used,
    /// Discarded without a move, for the given reason.
    Discarded(Unusable),
}

/// One rolled die of the current turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Die {
    /// The face shown.
    pub face: u8,
    /// The class of piece it allows.
    pub class: DieClass,
    /// Whether it is still to be used.
    pub state: DieState,
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn cubic_faces_map_to_classes() {
        let k = DiceKind::Cubic;
        assert_eq!(k.class_of(1), Some(DieClass::PawnOrKing));
        assert_eq!(k.class_of(5), Some(DieClass::PawnOrKing));
        assert_eq!(k.class_of(2), Some(DieClass::Boat));
        assert_eq!(k.class_of(3), Some(DieClass::Horse));
        assert_eq!(k.class_of(4), Some(DieClass::Elephant));
        assert_eq!(k.class_of(6), Some(DieClass::Elephant));
        assert_eq!(k.class_of(0), None);
        assert_eq!(k.class_of(7), None);
    }

    #[test]
    fn long_dice_show_two_to_five_only() {
        let k = DiceKind::Long;
        assert_eq!(k.class_of(1), None);
        assert_eq!(k.class_of(6), None);
        assert_eq!(k.class_of(2), Some(DieClass::Boat));
        assert_eq!(k.class_of(3), Some(DieClass::Horse));
        assert_eq!(k.class_of(4), Some(DieClass::Elephant));
        assert_eq!(k.class_of(5), Some(DieClass::PawnOrKing));
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut seen = [0u32; 7];
        for _ in 0..4000 {
            seen[k.roll(&mut rng) as usize] += 1;
        }
        assert_eq!(seen[0] + seen[1] + seen[6], 0);
        assert!(seen[2..6].iter().all(|&n| n > 850), "{seen:?}");
    }

    #[test]
    fn probabilities_match_faces() {
        for kind in [DiceKind::Cubic, DiceKind::Long] {
            let total: f64 = DieClass::ALL.iter().map(|&c| kind.probability(c)).sum();
            assert!((total - 1.0).abs() < 1e-9);
            for class in DieClass::ALL {
                assert_eq!(kind.class_of(kind.face_for(class)), Some(class));
                let faces = (0..=7).filter(|&f| kind.class_of(f) == Some(class)).count() as f64;
                let sides = if kind == DiceKind::Cubic { 6.0 } else { 4.0 };
                assert!((faces / sides - kind.probability(class)).abs() < 1e-9);
            }
        }
    }

    #[test]
    fn classes_allow_their_roles() {
        assert!(DieClass::PawnOrKing.allows(Role::Pawn));
        assert!(DieClass::PawnOrKing.allows(Role::King));
        assert!(!DieClass::PawnOrKing.allows(Role::Boat));
        assert!(DieClass::Elephant.allows(Role::Elephant));
        assert!(!DieClass::Horse.allows(Role::Elephant));
    }
}
