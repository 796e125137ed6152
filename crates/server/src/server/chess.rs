//! Chess rooms in the runtime: [`Room`] as a [`RoomLogic`], and the connection side of chess
//! messages.

use maharajah_engine::clock::Millis;
use maharajah_protocol::identity::PlayerKey;
use maharajah_protocol::{
    AccessCode, ByColor, ClientMsg, Color, ErrorCode, LobbyGame, Outcome, Phase, PlayerResult,
    RatingChange, RoomOptions, ServerMsg, Variant,
};

use super::actor::{RoomLogic, RoomSender, RoomTx};
use super::listing::LiveRoom;
use super::{Conn, Flow};
use crate::history::{diff_of, FinishedGame, FinishedSeat};
use crate::players::Players;
use crate::room::{Action, RatedEnd, Room, RoomRecord};
use crate::rooms::{Lifetimes, RoomError};
use crate::rules::RulesError;
use crate::store::{Committed, PlayerRev, PlayerRow, Store, StoreError};

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

    fn hand_over(&mut self, seat: Color, now: Millis) {
        Room::hand_over(self, seat, now);
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
        // A store that writes nowhere needs no record (it was built and dropped every move).
        let record = store.is_durable().then(|| self.to_record(now));
        let store = store.clone();
        async move {
            match record {
                Some(record) => store.save(&record).await,
                None => Ok(()),
            }
        }
    }

    fn rating_due(&self) -> Option<RatedEnd> {
        Room::rating_due(self)
    }

    fn finished_key(&self) -> Option<String> {
        let done = self.phase() == Phase::Finished && Room::rating_due(self).is_none();
        done.then(|| format!("{}/0", self.code()))
    }

    fn finished_game(
        &self,
        ended_ms: u64,
        changes: &[RatingChange],
        players: &Players,
    ) -> Option<FinishedGame> {
        let result = self.result()?;
        let keys = self.players();
        let name =
            |k: Option<PlayerKey>| k.and_then(|k| players.get(&k)).and_then(|r| r.name.clone());
        let pgn = self.pgn(ByColor { white: name(keys.white), black: name(keys.black) });
        let seat = |color: Color| {
            let player = *keys.get(color);
            let outcome = match result.outcome {
                Outcome::Draw => PlayerResult::Draw,
                Outcome::Annulled => PlayerResult::Annulled,
                o if o == Outcome::win_for(color) => PlayerResult::Win,
                _ => PlayerResult::Loss,
            };
            FinishedSeat {
                player,
                cpu: false,
                result: Some(outcome),
                place: None,
                rating: diff_of(changes, player),
            }
        };
        Some(FinishedGame {
            id: 0,
            key: self.finished_key()?,
            code: self.code().clone(),
            game: lobby_game(self.variant()),
            hidden_setup: self.hidden_setup(),
            time_control: self.time_control(),
            rated: self.is_rated(),
            seats: vec![seat(Color::White), seat(Color::Black)],
            ended_ms,
            pgn,
            record: None,
        })
    }

    fn live(&self) -> Option<LiveRoom> {
        if !matches!(self.phase(), Phase::Setup | Phase::Playing) {
            return None;
        }
        let keys = self.players();
        Some(LiveRoom {
            game: lobby_game(self.variant()),
            hidden_setup: self.hidden_setup(),
            time_control: self.time_control(),
            rated: self.is_rated(),
            seats: vec![(keys.white, false), (keys.black, false)],
            ply: self.ply(),
            spectators: 0,
        })
    }

    fn rematch_seat(&self, token: &str) -> Result<Color, RoomError> {
        let seat = self.seat_of(token).ok_or_else(|| {
            RoomError::new(ErrorCode::Forbidden, "this token holds no seat in this room")
        })?;
        if self.phase() != Phase::Finished {
            return Err(RoomError::new(ErrorCode::WrongPhase, "a rematch comes after the game"));
        }
        Ok(seat)
    }

    fn seat_color(seat: Color) -> Option<Color> {
        Some(seat)
    }

    fn rematch_options(&self) -> Option<(RoomOptions, bool)> {
        let options = RoomOptions {
            variant: self.variant(),
            time_control: self.time_control(),
            hidden_setup: self.hidden_setup(),
            color: Some(Color::White),
        };
        Some((options, self.is_rated()))
    }

    fn record_ratings(&mut self, changes: &[RatingChange]) {
        Room::record_ratings(self, changes);
    }

    fn queue_with_players(
        &self,
        store: &Store,
        now: Millis,
        rows: Vec<PlayerRow>,
        expected: Vec<PlayerRev>,
    ) -> Result<Option<Committed>, StoreError> {
        store.queue_room_with_players(&self.to_record(now), rows, expected)
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

/// The lobby's name of a chess variant.
fn lobby_game(variant: Variant) -> LobbyGame {
    match variant {
        Variant::Chess => LobbyGame::Chess,
        Variant::Maharajah => LobbyGame::Maharajah,
        Variant::Horde => LobbyGame::Horde,
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
        let player = self.player;
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
                None => {
                    let mut room = room;
                    room.set_player(seat, player);
                    room
                }
            };
            Ok((room, seat))
        })
        .await
    }
}
