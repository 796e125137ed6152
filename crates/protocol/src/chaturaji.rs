//! Chaturaji rooms on the wire: four seats, verifiable dice, CPU stand-ins.
//!
//! A client speaks the usual `hello` first, then [`crate::ClientMsg::CreateChaturaji`],
//! [`crate::ClientMsg::JoinChaturaji`] or [`crate::ClientMsg::RejoinChaturaji`], and acts with
//! [`crate::ClientMsg::ChaturajiAct`]. The server answers with [`ChaturajiMsg`] frames inside
//! [`ServerMsg::Chaturaji`] (their own `t` tags) and the shared `welcome`, `pong` and `error`
//! frames; [`crate::decode_server`] reads them all.
//!
//! Room events are numbered from 1 without gaps, like chess rooms; a reconnecting client sends
//! its last number and gets the missed events or a [`ChaturajiSnapshot`].
//!
//! # Dice nobody can choose ([`maharajah_chaturaji::fair`])
//! 1. On `game_started` every seated device draws a secret seed, builds its hash chain and sends
//!    its chain end: [`ChaturajiAction::Commit`]. The room (the party of its CPU seats) commits
//!    its own. Once every connected person seat has committed, or the commit window
//!    ([`COMMIT_WINDOW_MS`]) has passed, the room fixes the parties: `dice_committed`, a
//!    [`DiceProof`] with every commitment (room first, then the seats in seat order).
//! 2. A roll (a person's `roll`, or the room's for a CPU seat or a stand-in) makes the room send
//!    `reveal_requested` for that roll; every committed device still in the dice answers with
//!    its next link, [`ChaturajiAction::Reveal`]. A device that does not answer within
//!    [`REVEAL_WINDOW_MS`] (or is not connected) is dropped from the dice for the rest of the
//!    game.
//! 3. The room derives the faces through the [`maharajah_chaturaji::fair::Verifier`] and sends
//!    the `played` roll with every party's link (`links`); each client re-derives the faces with
//!    its own verifier and raises an alarm when they differ or a link does not verify.
//!
//! `commit` and `reveal` go in `chaturaji_act` frames whose `step` is not checked; the room
//! answers them with nothing (a late or repeated one is ignored) or an `error` for a link that
//! does not verify. A person's `roll` is acknowledged once the roll is made, after the reveals.

use std::collections::VecDeque;

use maharajah_chaturaji::fair::{DiceProof, Link};
use maharajah_chaturaji::{
    game::Event, record::Step, BySeat, DieClass, DieState, Game, Move, Outcome, Seat, Settings,
    Unusable,
};
use serde::{Deserialize, Serialize};

use crate::{AccessCode, ServerMsg};

/// How long the room waits, after a game starts, for the seated devices' dice commitments.
pub const COMMIT_WINDOW_MS: u64 = 3_000;
/// How long the room waits for each party's link once it has asked for a roll's reveals.
pub const REVEAL_WINDOW_MS: u64 = 3_000;

/// What a seat asks the room to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "a", rename_all = "snake_case")]
pub enum ChaturajiAction {
    /// Roll the two dice (from every party's revealed link).
    Roll,
    /// Move one piece with one die.
    Move(Move),
    /// End the turn, leaving the unused dice.
    EndTurn,
    /// Resign (at any time).
    Resign,
    /// This device's dice commitment for game `game`: the end (link 0) of its hash chain of
    /// [`maharajah_chaturaji::fair::chain_length`] links.
    Commit {
        /// The game number (`game_started`).
        game: u32,
        /// Link 0 of the device's chain.
        commitment: Link,
    },
    /// This device's link for roll `roll` (from 1), answering `reveal_requested`.
    Reveal {
        /// The roll, from 1.
        roll: u32,
        /// The device's link number `roll`.
        link: Link,
    },
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
        /// For a roll of verifiable dice: every party's link (`null` for a party out of the
        /// dice), in the order of the `dice_committed` proof.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        links: Option<Vec<Option<Link>>>,
    },
    /// The dice parties are fixed: every commitment, in party order (no roll yet).
    DiceCommitted {
        /// The commitments; `rolls` is empty.
        proof: DiceProof,
    },
    /// The room needs every party's link for roll `roll` (from 1).
    RevealRequested {
        /// The roll, from 1.
        roll: u32,
    },
    /// The game ended; `outcome` has the reason and the ranking with shared places.
    GameOver {
        /// Why and the standings.
        outcome: Outcome,
    },
    /// A rated game's places changed the people's ratings (right after `game_over`); CPU
    /// seats have none.
    RatingsChanged {
        /// Each person seat's change (boxed: the event stays small).
        ratings: Box<BySeat<Option<crate::RatingChange>>>,
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
    /// The verifiable dice of the current game, once started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fair: Option<FairDice>,
    /// What happened lately in the current game: the events of its last steps, oldest first
    /// (at most [`LOG_LEN`](maharajah_chaturaji::game::LOG_LEN)), so a client that comes back
    /// shows the table's log without a gap. Absent from older servers: then empty.
    #[serde(default, skip_serializing_if = "VecDeque::is_empty")]
    pub log: VecDeque<Event>,
}

/// The verifiable dice of a game as every client sees them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FairDice {
    /// The room still collects commitments (`proof` has none yet).
    pub committing: bool,
    /// The commitments and every roll's links so far.
    pub proof: DiceProof,
    /// The roll whose links the room is waiting for, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reveal: Option<u32>,
}

impl FairDice {
    /// The dice of a game that has just started: commitments are being collected.
    #[must_use]
    pub fn committing(settings: &Settings) -> FairDice {
        let length = maharajah_chaturaji::fair::chain_length(settings);
        FairDice { committing: true, proof: DiceProof::new(length, Vec::new()), reveal: None }
    }
}

/// The name of a seat's party in a [`DiceProof`] (the room's is [`ROOM_PARTY`]).
#[must_use]
pub fn seat_party(seat: Seat) -> String {
    seat.name().to_owned()
}

/// The name of the room's party (it reveals for the CPU seats).
pub const ROOM_PARTY: &str = "room";

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
