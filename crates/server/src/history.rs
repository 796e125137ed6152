//! Finished games for players' profiles: who sat where, each seat's result and rating change,
//! and the game's text (PGN for the chess games). A game is kept when at least one of its
//! players is identified; it is stored once (keyed by room code and game number, so a room
//! recovered after a restart does not store it twice) and read back at start.
//!
//! In memory each player keeps their last [`PROFILE_GAMES`] games; a game no profile lists any
//! more leaves memory (it stays in the store).
//!
//! Numbers ([`GameId`]): one server numbers its games itself ([`History::add`]). In a cluster
//! the database numbers them (`games.seq`), so a game has the same number on every node; a
//! node keeps the games it or another node stored under those numbers ([`History::follow`]).

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

use maharajah_protocol::identity::PlayerKey;
use maharajah_protocol::listing::PROFILE_GAMES;
use maharajah_protocol::{
    AccessCode, GameId, GameSummary, LobbyGame, PlayerLabel, PlayerResult, RatingChange,
    RatingDiff, TimeControl,
};
use serde::{Deserialize, Serialize};

/// One seat of a finished game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FinishedSeat {
    /// The identified player, if any.
    pub player: Option<PlayerKey>,
    /// A CPU played the seat (Chaturaji).
    #[serde(default)]
    pub cpu: bool,
    /// Chess family: the seat's result.
    pub result: Option<PlayerResult>,
    /// Chaturaji: the seat's place.
    pub place: Option<u8>,
    /// A rated game's change of the seat's rating.
    pub rating: Option<RatingDiff>,
}

/// A finished game as stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FinishedGame {
    /// Its number (given by [`History::add`]; in a cluster, by the database).
    pub id: GameId,
    /// Room code and game number (`CODE/n`): stored once.
    pub key: String,
    /// The room.
    pub code: AccessCode,
    /// The game.
    pub game: LobbyGame,
    /// Maharajah hidden setup.
    pub hidden_setup: bool,
    /// The clock (Chaturaji: per turn, as the increment).
    pub time_control: Option<TimeControl>,
    /// Rated or casual.
    pub rated: bool,
    /// The seats in seat order.
    pub seats: Vec<FinishedSeat>,
    /// When it ended, Unix ms.
    pub ended_ms: u64,
    /// Chess family: PGN.
    pub pgn: Option<String>,
    /// Chaturaji: the game record.
    pub record: Option<String>,
}

impl FinishedGame {
    /// The game from `player`'s side, with the other seats named by `name_of`.
    #[must_use]
    pub fn summary_for(
        &self,
        player: &PlayerKey,
        name_of: impl Fn(&PlayerKey) -> Option<String>,
    ) -> Option<GameSummary> {
        let mine = self.seats.iter().position(|s| s.player.as_ref() == Some(player))?;
        let seat = &self.seats[mine];
        let opponents = self
            .seats
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != mine)
            .map(|(_, s)| PlayerLabel {
                name: s.player.as_ref().and_then(&name_of),
                rating: None,
                cpu: s.cpu,
            })
            .collect();
        Some(GameSummary {
            id: self.id,
            code: self.code.clone(),
            game: self.game,
            hidden_setup: self.hidden_setup,
            time_control: self.time_control,
            rated: self.rated,
            opponents,
            result: seat.result,
            place: seat.place,
            rating: seat.rating,
            ended_ms: self.ended_ms,
        })
    }
}

/// The rating diff of `player` among a rated game's `changes`.
#[must_use]
pub fn diff_of(changes: &[RatingChange], player: Option<PlayerKey>) -> Option<RatingDiff> {
    let player = player?;
    changes
        .iter()
        .find(|c| c.player == player)
        .map(|c| RatingDiff { before: c.before, after: c.after })
}

/// The finished games in memory. See the module documentation.
#[derive(Debug, Default)]
pub struct History {
    known: HashSet<String>,
    by_id: HashMap<GameId, Arc<FinishedGame>>,
    by_player: HashMap<PlayerKey, VecDeque<Arc<FinishedGame>>>,
    next_id: GameId,
}

impl History {
    /// The history of the stored games (JSON, oldest first); unreadable ones are returned as
    /// text for the log.
    #[must_use]
    pub fn from_rows(rows: Vec<String>) -> (History, Vec<String>) {
        let mut history = History::default();
        let mut bad = Vec::new();
        for json in rows {
            match serde_json::from_str::<FinishedGame>(&json) {
                Ok(game) => {
                    history.next_id = history.next_id.max(game.id);
                    history.insert(game);
                }
                Err(e) => bad.push(format!("finished game: {e}")),
            }
        }
        (history, bad)
    }

    /// Whether the game `key` (`CODE/n`) is already kept.
    #[must_use]
    pub fn contains(&self, key: &str) -> bool {
        self.known.contains(key)
    }

    /// Keeps the stored games `(number, JSON)` not kept yet, each under the number given (a
    /// cluster's database numbers games); unreadable ones are returned as text for the log.
    pub fn follow(&mut self, rows: impl IntoIterator<Item = (GameId, String)>) -> Vec<String> {
        let mut bad = Vec::new();
        for (id, json) in rows {
            match serde_json::from_str::<FinishedGame>(&json) {
                Ok(game) => {
                    self.keep(FinishedGame { id, ..game });
                }
                Err(e) => bad.push(format!("finished game {id}: {e}")),
            }
        }
        bad
    }

    /// Keeps `game` under its own number; false if it was known.
    pub fn keep(&mut self, game: FinishedGame) -> bool {
        if self.known.contains(&game.key) {
            return false;
        }
        self.next_id = self.next_id.max(game.id);
        self.insert(game);
        true
    }

    /// Keeps `game` under a new number: the game to store, or `None` if it was known.
    pub fn add(&mut self, mut game: FinishedGame) -> Option<FinishedGame> {
        if self.known.contains(&game.key) {
            return None;
        }
        self.next_id += 1;
        game.id = self.next_id;
        self.insert(game.clone());
        Some(game)
    }

    fn insert(&mut self, game: FinishedGame) {
        self.known.insert(game.key.clone());
        let game = Arc::new(game);
        self.by_id.insert(game.id, game.clone());
        for key in game.seats.iter().filter_map(|s| s.player) {
            let games = self.by_player.entry(key).or_default();
            // Latest (highest number) first; a cluster node may learn of a game after a later
            // one.
            let at = games.iter().position(|g| g.id < game.id).unwrap_or(games.len());
            games.insert(at, game.clone());
            while games.len() > PROFILE_GAMES {
                if let Some(old) = games.pop_back() {
                    // Only the id index and this one left: no profile lists it any more.
                    if Arc::strong_count(&old) <= 2 {
                        self.by_id.remove(&old.id);
                    }
                }
            }
        }
    }

    /// `player`'s last games, latest first.
    pub fn games_of(&self, player: &PlayerKey) -> impl Iterator<Item = &Arc<FinishedGame>> {
        self.by_player.get(player).into_iter().flatten()
    }

    /// The game `id`, while a profile lists it.
    #[must_use]
    pub fn get(&self, id: GameId) -> Option<&Arc<FinishedGame>> {
        self.by_id.get(&id)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use maharajah_protocol::identity::PlayerSecret;

    fn key(seed: u8) -> PlayerKey {
        PlayerSecret::from_bytes([seed; 32]).public()
    }

    fn game(n: u32, white: Option<PlayerKey>, black: Option<PlayerKey>) -> FinishedGame {
        let seat = |player, result| FinishedSeat {
            player,
            cpu: false,
            result: Some(result),
            place: None,
            rating: None,
        };
        FinishedGame {
            id: 0,
            key: format!("ABCDEFGH/{n}"),
            code: "ABCDEFGH".parse().unwrap(),
            game: LobbyGame::Chess,
            hidden_setup: false,
            time_control: None,
            rated: false,
            seats: vec![seat(white, PlayerResult::Win), seat(black, PlayerResult::Loss)],
            ended_ms: u64::from(n),
            pgn: Some("*".into()),
            record: None,
        }
    }

    #[test]
    fn games_are_kept_once_latest_first_and_forgotten_past_the_profile() {
        let (a, b) = (key(1), key(2));
        let mut h = History::default();
        let first = h.add(game(0, Some(a), None)).unwrap();
        assert!(h.add(game(0, Some(a), None)).is_none(), "the same room game again");
        for n in 1..=PROFILE_GAMES as u32 {
            h.add(game(n, Some(a), Some(b))).unwrap();
        }
        let listed: Vec<u64> = h.games_of(&a).map(|g| g.ended_ms).collect();
        assert_eq!(listed.len(), PROFILE_GAMES);
        assert_eq!(listed[0], PROFILE_GAMES as u64, "latest first");
        assert!(h.get(first.id).is_none(), "no profile lists the first game any more");
        let s = h.games_of(&b).next().unwrap().summary_for(&b, |_| Some("A".into())).unwrap();
        assert_eq!(s.result, Some(PlayerResult::Loss));
        assert_eq!(s.opponents[0].name.as_deref(), Some("A"));
        let rows: Vec<String> =
            h.by_id.values().map(|g| serde_json::to_string(&**g).unwrap()).collect();
        let (back, bad) = History::from_rows(rows);
        assert!(bad.is_empty());
        assert!(back.contains("ABCDEFGH/3"));
    }

    #[test]
    fn followed_games_keep_their_numbers_in_order_and_once() {
        let (a, b) = (key(1), key(2));
        let mut h = History::default();
        let json = |n: u32, id: GameId| {
            serde_json::to_string(&FinishedGame { id: 0, ..game(n, Some(a), Some(b)) })
                .map(|j| (id, j))
                .unwrap()
        };
        // Game 9 first (stored here), then 7 and 8 from other nodes, then 9 again.
        assert!(h.keep(FinishedGame { id: 9, ..game(9, Some(a), Some(b)) }));
        let bad = h.follow([json(7, 7), json(8, 8), json(9, 9), (10, "{".into())]);
        assert_eq!(bad.len(), 1);
        let ids: Vec<GameId> = h.games_of(&a).map(|g| g.id).collect();
        assert_eq!(ids, [9, 8, 7], "latest first, each once");
        assert_eq!(h.get(8).unwrap().key, "ABCDEFGH/8");
        assert!(!h.keep(FinishedGame { id: 11, ..game(8, Some(a), None) }), "known by its key");
    }
}
