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
//! The server answers with [`LobbyMsg`] frames inside [`ServerMsg::Lobby`] (their own `t` tags)
//! and the shared `error` frames; [`crate::decode_server`] reads them all.

use serde::{Deserialize, Serialize};

use crate::{AccessCode, RatedGame, ServerMsg, TimeControl, Variant};

/// The games the lobby offers. Chaturaji is part of the vocabulary (so lists stay readable when
/// it comes) but not offered yet: a server refuses it with `unavailable`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LobbyGame {
    /// Standard chess.
    Chess,
    /// Maharajah (hidden army setup).
    Maharajah,
    /// Horde.
    Horde,
    /// Four-player dice chess (not offered yet).
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
        /// The challenge it came from; `None` for quick pairing.
        challenge: Option<ChallengeId>,
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
    use crate::{decode_client, decode_server, encode, ClientMsg};

    #[test]
    fn lobby_messages_round_trip_with_defaults() {
        let create = decode_client(
            r#"{"t":"create_challenge","options":{"game":"horde","time_control":null}}"#,
        )
        .expect("rated and color default");
        let ClientMsg::CreateChallenge { options } = create else { panic!("{create:?}") };
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
