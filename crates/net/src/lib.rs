//! Client side of Maharajah networking: what the app calls to play on a LAN or online.
//!
//! Layout:
//! - `link` (private): the one connection driver of both clients, and what they share:
//!   [`ConnectOptions`], [`NetError`], [`CloseReason`], [`Welcome`] and the one event type
//!   [`LinkEvent`] ([`NetEvent`] and [`ChaturajiNetEvent`] are it for each room kind).
//! - [`client`]: [`Connection`], a WebSocket client of the protocol with hello/version check,
//!   create/join/rejoin, moves tracked by ply and acknowledged, automatic reconnect with backoff
//!   and `rejoin {last_seq}` resync, ping/RTT. Its events arrive on a channel ([`NetEvent`]);
//!   [`RoomState`] holds the replica (the protocol's `Snapshot::apply`) and the engine game.
//! - [`chaturaji`]: [`ChaturajiClient`], a client for Chaturaji seats: create a table with CPU
//!   seats, join by code, act by game step, a replica of the game checked step by step, and the
//!   seat kept across drops and restarts by its token and the device id.
//! - [`setup`]: the client side of the fair hidden lock-in ([`HiddenSetup`]): canonical army and
//!   a 32-byte random nonce, SHA-256 commitment, reveal only once both commitments are fixed,
//!   and a check of the opponent's army against its commitment and the army rules.
//! - [`discovery`]: mDNS/DNS-SD with mdns-sd: [`Advertiser`] for `_maharajah._tcp.local.` and
//!   [`Browser`], a live list of hosts with a compatibility verdict.
//! - [`bonjour`]: the iOS Bonjour plugin's Rust side ([`bonjour::PluginBonjour`]), the same
//!   [`discovery::Discovery`] as mdns-sd's, chosen by target ([`discovery::backend`]).
//! - [`host`]: [`LanHost`], the embedded server on an ephemeral port plus its advertisement, and
//!   the fallbacks: a typed `address:port` and a short [`JoinCode`].

pub mod bonjour;
#[cfg(any(test, feature = "stand-in"))]
pub mod bonjour_stand_in;
pub mod chaturaji;
pub mod client;
pub mod discovery;
pub mod host;
mod link;
pub mod setup;
#[cfg(feature = "tls")]
pub mod tls;

pub use chaturaji::{
    ActAck, ChaturajiClient, ChaturajiNetEvent, ChaturajiSeat, DiceAlarm, TableState,
};
pub use client::{
    ConnectOptions, Connection, LobbyState, NetError, NetEvent, PlayedMove, RoomState,
    SeatCredentials, Seeking,
};
pub use discovery::{
    Advertiser, BrowseFailure, Browser, Compatibility, Discovery, DiscoveryError, HostAd,
    HostEvent, HostInfo, SERVICE_TYPE,
};
pub use host::{JoinCode, JoinCodeError, LanHost, LanHostError, LanHostOptions, LanServer};
pub use link::{CloseReason, LinkEvent, Welcome};
pub use setup::{HiddenSetup, RevealError, SetupError};

/// Version of this crate (the app's networking), for the About screen and the mDNS TXT record.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
