//! The authoritative Maharajah server: rooms, access codes, Fischer clocks, pauses, persistence.
//!
//! The online server (binary `maharajah-server`) and the app's LAN host run this same library:
//! bind a listener, then [`run`] it until a shutdown future completes.
//!
//! ```no_run
//! # async fn host() -> Result<(), Box<dyn std::error::Error>> {
//! let listener = tokio::net::TcpListener::bind("0.0.0.0:0").await?;
//! let port = listener.local_addr()?.port(); // advertise this over mDNS
//! let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
//! let server = tokio::spawn(maharajah_server::run(
//!     listener,
//!     maharajah_server::Config::default(), // in memory; set `db` for SQLite
//!     async move { let _ = stopped.await; },
//! ));
//! // … later:
//! let _ = stop.send(());
//! server.await??;
//! # Ok(()) }
//! ```
//!
//! Layout:
//! - [`room`]: one room as a pure state machine (seats, hidden setup, moves, pauses, results,
//!   numbered events and their ring buffer).
//! - [`lobby`]: open challenges and quick pairing as a pure state machine (the pairing
//!   window, the request bucket); the connection side is in `server`.
//! - [`chaturaji`]: one Chaturaji room as a pure state machine (four seats, device ids, CPU
//!   stand-ins, verifiable dice, turn timer, rematch).
//! - `rules`: the only module that calls the rules engine.
//! - [`store`]: persistence behind one trait: SQLite (WAL) with a group-committing writer
//!   thread, or PostgreSQL for a cluster (snapshot plus append-only log, the room directory
//!   with leases and epochs).
//! - `server`: WebSocket transport, room actors, connection limits, shutdown; in cluster mode
//!   ([`ClusterConfig`]) lease renewal, failover claims and forwarding to a room's owner.
//! - [`players`]: players known by their public key: unique display names (by look-alike
//!   skeleton) and Glicko-2 ratings per game and speed class, stored in the `players` table.
//! - [`history`]: finished games for players' profiles (with their PGN), stored in the `games`
//!   table.
//! - `codes`: random access codes and seat tokens.
//! - [`metrics`]: process-wide move-handling times, for benchmarks.
//! - [`tls`]: certificate and key for serving `wss://` directly ([`Config::tls`]).

pub mod chaturaji;
mod codes;
pub mod history;
pub mod lobby;
pub mod metrics;
pub mod players;
pub mod room;
pub mod rooms;
pub mod rules;
mod server;
pub mod store;
#[cfg(feature = "tls")]
pub mod tls;

pub use lobby::{LobbyConfig, LobbyPlayer, RatingSource};
pub use rooms::Lifetimes;
pub use server::{
    descriptor_cap, raise_descriptor_limit, run, run_with_admin, ClusterConfig, Config,
    ServerError, DESCRIPTOR_RESERVE,
};

/// Version of the server program, reported to clients in `welcome`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
