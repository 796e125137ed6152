//! Chaturaji challenges in the server: the people waiting at each challenge's table, and the
//! room made when the table is full or its wait is over (with at least two people; CPUs take
//! the empty seats). The challenge itself lives in the pure [`crate::lobby::Lobby`] like any
//! other (its `table` shows how full it is); this file holds who sits there.

use std::sync::Arc;

use maharajah_chaturaji::cpu::Level;
use maharajah_chaturaji::settings::Player;
use maharajah_chaturaji::{BySeat, Seat, Settings};
use maharajah_engine::clock::Millis;
use maharajah_protocol::{ChallengeId, ErrorCode, LobbyMsg, ServerMsg};
use rand::TryRngCore;
use tracing::{info, warn};

use super::actor::{self, RoomLogic, RoomTx, ROOM_QUEUE};
use super::actor::{Member, Seating};
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

/// A person waiting for a Chaturaji table by quick pairing.
pub(super) struct TableSeeker {
    pub(super) member: Member,
    pub(super) device: String,
    /// The pool: turn limit and rated.
    pub(super) turn: maharajah_chaturaji::settings::TurnTime,
    pub(super) rated: bool,
    /// When CPUs may take the empty seats of a table of this seeker's.
    pub(super) deadline: Millis,
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

/// Makes the room of a table (of challenge `id`, or of quick pairing): the creator (or the
/// longest-waiting) takes the first seat, the others the next ones, CPUs the rest; everyone
/// gets `lobby_matched`, `chaturaji_seated` and the snapshot.
pub(super) async fn open_table(shared: Arc<Shared>, id: Option<ChallengeId>, table: Table) {
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
            LobbyMsg::LobbyMatched { code: code.clone(), challenge: id, rematch_of: None };
        member.link.send(matched.into());
        member.link.send_out(ChaturajiRoom::seated(code.clone(), seat, token).into());
        member.link.send_out(room.snapshot_msg(now).into());
        links.push((seat, member.link.clone()));
    }
    info!(room = %code, challenge = ?id, people, "lobby table created");
    actor::start(&shared, room, links, rx, None);
    let room = RoomTx::Chaturaji(tx);
    for conn in gone {
        room.detach(conn, false).await;
    }
}
