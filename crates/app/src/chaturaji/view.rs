//! What the UI draws of a Chaturaji table, local or on the network: [`TableView`] and
//! [`table_view`], which builds it from a game and the parts a table adds (ids, log, seats).

use maharajah_chaturaji::{
    BySeat, DieClass, DieState, Event, Game, Outcome, Phase, Role, Seat, Settings, Square,
    Standing, Unusable,
};
use serde::Serialize;

/// A piece on the board, for the UI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PieceView {
    /// Where it stands.
    pub square: Square,
    /// Its seat.
    pub seat: Seat,
    /// Its kind.
    pub role: Role,
}

/// A destination a die allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct StepView {
    /// From.
    pub from: Square,
    /// To.
    pub to: Square,
}

/// One die of the turn: its face, what it allows, and whether (or why not) it can be used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DieView {
    /// 0 or 1.
    pub index: u8,
    /// The face shown.
    pub face: u8,
    /// The class of piece it moves.
    pub class: DieClass,
    /// Unused, used, or discarded with a reason.
    pub state: DieState,
    /// Whether it can be played now.
    pub usable: bool,
    /// Why it cannot be played, if it is unused but unusable, or discarded.
    pub reason: Option<Unusable>,
    /// Every move it allows now.
    pub moves: Vec<StepView>,
}

/// Everything the UI draws of a table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TableView {
    /// The saved row (0 if storage is unavailable).
    pub id: i64,
    /// Grows with every action; the UI ignores older pushes.
    pub version: u64,
    /// The table settings (players included).
    pub settings: Settings,
    /// The dice seed: with the actions it replays the game.
    pub seed: u64,
    /// Actions so far (the record's length).
    pub actions: usize,
    /// The pieces on the board.
    pub pieces: Vec<PieceView>,
    /// Points per seat.
    pub scores: BySeat<u32>,
    /// Resigned seats.
    pub resigned: BySeat<bool>,
    /// Seats that no longer take turns (resigned or no pieces).
    pub frozen: BySeat<bool>,
    /// Seats with a king on the board.
    pub kings: BySeat<bool>,
    /// The seat to move.
    pub to_move: Seat,
    /// What the game waits for.
    pub phase: Phase,
    /// The round, from 1.
    pub round: u32,
    /// Consecutive turns without a capture.
    pub turns_without_capture: u32,
    /// The dice of the turn, once rolled.
    pub dice: Option<Vec<DieView>>,
    /// Whether the seat to move may end its turn now.
    pub can_end_turn: bool,
    /// Whether a CPU plays the seat to move (and the game is not over).
    pub cpu_to_move: bool,
    /// Milliseconds left of the time per turn, if the table has one.
    pub time_left_ms: Option<u64>,
    /// Recent events, oldest first.
    pub log: Vec<Event>,
    /// The current ranking (final once over).
    pub standings: Vec<Standing>,
    /// How the game ended.
    pub outcome: Option<Outcome>,
    /// For a network table: the room code, this device's seat and the seats' state.
    pub remote: Option<RemoteView>,
}

/// What a [`TableView`] needs besides the game.
#[derive(Debug, Clone)]
pub struct ViewParts {
    /// The table's id.
    pub id: i64,
    /// Its version.
    pub version: u64,
    /// The dice seed (0 when unknown).
    pub seed: u64,
    /// Steps played.
    pub actions: usize,
    /// Whether the CPU (not a person here) plays the seat to move.
    pub cpu_to_move: bool,
    /// Time left of the turn.
    pub time_left_ms: Option<u64>,
    /// Recent events.
    pub log: Vec<Event>,
    /// For a network table: the room and this device's seat.
    pub remote: Option<RemoteView>,
}

/// A network table as this device sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RemoteView {
    /// The room's access code (to share).
    pub code: String,
    /// While seats are free on an online server: the link that invites others (with the
    /// server) and its QR code. None on the Wi-Fi (the host's join code invites) and once the
    /// game has started.
    pub invite: Option<crate::link::Invite>,
    /// This device's seat.
    pub seat: Seat,
    /// Whether the game has started (every person seat taken).
    pub started: bool,
    /// Per seat: a person's seat, taken, connected, played by the CPU now.
    pub seats: Option<BySeat<maharajah_protocol::chaturaji::ChaturajiSeatView>>,
    /// The link to the server is up.
    pub connected: bool,
    /// A roll of this game that did not verify against the parties' links (the server or LAN
    /// host showed dice nobody rolled): the UI shows an alarm.
    pub dice_alarm: Option<DiceAlarmView>,
}

/// A roll that did not verify, for the UI's alarm banner.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiceAlarmView {
    /// The roll, from 1 (0: the commitments).
    pub roll: u32,
    /// What does not verify (technical detail, English).
    pub detail: String,
}

/// The view of `game` for the UI: pieces, dice with each die's moves or reason, scores.
#[must_use]
pub fn table_view(game: &Game, parts: ViewParts) -> TableView {
    let settings = game.settings();
    let board = game.board();
    let legal = game.legal_moves();
    let dice = game.dice().map(|dice| {
        dice.iter()
            .enumerate()
            .map(|(i, d)| {
                let index = i as u8;
                // Equal classes: legal moves name die 0 only, but either die may be used.
                let named =
                    if i == 1 && dice[0].state == DieState::Unused && dice[0].class == d.class {
                        0
                    } else {
                        index
                    };
                let usability = game.die_usability(index);
                let reason = match (d.state, usability) {
                    (DieState::Discarded(reason), _) => Some(reason),
                    (_, Some(Err(reason))) => Some(reason),
                    _ => None,
                };
                DieView {
                    index,
                    face: d.face,
                    class: d.class,
                    state: d.state,
                    usable: matches!(usability, Some(Ok(()))),
                    reason,
                    moves: legal
                        .iter()
                        .filter(|m| m.die == named && d.state == DieState::Unused)
                        .map(|m| StepView { from: m.from, to: m.to })
                        .collect(),
                }
            })
            .collect()
    });
    TableView {
        id: parts.id,
        version: parts.version,
        settings: settings.clone(),
        seed: parts.seed,
        actions: parts.actions,
        pieces: board
            .pieces()
            .map(|(square, p)| PieceView { square, seat: p.seat, role: p.role })
            .collect(),
        scores: game.scores(),
        resigned: game.resigned(),
        frozen: BySeat::from_fn(|s| game.is_frozen(s)),
        kings: BySeat::from_fn(|s| board.has_king(s)),
        to_move: game.to_move(),
        phase: game.phase(),
        round: game.round(),
        turns_without_capture: game.turns_without_capture(),
        dice,
        can_end_turn: game.can_end_turn(),
        cpu_to_move: parts.cpu_to_move,
        time_left_ms: parts.time_left_ms,
        log: parts.log,
        standings: game.standings(),
        outcome: game.outcome().cloned(),
        remote: parts.remote,
    }
}
