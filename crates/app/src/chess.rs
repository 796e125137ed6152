//! Chess as the app plays it: a game on this device (against a friend or the computer), the army
//! builder's answers, and a game on the network (an online server or a LAN host).
//!
//! - [`session`]: one game: moves, clock, result, snapshots for the UI, PGN.
//! - [`local`]: the local-play core (open game, storage, computer state) and what the commands
//!   share ([`local::AppState`]).
//! - [`army`]: the army builder's answers, start validation, the Learn board's reach.
//! - [`computer`]: the computer opponent's move choice.
//! - [`aids`]: the hint and the threat view in games against the computer.
//! - [`online`]: one network game for the UI: create/join, moves, pause, draws, hidden lock-in.

pub mod aids;
pub mod army;
pub mod computer;
pub mod local;
pub mod online;
pub mod session;
