//! The one room runtime: a task per room, for every kind of room.
//!
//! A room kind is a pure state machine that implements [`RoomLogic`] (chess: [`Room`],
//! Chaturaji: [`ChaturajiRoom`]). [`RoomActor`] owns one such room and is its only writer: it
//! takes [`Cmd`]s from connections on a channel, wakes up at the room's next deadline, and for
//! every change stores the room before anyone hears of it (or rolls the change back when storing
//! fails), then broadcasts the new events to the seats' connections. It attaches and detaches
//! connections to seats and brings a (re)joining connection up to date from the event ring or
//! with a snapshot. Spectators' connections get a snapshot and then the same events as the
//! seats (every room event is public: none carries a hidden army before both are revealed), and
//! nothing else: no seat, no private answer. When a rated game has ended it changes the players' ratings, stored in the
//! same transaction as the room (see [`RoomActor::rate`]); in a cluster, from the players'
//! records as stored, guarded against another node's change meanwhile.
//!
//! [`Room`]: crate::room::Room
//! [`ChaturajiRoom`]: crate::chaturaji::ChaturajiRoom

use std::future::Future;
use std::sync::Arc;

use maharajah_engine::clock::Millis;
use maharajah_protocol::identity::PlayerKey;
use maharajah_protocol::{
    AccessCode, ChallengeId, Color, ErrorCode, LobbyMsg, RatingChange, RoomOptions, ServerMsg,
};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use tracing::{debug, error, info, warn};

use super::admin::Stats;
use super::listing::LiveRoom;
use super::{lock, pong, unix_ms, IpGuard, Link, Out, Shared};
use crate::history::FinishedGame;
use crate::room::RatedEnd;
use crate::rooms::{Lifetimes, RoomError};
use crate::store::{Committed, PgStore, PlayerRev, PlayerRow, Records, Store, StoreError};

/// What the lobby needs of a connection to seat it.
#[derive(Clone)]
pub(super) struct Member {
    pub(super) link: Link,
    pub(super) seats: mpsc::UnboundedSender<Seating>,
    /// The identified player, if the connection had identified when it joined the lobby.
    pub(super) player: Option<PlayerKey>,
}

/// A room the lobby seated a connection in, for its reader to hold.
pub(super) struct Seating {
    pub(super) code: AccessCode,
    pub(super) tx: RoomTx,
}

/// Two players to seat in a new room: the challenger (or the longer-waiting seeker, or the
/// rematch's new White) first.
pub(super) struct Match {
    pub(super) options: RoomOptions,
    /// A rated game: both members are identified players (the lobby checked).
    pub(super) rated: bool,
    pub(super) first: Member,
    pub(super) second: Member,
    pub(super) challenge: Option<ChallengeId>,
    /// A rematch: the room whose game it follows.
    pub(super) rematch_of: Option<AccessCode>,
}

/// How many commands wait for a room before senders wait.
pub(super) const ROOM_QUEUE: usize = 64;

/// How many times a rated end is applied when another node of a cluster changed one of its
/// players meanwhile (each time from the records as stored then); after that the ratings stay
/// due, tried again after the room's next command or timer.
const RATE_TRIES: usize = 3;

/// What the runtime needs from one kind of room: a pure state machine with numbered events.
/// Every method that depends on time takes `now`.
pub(super) trait RoomLogic: Clone + Send + Sized + 'static {
    /// A seat at the table (a colour, a Chaturaji seat).
    type Seat: Copy + Eq + Send + 'static;
    /// What a join brings besides the new token (nothing for chess, the device id for
    /// Chaturaji).
    type Joiner: Send + 'static;
    /// What a seat asks the room to do.
    type Action: Send + 'static;
    /// What the room's clients are sent.
    type Msg: Clone + Send + Into<Out>;
    /// The stored form of the room.
    type Record: Send;
    /// Why a stored room cannot be rebuilt.
    type RecordError: std::fmt::Display;

    /// The kind of room, in logs.
    const KIND: &'static str;
    /// Whether [`RoomLogic::on_time`] may take long (a CPU decision); it then runs off the
    /// runtime's worker threads.
    const SLOW_TIMERS: bool = false;
    /// Whether a connection's second `join` of the room it sits in is refused (a chess
    /// connection holds one seat; Chaturaji answers it with the device's own seat).
    const ONE_JOIN_PER_CONNECTION: bool = false;
    /// The refusal of an action from a connection not seated in a room of this kind.
    const NOT_SEATED: &'static str;

    /// The room's access code.
    fn code(&self) -> &AccessCode;
    /// The number of the last event.
    fn seq(&self) -> u64;
    /// The room's state as `/metrics` counts it: an index into [`super::admin::STATES`]
    /// (waiting, setup, playing, finished; [`WAITING`] for a room that still waits for players).
    fn state(&self) -> usize;
    /// The next moment the room must be woken up (at the latest, its expiry).
    fn next_deadline(&self) -> Millis;
    /// Whether the room has expired at `now`.
    fn is_expired(&self, now: Millis) -> bool;
    /// Applies whatever time alone does at `now`.
    fn on_time(&mut self, now: Millis);
    /// Seats a newcomer who brought `token` (or gives a known device its seat back); returns
    /// the seat and the token that holds it.
    fn join(
        &mut self,
        token: String,
        joiner: Self::Joiner,
        now: Millis,
    ) -> Result<(Self::Seat, String), RoomError>;
    /// Brings the holder of `token` back to its seat.
    fn rejoin(
        &mut self,
        token: &str,
        joiner: Self::Joiner,
        now: Millis,
    ) -> Result<Self::Seat, RoomError>;
    /// Performs `action` for the seat holding `token`; `Ok` carries the private answer to the
    /// acting connection, if any (the events go to every seat).
    fn act(
        &mut self,
        token: &str,
        action: Self::Action,
        now: Millis,
    ) -> Result<Option<Self::Msg>, RoomError>;
    /// Whether `action` is a move whose handling time [`crate::metrics`] records.
    fn is_move(_action: &Self::Action) -> bool {
        false
    }
    /// Whether a refused join counts against the joiner's address (guessing a token).
    fn counts_as_failed_join(code: ErrorCode) -> bool {
        code == ErrorCode::Forbidden
    }
    /// A seat's connection dropped.
    fn disconnect(&mut self, seat: Self::Seat, now: Millis);
    /// A seat's connection was handed over by a draining node of a cluster (the player comes
    /// back through another node at once): by default as a dropped connection.
    fn hand_over(&mut self, seat: Self::Seat, now: Millis) {
        self.disconnect(seat, now);
    }
    /// Answers the room owes to seats' connections since the last call (an action acknowledged
    /// later than it came, such as a Chaturaji roll waiting for the dice links).
    fn take_replies(&mut self) -> Vec<(Self::Seat, ServerMsg)> {
        Vec::new()
    }
    /// The message telling a connection its seat and token.
    fn seated(code: AccessCode, seat: Self::Seat, token: String) -> Self::Msg;
    /// The whole room as of `now`.
    fn snapshot_msg(&self, now: Millis) -> Self::Msg;
    /// The events after `seq`, while the event ring holds them.
    fn events_after(&self, seq: u64) -> Option<Vec<Self::Msg>>;
    /// Commits the room's record as of `now`.
    fn save(
        &self,
        store: &Store,
        now: Millis,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// The finished rated game whose ratings are still to change, if the room holds one.
    fn rating_due(&self) -> Option<RatedEnd> {
        None
    }
    /// Records the rating changes of [`RoomLogic::rating_due`] (one per player, in its order)
    /// as an event; no rating is due afterwards.
    fn record_ratings(&mut self, _changes: &[RatingChange]) {}
    /// Queues the room's record as of `now` with the players' `rows`, to be committed in one
    /// transaction (without awaiting: the caller holds the players' lock), guarded by the
    /// revisions `expected` in a cluster (see [`Store::queue_room_with_players`]).
    ///
    /// # Errors
    ///
    /// The store's refusal.
    fn queue_with_players(
        &self,
        _store: &Store,
        _now: Millis,
        _rows: Vec<PlayerRow>,
        _expected: Vec<PlayerRev>,
    ) -> Result<Option<Committed>, StoreError> {
        Ok(None)
    }
    /// The key (`CODE/n`) of the finished game the room holds once its ratings (if any) have
    /// changed: the game to keep for the profiles.
    fn finished_key(&self) -> Option<String> {
        None
    }
    /// The finished game of [`RoomLogic::finished_key`] as the profiles keep it, with its
    /// rating `changes` (if rated and known), ended at `ended_ms`; players named by `players`.
    fn finished_game(
        &self,
        _ended_ms: u64,
        _changes: &[RatingChange],
        _players: &crate::players::Players,
    ) -> Option<FinishedGame> {
        None
    }
    /// The room as the "playing now" list shows it, while a game is on.
    fn live(&self) -> Option<LiveRoom> {
        None
    }
    /// The seat of `token` when it may offer a rematch now (the game is over).
    ///
    /// # Errors
    ///
    /// `forbidden` for a token of no seat, `wrong_phase` before the end, `unavailable` for a
    /// kind of room without online rematch (Chaturaji has its own).
    fn rematch_seat(&self, _token: &str) -> Result<Self::Seat, RoomError> {
        Err(RoomError::new(ErrorCode::Unavailable, "this room has its own rematch"))
    }
    /// The colour of a seat, for chess rooms (rematch offers name it).
    fn seat_color(_seat: Self::Seat) -> Option<Color> {
        None
    }
    /// The options of the rematch room with the seat that played Black first (it plays
    /// White), and whether it is rated.
    fn rematch_options(&self) -> Option<(RoomOptions, bool)> {
        None
    }
    /// Deletes the stored room `code`.
    fn delete(
        store: &Store,
        code: &AccessCode,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
    /// The code of a stored room.
    fn record_code(record: &Self::Record) -> &AccessCode;
    /// Rebuilds a stored room after a restart.
    fn from_record(
        record: Self::Record,
        now: Millis,
        lifetimes: Lifetimes,
    ) -> Result<Self, Self::RecordError>;
    /// This kind's command channel as a room handle.
    fn wrap(tx: RoomSender<Self>) -> RoomTx;
    /// The command channel of `tx`, if it is a room of this kind.
    fn unwrap(tx: &RoomTx) -> Option<&RoomSender<Self>>;

    /// What brings a client from event `after` up to date: the missed events while the ring
    /// holds them, a snapshot otherwise (or when `after` is `None`).
    fn catch_up(&self, after: Option<u64>, now: Millis) -> Vec<Self::Msg> {
        after.and_then(|seq| self.events_after(seq)).unwrap_or_else(|| vec![self.snapshot_msg(now)])
    }
}

/// A command to a room task.
pub(super) enum Cmd<R: RoomLogic> {
    /// Take a free seat with a fresh token.
    Join { token: String, joiner: R::Joiner, link: Link, reply: oneshot::Sender<JoinAnswer<R>> },
    /// Come back to the seat of `token`, having seen the events up to `last_seq`.
    Rejoin {
        token: String,
        last_seq: u64,
        joiner: R::Joiner,
        link: Link,
        reply: oneshot::Sender<JoinAnswer<R>>,
    },
    /// A seat's action.
    Act {
        token: String,
        action: R::Action,
        link: Link,
        /// When the frame was decoded (for [`crate::metrics`]).
        received: Instant,
    },
    /// Connection `conn` has gone.
    Detach {
        conn: u64,
        /// Handed over by a draining node (see [`RoomLogic::hand_over`]), not a drop.
        handover: bool,
    },
    /// Watch the room as a spectator: a snapshot now, the events as they come.
    Watch { link: Link, reply: oneshot::Sender<Result<(), RoomError>> },
    /// Spectator connection `conn` stops watching.
    Unwatch { conn: u64 },
    /// A `ping` from a seated connection, answered by the room after every command before it:
    /// a client's barrier ping then follows the refusal of the action it sent first.
    Ping { nonce: u64, link: Link },
    /// A seat offers (or accepts) a rematch; `member` is how to seat its connection.
    Rematch { token: String, member: Member },
    /// Another node owns the room now (cluster): stop, closing every connection so its
    /// players reconnect to the new owner.
    Release,
}

/// The room's answer to a join or rejoin.
pub(super) type JoinAnswer<R> = Result<<R as RoomLogic>::Seat, RoomError>;

/// The sending side of a room task's channel.
pub(super) type RoomSender<R> = mpsc::Sender<Cmd<R>>;

/// A room task's channel, whatever the kind of room; the one registry of rooms holds these.
#[derive(Clone)]
pub(super) enum RoomTx {
    /// A chess room.
    Chess(RoomSender<crate::room::Room>),
    /// A Chaturaji room.
    Chaturaji(RoomSender<crate::chaturaji::ChaturajiRoom>),
}

impl RoomTx {
    /// Tells the room that connection `conn` has gone (`handover`: handed over by a
    /// draining node of a cluster).
    pub(super) async fn detach(&self, conn: u64, handover: bool) {
        match self {
            RoomTx::Chess(tx) => drop(tx.send(Cmd::Detach { conn, handover }).await),
            RoomTx::Chaturaji(tx) => drop(tx.send(Cmd::Detach { conn, handover }).await),
        }
    }

    /// Asks the room to take `link` as a spectator (answered on `reply`); false if the room is
    /// gone.
    pub(super) async fn watch(
        &self,
        link: Link,
        reply: oneshot::Sender<Result<(), RoomError>>,
    ) -> bool {
        match self {
            RoomTx::Chess(tx) => tx.send(Cmd::Watch { link, reply }).await.is_ok(),
            RoomTx::Chaturaji(tx) => tx.send(Cmd::Watch { link, reply }).await.is_ok(),
        }
    }

    /// Tells the room that spectator `conn` stops watching.
    pub(super) async fn unwatch(&self, conn: u64) {
        match self {
            RoomTx::Chess(tx) => drop(tx.send(Cmd::Unwatch { conn }).await),
            RoomTx::Chaturaji(tx) => drop(tx.send(Cmd::Unwatch { conn }).await),
        }
    }

    /// Passes a rematch offer of `token`'s seat to a chess room; false if the room is gone or
    /// is not a chess room.
    pub(super) async fn rematch(&self, token: String, member: Member) -> bool {
        match self {
            RoomTx::Chess(tx) => tx.send(Cmd::Rematch { token, member }).await.is_ok(),
            RoomTx::Chaturaji(_) => false,
        }
    }

    /// Stops the room's task here (another node owns it now); see [`Cmd::Release`].
    pub(super) fn release(&self) {
        // Queued behind the commands already sent (a full queue is waited for).
        let tx = self.clone();
        tokio::spawn(async move {
            match tx {
                RoomTx::Chess(tx) => drop(tx.send(Cmd::Release).await),
                RoomTx::Chaturaji(tx) => drop(tx.send(Cmd::Release).await),
            }
        });
    }

    /// Has the room answer a ping in order with its other answers; false if the room is gone.
    pub(super) async fn ping(&self, nonce: u64, link: Link) -> bool {
        match self {
            RoomTx::Chess(tx) => tx.send(Cmd::Ping { nonce, link }).await.is_ok(),
            RoomTx::Chaturaji(tx) => tx.send(Cmd::Ping { nonce, link }).await.is_ok(),
        }
    }
}

/// [`RoomLogic::state`] of a room that still waits for players.
pub(super) const WAITING: usize = 0;

/// Registers `room` under its code and starts its task with the seats' connections `links`.
pub(super) fn spawn<R: RoomLogic>(shared: &Arc<Shared>, room: R, links: Vec<(R::Seat, Link)>) {
    let (tx, rx) = mpsc::channel(ROOM_QUEUE);
    lock(&shared.rooms).insert(room.code().clone(), R::wrap(tx));
    start(shared, room, links, rx, None);
}

/// Starts the task of a room whose channel is already registered; `waiting` counts it against
/// its creator's address while it waits for players.
pub(super) fn start<R: RoomLogic>(
    shared: &Arc<Shared>,
    room: R,
    links: Vec<(R::Seat, Link)>,
    rx: mpsc::Receiver<Cmd<R>>,
    waiting: Option<IpGuard>,
) {
    let actor = RoomActor {
        shared: shared.clone(),
        room,
        links,
        watchers: Vec::new(),
        waiting,
        changes: Vec::new(),
        recorded: None,
        live: None,
        offers: Vec::new(),
        fenced: false,
    };
    tokio::spawn(actor.run(rx));
}

/// Recovers the stored rooms of one kind at start; each gets its task. Nothing is stored again
/// (a commit per room made a restart with many rooms slow): a room rebuilt from the same
/// record again after another restart comes back the same way, and its first change stores it.
pub(super) fn recover<R: RoomLogic>(
    shared: &Arc<Shared>,
    records: Records<R::Record>,
    now: Millis,
) {
    for record in records {
        let record = match record {
            Ok(r) => r,
            Err(e) => {
                warn!(kind = R::KIND, "skipping an unreadable stored room: {e}");
                continue;
            }
        };
        let code = R::record_code(&record).clone();
        match R::from_record(record, now, shared.config.lifetimes) {
            Ok(room) => {
                debug!(room = %code, kind = R::KIND, "room recovered");
                spawn(shared, room, Vec::new());
            }
            Err(e) => warn!(room = %code, kind = R::KIND, "room cannot be recovered: {e}"),
        }
    }
}

/// A copy to roll back to if storing fails; in-memory storage cannot fail, so no copy.
fn backup<R: RoomLogic>(store: &Store, room: &R) -> Option<R> {
    store.is_durable().then(|| room.clone())
}

/// Stores `room` if it changed since event `before`; on failure restores `backup` and says
/// whether the write was fenced (another node owns the room).
async fn persist<R: RoomLogic>(
    store: &Store,
    stats: &Stats,
    room: &mut R,
    backup: Option<R>,
    before: u64,
    now: Millis,
) -> Result<(), bool> {
    if room.seq() == before {
        return Ok(());
    }
    let started = Instant::now();
    match room.save(store, now).await {
        Ok(()) => {
            if store.is_durable() {
                stats.committed(started.elapsed());
            }
            Ok(())
        }
        Err(e) => {
            error!(room = %room.code(), "storing failed, the change is rolled back: {e}");
            if let Some(b) = backup {
                *room = b;
            }
            Err(matches!(e, StoreError::Fenced { .. }))
        }
    }
}

fn internal() -> RoomError {
    RoomError::new(ErrorCode::Internal, "the server could not store this; nothing changed")
}

/// The task that owns one room. See the module documentation.
struct RoomActor<R: RoomLogic> {
    shared: Arc<Shared>,
    room: R,
    /// The connection attached to each seat that has one.
    links: Vec<(R::Seat, Link)>,
    /// The spectators' connections.
    watchers: Vec<Link>,
    /// While the room waits for players: its place in its creator's address's count.
    waiting: Option<IpGuard>,
    /// The rating changes of the room's last rated game (for its profile entry).
    changes: Vec<RatingChange>,
    /// The key of the last finished game handed to the history.
    recorded: Option<String>,
    /// What the "playing now" list shows of the room (without spectators), as last published.
    live: Option<LiveRoom>,
    /// Pending rematch offers, with how to seat each offering connection.
    offers: Vec<(R::Seat, Member)>,
    /// A write was refused because another node owns the room now (cluster).
    fenced: bool,
}

impl<R: RoomLogic> RoomActor<R> {
    async fn run(mut self, mut rx: mpsc::Receiver<Cmd<R>>) {
        let _alive = self.shared.alive.clone();
        let mut shutdown = self.shared.shutdown.clone();
        let mut state = self.room.state();
        self.shared.stats.room_state(None, Some(state));
        loop {
            // A rated game that ended (also one recovered before its ratings were stored).
            self.rate().await;
            self.record_finished();
            self.publish_live();
            let current = self.room.state();
            self.shared.stats.room_state(Some(state), Some(current));
            state = current;
            if state != WAITING {
                self.waiting = None;
            }
            let wake = self.shared.instant_at(self.room.next_deadline());
            tokio::select! {
                cmd = rx.recv() => match cmd {
                    Some(Cmd::Release) => {
                        self.release();
                        break;
                    }
                    Some(cmd) => self.handle(cmd).await,
                    None => break,
                },
                () = tokio::time::sleep_until(wake) => {
                    if self.wake().await {
                        break;
                    }
                }
                () = shutdown.recv() => break,
            }
            if self.fenced {
                // While this task is registered no claim of the room starts here, so the
                // entry is this task's.
                lock(&self.shared.rooms).remove(self.room.code());
                if let Some(cluster) = &self.shared.cluster {
                    cluster.fenced();
                }
                self.release();
                break;
            }
        }
        self.shared.stats.room_state(Some(state), None);
        if self.live.take().is_some() {
            lock(&self.shared.live).remove(self.room.code());
        }
    }

    /// Hands a newly finished game to the history (once per game; games of guests only are
    /// not kept) and queues it to the store.
    fn record_finished(&mut self) {
        let Some(key) = self.room.finished_key() else { return };
        if self.recorded.as_deref() == Some(key.as_str()) {
            return;
        }
        self.recorded = Some(key.clone());
        if lock(&self.shared.history).contains(&key) {
            return;
        }
        let game = {
            let players = lock(&self.shared.players);
            self.room.finished_game(unix_ms(), &self.changes, &players)
        };
        let Some(game) = game else { return };
        if game.seats.iter().all(|s| s.player.is_none()) {
            return;
        }
        if let Some(pg) = self.shared.store.as_postgres() {
            return self.record_in_cluster(pg, game);
        }
        let mut history = lock(&self.shared.history);
        let Some(stored) = history.add(game) else { return };
        let json = match serde_json::to_string(&stored) {
            Ok(json) => json,
            Err(e) => return error!(room = %self.room.code(), "finished game: {e}"),
        };
        // Queued under the history's lock, so the store numbers games as the history does.
        match self.shared.store.queue_game(stored.id, stored.key.clone(), json) {
            Ok(Some(committed)) => {
                let code = self.room.code().clone();
                tokio::spawn(async move {
                    if let Err(e) = committed.wait().await {
                        error!(room = %code, "storing a finished game: {e}");
                    }
                });
            }
            Ok(None) => {}
            Err(e) => error!(room = %self.room.code(), "storing a finished game: {e}"),
        }
    }

    /// Cluster: queues the finished game to the database, which numbers it (the same number
    /// on every node); it is kept here under that number once committed. Other nodes learn of
    /// it by following the database ([`super::cluster::follow_task`]).
    fn record_in_cluster(&self, pg: &Arc<PgStore>, game: FinishedGame) {
        let code = self.room.code().clone();
        let json = match serde_json::to_string(&game) {
            Ok(json) => json,
            Err(e) => return error!(room = %code, "finished game: {e}"),
        };
        let numbered = match pg.queue_game(game.key.clone(), json) {
            Ok(numbered) => numbered,
            Err(e) => return error!(room = %code, "storing a finished game: {e}"),
        };
        let shared = self.shared.clone();
        tokio::spawn(async move {
            match numbered.wait().await {
                Ok(id) => {
                    lock(&shared.history).keep(FinishedGame { id, ..game });
                }
                Err(e) => error!(room = %code, "storing a finished game: {e}"),
            }
        });
    }

    /// Updates the room's line in the "playing now" list when it changed.
    fn publish_live(&mut self) {
        let now = self.room.live().map(|mut l| {
            l.spectators = u32::try_from(self.watchers.len()).unwrap_or(u32::MAX);
            l
        });
        if now == self.live {
            return;
        }
        let mut live = lock(&self.shared.live);
        match &now {
            Some(l) => live.insert(self.room.code().clone(), l.clone()),
            None => live.remove(self.room.code()),
        };
        self.live = now;
    }

    /// A seat's rematch offer: told to both seats; with both in, the new room is made.
    fn rematch(&mut self, token: &str, member: Member) {
        let seat = match self.room.rematch_seat(token) {
            Ok(seat) => seat,
            Err(e) => {
                member.link.send(e.to_msg());
                return;
            }
        };
        let code = self.room.code().clone();
        self.offers.retain(|(s, _)| *s != seat);
        let Some(by) = R::seat_color(seat) else { return };
        self.offers.push((seat, member));
        let offered: ServerMsg = LobbyMsg::RematchOffered { code: code.clone(), by }.into();
        for (_, link) in &self.links {
            link.send(offered.clone());
        }
        if self.offers.len() < 2 {
            return;
        }
        let Some((options, rated)) = self.room.rematch_options() else { return };
        let mut offers = std::mem::take(&mut self.offers);
        // The seat that played Black plays White now: it goes first.
        offers.sort_by_key(|(s, _)| R::seat_color(*s) == Some(Color::White));
        let (Some((_, first)), Some((_, second))) = (offers.pop(), offers.pop()) else { return };
        let (first, second) = (second, first);
        // Both players move to the new room: this one sends them nothing more (not even their
        // leaving, which would come after the new room's first events).
        self.links.retain(|(_, l)| l.id != first.link.id && l.id != second.link.id);
        let m = Match { options, rated, first, second, challenge: None, rematch_of: Some(code) };
        self.shared.open_match(m);
    }

    /// Rematch offers of connection `conn` lapse (it left the room).
    fn withdraw_offers(&mut self, conn: u64) {
        let code = self.room.code().clone();
        let gone: Vec<R::Seat> =
            self.offers.iter().filter(|(_, m)| m.link.id == conn).map(|(s, _)| *s).collect();
        self.offers.retain(|(_, m)| m.link.id != conn);
        for by in gone.into_iter().filter_map(R::seat_color) {
            let msg: ServerMsg = LobbyMsg::RematchWithdrawn { code: code.clone(), by }.into();
            for (_, link) in &self.links {
                link.send(msg.clone());
            }
        }
    }

    /// Does what time alone does now; true once the room has expired (its task then ends).
    async fn wake(&mut self) -> bool {
        let now = self.shared.now();
        let backup = self.backup();
        let before = self.room.seq();
        if R::SLOW_TIMERS {
            // A CPU decision can take a few hundred milliseconds: off the runtime's workers.
            // Commands wait in the channel meanwhile, so the order is the same.
            let mut room = self.room.clone();
            match tokio::task::spawn_blocking(move || {
                room.on_time(now);
                room
            })
            .await
            {
                Ok(room) => self.room = room,
                Err(e) => error!(room = %self.room.code(), "timed work failed: {e}"),
            }
        } else {
            self.room.on_time(now);
        }
        if self.persist(backup, before, now).await {
            self.broadcast(before, None);
            self.deliver();
        }
        if self.room.is_expired(now) {
            self.expire().await;
            return true;
        }
        false
    }

    async fn expire(&mut self) {
        let code = self.room.code().clone();
        lock(&self.shared.rooms).remove(&code);
        if let Err(e) = R::delete(&self.shared.store, &code).await {
            error!(room = %code, "deleting the expired room: {e}");
        }
        info!(room = %code, kind = R::KIND, "room expired");
        for link in self.links.drain(..).map(|(_, l)| l).chain(self.watchers.drain(..)) {
            link.send(ServerMsg::error(ErrorCode::RoomNotFound, "the room has expired"));
        }
    }

    fn backup(&self) -> Option<R> {
        backup(&self.shared.store, &self.room)
    }

    /// Changes the ratings of a rated game that has ended: the players' new ratings and the
    /// room's `ratings_changed` event are committed in one transaction, then broadcast. If
    /// storing fails, both are rolled back and the rating stays due (tried again after the
    /// room's next command or timer).
    ///
    /// In a cluster another node may have rated a player since this one read them: the
    /// players' records are read from the database first, and the write commits only if they
    /// are still the ones stored; if not (no update is lost), it is rolled back and tried
    /// again from the new records, [`RATE_TRIES`] times at most.
    async fn rate(&mut self) {
        let Some(end) = self.room.rating_due() else { return };
        for attempt in 1..=RATE_TRIES {
            match self.rate_once(&end).await {
                Ok(()) => return,
                Err(e @ StoreError::StalePlayer { .. }) if attempt < RATE_TRIES => {
                    info!(room = %self.room.code(), "ratings computed from a stale player, again: {e}");
                }
                Err(e) => {
                    return error!(room = %self.room.code(), "storing the ratings failed: {e}");
                }
            }
        }
    }

    /// One try of [`RoomActor::rate`]; on failure everything is rolled back.
    async fn rate_once(&mut self, end: &RatedEnd) -> Result<(), StoreError> {
        // Cluster: the players as stored now, and the revisions the write must replace.
        let stored = match self.shared.store.as_postgres() {
            Some(pg) => {
                let keys: Vec<String> = end.players.iter().map(ToString::to_string).collect();
                let rows = pg.players_of(&keys).await?;
                let expected = keys
                    .into_iter()
                    .map(|key| {
                        let rev = rows.iter().find(|r| r.key == key).map(|r| r.rev);
                        PlayerRev { key, rev }
                    })
                    .collect();
                Some((rows, expected))
            }
            None => None,
        };
        let now = self.shared.now();
        let backup = self.room.clone();
        let before = self.room.seq();
        let (queued, previous, changes) = {
            let mut players = lock(&self.shared.players);
            let mut expected = Vec::new();
            if let Some((rows, revs)) = stored {
                for bad in players.refresh(rows.into_iter().map(|r| (r.key, r.record))) {
                    warn!(room = %self.room.code(), "not read: {bad}");
                }
                expected = revs;
            }
            let applied = players.apply(end, unix_ms());
            self.room.record_ratings(&applied.changes);
            let queued =
                self.room.queue_with_players(&self.shared.store, now, applied.rows, expected);
            (queued, applied.previous, applied.changes)
        };
        let stored = match queued {
            Ok(None) => Ok(()),
            Ok(Some(committed)) => committed.wait().await,
            Err(e) => Err(e),
        };
        match stored {
            Ok(()) => {
                info!(room = %self.room.code(), rating = %end.rating, "ratings changed");
                self.changes = changes;
                self.broadcast(before, None);
                Ok(())
            }
            Err(e) => {
                warn!(room = %self.room.code(), "storing the ratings failed, rolled back: {e}");
                self.room = backup;
                let mut players = lock(&self.shared.players);
                for (player, rating) in previous {
                    players.restore_rating(&player, end.rating, rating);
                }
                Err(e)
            }
        }
    }

    async fn persist(&mut self, backup: Option<R>, before: u64, now: Millis) -> bool {
        let stats = &self.shared.stats;
        match persist(&self.shared.store, stats, &mut self.room, backup, before, now).await {
            Ok(()) => true,
            Err(fenced) => {
                self.fenced |= fenced;
                false
            }
        }
    }

    /// Closes every connection of the room (another node owns it now): each client
    /// reconnects and is routed to the owner, which recovers the room as after a restart.
    fn release(&mut self) {
        info!(room = %self.room.code(), kind = R::KIND, "room released to another node");
        for link in self.links.drain(..).map(|(_, l)| l).chain(self.watchers.drain(..)) {
            link.send(ServerMsg::error(
                ErrorCode::Unavailable,
                "the room moved to another server; reconnect",
            ));
            link.kill.notify_one();
        }
    }

    /// Sends the events after `before` to every seat's connection, except to connection
    /// `skip`, and to every spectator; a connection that cannot take one more (it is being
    /// closed) gets no more.
    fn broadcast(&self, before: u64, skip: Option<u64>) {
        if self.room.seq() == before {
            return;
        }
        let msgs = self.room.catch_up(Some(before), self.shared.now());
        let seats = self.links.iter().map(|(_, link)| link);
        for link in seats.chain(&self.watchers) {
            if Some(link.id) == skip {
                continue;
            }
            for m in &msgs {
                if !link.send_out(m.clone().into()) {
                    break;
                }
            }
        }
    }

    /// Sends the room's owed answers to their seats' connections (after the events).
    fn deliver(&mut self) {
        for (seat, msg) in self.room.take_replies() {
            if let Some((_, link)) = self.links.iter().find(|(s, _)| *s == seat) {
                link.send(msg);
            }
        }
    }

    /// Tells `link` its seat and brings it up to date from event `after`.
    fn greet(&self, link: &Link, seat: R::Seat, token: String, after: Option<u64>, now: Millis) {
        link.send_out(R::seated(self.room.code().clone(), seat, token).into());
        for m in self.room.catch_up(after, now) {
            link.send_out(m.into());
        }
    }

    /// Attaches `link` to `seat`: a connection holds one seat, a seat one connection (the one
    /// it replaces is told).
    fn attach(&mut self, seat: R::Seat, link: Link) {
        for (s, old) in &self.links {
            if *s == seat && old.id != link.id {
                old.send(ServerMsg::error(
                    ErrorCode::Forbidden,
                    "this seat is now used by another connection",
                ));
            }
        }
        self.links.retain(|(s, l)| *s != seat && l.id != link.id);
        self.links.push((seat, link));
    }

    async fn handle(&mut self, cmd: Cmd<R>) {
        if let Cmd::Ping { nonce, link } = &cmd {
            link.send(pong(*nonce));
            return;
        }
        let now = self.shared.now();
        let backup = self.backup();
        let before = self.room.seq();
        match cmd {
            Cmd::Join { token, joiner, link, reply } => match self.room.join(token, joiner, now) {
                Ok((seat, token)) => {
                    if !self.persist(backup, before, now).await {
                        let _ = reply.send(Err(internal()));
                        return;
                    }
                    self.greet(&link, seat, token, None, now);
                    self.broadcast(before, Some(link.id));
                    self.attach(seat, link);
                    let _ = reply.send(Ok(seat));
                }
                Err(e) => {
                    let _ = reply.send(Err(e));
                }
            },
            Cmd::Rejoin { token, last_seq, joiner, link, reply } => {
                let seat = match self.room.rejoin(&token, joiner, now) {
                    Ok(seat) => seat,
                    Err(e) => {
                        let _ = reply.send(Err(e));
                        return;
                    }
                };
                if !self.persist(backup, before, now).await {
                    let _ = reply.send(Err(internal()));
                    return;
                }
                self.greet(&link, seat, token, Some(last_seq), now);
                self.broadcast(before, Some(link.id));
                self.attach(seat, link);
                let _ = reply.send(Ok(seat));
            }
            Cmd::Act { token, action, link, received } => {
                // One live connection per seat, the newest: one that another connection took
                // the seat from (by rejoining with its token) acts no more, so a token cannot
                // act from many sockets at once, each with its own rate limit.
                if !self.links.iter().any(|(_, l)| l.id == link.id) {
                    link.send(ServerMsg::error(
                        ErrorCode::Forbidden,
                        "this seat is now used by another connection",
                    ));
                    return;
                }
                let is_move = R::is_move(&action);
                let result = self.room.act(&token, action, now);
                if !self.persist(backup, before, now).await {
                    link.send(internal().to_msg());
                    return;
                }
                self.broadcast(before, None);
                self.deliver();
                // Events reached a connection not attached to a seat only through its reply.
                match result {
                    Ok(Some(answer)) => {
                        link.send_out(answer.into());
                    }
                    Ok(None) => {}
                    Err(e) => {
                        self.shared.stats.refused(e.code.as_str());
                        link.send(e.to_msg());
                    }
                }
                if is_move {
                    crate::metrics::record_move(received.elapsed());
                    if self.room.seq() != before {
                        self.shared.stats.moved();
                    }
                }
            }
            Cmd::Ping { .. } | Cmd::Release => {}
            Cmd::Rematch { token, member } => self.rematch(&token, member),
            Cmd::Watch { link, reply } => {
                let cap = self.shared.config.spectators_per_room;
                self.watchers.retain(|l| l.id != link.id);
                if self.watchers.len() >= cap {
                    let _ = reply.send(Err(RoomError::new(
                        ErrorCode::TooManySpectators,
                        format!("this room already has {cap} spectators; try again later"),
                    )));
                    return;
                }
                for m in self.room.catch_up(None, now) {
                    link.send_out(m.into());
                }
                self.watchers.push(link);
                let _ = reply.send(Ok(()));
            }
            Cmd::Unwatch { conn } => self.watchers.retain(|l| l.id != conn),
            Cmd::Detach { conn, handover } => {
                // Connections closed by our own shutdown are not players leaving: no presence
                // change is stored and no shield pause (or stand-in) is spent.
                if self.shared.shutdown.is_shutdown() {
                    return;
                }
                let gone: Vec<R::Seat> =
                    self.links.iter().filter(|(_, l)| l.id == conn).map(|(s, _)| *s).collect();
                self.links.retain(|(_, l)| l.id != conn);
                self.withdraw_offers(conn);
                for seat in gone {
                    if handover {
                        self.room.hand_over(seat, now);
                    } else {
                        self.room.disconnect(seat, now);
                    }
                }
                if self.persist(backup, before, now).await {
                    self.broadcast(before, None);
                    self.deliver();
                }
            }
        }
    }
}
