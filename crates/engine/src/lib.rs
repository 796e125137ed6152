//! The Maharajah rules engine: standard chess, Maharajah (compound pieces, built armies) and Horde.
//!
//! Pure Rust: no I/O, no async, no wall clock, no randomness it did not receive (the random army
//! takes `&mut impl Rng`).
//!
//! # Layout
//! * [`types`] — `Color`, `Square`, `Bitboard`, `Role` (K Q R B N P and the compound M C A),
//!   `Piece`, `ByColor`, `ByRole`, `RoleSet`.
//! * [`attacks`] — leaper tables and magic-bitboard slider attacks.
//! * [`profile`] — [`RuleProfile`] (a variant is data: `Default` is chess; Maharajah and Horde
//!   list their differences) with per-side [`SideRules`] (castling, promotions, double step).
//! * [`position`] — [`Position`]: legal move generation, copy-make, check, outcome, perft.
//! * [`moves`] — [`Move`] (UCI text via `Display`/`FromStr`) and the fixed-capacity [`MoveList`].
//! * [`fen`], [`san`], [`pgn`] — notation, including the extended Maharajah FEN.
//! * [`game`] — [`Game`]: history, repetition, claimable and automatic draws.
//! * [`army`] — [`Army`] building and validation, [`army::start_position`].
//! * [`eval`] — static evaluation; [`search`] — the computer opponent: [`search::Searcher`],
//!   levels 1–8, the army builder and the search benchmark.
//! * [`clock`] — the Fischer [`Clock`] and its [`TimeControl`], with injected time.
//!
//! # API overview
//! ```
//! use maharajah_engine::{Game, Move, Position, Variant};
//!
//! let pos = Position::from_fen(Variant::Maharajah, "rnbqkbnr/pppppppp/8/8/8/8/8/CCCAKBA1 w kq - 0 1")?;
//! let moves = pos.legal_moves();            // fixed capacity, no allocation
//! assert_eq!(moves.len(), 58);
//! let mv = pos.parse_san("Ab3")?;           // SAN in, Move out
//! assert_eq!(mv.to_string(), "d1b3");       // UCI text
//! let after = pos.clone().play(mv)?;        // checked: an illegal move hands the position back
//! assert!(!after.is_check());
//! let mut game = Game::new(after);          // history for repetition and draws
//! game.play("e7e5".parse::<Move>()?)?;
//! assert_eq!(game.outcome(), None);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod army;
pub mod attacks;
pub mod clock;
pub mod eval;
pub mod fen;
pub mod game;
pub mod moves;
pub mod pgn;
pub mod position;
pub mod profile;
pub mod san;
pub mod search;
mod serde_impls;
pub mod types;
mod zobrist;

pub use army::{start_position, Army, ArmyError, ArmyRule, ParseArmyError, StartError};
pub use clock::{Clock, Flagged, TimeControl};
pub use fen::FenError;
pub use game::Game;
pub use moves::{Move, MoveList, ParseMoveError};
pub use pgn::{from_pgn, to_pgn, PgnError, PgnGame, PgnTags};
pub use position::{CastlingRights, DrawReason, Outcome, PlayError, Position, WinReason};
pub use profile::{DoubleStep, LossCondition, RuleProfile, SideRules, Status, Variant};
pub use san::SanError;
pub use types::{Bitboard, ByColor, ByRole, Color, Piece, Role, RoleSet, Square};

/// Version of the engine crate, shown in the app's About screen and by the UCI program.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
