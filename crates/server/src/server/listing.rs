//! The lobby's lists in the server: the leaderboard and profiles (from the players and the
//! history of finished games), game records, and the games playing now (a line per room that
//! each room's task keeps up to date, see [`LiveRoom`]). Requests count against the
//! connection's own lookup bucket ([`crate::lobby::LobbyConfig::lookup_burst`]).

use maharajah_protocol::identity::{name_skeleton, PlayerKey};
use maharajah_protocol::listing::{LEADERBOARD_SIZE, PLAYING_NOW_SIZE};
use maharajah_protocol::{
    AccessCode, ErrorCode, GameId, LeaderboardEntry, LiveGame, LobbyGame, LobbyMsg, PlayerLabel,
    Profile, RatingKey, SpeedClass, TimeControl,
};

use super::{count, lock, unix_ms, within_limit, Conn, Flow, Shared};
use crate::lobby::RequestBucket;

/// A room with a game on, as the "playing now" list shows it; players by key (named when the
/// list is asked for). In a cluster each node publishes its most watched ones with its
/// heartbeat (JSON), so any node lists the games of all.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct LiveRoom {
    pub game: LobbyGame,
    pub hidden_setup: bool,
    pub time_control: Option<TimeControl>,
    pub rated: bool,
    /// Each seat: its identified player, and whether a CPU plays it.
    pub seats: Vec<(Option<PlayerKey>, bool)>,
    pub ply: u32,
    pub spectators: u32,
}

/// The "playing now" order: the most watched first, then the longest games.
fn most_watched(rooms: &mut Vec<(AccessCode, LiveRoom)>) {
    rooms.sort_by(|a, b| b.1.spectators.cmp(&a.1.spectators).then(b.1.ply.cmp(&a.1.ply)));
    rooms.truncate(PLAYING_NOW_SIZE);
}

/// This node's games playing now, the most watched first, as JSON for its heartbeat.
pub(super) fn published(shared: &Shared) -> String {
    let mut rooms: Vec<_> =
        lock(&shared.live).iter().map(|(c, l)| (c.clone(), l.clone())).collect();
    most_watched(&mut rooms);
    serde_json::to_string(&rooms).unwrap_or_else(|_| "[]".to_owned())
}

/// The games playing now that other nodes published (JSON lists), each room once.
pub(super) fn parse_published(lists: &[String]) -> Vec<(AccessCode, LiveRoom)> {
    let mut rooms: Vec<(AccessCode, LiveRoom)> = Vec::new();
    for list in lists {
        match serde_json::from_str::<Vec<(AccessCode, LiveRoom)>>(list) {
            Ok(list) => rooms.extend(list),
            Err(e) => tracing::warn!("a node's games playing now do not read: {e}"),
        }
    }
    rooms.sort_by(|a, b| a.0.cmp(&b.0));
    rooms.dedup_by(|a, b| a.0 == b.0);
    rooms
}

impl Conn {
    /// Takes one lookup from this connection's bucket; false when it is empty.
    fn lookup_bucket(&mut self) -> bool {
        let now = self.shared.now();
        let config = &self.shared.config.lobby;
        self.lookups
            .get_or_insert_with(|| {
                RequestBucket::new(config.lookup_burst, config.lookups_per_minute, now)
            })
            .take(now)
    }

    /// `leaderboard`, `profile`, `game_record` and `playing_now`.
    pub(super) async fn on_listing(&mut self, msg: maharajah_protocol::ClientMsg) -> Flow {
        use maharajah_protocol::ClientMsg;
        if !self.lookup_bucket() {
            return self.refuse(ErrorCode::RateLimited, "too many lookups; wait a little");
        }
        let limit = self.shared.config.lobby.lookups_per_address_per_minute;
        let now = self.shared.now();
        if !within_limit(&self.shared.lookups, self.ip, now, limit) {
            return self.refuse(
                ErrorCode::RateLimited,
                "too many lookups from your address; wait a little",
            );
        }
        count(&self.shared.lookups, self.ip, now);
        self.shared.until_loaded().await;
        match msg {
            ClientMsg::Leaderboard { game, speed } => self.leaderboard(game, speed),
            ClientMsg::Profile { name } => self.profile(&name),
            ClientMsg::GameRecord { id } => self.game_record(id),
            ClientMsg::PlayingNow { games } => self.playing_now(&games),
            _ => Flow::Continue,
        }
    }

    fn leaderboard(&mut self, game: LobbyGame, speed: SpeedClass) -> Flow {
        let key = RatingKey { game: game.rated_game(), speed };
        let players = lock(&self.shared.players).leaderboard(key, unix_ms(), LEADERBOARD_SIZE);
        let players = players
            .into_iter()
            .map(|(name, r)| LeaderboardEntry {
                name,
                rating: r.rating,
                deviation: r.deviation,
                provisional: r.provisional,
                games: r.games,
            })
            .collect();
        self.send(LobbyMsg::Leaderboard { game, speed, players }.into());
        Flow::Continue
    }

    fn profile(&mut self, name: &str) -> Flow {
        let now = unix_ms();
        let found = {
            let players = lock(&self.shared.players);
            players.by_name(&name_skeleton(name)).map(|record| {
                let view = record.view(now);
                (record.key, view.name.unwrap_or_default(), view.ratings)
            })
        };
        let Some((key, name, ratings)) = found else {
            return self.refuse(ErrorCode::PlayerNotFound, format!("no player is called {name}"));
        };
        let games: Vec<_> = lock(&self.shared.history).games_of(&key).cloned().collect();
        let games = {
            let players = lock(&self.shared.players);
            let name_of = |k: &PlayerKey| players.get(k).and_then(|r| r.name.clone());
            games.iter().filter_map(|g| g.summary_for(&key, name_of)).collect()
        };
        self.send(LobbyMsg::Profile { profile: Box::new(Profile { name, ratings, games }) }.into());
        Flow::Continue
    }

    fn game_record(&mut self, id: GameId) -> Flow {
        let game = lock(&self.shared.history).get(id).cloned();
        match game {
            Some(g) => {
                let msg = LobbyMsg::GameRecord {
                    id,
                    game: g.game,
                    pgn: g.pgn.clone(),
                    record: g.record.clone(),
                };
                let msg: maharajah_protocol::ServerMsg = msg.into();
                // A long Chaturaji record (every roll's dice links) may not fit one frame.
                if maharajah_protocol::encode(&msg).len() > maharajah_protocol::MAX_FRAME_BYTES {
                    return self.refuse(
                        ErrorCode::Unavailable,
                        "this game's record is too long to send in one message",
                    );
                }
                self.send(msg);
                Flow::Continue
            }
            None => self.refuse(ErrorCode::GameNotFound, format!("no finished game {id} is kept")),
        }
    }

    fn playing_now(&mut self, games: &[LobbyGame]) -> Flow {
        let mut rooms: Vec<_> =
            lock(&self.shared.live).iter().map(|(code, l)| (code.clone(), l.clone())).collect();
        if let Some(cluster) = &self.shared.cluster {
            // The other nodes' games as of their last heartbeat; a room held here is as here.
            let elsewhere = cluster.playing_elsewhere();
            let here: std::collections::HashSet<AccessCode> =
                rooms.iter().map(|(c, _)| c.clone()).collect();
            rooms.extend(elsewhere.into_iter().filter(|(c, _)| !here.contains(c)));
        }
        rooms.retain(|(_, l)| games.is_empty() || games.contains(&l.game));
        most_watched(&mut rooms);
        let now = unix_ms();
        let cap = self.shared.config.spectators_per_room;
        let players = lock(&self.shared.players);
        let games = rooms
            .into_iter()
            .map(|(code, l)| {
                let speed = SpeedClass::of(l.time_control.map(|tc| (tc.base_ms, tc.increment_ms)));
                let rating = RatingKey { game: l.game.rated_game(), speed };
                let players = l
                    .seats
                    .iter()
                    .map(|(player, cpu)| match player {
                        Some(key) => {
                            let standing = players.standing(*key, rating, now);
                            PlayerLabel {
                                name: standing.name,
                                rating: Some(standing.rating),
                                cpu: false,
                            }
                        }
                        None => PlayerLabel { name: None, rating: None, cpu: *cpu },
                    })
                    .collect();
                LiveGame {
                    code,
                    game: l.game,
                    hidden_setup: l.hidden_setup,
                    time_control: l.time_control,
                    rated: l.rated,
                    players,
                    ply: l.ply,
                    spectators: l.spectators,
                    full: usize::try_from(l.spectators).unwrap_or(usize::MAX) >= cap,
                }
            })
            .collect();
        drop(players);
        self.send(LobbyMsg::PlayingNow { games }.into());
        Flow::Continue
    }
}
