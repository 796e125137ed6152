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
use maharajah_protocol::{
    Challenge, ChallengeId, ChallengeOptions, Color, ColorChoice, ErrorCode, LobbyGame,
    RoomOptions, TimeControl, Variant,
};

use crate::rooms::RoomError;

/// A connection's number on the server.
pub type ConnId = u64;

/// The rating of a player the server knows nothing about (every player until identities land).
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

/// Who a lobby player is, as far as the server knows. Until player identities land (issue 18,
/// item 1) a connection is known only by its number and its client's address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LobbyPlayer {
    /// The connection's number.
    pub conn: ConnId,
    /// The client's address (behind a trusted proxy, the forwarded one).
    pub ip: IpAddr,
}

/// Where the lobby gets a player's rating for a game and clock: where ratings plug in.
pub trait RatingSource: Send + Sync + 'static {
    /// The rating of `player` for `game` at `time_control`.
    fn rating(
        &self,
        player: &LobbyPlayer,
        game: LobbyGame,
        time_control: Option<TimeControl>,
    ) -> u32;
}

/// Every player is [`DEFAULT_RATING`]: the source until the server has identities.
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
    /// The players' ratings (every player 1500 by default).
    pub ratings: Arc<dyn RatingSource>,
}

impl Default for LobbyConfig {
    fn default() -> Self {
        LobbyConfig {
            challenges_per_connection: 3,
            request_burst: 6,
            requests_per_minute: 20,
            ratings: Arc::new(DefaultRatings),
        }
    }
}

impl fmt::Debug for LobbyConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LobbyConfig")
            .field("challenges_per_connection", &self.challenges_per_connection)
            .field("request_burst", &self.request_burst)
            .field("requests_per_minute", &self.requests_per_minute)
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

/// Checks a challenge's or pairing's game and rated flag; the room options of a game between
/// the challenger (with `creator`'s colour) and an opponent.
///
/// # Errors
///
/// `unavailable` for Chaturaji (not offered yet) and for a rated game (it needs player
/// identities, which this server does not have yet); `invalid_options` for a bad clock.
pub fn room_options(
    game: LobbyGame,
    time_control: Option<TimeControl>,
    rated: bool,
    creator: Color,
) -> Result<RoomOptions, RoomError> {
    let Some(variant) = game.variant() else {
        return Err(RoomError::new(
            ErrorCode::Unavailable,
            "Chaturaji tables are not offered in the lobby yet; create a room and share its code",
        ));
    };
    if rated {
        return Err(RoomError::new(
            ErrorCode::Unavailable,
            "rated games need a player identity, which this server does not have yet; \
             play casual",
        ));
    }
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

/// An open challenge and whose it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenChallenge {
    /// The challenge as everyone sees it.
    pub challenge: Challenge,
    /// The connection that posted it.
    pub owner: ConnId,
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

    /// How many challenges `conn` has open.
    pub fn open_by(&self, conn: ConnId) -> usize {
        self.challenges.values().filter(|o| o.owner == conn).count()
    }

    /// Posts a challenge of `owner` (whose rating it shows) if it has fewer than `cap` open.
    ///
    /// # Errors
    ///
    /// `too_many_challenges` at the cap; the refusals of [`room_options`].
    pub fn create(
        &mut self,
        owner: ConnId,
        options: &ChallengeOptions,
        rating: u32,
        cap: usize,
    ) -> Result<Challenge, RoomError> {
        room_options(options.game, options.time_control, options.rated, Color::White)?;
        if self.open_by(owner) >= cap {
            return Err(RoomError::new(
                ErrorCode::TooManyChallenges,
                format!("you already have {cap} open challenges; cancel one first"),
            ));
        }
        self.last_id += 1;
        let challenge = Challenge {
            id: self.last_id,
            game: options.game,
            time_control: options.time_control,
            rated: options.rated,
            color: options.color,
            creator: None,
            rating,
        };
        self.challenges.insert(challenge.id, OpenChallenge { challenge: challenge.clone(), owner });
        Ok(challenge)
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

    /// Takes challenge `id` for `acceptor`: it leaves the lobby, with every other challenge of
    /// both players, and both leave the queue.
    ///
    /// # Errors
    ///
    /// `challenge_not_found`; `forbidden` for the acceptor's own challenge.
    pub fn accept(&mut self, acceptor: ConnId, id: ChallengeId) -> Result<Taken, RoomError> {
        let owner = match self.challenges.get(&id) {
            None => return Err(not_found(id)),
            Some(o) if o.owner == acceptor => {
                return Err(RoomError::new(
                    ErrorCode::Forbidden,
                    "this is your own challenge; cancel it instead",
                ))
            }
            Some(o) => o.owner,
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

    /// Queues `conn` for quick pairing in `pool` (replacing its earlier place), then pairs
    /// whoever can be paired now.
    ///
    /// # Errors
    ///
    /// The refusals of [`room_options`].
    pub fn seek(
        &mut self,
        conn: ConnId,
        pool: Pool,
        rating: u32,
        now: Millis,
    ) -> Result<Vec<Pairing>, RoomError> {
        room_options(pool.game, Some(pool.time_control), pool.rated, Color::White)?;
        self.queue.retain(|s| s.conn != conn);
        self.queue.push(Seeker { conn, pool, rating, since: now });
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
                if a.pool != b.pool {
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

/// Whether seekers `a` and `b` may be paired at `now`: the same pool, different connections,
/// and their rating difference within the window of the one who has waited less.
fn compatible(a: &Seeker, b: &Seeker, now: Millis) -> bool {
    let waited = now.saturating_sub(a.since.max(b.since));
    a.conn != b.conn && a.pool == b.pool && a.rating.abs_diff(b.rating) <= pairing_window(waited)
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
        assert!(lobby.seek(1, pool(LobbyGame::Chess), 1500, 0).unwrap().is_empty());
        // Another pool is never paired with the first.
        assert!(lobby.seek(2, pool(LobbyGame::Horde), 1500, 0).unwrap().is_empty());
        // 200 points apart: the newcomer's window covers that after 2 s.
        assert!(lobby.seek(3, pool(LobbyGame::Chess), 1700, 1_000).unwrap().is_empty());
        assert_eq!(lobby.next_pairing(1_000), Some(3_000));
        assert!(lobby.pair(2_999).is_empty());
        // A closer player arriving meanwhile is paired at once with the closest.
        let p = lobby.seek(4, pool(LobbyGame::Chess), 1560, 2_000).unwrap();
        assert_eq!(p.len(), 1);
        assert_eq!((p[0].first.conn, p[0].second.conn), (1, 4));
        assert!(lobby.is_seeking(3) && !lobby.is_seeking(1));
        assert_eq!(lobby.next_pairing(2_000), None, "3 is alone in its pool");
        let p = lobby.seek(5, pool(LobbyGame::Chess), 2800, 2_000).unwrap();
        assert!(p.is_empty());
        assert_eq!(lobby.next_pairing(2_000), None, "1100 apart: never");
        assert!(lobby.pair(100_000).is_empty());
        assert!(lobby.unseek(5) && !lobby.unseek(5));
    }

    #[test]
    fn challenges_are_capped_taken_once_and_withdrawn_with_their_owner() {
        let mut lobby = Lobby::default();
        let a = lobby.create(1, &casual(LobbyGame::Chess), 1500, 2).unwrap();
        let b = lobby.create(1, &casual(LobbyGame::Maharajah), 1500, 2).unwrap();
        let e = lobby.create(1, &casual(LobbyGame::Horde), 1500, 2).unwrap_err();
        assert_eq!(e.code, ErrorCode::TooManyChallenges);
        let c = lobby.create(2, &casual(LobbyGame::Horde), 1500, 2).unwrap();
        assert_eq!(lobby.list(&[LobbyGame::Maharajah]), vec![b.clone()]);
        assert_eq!(lobby.list(&[]), vec![a.clone(), b.clone(), c.clone()]);
        assert_eq!(lobby.accept(1, a.id).unwrap_err().code, ErrorCode::Forbidden);
        assert_eq!(lobby.cancel(2, a.id).unwrap_err().code, ErrorCode::ChallengeNotFound);
        lobby.seek(2, pool(LobbyGame::Chess), 1500, 0).unwrap();
        let taken = lobby.accept(2, a.id).unwrap();
        assert_eq!(taken.open.owner, 1);
        let gone: Vec<ChallengeId> = taken.withdrawn.iter().map(|o| o.challenge.id).collect();
        assert_eq!(gone, vec![b.id, c.id]);
        assert!(!lobby.is_seeking(2));
        assert_eq!(lobby.accept(3, a.id).unwrap_err().code, ErrorCode::ChallengeNotFound);
        assert!(lobby.list(&[]).is_empty());
        let rated = ChallengeOptions { rated: true, ..casual(LobbyGame::Chess) };
        assert_eq!(lobby.create(1, &rated, 1500, 2).unwrap_err().code, ErrorCode::Unavailable);
        let table = casual(LobbyGame::Chaturaji);
        assert_eq!(lobby.create(1, &table, 1500, 2).unwrap_err().code, ErrorCode::Unavailable);
        let bad = ChallengeOptions {
            time_control: Some(TimeControl { base_ms: 0, increment_ms: 0 }),
            ..casual(LobbyGame::Chess)
        };
        assert_eq!(lobby.create(1, &bad, 1500, 2).unwrap_err().code, ErrorCode::InvalidOptions);
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
        let o = room_options(LobbyGame::Maharajah, None, false, Color::Black).unwrap();
        assert!(o.hidden_setup);
        assert_eq!(o.color, Some(Color::Black));
        assert!(!room_options(LobbyGame::Horde, None, false, Color::White).unwrap().hidden_setup);
        assert_eq!(creator_seat(ColorChoice::Black, true), Color::Black);
        assert_eq!(creator_seat(ColorChoice::Random, false), Color::Black);
    }
}
