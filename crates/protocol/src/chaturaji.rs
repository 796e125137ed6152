//! Chaturaji rooms on the wire: four seats, dice rolled by the server, CPU stand-ins.
//!
//! A client speaks the usual `hello` first, then [`crate::ClientMsg::CreateChaturaji`],
//! [`crate::ClientMsg::JoinChaturaji`] or [`crate::ClientMsg::RejoinChaturaji`], and acts with
//! [`crate::ClientMsg::ChaturajiAct`]. The server answers with [`ChaturajiMsg`] frames inside
//! [`ServerMsg::Chaturaji`] (their own `t` tags) and the shared `welcome`, `pong` and `error`
//! frames; [`crate::decode_server`] reads them all.
//!
//! Room events are numbered from 1 without gaps, like chess rooms; a reconnecting client sends
//! its last number and gets the missed events or a [`ChaturajiSnapshot`].

use maharajah_chaturaji::{
    game::Event, record::Step, BySeat, DieClass, DieState, Game, Move, Outcome, Seat, Settings,
    Unusable,
};
use serde::{Deserialize, Serialize};

use crate::{AccessCode, ServerMsg};

/// What a seat asks the room to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "a", rename_all = "snake_case")]
pub enum ChaturajiAction {
    /// Roll the two dice (the server rolls them).
    Roll,
    /// Move one piece with one die.
    Move(Move),
    /// End the turn, leaving the unused dice.
    EndTurn,
    /// Resign (at any time).
    Resign,
}

/// One die of the current turn, with whether it can be used now and, if not, why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DieView {
    /// The face shown.
    pub face: u8,
    /// The class of piece it allows.
    pub class: DieClass,
    /// Unused, used, or discarded with a reason.
    pub state: DieState,
    /// Whether a move can be made with it now.
    pub usable: bool,
    /// Why it cannot be used (discarded, or no piece of its class can move).
    pub reason: Option<Unusable>,
}

impl DieView {
    /// The dice of the turn in progress, with their usability now.
    pub fn of(game: &Game) -> Option<[DieView; 2]> {
        let dice = game.dice()?;
        let view = |i: u8| {
            let d = dice[usize::from(i)];
            let (usable, reason) = match (d.state, game.die_usability(i)) {
                (DieState::Discarded(r), _) => (false, Some(r)),
                (_, Some(Ok(()))) => (true, None),
                (_, Some(Err(r))) => (false, Some(r)),
                (_, None) => (false, None),
            };
            DieView { face: d.face, class: d.class, state: d.state, usable, reason }
        };
        Some([view(0), view(1)])
    }
}

/// What one seat looks like to everyone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChaturajiSeatView {
    /// A person's seat (otherwise a CPU seat).
    pub person: bool,
    /// A person has taken it.
    pub taken: bool,
    /// Its person is connected now.
    pub connected: bool,
    /// The CPU plays it now (a CPU seat, or a person's seat while they are away).
    pub cpu_playing: bool,
}

/// Something that happened in a Chaturaji room, sent inside [`ChaturajiMsg::ChaturajiEvent`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "e", rename_all = "snake_case")]
pub enum ChaturajiEvent {
    /// A person took a seat.
    SeatTaken {
        /// The seat.
        seat: Seat,
    },
    /// A person's connection came or went. Informational.
    Presence {
        /// The seat.
        seat: Seat,
        /// Connected now.
        connected: bool,
    },
    /// The CPU now plays this person's seat (they dropped).
    CpuTookOver {
        /// The seat.
        seat: Seat,
    },
    /// The person is back (same device): the seat is theirs again.
    HandedBack {
        /// The seat.
        seat: Seat,
    },
    /// A game started (every person seat taken, or a rematch).
    GameStarted {
        /// 1 for the room's first game, then 2, 3, …
        game: u32,
        /// The table settings of this game (`first_seat` moves first).
        settings: Settings,
        /// Time per turn, if any, in milliseconds.
        turn_ms: Option<u64>,
    },
    /// A game step was played.
    Played {
        /// Its number (the record index, from 0).
        step: u32,
        /// The seat it was played for (for a resignation, the resigning seat).
        seat: Seat,
        /// The room played it: a CPU seat, a stand-in for an absent person, or the turn timer.
        by_room: bool,
        /// The step as recorded (a roll carries its faces).
        action: Step,
        /// What happened: the roll with each die, discarded dice with reasons, the move,
        /// captures, promotions, the end of the turn, the end of the game with the ranking.
        events: Vec<Event>,
        /// The dice of the turn in progress after the step, with usability.
        dice: Option<[DieView; 2]>,
        /// Scores after the step.
        scores: BySeat<u32>,
        /// The seat to move after the step.
        to_move: Seat,
        /// The round after the step.
        round: u32,
        /// Milliseconds left for the seat to move, when turns are timed.
        turn_remaining_ms: Option<u64>,
    },
    /// The game ended; `outcome` has the reason and the ranking with shared places.
    GameOver {
        /// Why and the standings.
        outcome: Outcome,
    },
}

/// The whole visible state of a Chaturaji room.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChaturajiSnapshot {
    /// The room.
    pub code: AccessCode,
    /// The number of the last event included.
    pub seq: u64,
    /// The game number (0 while waiting for people before the first game).
    pub game_number: u32,
    /// The table settings of the current (or next) game.
    pub settings: Settings,
    /// The four seats.
    pub seats: BySeat<ChaturajiSeatView>,
    /// The game, once started (board, scores, dice, round, outcome).
    pub game: Option<Game>,
    /// Steps played in the current game.
    pub steps: u32,
    /// The dice of the turn in progress, with usability.
    pub dice: Option<[DieView; 2]>,
    /// Milliseconds left for the seat to move, when turns are timed.
    pub turn_remaining_ms: Option<u64>,
}

/// Messages from the server about a Chaturaji room, sent as [`ServerMsg::Chaturaji`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum ChaturajiMsg {
    /// The connection now acts for a seat; a snapshot or the missed events follow.
    ChaturajiSeated {
        /// The room.
        code: AccessCode,
        /// The seat.
        seat: Seat,
        /// The seat's secret token.
        token: String,
    },
    /// The whole visible state.
    ChaturajiSnapshot {
        /// The state.
        snapshot: Box<ChaturajiSnapshot>,
    },
    /// A numbered room event.
    ChaturajiEvent {
        /// The room.
        code: AccessCode,
        /// Event number, from 1 without gaps.
        seq: u64,
        /// What happened.
        event: ChaturajiEvent,
    },
    /// An action was accepted and stored (sent again identically for a resend).
    ChaturajiAck {
        /// The action's step.
        step: u32,
        /// The event number of its `played` event.
        seq: u64,
    },
}

impl ChaturajiMsg {
    /// Every value of the `t` tag, in declaration order.
    pub const TAGS: &'static [&'static str] =
        &["chaturaji_seated", "chaturaji_snapshot", "chaturaji_event", "chaturaji_ack"];
}

impl From<ChaturajiMsg> for ServerMsg {
    fn from(m: ChaturajiMsg) -> ServerMsg {
        ServerMsg::Chaturaji(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{decode_client, decode_server, encode, ClientMsg};

    #[test]
    fn chaturaji_messages_round_trip() {
        let act = ClientMsg::ChaturajiAct {
            token: "t".into(),
            step: 3,
            action: ChaturajiAction::Move(Move {
                die: 1,
                from: "b1".parse().expect("square"),
                to: "c3".parse().expect("square"),
            }),
        };
        let text = encode(&act);
        assert!(text.contains(r#""a":"move""#), "{text}");
        assert_eq!(decode_client(&text), Ok(act));
        let create = decode_client(
            r#"{"t":"create_chaturaji","settings":{"turn_time":"seconds30"},"device":"d"}"#,
        )
        .expect("create decodes with default fields");
        assert!(matches!(create, ClientMsg::CreateChaturaji { stand_in: None, .. }));
        let ack = ChaturajiMsg::ChaturajiAck { step: 3, seq: 9 };
        assert_eq!(decode_server(&encode(&ack)), Ok(ServerMsg::from(ack)));
        let pong = ServerMsg::Pong { nonce: 1, server_time_ms: 2 };
        assert_eq!(decode_server(&encode(&pong)), Ok(pong));
    }
}
