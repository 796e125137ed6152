//! Wire types shared by every Maharajah peer (online server, LAN host, app client).
//!
//! The game's nouns are the rules engine's own ([`Color`], [`ByColor`], [`Variant`], [`Square`],
//! [`Move`], [`Army`], re-exported here) and those of the Chaturaji rules crate; the wire text
//! of each is pinned by the recorded frames in `tests/wire_frames.jsonl`.
//!
//! Layout:
//! - [`ClientMsg`] (client → server) and [`ServerMsg`] (server → client): one enum per
//!   direction, JSON, tagged `#[serde(tag = "t")]`.
//! - [`RoomEvent`]: the numbered events of a room; every one is sent inside
//!   [`ServerMsg::Event`] with its `seq`, so a reconnecting client can ask for what it missed.
//! - [`ErrorCode`]: what went wrong, for programs; every error also carries a message for people.
//! - [`decode_client`] / [`decode_server`]: checked decoding of one frame (size, JSON, tag).
//! - [`chaturaji`]: Chaturaji rooms (four seats, dice): [`ChaturajiMsg`] (server → client,
//!   inside [`ServerMsg::Chaturaji`]), [`ChaturajiEvent`], [`ChaturajiSnapshot`]; the client side
//!   uses [`ClientMsg`] variants (`create_chaturaji`, `join_chaturaji`, …).
//! - [`lobby`]: open challenges and quick pairing: [`LobbyMsg`] (server → client, inside
//!   [`ServerMsg::Lobby`]), [`Challenge`], [`ChallengeOptions`]; the client side uses
//!   [`ClientMsg`] variants (`lobby_subscribe`, `create_challenge`, `play_now`, …).
//! - [`listing`]: the leaderboard, profiles with recent games (PGN on request), the games
//!   playing now: requests answered with [`LobbyMsg`] frames ([`LiveGame`], [`Profile`], …).
//! - [`army`]: the canonical army text (and its engine [`Army`]) and the SHA-256 commitment of
//!   hidden setup.
//! - [`Snapshot::apply`] / [`ChaturajiSnapshot::apply`]: the replica every client keeps, the
//!   pure fold of a room's numbered events into its snapshot.
//! - [`AccessCode`]: the 8-character room code.
//! - [`identity`]: players without passwords: the Ed25519 [`identity::PlayerKey`], the signed
//!   hello [`identity::Challenge`] ([`ClientMsg::Identify`]), display names and their
//!   look-alike skeleton ([`ClientMsg::RegisterName`]), the recovery code. Ratings' vocabulary
//!   ([`RatedGame`], [`SpeedClass`]) is `maharajah-ratings`'s, re-exported.
//! - `fuzz/`: cargo-fuzz targets `decode` and `army` (nightly, own workspace):
//!   `cd crates/protocol/fuzz && cargo +nightly fuzz run decode -- -max_total_time=120`.
//!
//! The first message on a connection is [`ClientMsg::Hello`] carrying [`PROTOCOL_VERSION`]; a
//! server speaking another version answers [`ErrorCode::VersionMismatch`] with a message both
//! sides can show, and closes. So that this works across versions, `hello`, `welcome` and
//! `error` keep their shape in every protocol version (new fields only, never removed ones).

pub mod army;
pub mod chaturaji;
mod code;
mod decode;
pub mod identity;
pub mod listing;
pub mod lobby;
mod replica;
mod types;
mod wire;

pub use maharajah_engine::{Army, ByColor, Color, Move, Square, Variant};
pub use maharajah_ratings::{RatedGame, RatingKey, SpeedClass};

pub use chaturaji::{
    ChaturajiAction, ChaturajiEvent, ChaturajiMsg, ChaturajiSeatView, ChaturajiSnapshot, DieView,
    FairDice,
};
pub use code::{AccessCode, AccessCodeError, ACCESS_CODE_ALPHABET, ACCESS_CODE_LEN};
pub use decode::{decode_client, decode_server, encode, DecodeError};
pub use listing::{
    GameId, GameSummary, LeaderboardEntry, LiveGame, PlayerLabel, PlayerResult, Profile, RatingDiff,
};
pub use lobby::{
    Challenge, ChallengeId, ChallengeOptions, ColorChoice, LobbyGame, LobbyMsg, RemovedReason,
    TableOptions, TableView,
};
pub use replica::ReplicaError;
pub use types::*;

/// Version of the wire protocol. Peers with different versions refuse to talk.
///
/// - 1: the first wave.
/// - 2: verifiable Chaturaji dice (`commit`/`reveal` actions, `dice_committed` and
///   `reveal_requested` events, links on `played`, `fair` in the snapshot) and the end reason
///   `setup_failed`. A version-1 peer could not read these, so it is told to update instead
///   (`version_mismatch` on `hello`, a greyed host on the Local network list).
pub const PROTOCOL_VERSION: u32 = 2;

/// Largest frame (one WebSocket text message) a peer accepts, in bytes.
pub const MAX_FRAME_BYTES: usize = 16 * 1024;

/// Text shown to people when the two protocol versions differ.
///
/// # Examples
///
/// ```
/// let m = maharajah_protocol::version_mismatch_message(2, 1);
/// assert!(m.contains("version 2") && m.contains("version 1"));
/// ```
pub fn version_mismatch_message(client: u32, server: u32) -> String {
    let advice = if client < server {
        "please update the app"
    } else {
        "this server is older than the app; try again after the server is updated"
    };
    format!(
        "The app speaks protocol version {client} but the server speaks version {server}: {advice}."
    )
}
