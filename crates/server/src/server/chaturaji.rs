//! Chaturaji rooms in the runtime: [`ChaturajiRoom`] as a [`RoomLogic`] (its timers may run a
//! CPU decision, so they run off the runtime's workers), and the connection side of Chaturaji
//! messages.

use maharajah_chaturaji::cpu::Level;
use maharajah_chaturaji::settings::TurnTime;
use maharajah_chaturaji::{Seat, Settings};
use maharajah_engine::clock::Millis;
use maharajah_protocol::identity::PlayerKey;
use maharajah_protocol::{
    AccessCode, ChaturajiAction, ChaturajiMsg, ErrorCode, LobbyGame, RatingChange, ServerMsg,
    TimeControl,
};
use rand::TryRngCore;

use super::actor::{RoomLogic, RoomSender, RoomTx};
use super::listing::LiveRoom;
use super::{Conn, Flow};
use crate::chaturaji::{ChaturajiRecord, ChaturajiRoom};
use crate::history::{diff_of, FinishedGame, FinishedSeat};
use crate::players::Players;
use crate::room::RatedEnd;
use crate::rooms::{Lifetimes, RoomError};
use crate::store::{Committed, PlayerRev, PlayerRow, Store, StoreError};

/// A turn limit as the lobby writes it: the increment on a zero base.
fn per_turn(turn: TurnTime) -> Option<TimeControl> {
    turn.seconds().map(|s| TimeControl { base_ms: 0, increment_ms: u64::from(s) * 1000 })
}

/// What a Chaturaji seat asks its room to do.
pub(super) enum ChaturajiCmd {
    /// One step of the game, at step number `step` of the record.
    Step { step: u32, action: ChaturajiAction },
    /// The next game after a finished one.
    Rematch,
}

impl RoomLogic for ChaturajiRoom {
    fn state(&self) -> usize {
        match self.game() {
            None => 0,
            Some(g) if g.game().is_over() => 3,
            Some(_) => 2,
        }
    }

    type Seat = Seat;
    /// The joining device, and its connection's identified player if any.
    type Joiner = (String, Option<PlayerKey>);
    type Action = ChaturajiCmd;
    type Msg = ChaturajiMsg;
    type Record = ChaturajiRecord;
    type RecordError = RoomError;

    const KIND: &'static str = "Chaturaji";
    const SLOW_TIMERS: bool = true;
    const NOT_SEATED: &'static str = "join or create a Chaturaji room first";

    fn code(&self) -> &AccessCode {
        ChaturajiRoom::code(self)
    }

    fn seq(&self) -> u64 {
        ChaturajiRoom::seq(self)
    }

    fn next_deadline(&self) -> Millis {
        ChaturajiRoom::next_deadline(self)
    }

    fn is_expired(&self, now: Millis) -> bool {
        ChaturajiRoom::is_expired(self, now)
    }

    fn on_time(&mut self, now: Millis) {
        ChaturajiRoom::on_time(self, now);
    }

    fn join(
        &mut self,
        token: String,
        (device, player): (String, Option<PlayerKey>),
        now: Millis,
    ) -> Result<(Seat, String), RoomError> {
        ChaturajiRoom::join_as(self, token, device, player, now)
    }

    fn rejoin(
        &mut self,
        token: &str,
        (device, _): (String, Option<PlayerKey>),
        now: Millis,
    ) -> Result<Seat, RoomError> {
        ChaturajiRoom::rejoin(self, token, &device, now)
    }

    fn rating_due(&self) -> Option<RatedEnd> {
        ChaturajiRoom::rating_due(self)
    }

    fn record_ratings(&mut self, changes: &[RatingChange]) {
        ChaturajiRoom::record_ratings(self, changes);
    }

    fn finished_key(&self) -> Option<String> {
        let over = self.game().is_some_and(|g| g.game().is_over());
        (over && !self.is_rating_pending())
            .then(|| format!("{}/{}", self.code(), self.game_number()))
    }

    fn finished_game(
        &self,
        ended_ms: u64,
        changes: &[RatingChange],
        _players: &Players,
    ) -> Option<FinishedGame> {
        let recorded = self.game()?;
        let standings = recorded.game().standings();
        let seats = Seat::ALL
            .into_iter()
            .map(|seat| {
                let state = &self.seats()[seat];
                FinishedSeat {
                    player: state.player,
                    cpu: !state.person,
                    result: None,
                    place: standings.iter().find(|l| l.seat == seat).map(|l| l.place),
                    rating: diff_of(changes, state.player),
                }
            })
            .collect();
        Some(FinishedGame {
            id: 0,
            key: self.finished_key()?,
            code: self.code().clone(),
            game: LobbyGame::Chaturaji,
            hidden_setup: false,
            time_control: per_turn(self.settings().turn_time),
            rated: self.is_rated(),
            seats,
            ended_ms,
            pgn: None,
            record: Some(recorded.record().to_json()),
        })
    }

    fn live(&self) -> Option<LiveRoom> {
        let recorded = self.game()?;
        if recorded.game().is_over() {
            return None;
        }
        let seats = Seat::ALL
            .into_iter()
            .map(|seat| {
                let state = &self.seats()[seat];
                (state.player, !state.person)
            })
            .collect();
        Some(LiveRoom {
            game: LobbyGame::Chaturaji,
            hidden_setup: false,
            time_control: per_turn(self.settings().turn_time),
            rated: self.is_rated(),
            seats,
            ply: u32::try_from(recorded.record().actions.len()).unwrap_or(u32::MAX),
            spectators: 0,
        })
    }

    fn queue_with_players(
        &self,
        store: &Store,
        now: Millis,
        rows: Vec<PlayerRow>,
        expected: Vec<PlayerRev>,
    ) -> Result<Option<Committed>, StoreError> {
        store.queue_chaturaji_with_players(&self.to_record(now), rows, expected)
    }

    fn act(
        &mut self,
        token: &str,
        cmd: ChaturajiCmd,
        now: Millis,
    ) -> Result<Option<ChaturajiMsg>, RoomError> {
        match cmd {
            ChaturajiCmd::Step { step, action } => {
                // A roll waiting for the parties' links is acknowledged once made
                // (`take_replies`).
                let acked = ChaturajiRoom::act(self, token, step, action, now)?;
                Ok(acked.map(|(step, seq)| ChaturajiMsg::ChaturajiAck { step, seq }))
            }
            ChaturajiCmd::Rematch => self.rematch(token, now).map(|()| None),
        }
    }

    fn disconnect(&mut self, seat: Seat, now: Millis) {
        ChaturajiRoom::disconnect(self, seat, now);
    }

    fn take_replies(&mut self) -> Vec<(Seat, ServerMsg)> {
        ChaturajiRoom::take_replies(self)
    }

    fn seated(code: AccessCode, seat: Seat, token: String) -> ChaturajiMsg {
        ChaturajiMsg::ChaturajiSeated { code, seat, token }
    }

    fn snapshot_msg(&self, now: Millis) -> ChaturajiMsg {
        ChaturajiMsg::ChaturajiSnapshot { snapshot: Box::new(self.snapshot(now)) }
    }

    fn events_after(&self, seq: u64) -> Option<Vec<ChaturajiMsg>> {
        ChaturajiRoom::events_after(self, seq)
    }

    fn save(
        &self,
        store: &Store,
        now: Millis,
    ) -> impl std::future::Future<Output = Result<(), StoreError>> + Send {
        // A store that writes nowhere needs no record (it was built and dropped every move).
        let record = store.is_durable().then(|| self.to_record(now));
        let store = store.clone();
        async move {
            match record {
                Some(record) => store.save_chaturaji(&record).await,
                None => Ok(()),
            }
        }
    }

    fn delete(
        store: &Store,
        code: &AccessCode,
    ) -> impl std::future::Future<Output = Result<(), StoreError>> + Send {
        let (store, code) = (store.clone(), code.clone());
        async move { store.delete_chaturaji(code.as_str()).await }
    }

    fn record_code(record: &ChaturajiRecord) -> &AccessCode {
        &record.code
    }

    fn from_record(
        record: ChaturajiRecord,
        now: Millis,
        lifetimes: Lifetimes,
    ) -> Result<ChaturajiRoom, RoomError> {
        ChaturajiRoom::from_record(record, now, lifetimes)
    }

    fn counts_as_failed_join(code: ErrorCode) -> bool {
        // A full room answers every unknown device alike: count it, so device ids cannot be
        // guessed faster than tokens.
        matches!(code, ErrorCode::Forbidden | ErrorCode::RoomFull)
    }

    fn wrap(tx: RoomSender<ChaturajiRoom>) -> RoomTx {
        RoomTx::Chaturaji(tx)
    }

    fn unwrap(tx: &RoomTx) -> Option<&RoomSender<ChaturajiRoom>> {
        match tx {
            RoomTx::Chaturaji(tx) => Some(tx),
            RoomTx::Chess(_) => None,
        }
    }
}

impl Conn {
    /// `create_chaturaji`: a new table with this connection in its first person seat.
    pub(super) async fn create_chaturaji(
        &mut self,
        settings: Settings,
        device: String,
        stand_in: Level,
        rated: bool,
    ) -> Flow {
        let creator = match (rated, self.player) {
            (false, _) => None,
            (true, Some(key)) => Some(key),
            (true, None) => {
                return self.refuse(
                    ErrorCode::NotIdentified,
                    "a rated table needs an identified player: identify first",
                )
            }
        };
        let seed = rand::random::<u64>();
        // The secret of the room's dice chains, straight from the operating system.
        let mut dice_key = [0u8; 32];
        if let Err(e) = rand::rngs::OsRng.try_fill_bytes(&mut dice_key) {
            return self.refuse(ErrorCode::Internal, format!("no random source: {e}"));
        }
        self.create(|code, token, now, lifetimes| {
            ChaturajiRoom::new(code, settings, stand_in, token, device, seed, now, lifetimes).map(
                |(room, seat)| {
                    let room = room.with_dice_key(dice_key);
                    match creator {
                        Some(key) => (room.rated_for(seat, key), seat),
                        None => (room, seat),
                    }
                },
            )
        })
        .await
    }
}
