//! Chess rooms in the runtime: [`Room`] as a [`RoomLogic`], and the connection side of chess
//! messages.

use maharajah_engine::clock::Millis;
use maharajah_protocol::identity::PlayerKey;
use maharajah_protocol::{AccessCode, ClientMsg, Color, ErrorCode, Phase, RatingChange, ServerMsg};

use super::actor::{RoomLogic, RoomSender, RoomTx};
use super::{Conn, Flow};
use crate::room::{Action, RatedEnd, Room, RoomRecord};
use crate::rooms::{Lifetimes, RoomError};
use crate::rules::RulesError;
use crate::store::{Committed, PlayerRow, Store, StoreError};

impl RoomLogic for Room {
    fn state(&self) -> usize {
        match self.phase() {
            Phase::WaitingForOpponent => 0,
            Phase::Setup => 1,
            Phase::Playing => 2,
            Phase::Finished => 3,
        }
    }

    type Seat = Color;
    /// The joining connection's identified player, if any.
    type Joiner = Option<PlayerKey>;
    type Action = Action;
    type Msg = ServerMsg;
    type Record = RoomRecord;
    type RecordError = RulesError;

    const KIND: &'static str = "chess";
    const ONE_JOIN_PER_CONNECTION: bool = true;
    const NOT_SEATED: &'static str = "join or create a room first";

    fn code(&self) -> &AccessCode {
        Room::code(self)
    }

    fn seq(&self) -> u64 {
        Room::seq(self)
    }

    fn next_deadline(&self) -> Millis {
        Room::next_deadline(self)
    }

    fn is_expired(&self, now: Millis) -> bool {
        Room::is_expired(self, now)
    }

    fn on_time(&mut self, now: Millis) {
        Room::on_time(self, now);
    }

    fn join(
        &mut self,
        token: String,
        player: Option<PlayerKey>,
        now: Millis,
    ) -> Result<(Color, String), RoomError> {
        let seat = Room::join_as(self, token.clone(), player, now)?;
        Ok((seat, token))
    }

    fn rejoin(
        &mut self,
        token: &str,
        _: Option<PlayerKey>,
        now: Millis,
    ) -> Result<Color, RoomError> {
        let seat = self.seat_of(token).ok_or_else(|| {
            RoomError::new(ErrorCode::Forbidden, "this token holds no seat in this room")
        })?;
        self.connect(seat, now);
        Ok(seat)
    }

    fn act(
        &mut self,
        token: &str,
        action: Action,
        now: Millis,
    ) -> Result<Option<ServerMsg>, RoomError> {
        Room::act(self, token, action, now).map(|reply| reply.to_msg())
    }

    fn is_move(action: &Action) -> bool {
        matches!(action, Action::Move { .. })
    }

    fn disconnect(&mut self, seat: Color, now: Millis) {
        Room::disconnect(self, seat, now);
    }

    fn seated(code: AccessCode, seat: Color, token: String) -> ServerMsg {
        ServerMsg::Seated { code, seat, token }
    }

    fn snapshot_msg(&self, now: Millis) -> ServerMsg {
        ServerMsg::Snapshot { snapshot: Box::new(self.snapshot(now)) }
    }

    fn events_after(&self, seq: u64) -> Option<Vec<ServerMsg>> {
        Room::events_after(self, seq)
    }

    fn save(
        &self,
        store: &Store,
        now: Millis,
    ) -> impl std::future::Future<Output = Result<(), StoreError>> + Send {
        let (store, record) = (store.clone(), self.to_record(now));
        async move { store.save(&record).await }
    }

    fn rating_due(&self) -> Option<RatedEnd> {
        Room::rating_due(self)
    }

    fn record_ratings(&mut self, changes: &[RatingChange]) {
        Room::record_ratings(self, changes);
    }

    fn queue_with_players(
        &self,
        store: &Store,
        now: Millis,
        rows: Vec<PlayerRow>,
    ) -> Result<Option<Committed>, StoreError> {
        store.queue_room_with_players(&self.to_record(now), rows)
    }

    fn delete(
        store: &Store,
        code: &AccessCode,
    ) -> impl std::future::Future<Output = Result<(), StoreError>> + Send {
        let (store, code) = (store.clone(), code.clone());
        async move { store.delete(code.as_str()).await }
    }

    fn record_code(record: &RoomRecord) -> &AccessCode {
        &record.code
    }

    fn from_record(
        record: RoomRecord,
        now: Millis,
        lifetimes: Lifetimes,
    ) -> Result<Room, RulesError> {
        Room::from_record(record, now, lifetimes)
    }

    fn wrap(tx: RoomSender<Room>) -> RoomTx {
        RoomTx::Chess(tx)
    }

    fn unwrap(tx: &RoomTx) -> Option<&RoomSender<Room>> {
        match tx {
            RoomTx::Chess(tx) => Some(tx),
            RoomTx::Chaturaji(_) => None,
        }
    }
}

/// The chess action a message asks for, with the token of the seat it acts for.
pub(super) fn action_of(msg: ClientMsg) -> Option<(String, Action)> {
    Some(match msg {
        ClientMsg::Commit { token, commitment } => (token, Action::Commit { commitment }),
        ClientMsg::Reveal { token, army, nonce } => (token, Action::Reveal { army, nonce }),
        ClientMsg::Move { token, ply, uci } => (token, Action::Move { ply, uci }),
        ClientMsg::Pause { token } => (token, Action::Pause),
        ClientMsg::Resume { token } => (token, Action::Resume),
        ClientMsg::Resign { token } => (token, Action::Resign),
        ClientMsg::OfferDraw { token } => (token, Action::OfferDraw),
        ClientMsg::DeclineDraw { token } => (token, Action::DeclineDraw),
        ClientMsg::ClaimDraw { token } => (token, Action::ClaimDraw),
        ClientMsg::CreateChaturaji { .. }
        | ClientMsg::JoinChaturaji { .. }
        | ClientMsg::RejoinChaturaji { .. }
        | ClientMsg::ChaturajiAct { .. }
        | ClientMsg::ChaturajiRematch { .. }
        | ClientMsg::LobbySubscribe { .. }
        | ClientMsg::LobbyUnsubscribe
        | ClientMsg::CreateChallenge { .. }
        | ClientMsg::CancelChallenge { .. }
        | ClientMsg::AcceptChallenge { .. }
        | ClientMsg::PlayNow { .. }
        | ClientMsg::CancelPlayNow
        | ClientMsg::Hello { .. }
        | ClientMsg::Ping { .. }
        | ClientMsg::CreateRoom { .. }
        | ClientMsg::JoinRoom { .. }
        | ClientMsg::Rejoin { .. }
        | ClientMsg::Identify { .. }
        | ClientMsg::RegisterName { .. }
        | ClientMsg::Watch { .. }
        | ClientMsg::Unwatch
        | ClientMsg::Leaderboard { .. }
        | ClientMsg::Profile { .. }
        | ClientMsg::GameRecord { .. }
        | ClientMsg::PlayingNow { .. }
        | ClientMsg::Rematch { .. } => return None,
    })
}

impl Conn {
    /// `create_room`: a new chess room with this connection in the chosen (or a drawn) seat.
    /// A `rated` room needs an identified creator.
    pub(super) async fn create_chess(
        &mut self,
        options: &maharajah_protocol::RoomOptions,
        rated: bool,
    ) -> Flow {
        let seat = options.color.unwrap_or(if rand::random::<bool>() {
            Color::White
        } else {
            Color::Black
        });
        let creator = match (rated, self.player) {
            (false, _) => None,
            (true, Some(key)) => Some(key),
            (true, None) => {
                return self.refuse(
                    ErrorCode::NotIdentified,
                    "a rated game needs an identified player: identify first",
                )
            }
        };
        self.create(|code, token, now, lifetimes| {
            let room = Room::new(code, options, seat, token, now, lifetimes)?;
            let room = match creator {
                Some(key) => room.rated_for(seat, key),
                None => room,
            };
            Ok((room, seat))
        })
        .await
    }
}
