//! The commands the web-view UI invokes, grouped by area; each forwards to `maharajah-app` and
//! returns `Result<T, AppError>`, which serialises as `{ code, message }`.
//!
//! - [`analysis`]: the analysis board and game review.
//! - [`chess`]: local games, saved games, settings, the army builder, the Learn board.
//! - [`device`]: the join link the app was opened with; the device's facilities (haptics).
//! - [`online`]: a network game (online server or LAN host).
//! - [`lobby`]: the online lobby, quick pairing, watching, the player's identity.
//! - [`lan`]: hosting, browsing and joining on the Wi-Fi.
//! - [`chaturaji`]: local, network and Wi-Fi Chaturaji tables.

pub mod analysis;
pub mod chaturaji;
pub mod chess;
pub mod device;
pub mod lan;
pub mod lobby;
pub mod online;
