//! Chaturaji room actors and the connection side of Chaturaji messages.
//!
//! Same shape as the chess room actor: one task owns its [`ChaturajiRoom`], takes commands from
//! connections, wakes at the room's next deadline (a CPU step, the turn timer, a stand-in after
//! the restart grace, expiry), and stores every change before anyone hears of it.

use std::sync::Arc;

use maharajah_chaturaji::cpu::Level;
use maharajah_chaturaji::{BySeat, Seat, Settings};
use maharajah_protocol::{AccessCode, ChaturajiAction, ChaturajiMsg, ErrorCode, ServerMsg};
use tokio::sync::{mpsc, oneshot};

use super::{
    backup, count, fan_out, lock, new_token, persist, within_limit, Conn, Flow, Link, Shared,
    Stored,
};
use crate::chaturaji::{ChaturajiRecord, ChaturajiRoom};
use crate::clock::Millis;
use crate::room::RoomError;
use crate::store::{Store, StoreError};

impl Stored for ChaturajiRoom {
    type Msg = ChaturajiMsg;

    fn seq(&self) -> u64 {
        ChaturajiRoom::seq(self)
    }

    fn code(&self) -> &AccessCode {
        ChaturajiRoom::code(self)
    }

    fn save(
        &self,
        store: &Store,
        now: Millis,
    ) -> impl std::future::Future<Output = Result<(), StoreError>> + Send {
        let (store, record) = (store.clone(), self.to_record(now));
        async move { store.save_chaturaji(&record).await }
    }

    fn events_after(&self, seq: u64) -> Option<Vec<ChaturajiMsg>> {
        ChaturajiRoom::events_after(self, seq)
    }

    fn snapshot_msg(&self, now: Millis) -> ChaturajiMsg {
        ChaturajiMsg::ChaturajiSnapshot { snapshot: Box::new(self.snapshot(now)) }
    }

    fn send(link: &Link, msg: ChaturajiMsg) -> bool {
        link.send_chaturaji(msg)
    }
}

/// A command to a Chaturaji room task.
pub(super) enum Cmd {
    Join {
        token: String,
        device: String,
        link: Link,
        reply: oneshot::Sender<Result<Seat, RoomError>>,
    },
    Rejoin {
        token: String,
        device: String,
        last_seq: u64,
        link: Link,
        reply: oneshot::Sender<Result<Seat, RoomError>>,
    },
    Act {
        token: String,
        step: u32,
        action: ChaturajiAction,
        link: Link,
    },
    Rematch {
        token: String,
        link: Link,
    },
    Detach {
        conn: u64,
    },
    /// A `ping` from a seated connection, answered in order with the room's other answers.
    Ping {
        nonce: u64,
        link: Link,
    },
}

/// The sending side of a Chaturaji room task's channel.
pub(super) type ChaturajiTx = mpsc::Sender<Cmd>;

/// Recovers stored Chaturaji rooms at start.
pub(super) async fn recover(
    shared: &Arc<Shared>,
    records: Vec<Result<ChaturajiRecord, StoreError>>,
    now: Millis,
) {
    for record in records {
        let record = match record {
            Ok(r) => r,
            Err(e) => {
                eprintln!("maharajah-server: skipping unreadable Chaturaji room: {e}");
                continue;
            }
        };
        let code = record.code.clone();
        match ChaturajiRoom::from_record(record, now, shared.config.lifetimes) {
            Ok(room) => {
                if let Err(e) = shared.store.save_chaturaji(&room.to_record(now)).await {
                    eprintln!("maharajah-server: room {code}: {e}");
                }
                let (tx, rx) = mpsc::channel(64);
                lock(&shared.chaturaji_rooms).insert(code, tx);
                start(shared, room, BySeat::splat(None), rx);
            }
            Err(e) => eprintln!("maharajah-server: room {code} cannot be recovered: {e}"),
        }
    }
}

fn start(
    shared: &Arc<Shared>,
    room: ChaturajiRoom,
    links: BySeat<Option<Link>>,
    rx: mpsc::Receiver<Cmd>,
) {
    let actor = Actor { shared: shared.clone(), room, links };
    tokio::spawn(actor.run(rx));
}

impl Conn {
    pub(super) async fn create_chaturaji(
        &mut self,
        settings: Settings,
        device: String,
        stand_in: Level,
    ) -> Flow {
        let shared = self.shared.clone();
        let now = shared.now();
        let limit = shared.config.rooms_per_minute_per_ip;
        if !within_limit(&shared.creations, self.ip, now, limit) {
            return self.refuse(ErrorCode::RateLimited, "too many new rooms; wait a minute");
        }
        if shared.room_count() >= shared.config.max_rooms {
            return self.refuse(ErrorCode::Unavailable, "the server is full; try again later");
        }
        count(&shared.creations, self.ip, now);
        let token = new_token();
        let (tx, rx) = mpsc::channel(64);
        let code = {
            let code = shared.free_code();
            lock(&shared.chaturaji_rooms).insert(code.clone(), tx.clone());
            code
        };
        let seed = rand::random::<u64>();
        let lifetimes = shared.config.lifetimes;
        let created = ChaturajiRoom::new(
            code.clone(),
            settings,
            stand_in,
            token.clone(),
            device,
            seed,
            now,
            lifetimes,
        );
        let (room, seat) = match created {
            Ok(r) => r,
            Err(e) => {
                lock(&shared.chaturaji_rooms).remove(&code);
                return self.refuse(e.code, e.message);
            }
        };
        if let Err(e) = shared.store.save_chaturaji(&room.to_record(now)).await {
            lock(&shared.chaturaji_rooms).remove(&code);
            return self.refuse(ErrorCode::Internal, format!("could not store the room: {e}"));
        }
        self.leave_room().await;
        self.link.send_chaturaji(ChaturajiMsg::ChaturajiSeated { code: code.clone(), seat, token });
        self.link.send_chaturaji(ChaturajiMsg::ChaturajiSnapshot {
            snapshot: Box::new(room.snapshot(now)),
        });
        let mut links = BySeat::splat(None);
        links[seat] = Some(self.link.clone());
        start(&shared, room, links, rx);
        self.chaturaji = Some((code, tx));
        Flow::Continue
    }

    pub(super) async fn join_chaturaji(
        &mut self,
        code: AccessCode,
        device: String,
        rejoin: Option<(String, u64)>,
    ) -> Flow {
        if !self.shared.join_allowed(self.ip) {
            return self.refuse(ErrorCode::RateLimited, "too many failed attempts; wait a minute");
        }
        let room = lock(&self.shared.chaturaji_rooms).get(&code).cloned();
        let Some(room) = room else {
            self.shared.join_failed(self.ip);
            return self.refuse(ErrorCode::RoomNotFound, format!("no room has the code {code}"));
        };
        let (reply, answer) = oneshot::channel();
        let link = self.link.clone();
        let cmd = match rejoin {
            None => Cmd::Join { token: new_token(), device, link, reply },
            Some((token, last_seq)) => Cmd::Rejoin { token, device, last_seq, link, reply },
        };
        // Leave any other room first so this connection never holds seats in two rooms.
        if self.room.is_some() || self.chaturaji.as_ref().is_some_and(|(c, _)| *c != code) {
            self.leave_room().await;
        }
        if room.send(cmd).await.is_err() {
            return self.refuse(ErrorCode::RoomNotFound, "the room has closed");
        }
        match answer.await {
            Ok(Ok(_seat)) => {
                self.chaturaji = Some((code, room));
                Flow::Continue
            }
            Ok(Err(e)) => {
                // A full room answers every unknown device alike: count it, so device ids
                // cannot be guessed faster than tokens.
                if matches!(e.code, ErrorCode::Forbidden | ErrorCode::RoomFull) {
                    self.shared.join_failed(self.ip);
                }
                self.refuse(e.code, e.message)
            }
            Err(_) => self.refuse(ErrorCode::RoomNotFound, "the room has closed"),
        }
    }

    pub(super) async fn chaturaji_cmd(&mut self, cmd: Cmd) -> Flow {
        let Some((_, room)) = &self.chaturaji else {
            return self.refuse(ErrorCode::NotSeated, "join or create a Chaturaji room first");
        };
        if room.send(cmd).await.is_err() {
            self.chaturaji = None;
            return self.refuse(ErrorCode::RoomNotFound, "the room has closed");
        }
        Flow::Continue
    }
}

struct Actor {
    shared: Arc<Shared>,
    room: ChaturajiRoom,
    links: BySeat<Option<Link>>,
}

impl Actor {
    async fn run(mut self, mut rx: mpsc::Receiver<Cmd>) {
        let _alive = self.shared.alive.clone();
        let mut shutdown = self.shared.shutdown.clone();
        loop {
            let wake = self.shared.instant_at(self.room.next_deadline());
            tokio::select! {
                cmd = rx.recv() => match cmd {
                    Some(cmd) => self.handle(cmd).await,
                    None => break,
                },
                () = tokio::time::sleep_until(wake) => {
                    let now = self.shared.now();
                    let backup = self.backup();
                    let before = self.room.seq();
                    // A CPU decision can take a few hundred milliseconds: off the runtime's
                    // workers. Commands wait in the channel meanwhile, so the order is the same.
                    let mut room = self.room.clone();
                    match tokio::task::spawn_blocking(move || { room.on_time(now); room }).await {
                        Ok(room) => self.room = room,
                        Err(e) => eprintln!("maharajah-server: room {}: {e}", self.room.code()),
                    }
                    if self.persist(backup, before, now).await {
                        self.broadcast(before, None);
                    }
                    if self.room.is_expired(now) {
                        self.expire().await;
                        break;
                    }
                }
                _ = shutdown.changed() => break,
            }
        }
    }

    async fn expire(&mut self) {
        let code = self.room.code().clone();
        lock(&self.shared.chaturaji_rooms).remove(&code);
        if let Err(e) = self.shared.store.delete_chaturaji(code.as_str()).await {
            eprintln!("maharajah-server: room {code}: {e}");
        }
        for seat in Seat::ALL {
            if let Some(link) = self.links[seat].take() {
                link.send(ServerMsg::error(ErrorCode::RoomNotFound, "the room has expired"));
            }
        }
    }

    fn backup(&self) -> Option<ChaturajiRoom> {
        backup(&self.shared.store, &self.room)
    }

    async fn persist(&mut self, backup: Option<ChaturajiRoom>, before: u64, now: Millis) -> bool {
        persist(&self.shared.store, &mut self.room, backup, before, now).await
    }

    fn broadcast(&mut self, before: u64, skip: Option<u64>) {
        if self.room.seq() == before {
            return;
        }
        let msgs = self.room.catch_up(Some(before), self.shared.now());
        fan_out(
            Seat::ALL.iter().map(|&s| self.links[s].clone()),
            skip,
            &msgs,
            Link::send_chaturaji,
        );
    }

    fn internal() -> RoomError {
        RoomError::new(ErrorCode::Internal, "the server could not store this; nothing changed")
    }

    fn attach(&mut self, seat: Seat, link: Link) {
        if let Some(old) = &self.links[seat] {
            if old.id != link.id {
                old.send(ServerMsg::error(
                    ErrorCode::Forbidden,
                    "this seat is now used by another connection",
                ));
            }
        }
        for s in Seat::ALL {
            if self.links[s].as_ref().is_some_and(|l| l.id == link.id) {
                self.links[s] = None;
            }
        }
        self.links[seat] = Some(link);
    }

    async fn handle(&mut self, cmd: Cmd) {
        if let Cmd::Ping { nonce, link } = &cmd {
            link.send(super::pong(*nonce));
            return;
        }
        let now = self.shared.now();
        let backup = self.backup();
        let before = self.room.seq();
        match cmd {
            Cmd::Join { token, device, link, reply } => match self.room.join(token, device, now) {
                Ok((seat, token)) => {
                    if !self.persist(backup, before, now).await {
                        let _ = reply.send(Err(Self::internal()));
                        return;
                    }
                    let code = self.room.code().clone();
                    let seated = ChaturajiMsg::ChaturajiSeated { code, seat, token };
                    self.room.greet(&link, seated, None, now);
                    self.broadcast(before, Some(link.id));
                    self.attach(seat, link);
                    let _ = reply.send(Ok(seat));
                }
                Err(e) => {
                    let _ = reply.send(Err(e));
                }
            },
            Cmd::Rejoin { token, device, last_seq, link, reply } => {
                let seat = match self.room.rejoin(&token, &device, now) {
                    Ok(seat) => seat,
                    Err(e) => {
                        let _ = reply.send(Err(e));
                        return;
                    }
                };
                if !self.persist(backup, before, now).await {
                    let _ = reply.send(Err(Self::internal()));
                    return;
                }
                let code = self.room.code().clone();
                let seated = ChaturajiMsg::ChaturajiSeated { code, seat, token };
                self.room.greet(&link, seated, Some(last_seq), now);
                self.broadcast(before, Some(link.id));
                self.attach(seat, link);
                let _ = reply.send(Ok(seat));
            }
            Cmd::Act { token, step, action, link } => {
                let result = self.room.act(&token, step, action, now);
                if !self.persist(backup, before, now).await {
                    link.send(Self::internal().to_msg());
                    return;
                }
                self.broadcast(before, None);
                match result {
                    Ok((step, seq)) => {
                        link.send_chaturaji(ChaturajiMsg::ChaturajiAck { step, seq });
                    }
                    Err(e) => {
                        link.send(e.to_msg());
                    }
                }
            }
            Cmd::Rematch { token, link } => {
                let result = self.room.rematch(&token, now);
                if !self.persist(backup, before, now).await {
                    link.send(Self::internal().to_msg());
                    return;
                }
                self.broadcast(before, None);
                if let Err(e) = result {
                    link.send(e.to_msg());
                }
            }
            Cmd::Ping { .. } => {}
            Cmd::Detach { conn } => {
                if *self.shared.shutdown.borrow() {
                    return;
                }
                for seat in Seat::ALL {
                    if self.links[seat].as_ref().is_some_and(|l| l.id == conn) {
                        self.links[seat] = None;
                        self.room.disconnect(seat, now);
                    }
                }
                if self.persist(backup, before, now).await {
                    self.broadcast(before, None);
                }
            }
        }
    }
}
