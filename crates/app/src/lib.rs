//! The Maharajah application core: everything the app does, without a window. A shell (the Tauri
//! app in `src-tauri`) holds these services, forwards the UI's commands to them and emits what
//! they push; tests drive them directly.
//!
//! Layout:
//! - [`chess`]: local games ([`chess::local`], [`chess::session`]), the army builder
//!   ([`chess::army`]), the computer ([`chess::computer`]), network games ([`chess::online`]).
//! - [`lan`]: two devices on one Wi-Fi: host, browse, join (the game itself is [`chess::online`]).
//! - [`chaturaji`]: the local Chaturaji table, a seat of a network table, a table hosted over the
//!   Wi-Fi, and the view the UI draws of each.
//! - [`clock`]: the Fischer clock with injected time.
//! - [`store`]: saved games, armies and settings in SQLite.
//! - [`multicast`]: counting the uses of Android's Wi-Fi multicast lock.
//! - [`error`]: [`error::AppError`], `{ code, message }` as the UI receives it.
//! - [`time`]: the wall clock's dates.

pub mod chaturaji;
pub mod chess;
pub mod clock;
pub mod error;
pub mod lan;
pub mod multicast;
pub mod store;
pub mod time;

pub use error::AppError;
