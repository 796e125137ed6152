//! Chaturaji, four-player dice chess, as the app plays it: a table on this device, a seat of a
//! room on a server, or a table hosted over the Wi-Fi.
//!
//! - [`local`]: the local table (people and CPU seats), saved in SQLite, and its worker.
//! - [`online`]: this device's seat of a room on a server (online or a LAN host).
//! - [`lan`]: a table hosted on this device over the Wi-Fi, and joining one.
//! - [`view`]: the [`TableView`] the UI draws of any of them.

pub mod lan;
pub mod local;
pub mod online;
pub mod view;

pub use view::{table_view, DiceAlarmView, RemoteView, TableView, ViewParts};
