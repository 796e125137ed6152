//! The lobby in the server: subscribers of the open challenges, the connections' requests, the
//! pairing task, and the room made for a match. The decisions are the pure
//! [`crate::lobby::Lobby`]'s; this file holds it under one lock with the links it needs.
//!
//! A match makes an ordinary chess room ([`Room::new`] for the challenger, [`Room::join_as`] for
//! the opponent; a rated one [`Room::rated_for`] both identified players, so its result changes
//! their ratings once), stores it, tells both players `lobby_matched`, `seated` and `snapshot`, and
//! starts its task with both connections attached. A connection's reader learns its new room
//! through its [`Seating`] channel before its player can have read the seat token, so the
//! first action with that token already finds the room.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use maharajah_engine::clock::Millis;
use maharajah_protocol::{
    ChallengeId, ChallengeOptions, ClientMsg, Color, ErrorCode, LobbyGame, LobbyMsg, RatingKey,
    RemovedReason, RoomOptions, ServerMsg, SpeedClass, TimeControl,
};
use tokio::sync::{mpsc, Notify};
use tokio::time::Instant;
use tracing::{info, warn};

use super::actor::{self, Match, Member, RoomLogic, RoomTx, Seating, ROOM_QUEUE};
use super::tables::{settings_for, Table, TableSeeker};
use super::{count, lock, unix_ms, within_limit, Conn, Flow, Link, RoomHandle, Shared};
use crate::codes::new_token;
use crate::lobby::{
    creator_seat, room_options, ConnId, Lobby, LobbyPlayer, OpenChallenge, Pairing, Pool,
    RequestBucket, Standing,
};
use crate::room::Room;
use crate::rooms::RoomError;

/// The lobby of one server: the pure lobby, its subscribers and the connections in it.
#[derive(Default)]
pub(super) struct LobbyHub {
    state: Mutex<HubState>,
    /// Wakes the pairing task after the queue changed.
    wake: Notify,
}

#[derive(Default)]
pub(super) struct HubState {
    pub(super) lobby: Lobby,
    /// The people at each Chaturaji challenge's table.
    pub(super) tables: HashMap<ChallengeId, super::tables::Table>,
    /// People waiting for a Chaturaji table by quick pairing, longest-waiting first.
    pub(super) table_queue: Vec<super::tables::TableSeeker>,
    /// Connections subscribed to the list, with the games they want to see (empty: all).
    subscribers: HashMap<ConnId, (Link, Vec<LobbyGame>)>,
    /// Connections with an open challenge or a place in the queue.
    pub(super) members: HashMap<ConnId, Member>,
    /// The address of every connection that posted a challenge (for the per-address cap).
    addresses: HashMap<ConnId, std::net::IpAddr>,
}

/// A connection's side of the lobby.
#[derive(Default)]
pub(super) struct LobbyConn {
    /// Lobby requests (create, accept, play now) left; made at the first request.
    bucket: Option<RequestBucket>,
    /// Where the lobby sends the rooms it seats this connection in; made at the first request.
    seats: Option<(mpsc::UnboundedSender<Seating>, mpsc::UnboundedReceiver<Seating>)>,
}

impl HubState {
    pub(super) fn subscribed(&self, game: LobbyGame) -> impl Iterator<Item = &Link> {
        self.subscribers
            .values()
            .filter(move |(_, games)| games.is_empty() || games.contains(&game))
            .map(|(link, _)| link)
    }

    /// Tells the subscribers, and the challenge's owner (subscribed or not, unless it left),
    /// that `open` left the list.
    fn announce_removed(&mut self, open: &OpenChallenge, reason: RemovedReason) {
        // The people waiting at its table (Chaturaji) are told too.
        self.drop_tables_of(&[open.challenge.id], reason);
        let msg: ServerMsg = LobbyMsg::LobbyRemoved { id: open.challenge.id, reason }.into();
        for link in self.subscribed(open.challenge.game) {
            link.send(msg.clone());
        }
        if reason != RemovedReason::CreatorLeft && !self.subscribers.contains_key(&open.owner) {
            if let Some(m) = self.members.get(&open.owner) {
                m.link.send(msg);
            }
        }
    }

    /// Forgets `conn` as a member once it has neither a challenge nor a place in the queue.
    pub(super) fn tidy(&mut self, conn: ConnId) {
        if self.lobby.open_by(conn) == 0 && !self.lobby.is_seeking(conn) {
            self.members.remove(&conn);
        }
    }

    /// Takes two paired seekers out of the lobby (their challenges withdrawn) for a room.
    fn take_pairing(&mut self, p: &Pairing) -> Option<Match> {
        let mut withdrawn = self.lobby.withdraw(p.first.conn);
        withdrawn.extend(self.lobby.withdraw(p.second.conn));
        for open in &withdrawn {
            self.announce_removed(open, RemovedReason::Withdrawn);
        }
        let pool = p.first.pool;
        let first = self.members.remove(&p.first.conn);
        let second = self.members.remove(&p.second.conn);
        let options = room_options(pool.game, Some(pool.time_control), Color::White);
        match (first, second, options) {
            (Some(first), Some(second), Ok(options)) => {
                let color = creator_seat(maharajah_protocol::ColorChoice::Random, rand::random());
                let options = RoomOptions { color: Some(color), ..options };
                Some(Match {
                    options,
                    rated: pool.rated,
                    first,
                    second,
                    challenge: None,
                    rematch_of: None,
                })
            }
            _ => None,
        }
    }
}

impl LobbyHub {
    /// This node no longer runs the cluster's lobby (another node holds its lease): every
    /// connection with a place in it here is closed, so its app reconnects and is forwarded
    /// to the node that does. Returns how many were closed.
    pub(super) fn disband(&self) -> usize {
        let links: HashMap<ConnId, Link> = {
            let state = lock(&self.state);
            let subscribers = state.subscribers.iter().map(|(id, (link, _))| (*id, link));
            let members = state.members.iter().map(|(id, m)| (*id, &m.link));
            let seated = state.tables.values().flat_map(|t| t.members.iter());
            let seated = seated.map(|(m, _)| (m.link.id, &m.link));
            let queued = state.table_queue.iter().map(|s| (s.member.link.id, &s.member.link));
            subscribers
                .chain(members)
                .chain(seated)
                .chain(queued)
                .map(|(i, l)| (i, l.clone()))
                .collect()
        };
        for link in links.values() {
            link.kill.notify_one();
        }
        links.len()
    }

    /// Removes everything of a closed connection; subscribers see its challenges go.
    fn leave(&self, conn: ConnId) {
        let mut state = lock(&self.state);
        state.subscribers.remove(&conn);
        for open in state.lobby.withdraw(conn) {
            state.announce_removed(&open, RemovedReason::CreatorLeft);
        }
        state.leave_tables(conn);
        state.table_queue.retain(|s| s.member.link.id != conn);
        state.members.remove(&conn);
        state.addresses.remove(&conn);
    }
}

/// Pairs seekers as their windows widen: sleeps until the lobby's next possible pairing or a
/// change of the queue, until the server shuts down.
pub(super) async fn pairing_task(shared: Arc<Shared>) {
    let mut shutdown = shared.shutdown.clone();
    loop {
        let now = shared.now();
        let (matches, tables, next) = {
            let mut state = lock(&shared.lobby.state);
            let pairings = state.lobby.pair(now);
            let matches: Vec<Match> =
                pairings.iter().filter_map(|p| state.take_pairing(p)).collect();
            let mut tables: Vec<_> =
                state.due_tables(now).into_iter().map(|(id, t)| (Some(id), t)).collect();
            tables.extend(state.pair_tables(now).into_iter().map(|t| (None, t)));
            let next = match (state.lobby.next_pairing(now), state.next_table()) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            (matches, tables, next)
        };
        for m in matches {
            tokio::spawn(open_room(shared.clone(), m));
        }
        for (id, table) in tables {
            tokio::spawn(super::tables::open_table(shared.clone(), id, table));
        }
        let wake = next.map(|t| shared.instant_at(t));
        tokio::select! {
            () = shared.lobby.wake.notified() => {}
            () = sleep_until(wake) => {}
            () = shutdown.recv() => break,
        }
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// Makes the room of a match, stores it, seats both players and starts its task.
pub(super) async fn open_room(shared: Arc<Shared>, m: Match) {
    let _alive = shared.alive.clone();
    let both = [&m.first, &m.second];
    let refuse = |code: ErrorCode, message: &str| {
        for member in both {
            member.link.send(ServerMsg::error(code, message));
        }
    };
    shared.until_loaded().await;
    if shared.room_count() >= shared.config.max_rooms {
        return refuse(ErrorCode::Unavailable, "the server is full; try again later");
    }
    let now = shared.now();
    let first_seat = m.options.color.unwrap_or(Color::White);
    let (first_token, second_token) = (new_token(), new_token());
    let rated = match (m.rated, m.first.player) {
        (false, _) => None,
        (true, Some(key)) => Some(key),
        // The lobby takes rated requests of identified players only.
        (true, None) => return refuse(ErrorCode::NotIdentified, "a rated game needs identities"),
    };
    let (tx, rx) = mpsc::channel(ROOM_QUEUE);
    let code = shared.reserve_code(RoomTx::Chess(tx.clone()));
    let lifetimes = shared.config.lifetimes;
    let made = Room::new(code.clone(), &m.options, first_seat, first_token.clone(), now, lifetimes)
        .map(|mut room| match rated {
            Some(key) => room.rated_for(first_seat, key),
            None => {
                room.set_player(first_seat, m.first.player);
                room
            }
        })
        .and_then(|mut room| {
            let seat = room.join_as(second_token.clone(), m.second.player, now)?;
            Ok((room, seat))
        });
    let (room, second_seat) = match made {
        Ok(r) => r,
        Err(e) => {
            lock(&shared.rooms).remove(&code);
            return refuse(e.code, &e.message);
        }
    };
    let started = Instant::now();
    let saved = room.save(&shared.store, now).await;
    if shared.store.is_durable() && saved.is_ok() {
        shared.stats.committed(started.elapsed());
    }
    if let Err(e) = saved {
        lock(&shared.rooms).remove(&code);
        warn!(room = %code, "storing a lobby room failed: {e}");
        return refuse(ErrorCode::Internal, "the server could not store the room; try again");
    }
    let mut gone = Vec::new();
    let seats = [(&m.first, first_seat, first_token), (&m.second, second_seat, second_token)];
    for (member, seat, token) in seats {
        // The reader holds the room before its player can read the token and act with it.
        let seating = Seating { code: code.clone(), tx: RoomTx::Chess(tx.clone()) };
        if member.seats.send(seating).is_err() {
            gone.push(member.link.id);
        }
        member.link.send(
            LobbyMsg::LobbyMatched {
                code: code.clone(),
                challenge: m.challenge,
                rematch_of: m.rematch_of.clone(),
            }
            .into(),
        );
        member.link.send(ServerMsg::Seated { code: code.clone(), seat, token });
        member.link.send(room.snapshot_msg(now));
    }
    info!(room = %code, challenge = ?m.challenge, rated = m.rated, "lobby room created");
    let links = vec![(first_seat, m.first.link.clone()), (second_seat, m.second.link.clone())];
    actor::start(&shared, room, links, rx, None);
    // A player whose connection closed meanwhile is away, as after any drop.
    let room = RoomTx::Chess(tx);
    for conn in gone {
        room.detach(conn, false).await;
    }
}

impl Conn {
    /// A lobby message (`lobby_subscribe`, `create_challenge`, `play_now`, …).
    pub(super) async fn on_lobby(&mut self, msg: ClientMsg) -> Flow {
        let request = matches!(
            msg,
            ClientMsg::CreateChallenge { .. }
                | ClientMsg::AcceptChallenge { .. }
                | ClientMsg::PlayNow { .. }
        );
        if request && !self.lobby_bucket() {
            return self.refuse(ErrorCode::RateLimited, "too many lobby requests; wait a little");
        }
        if request {
            let limit = self.shared.config.lobby.requests_per_address_per_minute;
            let now = self.shared.now();
            if !within_limit(&self.shared.lobby_requests, self.ip, now, limit) {
                return self.refuse(
                    ErrorCode::RateLimited,
                    "too many lobby requests from your address; wait a little",
                );
            }
            count(&self.shared.lobby_requests, self.ip, now);
        }
        match msg {
            ClientMsg::LobbySubscribe { games } => self.subscribe(games),
            ClientMsg::LobbyUnsubscribe => {
                lock(&self.shared.lobby.state).subscribers.remove(&self.link.id);
                Flow::Continue
            }
            ClientMsg::CreateChallenge { options, device } => {
                self.create_challenge(&options, device)
            }
            ClientMsg::CancelChallenge { id } => self.cancel_challenge(id),
            ClientMsg::AcceptChallenge { id, device } => {
                if lock(&self.shared.lobby.state).tables.contains_key(&id) {
                    self.join_table(id, device)
                } else {
                    self.accept_challenge(id).await
                }
            }
            ClientMsg::PlayNow {
                game: LobbyGame::Chaturaji,
                time_control,
                rated,
                cpu_after_s,
                device,
            } => self.seek_table(time_control, rated, cpu_after_s, device),
            ClientMsg::PlayNow { game, time_control, rated, .. } => {
                self.play_now(game, time_control, rated)
            }
            ClientMsg::CancelPlayNow => {
                let mut state = lock(&self.shared.lobby.state);
                state.lobby.unseek(self.link.id);
                let conn = self.link.id;
                state.table_queue.retain(|s| s.member.link.id != conn);
                state.tidy(self.link.id);
                self.send(LobbyMsg::PairingCancelled.into());
                Flow::Continue
            }
            _ => Flow::Continue,
        }
    }

    /// Takes one lobby request from this connection's bucket; false when it is empty.
    fn lobby_bucket(&mut self) -> bool {
        let now = self.shared.now();
        let config = &self.shared.config.lobby;
        self.lobby
            .bucket
            .get_or_insert_with(|| {
                RequestBucket::new(config.request_burst, config.requests_per_minute, now)
            })
            .take(now)
    }

    /// `rematch`: passes the offer to the finished chess room this connection sits in.
    pub(super) async fn rematch(&mut self, token: String) -> Flow {
        let member = self.member();
        let sent = match &self.room {
            Some(room) => room.tx.rematch(token, member).await,
            None => false,
        };
        if sent {
            Flow::Continue
        } else {
            self.refuse(ErrorCode::NotSeated, "a rematch is offered from a finished chess room")
        }
    }

    /// `accept_challenge` of a Chaturaji challenge: a seat at its table; the table starts when
    /// full, or at once when its wait is over and it has two people.
    fn join_table(&mut self, id: ChallengeId, device: Option<String>) -> Flow {
        let device = match super::tables::device_of(device) {
            Ok(d) => d,
            Err(e) => return self.refuse(e.code, e.message),
        };
        let me = self.member();
        let now = self.shared.now();
        let conn = self.link.id;
        let taken = {
            let mut state = lock(&self.shared.lobby.state);
            let Some(table) = state.tables.get_mut(&id) else {
                drop(state);
                return self.refuse(ErrorCode::ChallengeNotFound, "this table has started or gone");
            };
            let refusal = if table.members.iter().any(|(m, d)| m.link.id == conn || *d == device) {
                Some((ErrorCode::WrongPhase, "you already sit at this table"))
            } else if table.rated && me.player.is_none() {
                Some((ErrorCode::NotIdentified, "this table is rated: identify first"))
            } else if table.rated
                && table.members.iter().any(|(m, _)| m.player.is_some() && m.player == me.player)
            {
                Some((ErrorCode::Forbidden, "you already sit at this table"))
            } else {
                None
            };
            if let Some((code, message)) = refusal {
                drop(state);
                return self.refuse(code, message);
            }
            table.members.push((me.clone(), device));
            let joined = table.members.len();
            let full = joined >= usize::from(table.people) || now >= table.deadline;
            state.members.insert(conn, me);
            let joined = u8::try_from(joined).unwrap_or(u8::MAX);
            if full {
                state.take_table(id)
            } else {
                if let Some(challenge) = state.lobby.set_joined(id, joined) {
                    self.send(LobbyMsg::TableJoined { challenge }.into());
                }
                state.announce_table(id, joined);
                None
            }
        };
        if let Some((id, table)) = taken {
            tokio::spawn(super::tables::open_table(self.shared.clone(), Some(id), table));
        } else {
            self.shared.lobby.wake.notify_one();
        }
        Flow::Continue
    }

    pub(super) fn member(&mut self) -> Member {
        let (tx, _) = self.lobby.seats.get_or_insert_with(mpsc::unbounded_channel);
        Member { link: self.link.clone(), seats: tx.clone(), player: self.player }
    }

    /// This connection's player for `game` at `time_control`: an identified player's name and
    /// stored rating for the game and its speed class, or a guest's rating from the lobby's
    /// source.
    fn standing(&self, game: LobbyGame, time_control: Option<TimeControl>) -> Standing {
        match self.player {
            Some(key) => {
                let speed = SpeedClass::of(time_control.map(|tc| (tc.base_ms, tc.increment_ms)));
                let rating = RatingKey { game: game.rated_game(), speed };
                lock(&self.shared.players).standing(key, rating, unix_ms())
            }
            None => {
                let guest = LobbyPlayer { conn: self.link.id, ip: self.ip };
                Standing::guest(self.shared.config.lobby.ratings.rating(&guest, game, time_control))
            }
        }
    }

    fn subscribe(&mut self, games: Vec<LobbyGame>) -> Flow {
        let mut state = lock(&self.shared.lobby.state);
        let challenges = state.lobby.list(&games);
        // Under the lock: no change can come between the list and the first update.
        self.send(LobbyMsg::LobbyList { challenges }.into());
        state.subscribers.insert(self.link.id, (self.link.clone(), games));
        Flow::Continue
    }

    fn create_challenge(&mut self, options: &ChallengeOptions, device: Option<String>) -> Flow {
        let table = if options.game == LobbyGame::Chaturaji {
            let device = match super::tables::device_of(device) {
                Ok(d) => d,
                Err(e) => return self.refuse(e.code, e.message),
            };
            let turn = match crate::lobby::turn_time(options.time_control) {
                Ok(t) => t,
                Err(e) => return self.refuse(e.code, e.message),
            };
            Some((device, turn))
        } else {
            None
        };
        let standing = self.standing(options.game, options.time_control);
        let cap = self.shared.config.lobby.challenges_per_connection;
        let member = self.member();
        let config = &self.shared.config.lobby;
        let (per_player, per_address) =
            (config.challenges_per_player, config.challenges_per_address);
        let player = standing.player;
        let created = {
            let mut state = lock(&self.shared.lobby.state);
            let ip = self.ip;
            let from_here = state.lobby.open_by_any(|c| state.addresses.get(&c) == Some(&ip));
            let by_player = player.map_or(0, |p| state.lobby.open_by_player(p));
            let created = if by_player >= per_player {
                Err(RoomError::new(
                    ErrorCode::TooManyChallenges,
                    format!("you already have {per_player} open challenges; cancel one first"),
                ))
            } else if from_here >= per_address {
                Err(RoomError::new(
                    ErrorCode::TooManyChallenges,
                    format!("{per_address} challenges are open from your address; try later"),
                ))
            } else {
                state.lobby.create(self.link.id, options, standing, cap)
            };
            if let Ok(challenge) = &created {
                state.addresses.insert(self.link.id, ip);
                if let (Some((device, turn)), Some(view)) = (table, challenge.table) {
                    let wait = u64::from(view.cpu_after_s) * 1000;
                    let t = super::tables::Table {
                        people: view.people,
                        deadline: self.shared.now() + wait,
                        settings: super::tables::settings_for(4, turn),
                        rated: challenge.rated,
                        members: vec![(member.clone(), device)],
                    };
                    state.tables.insert(challenge.id, t);
                }
            }
            if let Ok(challenge) = &created {
                state.members.insert(self.link.id, member);
                self.send(LobbyMsg::ChallengeCreated { challenge: challenge.clone() }.into());
                let added: ServerMsg = LobbyMsg::LobbyAdded { challenge: challenge.clone() }.into();
                for link in state.subscribed(challenge.game) {
                    link.send(added.clone());
                }
            }
            created
        };
        match created {
            Ok(c) => {
                info!(
                    conn = self.link.id,
                    challenge = c.id,
                    game = ?c.game,
                    rated = c.rated,
                    "challenge posted"
                );
                Flow::Continue
            }
            Err(e) => self.refuse(e.code, e.message),
        }
    }

    fn cancel_challenge(&mut self, id: ChallengeId) -> Flow {
        let cancelled = {
            let mut state = lock(&self.shared.lobby.state);
            if state.leave_table(id, &self.link) {
                return Flow::Continue;
            }
            let cancelled = state.lobby.cancel(self.link.id, id);
            if let Ok(challenge) = &cancelled {
                let open = OpenChallenge {
                    challenge: challenge.clone(),
                    owner: self.link.id,
                    player: self.player,
                };
                state.announce_removed(&open, RemovedReason::Cancelled);
                state.tidy(self.link.id);
            }
            cancelled
        };
        match cancelled {
            Ok(_) => Flow::Continue,
            Err(e) => self.refuse(e.code, e.message),
        }
    }

    async fn accept_challenge(&mut self, id: ChallengeId) -> Flow {
        let me = self.member();
        let taken = {
            let mut state = lock(&self.shared.lobby.state);
            match state.lobby.accept(self.link.id, self.player, id) {
                Ok(taken) => {
                    state.announce_removed(&taken.open, RemovedReason::Accepted);
                    for open in &taken.withdrawn {
                        state.announce_removed(open, RemovedReason::Withdrawn);
                    }
                    let owner = state.members.remove(&taken.open.owner);
                    state.members.remove(&self.link.id);
                    Ok((taken.open, owner))
                }
                Err(e) => Err(e),
            }
        };
        let (open, owner) = match taken {
            Ok(t) => t,
            Err(e) => return self.refuse(e.code, e.message),
        };
        let Some(owner) = owner else {
            return self.refuse(ErrorCode::ChallengeNotFound, "the challenger has left");
        };
        let c = &open.challenge;
        let seat = creator_seat(c.color, rand::random());
        let options = match room_options(c.game, c.time_control, seat) {
            Ok(o) => o,
            Err(e) => return self.refuse(e.code, e.message),
        };
        info!(conn = self.link.id, challenge = c.id, rated = c.rated, "challenge accepted");
        let m = Match {
            options,
            rated: c.rated,
            first: owner,
            second: me,
            challenge: Some(c.id),
            rematch_of: None,
        };
        open_room(self.shared.clone(), m).await;
        self.adopt_seats().await;
        Flow::Continue
    }

    fn play_now(&mut self, game: LobbyGame, time_control: TimeControl, rated: bool) -> Flow {
        let rating = self.standing(game, Some(time_control)).rating;
        let pool = Pool { game, time_control, rated };
        let member = self.member();
        let now = self.shared.now();
        let queued = {
            let mut state = lock(&self.shared.lobby.state);
            match state.lobby.seek(self.link.id, self.player, pool, rating, now) {
                Ok(pairings) => {
                    state.members.insert(self.link.id, member);
                    let queued = LobbyMsg::PairingQueued { game, time_control, rated, rating };
                    self.send(queued.into());
                    Ok(pairings.iter().filter_map(|p| state.take_pairing(p)).collect::<Vec<_>>())
                }
                Err(e) => Err(e),
            }
        };
        match queued {
            Ok(matches) => {
                info!(conn = self.link.id, ?game, rating, "waiting for quick pairing");
                for m in matches {
                    tokio::spawn(open_room(self.shared.clone(), m));
                }
                // The queue changed: the next pairing may come sooner.
                self.shared.lobby.wake.notify_one();
                Flow::Continue
            }
            Err(e) => self.refuse(e.code, e.message),
        }
    }

    /// `play_now` for Chaturaji: waits in the table queue (replacing an earlier place).
    fn seek_table(
        &mut self,
        time_control: TimeControl,
        rated: bool,
        cpu_after_s: Option<u32>,
        device: Option<String>,
    ) -> Flow {
        use maharajah_protocol::lobby::{CPU_AFTER_S, DEFAULT_CPU_AFTER_S};
        let device = match super::tables::device_of(device) {
            Ok(d) => d,
            Err(e) => return self.refuse(e.code, e.message),
        };
        let turn = match crate::lobby::turn_time(Some(time_control)) {
            Ok(t) => t,
            Err(e) => return self.refuse(e.code, e.message),
        };
        let wait = cpu_after_s.unwrap_or(DEFAULT_CPU_AFTER_S);
        if !CPU_AFTER_S.contains(&wait) {
            return self.refuse(ErrorCode::InvalidOptions, "the wait is 5 to 300 s");
        }
        if rated && self.player.is_none() {
            return self.refuse(ErrorCode::NotIdentified, "rated games need a player identity");
        }
        let rating = self.standing(LobbyGame::Chaturaji, Some(time_control)).rating;
        let member = self.member();
        let now = self.shared.now();
        let conn = self.link.id;
        let tables = {
            let mut state = lock(&self.shared.lobby.state);
            state.lobby.unseek(conn);
            state.table_queue.retain(|s| s.member.link.id != conn);
            let player = member.player;
            if rated && state.table_queue.iter().any(|s| s.rated && s.member.player == player) {
                drop(state);
                return self.refuse(ErrorCode::WrongPhase, "you already wait for a rated table");
            }
            state.members.insert(conn, member.clone());
            let deadline = now + u64::from(wait) * 1000;
            state.table_queue.push(super::tables::TableSeeker {
                member,
                device,
                turn,
                rated,
                deadline,
            });
            let game = LobbyGame::Chaturaji;
            self.send(LobbyMsg::PairingQueued { game, time_control, rated, rating }.into());
            state.pair_tables(now)
        };
        for table in tables {
            tokio::spawn(super::tables::open_table(self.shared.clone(), None, table));
        }
        self.shared.lobby.wake.notify_one();
        Flow::Continue
    }

    /// Holds the rooms the lobby seated this connection in (the newest; any earlier one is
    /// left). Called before every frame is handled, and when the connection closes.
    pub(super) async fn adopt_seats(&mut self) {
        while let Some(s) = self.lobby.seats.as_mut().and_then(|(_, rx)| rx.try_recv().ok()) {
            if self.room.as_ref().is_some_and(|r| r.code != s.code) {
                self.leave_room().await;
            }
            info!(conn = self.link.id, room = %s.code, "seated from the lobby");
            self.room = Some(RoomHandle { code: s.code, tx: s.tx });
        }
    }

    /// The connection is closing: its challenges and its place in the queue go, and a room the
    /// lobby seated it in meanwhile is held (so that leaving it tells the room).
    pub(super) async fn leave_lobby(&mut self) {
        self.shared.lobby.leave(self.link.id);
        if let Some((_, rx)) = self.lobby.seats.as_mut() {
            rx.close();
        }
        self.adopt_seats().await;
    }
}

impl HubState {
    /// Tables whose wait is over and that have two people or more: taken out of the lobby.
    pub(super) fn due_tables(&mut self, now: Millis) -> Vec<(ChallengeId, Table)> {
        let due: Vec<ChallengeId> = self
            .tables
            .iter()
            .filter(|(_, t)| t.members.len() >= 2 && now >= t.deadline)
            .map(|(id, _)| *id)
            .collect();
        due.into_iter().filter_map(|id| self.take_table(id)).collect()
    }

    /// The next moment a table's wait ends (tables and pools of two people or more).
    pub(super) fn next_table(&self) -> Option<Millis> {
        let tables = self.tables.values().filter(|t| t.members.len() >= 2).map(|t| t.deadline);
        let seekers = self
            .table_queue
            .iter()
            .filter(|s| {
                let same = |o: &&TableSeeker| o.turn == s.turn && o.rated == s.rated;
                self.table_queue.iter().filter(same).count() >= 2
            })
            .map(|s| s.deadline);
        tables.chain(seekers).min()
    }

    /// Tables of the quick-pairing queue: four people of a pool at once, or two or three once
    /// the longest-waiting one's wait is over (the longest-waiting first).
    pub(super) fn pair_tables(&mut self, now: Millis) -> Vec<Table> {
        let mut out = Vec::new();
        loop {
            let mut chosen = None;
            for (i, s) in self.table_queue.iter().enumerate() {
                let pool: Vec<usize> = self
                    .table_queue
                    .iter()
                    .enumerate()
                    .filter(|(_, o)| o.turn == s.turn && o.rated == s.rated)
                    .map(|(j, _)| j)
                    .take(4)
                    .collect();
                if pool.len() == 4 || (pool.len() >= 2 && now >= s.deadline) {
                    chosen = Some((i, pool));
                    break;
                }
            }
            let Some((_, pool)) = chosen else { break };
            let mut taken = Vec::new();
            for j in pool.into_iter().rev() {
                taken.push(self.table_queue.remove(j));
            }
            taken.reverse();
            let first = &taken[0];
            let (turn, rated) = (first.turn, first.rated);
            for s in &taken {
                self.members.remove(&s.member.link.id);
            }
            out.push(Table {
                people: 4,
                deadline: now,
                settings: settings_for(4, turn),
                rated,
                members: taken.into_iter().map(|s| (s.member, s.device)).collect(),
            });
        }
        out
    }

    /// Takes table `id` and its challenge out of the lobby for a room.
    pub(super) fn take_table(&mut self, id: ChallengeId) -> Option<(ChallengeId, Table)> {
        let table = self.tables.remove(&id)?;
        let owner = table.members.first().map(|(m, _)| m.link.id)?;
        if let Ok(challenge) = self.lobby.cancel(owner, id) {
            let msg: ServerMsg =
                LobbyMsg::LobbyRemoved { id, reason: RemovedReason::Accepted }.into();
            for link in self.subscribed(challenge.game) {
                link.send(msg.clone());
            }
        }
        for (m, _) in &table.members {
            self.tidy(m.link.id);
        }
        Some((id, table))
    }

    /// Connection `conn` leaves every table it sits at (not as creator: its challenge goes
    /// with it, see [`HubState::drop_tables_of`]).
    /// Takes `link` from the table of challenge `id` where it sits as one of the people who
    /// accepted (not its creator, who cancels the challenge instead); it is told the table as it
    /// is now. False when it does not sit there.
    pub(super) fn leave_table(&mut self, id: ChallengeId, link: &Link) -> bool {
        let Some(table) = self.tables.get_mut(&id) else { return false };
        let Some(at) = table.members.iter().skip(1).position(|(m, _)| m.link.id == link.id) else {
            return false;
        };
        table.members.remove(at + 1);
        let joined = u8::try_from(table.members.len()).unwrap_or(u8::MAX);
        self.announce_table(id, joined);
        if !self.tables.values().any(|t| t.members.iter().any(|(m, _)| m.link.id == link.id)) {
            self.tidy(link.id);
        }
        if !self.subscribers.contains_key(&link.id) {
            if let Some(open) = self.lobby.get(id) {
                link.send(LobbyMsg::LobbyUpdated { challenge: open.challenge.clone() }.into());
            }
        }
        true
    }

    /// Takes a closed connection from every table it sits at.
    pub(super) fn leave_tables(&mut self, conn: u64) {
        let ids: Vec<ChallengeId> = self.tables.keys().copied().collect();
        for id in ids {
            let Some(table) = self.tables.get_mut(&id) else { continue };
            let before = table.members.len();
            table.members.retain(|(m, _)| m.link.id != conn);
            if table.members.len() != before {
                let joined = u8::try_from(table.members.len()).unwrap_or(u8::MAX);
                self.announce_table(id, joined);
            }
        }
    }

    /// Forgets the tables of challenges that are gone, telling the people there.
    pub(super) fn drop_tables_of(&mut self, ids: &[ChallengeId], reason: RemovedReason) {
        for id in ids {
            if let Some(table) = self.tables.remove(id) {
                let msg: ServerMsg = LobbyMsg::LobbyRemoved { id: *id, reason }.into();
                for (m, _) in table.members.iter().skip(1) {
                    m.link.send(msg.clone());
                }
            }
        }
    }

    /// Tells subscribers and the people at table `id` that it has `joined` people now.
    pub(super) fn announce_table(&mut self, id: ChallengeId, joined: u8) {
        let Some(challenge) = self.lobby.set_joined(id, joined) else { return };
        let msg: ServerMsg = LobbyMsg::LobbyUpdated { challenge: challenge.clone() }.into();
        let mut told = Vec::new();
        for link in self.subscribed(challenge.game) {
            link.send(msg.clone());
            told.push(link.id);
        }
        if let Some(t) = self.tables.get(&id) {
            for (m, _) in &t.members {
                if !told.contains(&m.link.id) {
                    m.link.send(msg.clone());
                }
            }
        }
    }
}
