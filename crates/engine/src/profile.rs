//! Rule profiles: a variant is data. `RuleProfile::default()` is standard chess; Maharajah and
//! Horde list only their differences. Per-side rules (`SideRules`) carry Maharajah's
//! classic/variant status: castling, promotion set and the pawn double-step rule.

use std::fmt;

use crate::types::{Bitboard, ByColor, Color, RoleSet};

/// The orthodox start position (chess, and a Maharajah game of two orthodox armies).
pub const STANDARD_START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
/// The Horde start position.
pub const HORDE_START: &str =
    "rnbqkbnr/pppppppp/8/1PP2PP1/PPPPPPPP/PPPPPPPP/PPPPPPPP/PPPPPPPP w kq - 0 1";

/// Which family of rules a game uses. A label for notation (PGN `Variant` tag, UCI option) only:
/// move generation reads the data of the [`RuleProfile`], never this name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Standard chess.
    Chess,
    /// Maharajah: compound pieces and self-built armies.
    Maharajah,
    /// Horde.
    Horde,
}

impl Variant {
    /// The UCI / PGN name: `chess`, `maharajah`, `horde`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Chess => "chess",
            Variant::Maharajah => "maharajah",
            Variant::Horde => "horde",
        }
    }

    /// The default profile of this variant (Maharajah: both sides variant).
    #[must_use]
    pub fn profile(self) -> RuleProfile {
        match self {
            Variant::Chess => RuleProfile::standard(),
            Variant::Maharajah => RuleProfile::maharajah(Status::Variant, Status::Variant),
            Variant::Horde => RuleProfile::horde(),
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Variant {
    type Err = UnknownVariant;
    fn from_str(s: &str) -> Result<Variant, UnknownVariant> {
        match s.to_ascii_lowercase().as_str() {
            "chess" | "standard" | "normal" => Ok(Variant::Chess),
            "maharajah" => Ok(Variant::Maharajah),
            "horde" => Ok(Variant::Horde),
            _ => Err(UnknownVariant(s.to_owned())),
        }
    }
}

/// A variant name that is not `chess`, `maharajah` or `horde`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownVariant(pub String);

impl fmt::Display for UnknownVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown variant {:?} (expected chess, maharajah or horde)", self.0)
    }
}

impl std::error::Error for UnknownVariant {}

/// A Maharajah side's status, fixed from its starting material (rules/maharajah.md §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// Only orthodox pieces: castling, orthodox promotions, double step only from rank 2.
    Classic,
    /// At least one compound piece: no castling, promotions include M/C/A, double step from any
    /// starting square.
    Variant,
}

impl Status {
    /// `'c'` or `'v'` as in the extended FEN.
    #[must_use]
    pub const fn char(self) -> char {
        match self {
            Status::Classic => 'c',
            Status::Variant => 'v',
        }
    }
}

/// When a pawn may advance two squares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DoubleStep {
    /// Squares a pawn must stand on to double-step.
    pub from: Bitboard,
    /// Whether the pawn must also be unmoved (the per-pawn rule of Maharajah): then the
    /// position tracks the set of unmoved pawns.
    pub requires_unmoved: bool,
    /// Double steps from these squares create an en-passant chance (Horde: not from rank 1).
    pub en_passant_from: Bitboard,
}

/// The rules one side plays by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SideRules {
    /// May castle (subject to rights and the usual conditions).
    pub castling: bool,
    /// Roles a pawn of this side may promote to.
    pub promotions: RoleSet,
    /// Pawn double-step rule.
    pub double_step: DoubleStep,
    /// Maharajah status, when the side plays Maharajah (`None` in chess and Horde).
    pub status: Option<Status>,
    /// Whether the side must have a king (Horde's White has none).
    pub has_king: bool,
    /// How this side loses besides checkmate.
    pub loses_when: LossCondition,
}

/// How a side can lose, beyond what every side shares (running out of time, resigning).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LossCondition {
    /// Checkmate of its king.
    Checkmate,
    /// Losing every piece (Horde's White).
    AllPiecesCaptured,
}

impl SideRules {
    /// Orthodox chess rules for `color`.
    #[must_use]
    pub const fn standard(color: Color) -> SideRules {
        let rank2 = Bitboard::relative_rank(color, 1);
        SideRules {
            castling: true,
            promotions: RoleSet::ORTHODOX_PROMOTIONS,
            double_step: DoubleStep {
                from: rank2,
                requires_unmoved: false,
                en_passant_from: rank2,
            },
            status: None,
            has_king: true,
            loses_when: LossCondition::Checkmate,
        }
    }

    /// Maharajah rules for `color` with the given status.
    #[must_use]
    pub const fn maharajah(color: Color, status: Status) -> SideRules {
        match status {
            Status::Classic => {
                let rank2 = Bitboard::relative_rank(color, 1);
                SideRules {
                    castling: true,
                    promotions: RoleSet::ORTHODOX_PROMOTIONS,
                    double_step: DoubleStep {
                        from: rank2,
                        requires_unmoved: true,
                        en_passant_from: rank2,
                    },
                    status: Some(Status::Classic),
                    has_king: true,
                    loses_when: LossCondition::Checkmate,
                }
            }
            Status::Variant => SideRules {
                castling: false,
                promotions: RoleSet::VARIANT_PROMOTIONS,
                double_step: DoubleStep {
                    // Any square of the side's own half (ranks 1-4 / 5-8), where an army places
                    // its pawns; the unmoved-pawn set narrows it to each pawn's start square.
                    from: Bitboard(
                        Bitboard::relative_rank(color, 0).0
                            | Bitboard::relative_rank(color, 1).0
                            | Bitboard::relative_rank(color, 2).0
                            | Bitboard::relative_rank(color, 3).0,
                    ),
                    requires_unmoved: true,
                    en_passant_from: Bitboard::FULL,
                },
                status: Some(Status::Variant),
                has_king: true,
                loses_when: LossCondition::Checkmate,
            },
        }
    }
}

/// All the rules of a game: a plain struct whose `Default` is standard chess.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RuleProfile {
    /// Label for notation only.
    pub variant: Variant,
    /// Per-side rules.
    pub sides: ByColor<SideRules>,
    /// Whether insufficient material ends the game (off in Horde, whose kingless side makes the
    /// usual material test meaningless).
    pub insufficient_material_draw: bool,
    /// The FEN a new game of this variant starts from (Fairy-Stockfish's `startFen`): the
    /// orthodox array for chess and Maharajah (custom armies come from the army builder), the
    /// Horde array for Horde. Read by [`crate::Position::new`].
    pub start_fen: &'static str,
}

impl Default for RuleProfile {
    fn default() -> RuleProfile {
        RuleProfile::standard()
    }
}

impl RuleProfile {
    /// Standard chess.
    #[must_use]
    pub const fn standard() -> RuleProfile {
        RuleProfile {
            variant: Variant::Chess,
            sides: ByColor {
                white: SideRules::standard(Color::White),
                black: SideRules::standard(Color::Black),
            },
            insufficient_material_draw: true,
            start_fen: STANDARD_START,
        }
    }

    /// Maharajah with each side's status.
    #[must_use]
    pub const fn maharajah(white: Status, black: Status) -> RuleProfile {
        let s = RuleProfile::standard();
        RuleProfile {
            variant: Variant::Maharajah,
            sides: ByColor {
                white: SideRules::maharajah(Color::White, white),
                black: SideRules::maharajah(Color::Black, black),
            },
            ..s
        }
    }

    /// Horde: standard chess, except White has no king, loses only when every piece is gone and
    /// may double-step from rank 1 (without en passant).
    #[must_use]
    pub const fn horde() -> RuleProfile {
        let s = RuleProfile::standard();
        let white = SideRules::standard(Color::White);
        RuleProfile {
            variant: Variant::Horde,
            sides: ByColor {
                white: SideRules {
                    castling: false,
                    has_king: false,
                    loses_when: LossCondition::AllPiecesCaptured,
                    double_step: DoubleStep {
                        from: Bitboard(Bitboard::rank(0).0 | Bitboard::rank(1).0),
                        ..white.double_step
                    },
                    ..white
                },
                black: s.sides.black,
            },
            insufficient_material_draw: false,
            start_fen: HORDE_START,
        }
    }

    /// The rules of `color`.
    #[inline]
    #[must_use]
    pub const fn side(&self, color: Color) -> &SideRules {
        self.sides.get(color)
    }

    /// `true` if any side tracks unmoved pawns (the extended FEN then carries the set).
    #[must_use]
    pub const fn tracks_unmoved_pawns(&self) -> bool {
        self.sides.white.double_step.requires_unmoved
            || self.sides.black.double_step.requires_unmoved
    }
}
