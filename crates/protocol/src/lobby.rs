//! The lobby on the wire: open challenges, their live list, and quick pairing ("Play now").
//!
//! After `hello` a client may send [`crate::ClientMsg::LobbySubscribe`] to get the list of open
//! challenges ([`LobbyMsg::LobbyList`]) and then every change to it ([`LobbyMsg::LobbyAdded`],
//! [`LobbyMsg::LobbyRemoved`]) until [`crate::ClientMsg::LobbyUnsubscribe`] or the end of the
//! connection. [`crate::ClientMsg::CreateChallenge`] posts a challenge (answered with
//! [`LobbyMsg::ChallengeCreated`]); [`crate::ClientMsg::AcceptChallenge`] takes one; and
//! [`crate::ClientMsg::PlayNow`] queues for quick pairing (answered with
//! [`LobbyMsg::PairingQueued`]). When a game is made, both players get
//! [`LobbyMsg::LobbyMatched`] and then the room's usual `seated` (with their seat tokens) and
//! `snapshot`: from there it is an ordinary room (a Maharajah game starts with the hidden
//! lock-in).
//!
//! A rated challenge or rated quick pairing needs an identified player
//! ([`crate::ClientMsg::Identify`]); a guest is refused [`crate::ErrorCode::NotIdentified`].
//! Quick pairing uses the player's rating for the game and its speed class, and the list shows
//! each challenger's name, rating and whether that rating is still provisional. A rated game made
//! from the lobby changes both ratings once at its end (`ratings_changed`), never for an
//! annulled game.
//!
//! # Chaturaji tables
//!
//! A Chaturaji challenge or pairing seats 2–4 people at one table ([`TableOptions`]). Its time
//! control is the time per turn as the increment on a zero base (`null` or `{0, 0}`: no limit;
//! `{0, 30000}` and `{0, 60000}`). Chaturaji seats are bound to a device, so
//! `create_challenge`, `accept_challenge` and `play_now` for Chaturaji carry the client's
//! `device` id (16–128 characters, as `create_chaturaji`); without one they are refused
//! `invalid_options`. Accepting a Chaturaji challenge answers [`LobbyMsg::TableJoined`]; when
//! the table starts, everyone at it gets [`LobbyMsg::LobbyMatched`], then `chaturaji_seated`
//! and `chaturaji_snapshot`, as `join_chaturaji` gives. A rated table is for identified players
//! only. Leaving a waiting table: `cancel_challenge` with its id (the creator's cancels it for
//! all; anyone else leaves it and gets `lobby_updated` with the table without them), or closing
//! the connection.
//!
//! # Rematch
//!
//! After a chess-family game ends, either seat may send `rematch {token}`; the other seat gets
//! [`LobbyMsg::RematchOffered`]. When both have offered, a new room is made with the colours
//! swapped and the same variant, clock, hidden setup and rated-ness, and both get
//! [`LobbyMsg::LobbyMatched`] (with `rematch_of`), `seated` and `snapshot` at once. An offer
//! lapses when its player's connection leaves the room ([`LobbyMsg::RematchWithdrawn`]).
//!
//! # Lists
//!
//! The leaderboard, profiles, game records and the games playing now are requests with one
//! answer each; see [`crate::listing`]. "Playing now" is a request (`playing_now`), not part of
//! the subscription: a client asks again when it shows the list.
//!
//! The server answers with [`LobbyMsg`] frames inside [`ServerMsg::Lobby`] (their own `t` tags)
//! and the shared `error` frames; [`crate::decode_server`] reads them all.

use serde::{Deserialize, Serialize};

pub use crate::listing::LobbyGame;
use crate::listing::{GameId, LeaderboardEntry, LiveGame, Profile};
use crate::{AccessCode, Color, ServerMsg, SpeedClass, TimeControl};

/// The challenger's colour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ColorChoice {
    /// The challenger plays White.
    White,
    /// The challenger plays Black.
    Black,
    /// Drawn by the server when the challenge is accepted.
    #[default]
    Random,
}

/// What a player asks for when posting a challenge.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChallengeOptions {
    /// The game.
    pub game: LobbyGame,
    /// The clock; `None` for an untimed game.
    pub time_control: Option<TimeControl>,
    /// A rated game (needs an identified player: a guest is refused `not_identified`).
    #[serde(default)]
    pub rated: bool,
    /// The challenger's colour.
    #[serde(default)]
    pub color: ColorChoice,
    /// Chaturaji only: how many people the table waits for and when CPUs take the empty seats.
    /// Absent: [`TableOptions::default`]. Ignored for the chess games.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<TableOptions>,
}

/// A Chaturaji table in the lobby: how many people it waits for, and how long.
///
/// A challenge's table starts as soon as `people` have joined (creator included), or, once
/// `cpu_after_s` seconds have passed since it was posted, with the people it has (at least 2):
/// CPUs take the empty seats. Quick pairing forms tables the same way from the queue: four
/// waiting players at once, or 2–3 once the longest-waiting one has waited their own
/// `cpu_after_s`. A lone player keeps waiting (a table needs two people).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TableOptions {
    /// People wanted, 2–4 ([`TABLE_PEOPLE`]).
    pub people: u8,
    /// Seconds after which CPUs take the empty seats, [`CPU_AFTER_S`] (default
    /// [`DEFAULT_CPU_AFTER_S`]).
    pub cpu_after_s: u32,
}

/// How many people a lobby Chaturaji table may wait for.
pub const TABLE_PEOPLE: std::ops::RangeInclusive<u8> = 2..=4;
/// The accepted waits before CPUs take a table's empty seats, in seconds.
pub const CPU_AFTER_S: std::ops::RangeInclusive<u32> = 5..=300;
/// The wait when a client gives none.
pub const DEFAULT_CPU_AFTER_S: u32 = 60;

impl Default for TableOptions {
    fn default() -> Self {
        TableOptions { people: 4, cpu_after_s: DEFAULT_CPU_AFTER_S }
    }
}

/// A Chaturaji challenge's table as the list shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TableView {
    /// People wanted, 2–4.
    pub people: u8,
    /// People at the table now, creator included.
    pub joined: u8,
    /// The wait before CPUs take the empty seats, seconds from when it was posted.
    pub cpu_after_s: u32,
}

/// A challenge's number on its server (unique while the server runs).
pub type ChallengeId = u64;

/// An open challenge as everyone sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Challenge {
    /// Its number, for `accept_challenge` and `cancel_challenge`.
    pub id: ChallengeId,
    /// The game.
    pub game: LobbyGame,
    /// The clock; `None` for an untimed game.
    pub time_control: Option<TimeControl>,
    /// Rated or casual.
    pub rated: bool,
    /// The challenger's colour.
    pub color: ColorChoice,
    /// The challenger's display name (`None` for a guest or a player without one).
    pub creator: Option<String>,
    /// The challenger's rating in this game and speed class (1500 for a player without one).
    pub rating: u32,
    /// Whether that rating is provisional (few games, or long inactive; always for a guest).
    /// Absent: false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub provisional: bool,
    /// Chaturaji: the table and how full it is. Absent for the chess games.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<TableView>,
}

/// Why a challenge left the list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RemovedReason {
    /// Its creator cancelled it.
    Cancelled,
    /// Someone accepted it (the game is made).
    Accepted,
    /// Its creator's connection closed.
    CreatorLeft,
    /// Its creator got a game another way (accepted another challenge, or was paired).
    Withdrawn,
}

/// Messages from the server about the lobby, sent as [`ServerMsg::Lobby`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum LobbyMsg {
    /// The open challenges now (answer to `lobby_subscribe`, filtered by its games), oldest
    /// first; changes follow as `lobby_added` and `lobby_removed`.
    LobbyList {
        /// The challenges.
        challenges: Vec<Challenge>,
    },
    /// A challenge was posted.
    LobbyAdded {
        /// The challenge.
        challenge: Challenge,
    },
    /// A challenge left the list. Its creator is told too, subscribed or not (but not for
    /// [`RemovedReason::CreatorLeft`]).
    LobbyRemoved {
        /// The challenge.
        id: ChallengeId,
        /// Why.
        reason: RemovedReason,
    },
    /// Answer to `create_challenge`: the challenge is open.
    ChallengeCreated {
        /// The challenge, with its number.
        challenge: Challenge,
    },
    /// Answer to `play_now`: the connection waits for an opponent (a newer `play_now` replaces
    /// the older one).
    PairingQueued {
        /// The game.
        game: LobbyGame,
        /// The clock.
        time_control: TimeControl,
        /// Rated or casual.
        rated: bool,
        /// The rating the pairing uses.
        rating: u32,
    },
    /// Answer to `cancel_play_now`: the connection no longer waits (also sent when it was not
    /// waiting).
    PairingCancelled,
    /// A game was made for this connection; `seated` and `snapshot` of room `code` follow.
    LobbyMatched {
        /// The room.
        code: AccessCode,
        /// The challenge it came from; `None` for quick pairing and rematches.
        challenge: Option<ChallengeId>,
        /// A rematch: the room whose game it follows. Absent otherwise.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rematch_of: Option<AccessCode>,
    },
    /// Answer to `leaderboard`: the top players of a game and speed class, best first (at most
    /// [`crate::listing::LEADERBOARD_SIZE`]; players without a rated game of the kind, or
    /// without a name, are absent).
    Leaderboard {
        /// The game.
        game: LobbyGame,
        /// The speed class.
        speed: SpeedClass,
        /// The players.
        players: Vec<LeaderboardEntry>,
    },
    /// Answer to `profile`.
    Profile {
        /// The player's page (boxed: the enum stays small).
        profile: Box<Profile>,
    },
    /// Answer to `game_record`: a finished game's text.
    GameRecord {
        /// The game's number.
        id: GameId,
        /// The game.
        game: LobbyGame,
        /// Chess family: the game as PGN.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pgn: Option<String>,
        /// Chaturaji: the game record (the rules crate's JSON record format).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        record: Option<String>,
    },
    /// Answer to `playing_now`: the games being played now, most watched first.
    PlayingNow {
        /// The games.
        games: Vec<LiveGame>,
    },
    /// A seat of a finished chess room offered a rematch (sent to both seats; the offerer's
    /// own offer is echoed as its acknowledgement). When both have offered, both get
    /// `lobby_matched` with `rematch_of` and are seated in the new room at once.
    RematchOffered {
        /// The finished room.
        code: AccessCode,
        /// Who offered.
        by: Color,
    },
    /// A pending rematch offer lapsed: its player left the room (sent to the other seat).
    RematchWithdrawn {
        /// The finished room.
        code: AccessCode,
        /// Whose offer it was.
        by: Color,
    },
    /// Answer to `accept_challenge` of a Chaturaji challenge: the connection sits at the
    /// table, which starts when full or when its wait is over (`lobby_matched` then
    /// `chaturaji_seated` and `chaturaji_snapshot` follow). Its later changes come as
    /// `lobby_updated`.
    TableJoined {
        /// The challenge, with its table as it is now.
        challenge: Challenge,
    },
    /// A challenge changed (a Chaturaji table gained or lost a person): sent to subscribers and
    /// to the people at the table.
    LobbyUpdated {
        /// The challenge as it is now.
        challenge: Challenge,
    },
}

impl LobbyMsg {
    /// Every value of the `t` tag, in declaration order.
    pub const TAGS: &'static [&'static str] = &[
        "lobby_list",
        "lobby_added",
        "lobby_removed",
        "challenge_created",
        "pairing_queued",
        "pairing_cancelled",
        "lobby_matched",
        "leaderboard",
        "profile",
        "game_record",
        "playing_now",
        "rematch_offered",
        "rematch_withdrawn",
        "table_joined",
        "lobby_updated",
    ];
}

impl From<LobbyMsg> for ServerMsg {
    fn from(m: LobbyMsg) -> ServerMsg {
        ServerMsg::Lobby(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Variant;
    use crate::{decode_client, decode_server, encode, ClientMsg};

    #[test]
    fn lobby_messages_round_trip_with_defaults() {
        let create = decode_client(
            r#"{"t":"create_challenge","options":{"game":"horde","time_control":null}}"#,
        )
        .expect("rated and color default");
        let ClientMsg::CreateChallenge { options, .. } = create else { panic!("{create:?}") };
        assert_eq!(options.color, ColorChoice::Random);
        assert!(!options.rated);
        assert_eq!(options.game.variant(), Some(Variant::Horde));
        assert_eq!(LobbyGame::Chaturaji.variant(), None);
        let removed = LobbyMsg::LobbyRemoved { id: 3, reason: RemovedReason::CreatorLeft };
        let text = encode(&ServerMsg::from(removed.clone()));
        assert_eq!(text, r#"{"t":"lobby_removed","id":3,"reason":"creator_left"}"#);
        assert_eq!(decode_server(&text), Ok(ServerMsg::Lobby(removed)));
        assert!(decode_client(r#"{"t":"accept_challenge","id":-1}"#).is_err());
        assert!(decode_client(r#"{"t":"lobby_subscribe","games":["shogi"]}"#).is_err());
    }
}
