//! The lobby as a pure state machine: open challenges, the quick-pairing queue with its rating
//! window, and the per-connection request bucket. No I/O and no clock of its own: every call
//! that depends on time takes `now` ([`Millis`]), so tests drive it by hand. The connection
//! side (subscribers, making the room, seating both players) is `server/lobby.rs`.
//!
//! Everything here is keyed by connection number: a challenge or a place in the queue lives as
//! long as the connection that made it, and nothing of the lobby is stored (a restart closes
//! every connection anyway). A room made from the lobby is an ordinary room and is stored as
//! any other.
//!
//! # Rated games
//!
//! A challenge or a seeker carries the player it was made by ([`Standing`]): the identified
//! player's key, name and rating for the game and its speed class, or a guest's. Rated
//! challenges and rated pairing are only for identified players (a guest is refused
//! `not_identified`), and a player is never paired with, nor accepts a rated challenge of,
//! themselves on another connection.
//!
//! # The pairing window
//!
//! A player waiting in the queue accepts opponents within [`pairing_window`] of their own
//! rating: ±[`WINDOW_START`] at first, widening by [`WINDOW_GROWTH_PER_SECOND`] for every second
//! waited, up to ±[`WINDOW_MAX`]. Two players of the same pool (game, clock, rated) are paired
//! when each is within the other's window, i.e. when their rating difference is at most the
//! window of the one who has waited less. Each player is paired with the compatible player of
//! the closest rating, the longest-waiting first.

use std::collections::BTreeMap;
use std::fmt;
use std::net::IpAddr;
use std::sync::Arc;

use maharajah_engine::clock::Millis;
use maharajah_protocol::identity::PlayerKey;
use maharajah_protocol::lobby::{CPU_AFTER_S, TABLE_PEOPLE};
use maharajah_protocol::{
    Challenge, ChallengeId, ChallengeOptions, Color, ColorChoice, ErrorCode, LobbyGame,
    RoomOptions, TableView, TimeControl, Variant,
};

use crate::rooms::RoomError;

/// A connection's number on the server.
pub type ConnId = u64;

/// The rating of a player the server knows nothing about (a guest, or an identified player
/// who has not played this kind of game rated).
pub const DEFAULT_RATING: u32 = 1500;
/// The half-width of a new seeker's pairing window, in rating points.
pub const WINDOW_START: u32 = 100;
/// How much the half-width grows per second of waiting.
pub const WINDOW_GROWTH_PER_SECOND: u32 = 50;
/// The widest half-width (reached after 18 s): players further apart are never paired.
pub const WINDOW_MAX: u32 = 1000;

/// The half-width of the pairing window of a player who has waited `waited` ms:
/// `min(WINDOW_START + WINDOW_GROWTH_PER_SECOND × seconds, WINDOW_MAX)`, growing smoothly (one
/// point every 20 ms).
///
/// # Examples
///
/// ```
/// use maharajah_server::lobby::pairing_window;
/// assert_eq!(pairing_window(0), 100);
/// assert_eq!(pairing_window(1_000), 150);
/// assert_eq!(pairing_window(2_500), 225);
/// assert_eq!(pairing_window(60_000), 1000);
/// ```
#[must_use]
pub fn pairing_window(waited: Millis) -> u32 {
    let grown = waited.saturating_mul(u64::from(WINDOW_GROWTH_PER_SECOND)) / 1000;
    let grown = u32::try_from(grown).unwrap_or(u32::MAX);
    WINDOW_START.saturating_add(grown).min(WINDOW_MAX)
}

/// The shortest wait after which [`pairing_window`] covers a rating difference of `diff`;
/// `None` when it never does (over [`WINDOW_MAX`]).
#[must_use]
pub fn wait_for_window(diff: u32) -> Option<Millis> {
    if diff > WINDOW_MAX {
        return None;
    }
    let over = u64::from(diff.saturating_sub(WINDOW_START));
    Some((over * 1000).div_ceil(u64::from(WINDOW_GROWTH_PER_SECOND)))
}

/// A guest in the lobby, as far as the server knows: the connection and its client's address.
/// (An identified player is known by their key: see [`Standing`].)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LobbyPlayer {
    /// The connection's number.
    pub conn: ConnId,
    /// The client's address (behind a trusted proxy, the forwarded one).
    pub ip: IpAddr,
}

/// Where the lobby gets a guest's rating for a game and clock. An identified player is rated by
/// their own stored Glicko-2 rating for the game and its speed class; a guest (who can only
/// play casual) by this source, 1500 by default.
pub trait RatingSource: Send + Sync + 'static {
    /// The rating of the guest `player` for `game` at `time_control`.
    fn rating(
        &self,
        player: &LobbyPlayer,
        game: LobbyGame,
        time_control: Option<TimeControl>,
    ) -> u32;
}

/// Every guest is [`DEFAULT_RATING`].
#[derive(Clone, Copy, Debug, Default)]
pub struct DefaultRatings;

impl RatingSource for DefaultRatings {
    fn rating(&self, _: &LobbyPlayer, _: LobbyGame, _: Option<TimeControl>) -> u32 {
        DEFAULT_RATING
    }
}

/// The lobby's limits and its rating source (part of [`crate::Config`]).
#[derive(Clone)]
pub struct LobbyConfig {
    /// Most open challenges of one connection; the next is refused `too_many_challenges`.
    pub challenges_per_connection: usize,
    /// Lobby requests (`create_challenge`, `accept_challenge`, `play_now`) one connection may
    /// make in a burst; the next is refused `rate_limited`.
    pub request_burst: u32,
    /// How many lobby requests per minute the burst refills by.
    pub requests_per_minute: u32,
    /// The guests' ratings (every guest 1500 by default); identified players have their own.
    pub ratings: Arc<dyn RatingSource>,
    /// Most open challenges of one identified player over all their connections.
    pub challenges_per_player: usize,
    /// Most open challenges from one address over all its connections.
    pub challenges_per_address: usize,
    /// Lobby requests one address may make per minute over all its connections (a client
    /// opening connection after connection for fresh buckets is refused `rate_limited`).
    pub requests_per_address_per_minute: u32,
    /// Lookups one address may make per minute over all its connections.
    pub lookups_per_address_per_minute: u32,
    /// Lookups (`leaderboard`, `profile`, `game_record`, `playing_now`) one connection may
    /// make in a burst; the next is refused `rate_limited`.
    pub lookup_burst: u32,
    /// How many lookups per minute the burst refills by.
    pub lookups_per_minute: u32,
}

impl Default for LobbyConfig {
    fn default() -> Self {
        LobbyConfig {
            challenges_per_connection: 3,
            request_burst: 6,
            requests_per_minute: 20,
            ratings: Arc::new(DefaultRatings),
            lookup_burst: 10,
            lookups_per_minute: 60,
            challenges_per_player: 3,
            challenges_per_address: 30,
            requests_per_address_per_minute: 240,
            lookups_per_address_per_minute: 600,
        }
    }
}

impl fmt::Debug for LobbyConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LobbyConfig")
            .field("challenges_per_connection", &self.challenges_per_connection)
            .field("request_burst", &self.request_burst)
            .field("requests_per_minute", &self.requests_per_minute)
            .field("lookup_burst", &self.lookup_burst)
            .field("lookups_per_minute", &self.lookups_per_minute)
            .finish_non_exhaustive()
    }
}

/// A token bucket of lobby requests for one connection: `burst` at once, refilled at
/// `per_minute`.
#[derive(Clone, Copy, Debug)]
pub struct RequestBucket {
    /// Available requests in units of 1/60,000 (a minute in ms), so refills are exact.
    units: u64,
    last: Millis,
    burst: u32,
    per_minute: u32,
}

/// One request in [`RequestBucket`] units.
const REQUEST_UNITS: u64 = 60_000;

impl RequestBucket {
    /// A full bucket at `now`.
    #[must_use]
    pub fn new(burst: u32, per_minute: u32, now: Millis) -> RequestBucket {
        RequestBucket { units: u64::from(burst) * REQUEST_UNITS, last: now, burst, per_minute }
    }

    /// Takes one request at `now`; false when the bucket is empty (the request is refused).
    pub fn take(&mut self, now: Millis) -> bool {
        let elapsed = now.saturating_sub(self.last);
        self.last = self.last.max(now);
        let refill = elapsed.saturating_mul(u64::from(self.per_minute));
        let full = u64::from(self.burst) * REQUEST_UNITS;
        self.units = self.units.saturating_add(refill).min(full);
        if self.units >= REQUEST_UNITS {
            self.units -= REQUEST_UNITS;
            true
        } else {
            false
        }
    }
}

/// The Chaturaji turn limit of a lobby clock: none (`null` or `{0, 0}`), or 30 or 60 s a turn
/// as the increment on a zero base.
///
/// # Errors
///
/// `invalid_options` for any other clock.
pub fn turn_time(
    time_control: Option<TimeControl>,
) -> Result<maharajah_chaturaji::settings::TurnTime, RoomError> {
    use maharajah_chaturaji::settings::TurnTime;
    match time_control.map(|tc| (tc.base_ms, tc.increment_ms)) {
        None | Some((0, 0)) => Ok(TurnTime::None),
        Some((0, 30_000)) => Ok(TurnTime::Seconds30),
        Some((0, 60_000)) => Ok(TurnTime::Seconds60),
        _ => Err(RoomError::new(
            ErrorCode::InvalidOptions,
            "a Chaturaji clock is none, or 30 or 60 s a turn (the increment on a zero base)",
        )),
    }
}

/// Checks a challenge's or pairing's game; the room options of a game between the challenger
/// (with `creator`'s colour) and an opponent. Whether it is rated is the room's business
/// ([`crate::room::Room::rated_for`]), not an option.
///
/// # Errors
///
/// `unavailable` for Chaturaji (a table, not a room of two: see `server/tables.rs`; quick
/// pairing for Chaturaji is not offered yet); `invalid_options` for a bad
/// clock.
pub fn room_options(
    game: LobbyGame,
    time_control: Option<TimeControl>,
    creator: Color,
) -> Result<RoomOptions, RoomError> {
    let Some(variant) = game.variant() else {
        return Err(RoomError::new(
            ErrorCode::Unavailable,
            "Chaturaji tables are not offered in the lobby yet; create a room and share its code",
        ));
    };
    let options = RoomOptions {
        variant,
        time_control,
        // A Maharajah game starts with the hidden lock-in, as every Maharajah room does.
        hidden_setup: variant == Variant::Maharajah,
        color: Some(creator),
    };
    crate::room::check_options(&options)?;
    Ok(options)
}

/// A lobby player as the list shows them and pairing rates them, for one game and speed class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standing {
    /// The identified player; `None` for a guest.
    pub player: Option<PlayerKey>,
    /// The player's display name, if they have one.
    pub name: Option<String>,
    /// The rating for the game and speed class, rounded.
    pub rating: u32,
    /// Whether the rating is provisional (always for a guest).
    pub provisional: bool,
}

impl Standing {
    /// A guest rated `rating` (provisional, no name).
    #[must_use]
    pub fn guest(rating: u32) -> Standing {
        Standing { player: None, name: None, rating, provisional: true }
    }
}

/// Refuses a rated request of a guest.
fn check_rated(rated: bool, player: Option<PlayerKey>) -> Result<(), RoomError> {
    if rated && player.is_none() {
        return Err(RoomError::new(
            ErrorCode::NotIdentified,
            "rated games need a player identity: identify first, or play casual",
        ));
    }
    Ok(())
}

/// An open challenge and whose it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenChallenge {
    /// The challenge as everyone sees it.
    pub challenge: Challenge,
    /// The connection that posted it.
    pub owner: ConnId,
    /// The identified player who posted it (always one for a rated challenge).
    pub player: Option<PlayerKey>,
}

/// Where a seeker waits: only players of the same pool are paired.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pool {
    /// The game.
    pub game: LobbyGame,
    /// The clock.
    pub time_control: TimeControl,
    /// Rated or casual.
    pub rated: bool,
}

/// A connection waiting for quick pairing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seeker {
    /// The connection.
    pub conn: ConnId,
    /// Its identified player (always one in a rated pool).
    pub player: Option<PlayerKey>,
    /// What it wants to play.
    pub pool: Pool,
    /// Its rating for that pool.
    pub rating: u32,
    /// When it started waiting.
    pub since: Millis,
}

/// Two seekers paired: `first` waited longer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pairing {
    /// The one who waited longer.
    pub first: Seeker,
    /// Its opponent.
    pub second: Seeker,
}

/// A challenge taken by `accept`, with what else left the lobby because of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Taken {
    /// The accepted challenge.
    pub open: OpenChallenge,
    /// The other challenges of both players, withdrawn (each connection plays one game).
    pub withdrawn: Vec<OpenChallenge>,
}

/// Open challenges and the quick-pairing queue. See the module documentation.
#[derive(Clone, Debug, Default)]
pub struct Lobby {
    challenges: BTreeMap<ChallengeId, OpenChallenge>,
    /// Oldest first.
    queue: Vec<Seeker>,
    last_id: ChallengeId,
}

impl Lobby {
    /// The open challenges of `games` (every game when empty), oldest first.
    pub fn list(&self, games: &[LobbyGame]) -> Vec<Challenge> {
        self.challenges
            .values()
            .filter(|o| games.is_empty() || games.contains(&o.challenge.game))
            .map(|o| o.challenge.clone())
            .collect()
    }

    /// How many challenges the identified `player` has open, over all their connections.
    pub fn open_by_player(&self, player: PlayerKey) -> usize {
        self.challenges.values().filter(|o| o.player == Some(player)).count()
    }

    /// How many challenges the connections `conns` have open together.
    pub fn open_by_any(&self, conns: impl Fn(ConnId) -> bool) -> usize {
        self.challenges.values().filter(|o| conns(o.owner)).count()
    }

    /// How many challenges `conn` has open.
    pub fn open_by(&self, conn: ConnId) -> usize {
        self.challenges.values().filter(|o| o.owner == conn).count()
    }

    /// Posts a challenge of `owner` (whose name and rating it shows) if it has fewer than `cap`
    /// open.
    ///
    /// # Errors
    ///
    /// `not_identified` for a rated challenge of a guest; `too_many_challenges` at the cap;
    /// the refusals of [`room_options`].
    pub fn create(
        &mut self,
        owner: ConnId,
        options: &ChallengeOptions,
        standing: Standing,
        cap: usize,
    ) -> Result<Challenge, RoomError> {
        let table = if options.game == LobbyGame::Chaturaji {
            let t = options.table.unwrap_or_default();
            turn_time(options.time_control)?;
            if !TABLE_PEOPLE.contains(&t.people) || !CPU_AFTER_S.contains(&t.cpu_after_s) {
                return Err(RoomError::new(
                    ErrorCode::InvalidOptions,
                    "a table waits for 2 to 4 people, and 5 to 300 s before the CPU comes",
                ));
            }
            Some(TableView { people: t.people, joined: 1, cpu_after_s: t.cpu_after_s })
        } else {
            room_options(options.game, options.time_control, Color::White)?;
            None
        };
        check_rated(options.rated, standing.player)?;
        if self.open_by(owner) >= cap {
            return Err(RoomError::new(
                ErrorCode::TooManyChallenges,
                format!("you already have {cap} open challenges; cancel one first"),
            ));
        }
        self.last_id += 1;
        let challenge = Challenge {
            table,
            id: self.last_id,
            game: options.game,
            time_control: options.time_control,
            rated: options.rated,
            color: options.color,
            creator: standing.name,
            rating: standing.rating,
            provisional: standing.provisional,
        };
        let open = OpenChallenge { challenge: challenge.clone(), owner, player: standing.player };
        self.challenges.insert(challenge.id, open);
        Ok(challenge)
    }

    /// Sets how many people sit at the table of challenge `id`; the challenge as it is now.
    pub fn set_joined(&mut self, id: ChallengeId, joined: u8) -> Option<Challenge> {
        let open = self.challenges.get_mut(&id)?;
        if let Some(t) = open.challenge.table.as_mut() {
            t.joined = joined;
        }
        Some(open.challenge.clone())
    }

    /// The open challenge `id`.
    #[must_use]
    pub fn get(&self, id: ChallengeId) -> Option<&OpenChallenge> {
        self.challenges.get(&id)
    }

    /// Withdraws `owner`'s challenge `id`.
    ///
    /// # Errors
    ///
    /// `challenge_not_found` when no challenge of `owner` has this number.
    pub fn cancel(&mut self, owner: ConnId, id: ChallengeId) -> Result<Challenge, RoomError> {
        match self.challenges.get(&id) {
            Some(o) if o.owner == owner => {}
            _ => return Err(not_found(id)),
        }
        self.challenges.remove(&id).map(|o| o.challenge).ok_or_else(|| not_found(id))
    }

    /// Takes challenge `id` for `acceptor` (the identified `player`, if any): it leaves the
    /// lobby, with every other challenge of both players, and both leave the queue.
    ///
    /// # Errors
    ///
    /// `challenge_not_found`; `forbidden` for the acceptor's own challenge, also one posted
    /// by the same player from another connection; `not_identified` for a guest accepting a
    /// rated challenge. A refused challenge stays open.
    pub fn accept(
        &mut self,
        acceptor: ConnId,
        player: Option<PlayerKey>,
        id: ChallengeId,
    ) -> Result<Taken, RoomError> {
        let owner = match self.challenges.get(&id) {
            None => return Err(not_found(id)),
            Some(o) if o.owner == acceptor || (player.is_some() && o.player == player) => {
                return Err(RoomError::new(
                    ErrorCode::Forbidden,
                    "this is your own challenge; cancel it instead",
                ))
            }
            Some(o) => {
                check_rated(o.challenge.rated, player)?;
                o.owner
            }
        };
        let open = self.challenges.remove(&id).ok_or_else(|| not_found(id))?;
        let mut withdrawn = self.withdraw(owner);
        withdrawn.extend(self.withdraw(acceptor));
        Ok(Taken { open, withdrawn })
    }

    /// Removes every challenge of `conn` and its place in the queue; the challenges removed.
    pub fn withdraw(&mut self, conn: ConnId) -> Vec<OpenChallenge> {
        self.queue.retain(|s| s.conn != conn);
        let ids: Vec<ChallengeId> =
            self.challenges.values().filter(|o| o.owner == conn).map(|o| o.challenge.id).collect();
        ids.into_iter().filter_map(|id| self.challenges.remove(&id)).collect()
    }

    /// Queues `conn` (the identified `player`, if any, rated `rating` for the pool's game and
    /// speed class) for quick pairing in `pool`, replacing its earlier place, then pairs
    /// whoever can be paired now.
    ///
    /// # Errors
    ///
    /// `not_identified` for a guest in a rated pool; the refusals of [`room_options`].
    pub fn seek(
        &mut self,
        conn: ConnId,
        player: Option<PlayerKey>,
        pool: Pool,
        rating: u32,
        now: Millis,
    ) -> Result<Vec<Pairing>, RoomError> {
        room_options(pool.game, Some(pool.time_control), Color::White)?;
        check_rated(pool.rated, player)?;
        self.queue.retain(|s| s.conn != conn);
        self.queue.push(Seeker { conn, player, pool, rating, since: now });
        Ok(self.pair(now))
    }

    /// Takes `conn` out of the queue; whether it was there.
    pub fn unseek(&mut self, conn: ConnId) -> bool {
        let before = self.queue.len();
        self.queue.retain(|s| s.conn != conn);
        self.queue.len() != before
    }

    /// Whether `conn` waits in the queue.
    pub fn is_seeking(&self, conn: ConnId) -> bool {
        self.queue.iter().any(|s| s.conn == conn)
    }

    /// Pairs every pair of seekers compatible at `now` (the longest-waiting first, each with
    /// the compatible seeker of the closest rating) and takes them out of the queue, with
    /// every challenge of theirs. The pairings made, with the challenges withdrawn.
    pub fn pair(&mut self, now: Millis) -> Vec<Pairing> {
        let mut pairings = Vec::new();
        let mut i = 0;
        while i < self.queue.len() {
            let a = self.queue[i];
            let best = self
                .queue
                .iter()
                .enumerate()
                .filter(|&(j, b)| j != i && compatible(&a, b, now))
                .min_by_key(|&(j, b)| (a.rating.abs_diff(b.rating), j))
                .map(|(j, _)| j);
            match best {
                Some(j) => {
                    let b = self.queue[j];
                    self.queue.retain(|s| s.conn != a.conn && s.conn != b.conn);
                    pairings.push(Pairing { first: a, second: b });
                    // The queue shrank before `i` only if `j < i`, which cannot be: every
                    // seeker before `i` found nobody compatible, `b` included.
                }
                None => i += 1,
            }
        }
        pairings
    }

    /// The next moment after `now` at which two waiting seekers become compatible (the
    /// pairing task sleeps until then), if any pair ever will.
    pub fn next_pairing(&self, now: Millis) -> Option<Millis> {
        let mut next: Option<Millis> = None;
        for (i, a) in self.queue.iter().enumerate() {
            for b in &self.queue[i + 1..] {
                if a.pool != b.pool || same_player(a, b) {
                    continue;
                }
                let Some(wait) = wait_for_window(a.rating.abs_diff(b.rating)) else { continue };
                let at = a.since.max(b.since).saturating_add(wait).max(now);
                next = Some(next.map_or(at, |n| n.min(at)));
            }
        }
        next
    }
}

/// Whether seekers `a` and `b` may be paired at `now`: the same pool, different connections of
/// different players, and their rating difference within the window of the one who has waited
/// less.
fn compatible(a: &Seeker, b: &Seeker, now: Millis) -> bool {
    let waited = now.saturating_sub(a.since.max(b.since));
    a.conn != b.conn
        && !same_player(a, b)
        && a.pool == b.pool
        && a.rating.abs_diff(b.rating) <= pairing_window(waited)
}

/// Whether two seekers are the same identified player (on two connections).
fn same_player(a: &Seeker, b: &Seeker) -> bool {
    a.player.is_some() && a.player == b.player
}

fn not_found(id: ChallengeId) -> RoomError {
    RoomError::new(ErrorCode::ChallengeNotFound, format!("no open challenge has the number {id}"))
}

/// The challenger's seat for a challenge's colour choice (`coin` decides a random one).
#[must_use]
pub fn creator_seat(choice: ColorChoice, coin: bool) -> Color {
    match choice {
        ColorChoice::White => Color::White,
        ColorChoice::Black => Color::Black,
        ColorChoice::Random if coin => Color::White,
        ColorChoice::Random => Color::Black,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const BLITZ: TimeControl = TimeControl { base_ms: 180_000, increment_ms: 2_000 };

    fn pool(game: LobbyGame) -> Pool {
        Pool { game, time_control: BLITZ, rated: false }
    }

    fn casual(game: LobbyGame) -> ChallengeOptions {
        ChallengeOptions {
            table: None,
            game,
            time_control: Some(BLITZ),
            rated: false,
            color: ColorChoice::Random,
        }
    }

    #[test]
    fn the_window_starts_at_100_and_widens_50_a_second_to_1000() {
        assert_eq!(pairing_window(0), 100);
        assert_eq!(pairing_window(19), 100);
        assert_eq!(pairing_window(20), 101);
        assert_eq!(pairing_window(2_000), 200);
        assert_eq!(pairing_window(18_000), 1000);
        assert_eq!(pairing_window(u64::MAX), 1000);
        for diff in [0, 99, 100, 101, 150, 777, 1000] {
            let wait = wait_for_window(diff).unwrap();
            assert!(pairing_window(wait) >= diff, "{diff}");
            if wait > 0 {
                assert!(pairing_window(wait - 1) < diff, "{diff}: {wait} is the shortest wait");
            }
        }
        assert_eq!(wait_for_window(1001), None);
    }

    #[test]
    fn close_ratings_pair_at_once_and_far_ones_once_the_window_has_widened() {
        let mut lobby = Lobby::default();
        assert!(lobby.seek(1, None, pool(LobbyGame::Chess), 1500, 0).unwrap().is_empty());
        // Another pool is never paired with the first.
        assert!(lobby.seek(2, None, pool(LobbyGame::Horde), 1500, 0).unwrap().is_empty());
        // 200 points apart: the newcomer's window covers that after 2 s.
        assert!(lobby.seek(3, None, pool(LobbyGame::Chess), 1700, 1_000).unwrap().is_empty());
        assert_eq!(lobby.next_pairing(1_000), Some(3_000));
        assert!(lobby.pair(2_999).is_empty());
        // A closer player arriving meanwhile is paired at once with the closest.
        let p = lobby.seek(4, None, pool(LobbyGame::Chess), 1560, 2_000).unwrap();
        assert_eq!(p.len(), 1);
        assert_eq!((p[0].first.conn, p[0].second.conn), (1, 4));
        assert!(lobby.is_seeking(3) && !lobby.is_seeking(1));
        assert_eq!(lobby.next_pairing(2_000), None, "3 is alone in its pool");
        let p = lobby.seek(5, None, pool(LobbyGame::Chess), 2800, 2_000).unwrap();
        assert!(p.is_empty());
        assert_eq!(lobby.next_pairing(2_000), None, "1100 apart: never");
        assert!(lobby.pair(100_000).is_empty());
        assert!(lobby.unseek(5) && !lobby.unseek(5));
    }

    #[test]
    fn challenges_are_capped_taken_once_and_withdrawn_with_their_owner() {
        let mut lobby = Lobby::default();
        let a = lobby.create(1, &casual(LobbyGame::Chess), Standing::guest(1500), 2).unwrap();
        let b = lobby.create(1, &casual(LobbyGame::Maharajah), Standing::guest(1500), 2).unwrap();
        let e = lobby.create(1, &casual(LobbyGame::Horde), Standing::guest(1500), 2).unwrap_err();
        assert_eq!(e.code, ErrorCode::TooManyChallenges);
        let c = lobby.create(2, &casual(LobbyGame::Horde), Standing::guest(1500), 2).unwrap();
        assert_eq!(lobby.list(&[LobbyGame::Maharajah]), vec![b.clone()]);
        assert_eq!(lobby.list(&[]), vec![a.clone(), b.clone(), c.clone()]);
        assert_eq!(lobby.accept(1, None, a.id).unwrap_err().code, ErrorCode::Forbidden);
        assert_eq!(lobby.cancel(2, a.id).unwrap_err().code, ErrorCode::ChallengeNotFound);
        lobby.seek(2, None, pool(LobbyGame::Chess), 1500, 0).unwrap();
        let taken = lobby.accept(2, None, a.id).unwrap();
        assert_eq!(taken.open.owner, 1);
        let gone: Vec<ChallengeId> = taken.withdrawn.iter().map(|o| o.challenge.id).collect();
        assert_eq!(gone, vec![b.id, c.id]);
        assert!(!lobby.is_seeking(2));
        assert_eq!(lobby.accept(3, None, a.id).unwrap_err().code, ErrorCode::ChallengeNotFound);
        assert!(lobby.list(&[]).is_empty());
        let rated = ChallengeOptions { rated: true, ..casual(LobbyGame::Chess) };
        let refused = lobby.create(1, &rated, Standing::guest(1500), 2).unwrap_err();
        assert_eq!(refused.code, ErrorCode::NotIdentified);
        // A Chaturaji challenge is a table (4 people and 60 s unless asked otherwise) whose
        // clock is a turn limit.
        let table = ChallengeOptions { time_control: None, ..casual(LobbyGame::Chaturaji) };
        let posted = lobby.create(1, &table, Standing::guest(1500), 2).unwrap();
        assert_eq!(posted.table, Some(TableView { people: 4, joined: 1, cpu_after_s: 60 }));
        lobby.cancel(1, posted.id).unwrap();
        let odd = ChallengeOptions { time_control: Some(BLITZ), ..casual(LobbyGame::Chaturaji) };
        assert_eq!(
            lobby.create(1, &odd, Standing::guest(1500), 2).unwrap_err().code,
            ErrorCode::InvalidOptions
        );
        let bad = ChallengeOptions {
            time_control: Some(TimeControl { base_ms: 0, increment_ms: 0 }),
            ..casual(LobbyGame::Chess)
        };
        assert_eq!(
            lobby.create(1, &bad, Standing::guest(1500), 2).unwrap_err().code,
            ErrorCode::InvalidOptions
        );
    }

    fn key(seed: u8) -> PlayerKey {
        maharajah_protocol::identity::PlayerSecret::from_bytes([seed; 32]).public()
    }

    fn named(seed: u8, name: &str, rating: u32) -> Standing {
        Standing { player: Some(key(seed)), name: Some(name.into()), rating, provisional: false }
    }

    #[test]
    fn rated_challenges_are_for_identified_players_and_never_against_themselves() {
        let mut lobby = Lobby::default();
        let rated = ChallengeOptions { rated: true, ..casual(LobbyGame::Horde) };
        let open = lobby.create(1, &rated, named(1, "Ana", 1712), 3).unwrap();
        assert_eq!(
            (open.creator.as_deref(), open.rating, open.provisional),
            (Some("Ana"), 1712, false)
        );
        let guest = lobby.create(2, &casual(LobbyGame::Chess), Standing::guest(1500), 3).unwrap();
        assert_eq!((guest.creator, guest.provisional), (None, true));
        // A guest cannot take it, nor Ana from another connection; it stays open meanwhile.
        assert_eq!(lobby.accept(2, None, open.id).unwrap_err().code, ErrorCode::NotIdentified);
        assert_eq!(lobby.accept(3, Some(key(1)), open.id).unwrap_err().code, ErrorCode::Forbidden);
        assert_eq!(lobby.list(&[LobbyGame::Horde]), vec![open.clone()]);
        let taken = lobby.accept(3, Some(key(2)), open.id).unwrap();
        assert_eq!((taken.open.owner, taken.open.player), (1, Some(key(1))));
        // A casual challenge is anyone's.
        assert!(lobby.accept(4, None, guest.id).is_ok());
    }

    #[test]
    fn rated_pairing_needs_an_identity_and_never_pairs_a_player_with_themselves() {
        let mut lobby = Lobby::default();
        let rated = Pool { rated: true, ..pool(LobbyGame::Chess) };
        assert_eq!(lobby.seek(1, None, rated, 1500, 0).unwrap_err().code, ErrorCode::NotIdentified);
        assert!(!lobby.is_seeking(1));
        assert!(lobby.seek(1, Some(key(1)), rated, 1500, 0).unwrap().is_empty());
        // The same player on a second connection: never a match, and no wake-up is due.
        assert!(lobby.seek(2, Some(key(1)), rated, 1500, 0).unwrap().is_empty());
        assert_eq!(lobby.next_pairing(0), None);
        assert!(lobby.pair(60_000).is_empty());
        // A casual seeker of the same rating is in another pool.
        assert!(lobby.seek(3, Some(key(3)), pool(LobbyGame::Chess), 1500, 0).unwrap().is_empty());
        let p = lobby.seek(4, Some(key(2)), rated, 1540, 1_000).unwrap();
        assert_eq!(p.len(), 1);
        assert_eq!((p[0].first.player, p[0].second.player), (Some(key(1)), Some(key(2))));
    }

    #[test]
    fn the_request_bucket_allows_a_burst_then_refills() {
        let mut bucket = RequestBucket::new(3, 20, 0);
        assert!((0..3).all(|_| bucket.take(0)));
        assert!(!bucket.take(0));
        assert!(!bucket.take(2_999), "one request per 3 s");
        assert!(bucket.take(3_000));
        assert!(!bucket.take(3_000));
        assert!((0..3).all(|_| bucket.take(1_000_000)), "never more than the burst");
        assert!(!bucket.take(1_000_000));
    }

    #[test]
    fn a_maharajah_game_uses_the_hidden_lock_in() {
        let o = room_options(LobbyGame::Maharajah, None, Color::Black).unwrap();
        assert!(o.hidden_setup);
        assert_eq!(o.color, Some(Color::Black));
        assert!(!room_options(LobbyGame::Horde, None, Color::White).unwrap().hidden_setup);
        assert_eq!(creator_seat(ColorChoice::Black, true), Color::Black);
        assert_eq!(creator_seat(ColorChoice::Random, false), Color::Black);
    }
}
