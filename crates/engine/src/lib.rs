//! The Maharajah rules engine: standard chess, Maharajah (compound pieces, built armies) and Horde.
//!
//! Pure Rust: no I/O, no async, no wall clock, no randomness it did not receive.

/// Version of the engine crate, shown in the app's About screen and by the UCI program.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
