//! Chaturaji challenges in the server: the people waiting at each challenge's table, and the
//! room made when the table is full or its wait is over (with at least two people; CPUs take
//! the empty seats). The challenge itself lives in the pure [`crate::lobby::Lobby`] like any
//! other (its `table` shows how full it is); this file holds who sits there.

use std::sync::Arc;

use maharajah_chaturaji::cpu::Level;
use maharajah_chaturaji::settings::Player;
use maharajah_chaturaji::{BySeat, Seat, Settings};
use maharajah_engine::clock::Millis;
use maharajah_protocol::{ChallengeId, ErrorCode, LobbyMsg, RemovedReason, ServerMsg};
use rand::TryRngCore;
use tracing::{info, warn};

use super::actor::{self, RoomLogic, RoomTx, ROOM_QUEUE};
use super::lobby::{HubState, Member, Seating};
use super::{lock, Shared};
use crate::chaturaji::{ChaturajiRoom, DEVICE_ID_LEN};
use crate::codes::new_token;
use crate::rooms::RoomError;

/// The people at one Chaturaji challenge's table, the creator first.
pub(super) struct Table {
    pub(super) people: u8,
    /// When CPUs may take the empty seats.
    pub(super) deadline: Millis,
    pub(super) settings: Settings,
    pub(super) rated: bool,
    pub(super) members: Vec<(Member, String)>,
}

/// Checks a Chaturaji device id.
///
/// # Errors
///
/// `invalid_options` without one or with one of the wrong length.
pub(super) fn device_of(device: Option<String>) -> Result<String, RoomError> {
    match device {
        Some(d) if DEVICE_ID_LEN.contains(&d.len()) => Ok(d),
        _ => Err(RoomError::new(
            ErrorCode::InvalidOptions,
            "a Chaturaji table needs the device id (16 to 128 characters)",
        )),
    }
}

/// The settings of a table of `people` people: the first seats people, CPUs after.
pub(super) fn settings_for(
    people: usize,
    turn: maharajah_chaturaji::settings::TurnTime,
) -> Settings {
    let mut players = BySeat::splat(Player::Cpu { level: Level::default() });
    for seat in Seat::ALL.into_iter().take(people) {
        players[seat] = Player::Person;
    }
    Settings { players, turn_time: turn, ..Settings::default() }
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

    /// The next moment a table's wait ends (tables of two people or more).
    pub(super) fn next_table(&self) -> Option<Millis> {
        self.tables.values().filter(|t| t.members.len() >= 2).map(|t| t.deadline).min()
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

/// Makes the room of a table: the creator takes the first seat, the others the next ones, CPUs
/// the rest; everyone gets `lobby_matched`, `chaturaji_seated` and the snapshot.
pub(super) async fn open_table(shared: Arc<Shared>, id: ChallengeId, table: Table) {
    let _alive = shared.alive.clone();
    let refuse = |code: ErrorCode, message: &str| {
        for (m, _) in &table.members {
            m.link.send(ServerMsg::error(code, message));
        }
    };
    shared.until_loaded().await;
    if shared.room_count() >= shared.config.max_rooms {
        return refuse(ErrorCode::Unavailable, "the server is full; try again later");
    }
    let mut dice_key = [0u8; 32];
    if rand::rngs::OsRng.try_fill_bytes(&mut dice_key).is_err() {
        return refuse(ErrorCode::Internal, "no random source");
    }
    let people = table.members.len().min(usize::from(table.people));
    let settings = settings_for(people, table.settings.turn_time);
    let now = shared.now();
    let (tx, rx) = tokio::sync::mpsc::channel(ROOM_QUEUE);
    let code = shared.reserve_code(RoomTx::Chaturaji(tx.clone()));
    let tokens: Vec<String> = table.members.iter().map(|_| new_token()).collect();
    let made = (|| {
        let (first, device) = &table.members[0];
        let (room, seat) = ChaturajiRoom::new(
            code.clone(),
            settings,
            Level::default(),
            tokens[0].clone(),
            device.clone(),
            rand::random(),
            now,
            shared.config.lifetimes,
        )?;
        let mut room = room.with_dice_key(dice_key);
        if table.rated {
            let key = first.player.ok_or_else(|| {
                RoomError::new(ErrorCode::NotIdentified, "a rated table needs identities")
            })?;
            room = room.rated_for(seat, key);
        }
        let mut seats = vec![seat];
        for ((m, device), token) in table.members.iter().zip(&tokens).skip(1).take(people - 1) {
            let (seat, _) = room.join_as(token.clone(), device.clone(), m.player, now)?;
            seats.push(seat);
        }
        Ok::<_, RoomError>((room, seats))
    })();
    let (room, seats) = match made {
        Ok(r) => r,
        Err(e) => {
            lock(&shared.rooms).remove(&code);
            return refuse(e.code, &e.message);
        }
    };
    if let Err(e) = room.save(&shared.store, now).await {
        lock(&shared.rooms).remove(&code);
        warn!(room = %code, "storing a lobby table failed: {e}");
        return refuse(ErrorCode::Internal, "the server could not store the table; try again");
    }
    let mut links = Vec::new();
    let mut gone = Vec::new();
    for (((member, _), token), seat) in table.members.iter().zip(tokens).zip(seats) {
        let seating = Seating { code: code.clone(), tx: RoomTx::Chaturaji(tx.clone()) };
        if member.seats.send(seating).is_err() {
            gone.push(member.link.id);
        }
        let matched =
            LobbyMsg::LobbyMatched { code: code.clone(), challenge: Some(id), rematch_of: None };
        member.link.send(matched.into());
        member.link.send_out(ChaturajiRoom::seated(code.clone(), seat, token).into());
        member.link.send_out(room.snapshot_msg(now).into());
        links.push((seat, member.link.clone()));
    }
    info!(room = %code, challenge = id, people, "lobby table created");
    actor::start(&shared, room, links, rx, None);
    let room = RoomTx::Chaturaji(tx);
    for conn in gone {
        room.detach(conn).await;
    }
}
