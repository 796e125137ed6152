//! What the lobby shows besides challenges: the leaderboard, player profiles with their recent
//! games (and each game's PGN or record on request), and the games being played now.
//!
//! All four are plain requests with one answer each, sent as [`crate::LobbyMsg`] frames:
//!
//! | request ([`crate::ClientMsg`])        | answer ([`crate::LobbyMsg`])             |
//! |---------------------------------------|------------------------------------------|
//! | `leaderboard {game, speed}`           | `leaderboard {game, speed, players}`     |
//! | `profile {name}`                      | `profile {profile}` or `player_not_found`|
//! | `game_record {id}`                    | `game_record {id, game, pgn?, record?}`  |
//! | `playing_now {games}`                 | `playing_now {games}`                    |
//!
//! They need no identity (guests may look) but count against the connection's request bucket
//! for lookups: too many are refused [`crate::ErrorCode::RateLimited`] and the connection stays.
//! Every answer fits one frame ([`crate::MAX_FRAME_BYTES`]): the leaderboard holds at most
//! [`LEADERBOARD_SIZE`] players, a profile the last [`PROFILE_GAMES`] games (without their
//! texts: ask `game_record` for one), the list of games at most [`PLAYING_NOW_SIZE`] rooms.

use serde::{Deserialize, Serialize};

use crate::{AccessCode, RatedGame, RatingView, TimeControl, Variant};

/// The games the lobby offers. A Chaturaji challenge or pairing fills a table of 2–4 people
/// (see [`crate::lobby::TableOptions`]); a server without Chaturaji tables in the lobby refuses it with
/// `unavailable`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LobbyGame {
    /// Standard chess.
    Chess,
    /// Maharajah (hidden army setup).
    Maharajah,
    /// Horde.
    Horde,
    /// Four-player dice chess: a table of 2–4 people, CPUs in the empty seats.
    Chaturaji,
}

impl LobbyGame {
    /// The chess variant of the game, if it is one (not Chaturaji).
    #[must_use]
    pub const fn variant(self) -> Option<Variant> {
        match self {
            LobbyGame::Chess => Some(Variant::Chess),
            LobbyGame::Maharajah => Some(Variant::Maharajah),
            LobbyGame::Horde => Some(Variant::Horde),
            LobbyGame::Chaturaji => None,
        }
    }

    /// The game whose ratings a rated game of this kind changes.
    #[must_use]
    pub const fn rated_game(self) -> RatedGame {
        match self {
            LobbyGame::Chess => RatedGame::Chess,
            LobbyGame::Maharajah => RatedGame::Maharajah,
            LobbyGame::Horde => RatedGame::Horde,
            LobbyGame::Chaturaji => RatedGame::Chaturaji,
        }
    }
}

/// Most players on a leaderboard.
pub const LEADERBOARD_SIZE: usize = 50;
/// Most games in a profile (the latest first).
pub const PROFILE_GAMES: usize = 20;
/// Most rooms in a `playing_now` answer (the most watched first).
pub const PLAYING_NOW_SIZE: usize = 40;
/// Most spectators of one room: a room with this many is shown `full`.
pub const SPECTATOR_CAP: u32 = 200;

/// A finished game's number on its server (unique and permanent: a profile's games and
/// `game_record` use it).
pub type GameId = u64;

/// One line of a leaderboard: an identified player with a name and at least one rated game of
/// that game and speed class.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaderboardEntry {
    /// The display name.
    pub name: String,
    /// The rating, rounded.
    pub rating: u32,
    /// The deviation as of now (grown with inactivity), rounded.
    pub deviation: u32,
    /// Whether the rating is still provisional.
    pub provisional: bool,
    /// Rated games played of this game and speed class.
    pub games: u32,
}

/// Who sits at a seat, as a list shows them: a named player, a guest (no name) or a CPU.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerLabel {
    /// The display name; `None` for a guest, a player without a name, or a CPU.
    pub name: Option<String>,
    /// Their rating for the room's game and speed class, rounded; `None` for a guest or a CPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<u32>,
    /// A CPU plays this seat (Chaturaji). Absent: false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cpu: bool,
}

/// A chess-family result from one player's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlayerResult {
    /// The player won.
    Win,
    /// The player lost.
    Loss,
    /// Drawn.
    Draw,
    /// No result (annulled).
    Annulled,
}

/// How a rated game moved the player's rating.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RatingDiff {
    /// Before the game, rounded.
    pub before: u32,
    /// After it, rounded.
    pub after: u32,
}

/// One finished game in a profile, from the profile's player's side.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameSummary {
    /// The game's number, for `game_record`.
    pub id: GameId,
    /// The room it was played in (a Chaturaji table plays several games in one room).
    pub code: AccessCode,
    /// The game, which is also the variant (chess, Maharajah, Horde, Chaturaji).
    pub game: LobbyGame,
    /// Maharajah: the armies were built in hidden setup. Absent: false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hidden_setup: bool,
    /// The clock; `None` for an untimed game. For Chaturaji the time per turn is the increment
    /// (base 0), as in the lobby.
    pub time_control: Option<TimeControl>,
    /// Rated or casual.
    pub rated: bool,
    /// The other players (one for chess; the other three seats of Chaturaji, CPUs included).
    pub opponents: Vec<PlayerLabel>,
    /// Chess family: the result for this player. `None` for Chaturaji.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<PlayerResult>,
    /// Chaturaji: the player's place (1–4; shared places share the better number). `None` for
    /// chess.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub place: Option<u8>,
    /// A rated game's change of the player's rating.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<RatingDiff>,
    /// When the game ended, milliseconds since the Unix epoch.
    pub ended_ms: u64,
}

/// A player's public page.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Profile {
    /// The display name (as registered).
    pub name: String,
    /// Every rating the player has (game and speed class played rated).
    pub ratings: Vec<RatingView>,
    /// The last finished games, latest first (at most [`PROFILE_GAMES`]).
    pub games: Vec<GameSummary>,
}

/// A game being played now, for the lobby's "playing now" list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiveGame {
    /// The room, for `watch`.
    pub code: AccessCode,
    /// The game.
    pub game: LobbyGame,
    /// Maharajah: hidden setup (nothing of the armies shows until both are revealed). Absent:
    /// false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hidden_setup: bool,
    /// The clock (Chaturaji: time per turn as the increment).
    pub time_control: Option<TimeControl>,
    /// Rated or casual.
    pub rated: bool,
    /// The seats: White then Black; Chaturaji's four in seat order.
    pub players: Vec<PlayerLabel>,
    /// Half-moves played (Chaturaji: game steps).
    pub ply: u32,
    /// People watching now.
    pub spectators: u32,
    /// The room has [`SPECTATOR_CAP`] spectators: `watch` would be refused.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub full: bool,
}
