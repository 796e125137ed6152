//! The Maharajah rules engine: standard chess, Maharajah (compound pieces, built armies) and Horde.
//!
//! Pure Rust: no I/O, no async, no wall clock, no randomness it did not receive.

pub mod attacks;
pub mod fen;
pub mod moves;
pub mod position;
pub mod profile;
pub mod types;
mod zobrist;

pub use fen::FenError;
pub use moves::{Move, MoveList};
pub use position::{DrawReason, Outcome, PlayError, Position, WinReason};
pub use profile::{RuleProfile, SideRules, Status, Variant};
pub use types::{Bitboard, ByColor, ByRole, Color, Piece, Role, RoleSet, Square};

/// Version of the engine crate, shown in the app's About screen and by the UCI program.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
