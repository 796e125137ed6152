//! The game state machine: rolling, moving, scoring, promotion, end of turn and end of game.

use std::collections::VecDeque;
use std::fmt;

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::board::{is_far_edge, promotion_mark, throne, Board, Piece, Role, Square};
use crate::dice::{Die, DieClass, DieState, Unusable};
use crate::rank::{standings, Standing};
use crate::seat::{BySeat, Seat};
use crate::settings::{DiceUse, Promotion, Settings, SettingsError};

/// Points a seat's score becomes on Chaturaji (unless it is already higher).
pub const CHATURAJI_POINTS: u32 = 54;
/// Points for a king entering a rival's throne (with throne points on).
pub const THRONE_POINTS: u32 = 5;

/// A move made with one die: the piece on `from` goes to `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Move {
    /// Which die is used: 0 or 1.
    pub die: u8,
    /// Where the piece stands.
    pub from: Square,
    /// Where it goes (empty, or holding another seat's piece, which is captured).
    pub to: Square,
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "die {} {}-{}", self.die, self.from, self.to)
    }
}

/// Anything a seat or the table can do to a game. Game records are lists of these.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum Action {
    /// The seat to move rolls; `dice` are the two faces that came up.
    Roll {
        /// The two faces.
        dice: [u8; 2],
    },
    /// The seat to move makes a move with one of its dice.
    Move(Move),
    /// The seat to move ends its turn, leaving its unused dice.
    EndTurn,
    /// The time per turn of the seat to move ran out.
    TimeOut,
    /// A seat resigns (at any time, on turn or not).
    Resign {
        /// The resigning seat.
        seat: Seat,
    },
}

/// How a piece was captured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CaptureKind {
    /// By moving onto it.
    Move,
    /// By a boat triumph.
    BoatTriumph,
}

/// How many recent events a table's log keeps for its screen.
pub const LOG_LEN: usize = 24;

/// Appends `events` to a table's `log`, keeping the last [`LOG_LEN`].
pub fn log_events(log: &mut VecDeque<Event>, events: impl IntoIterator<Item = Event>) {
    for event in events {
        if log.len() == LOG_LEN {
            log.pop_front();
        }
        log.push_back(event);
    }
}

/// Something that happened, reported by every action so a UI or a room can show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum Event {
    /// The seat to move rolled.
    Rolled {
        /// Who rolled.
        seat: Seat,
        /// The two dice.
        dice: [Die; 2],
    },
    /// A piece moved.
    Moved {
        /// Whose piece.
        seat: Seat,
        /// The move.
        mv: Move,
        /// The role of the piece that moved.
        role: Role,
    },
    /// A piece was captured.
    Captured {
        /// The capturing seat.
        by: Seat,
        /// Where the captured piece stood.
        square: Square,
        /// The captured piece.
        piece: Piece,
        /// Points scored for it.
        points: u32,
        /// By a move or by a boat triumph.
        kind: CaptureKind,
    },
    /// A king entered a rival throne for the first time.
    Throne {
        /// The king's seat.
        seat: Seat,
        /// Whose throne it entered.
        throne_of: Seat,
        /// Points scored.
        points: u32,
    },
    /// A pawn was promoted.
    Promoted {
        /// The pawn's seat.
        seat: Seat,
        /// Where it stands.
        square: Square,
        /// What it became.
        role: Role,
    },
    /// A die was discarded without a move.
    DieDiscarded {
        /// Which die (0 or 1).
        die: u8,
        /// Its face.
        face: u8,
        /// Why.
        reason: Unusable,
    },
    /// A seat achieved Chaturaji and its score became `points`.
    Chaturaji {
        /// The seat.
        seat: Seat,
        /// Its score now.
        points: u32,
    },
    /// A seat resigned.
    Resigned {
        /// The seat.
        seat: Seat,
    },
    /// A seat's turn ended.
    TurnEnded {
        /// Whose turn it was.
        seat: Seat,
    },
    /// A seat's turn was skipped because it resigned or has no pieces.
    TurnSkipped {
        /// The seat.
        seat: Seat,
    },
    /// The game ended.
    GameOver {
        /// Why it ended and the final ranking.
        outcome: Outcome,
    },
}

/// Why the game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum EndReason {
    /// A seat kept its king and captured the kings of all three others.
    Chaturaji {
        /// The seat.
        seat: Seat,
    },
    /// At most one king is left on the board.
    OneKingLeft,
    /// The set number of rounds passed without a capture.
    NoCaptures,
    /// The round limit was reached.
    RoundLimit,
    /// Three players resigned.
    Resignations,
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EndReason::Chaturaji { seat } => write!(f, "Chaturaji by {seat}"),
            EndReason::OneKingLeft => f.write_str("at most one king is left"),
            EndReason::NoCaptures => f.write_str("rounds without a capture"),
            EndReason::RoundLimit => f.write_str("round limit reached"),
            EndReason::Resignations => f.write_str("three players resigned"),
        }
    }
}

/// How a finished game ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// Why it ended.
    pub reason: EndReason,
    /// The final ranking, best first.
    pub standings: Vec<Standing>,
}

/// Why a move is not legal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MoveRejection {
    /// There is no piece on the from-square.
    EmptySquare,
    /// The piece belongs to another seat.
    NotYourPiece,
    /// The die does not allow a piece of this role.
    WrongClass,
    /// The piece cannot go there (not its movement, blocked, or the seat's own piece stands there).
    Unreachable,
}

impl fmt::Display for MoveRejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MoveRejection::EmptySquare => "no piece stands there",
            MoveRejection::NotYourPiece => "that piece belongs to another seat",
            MoveRejection::WrongClass => "the die does not allow that piece",
            MoveRejection::Unreachable => "that piece cannot move there",
        })
    }
}

/// An action that the rules do not allow now. The game is left untouched.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum GameError {
    /// The game is over.
    #[error("the game is over")]
    GameOver,
    /// A move or end of turn was attempted before rolling.
    #[error("{seat} must roll the dice first")]
    NotRolled {
        /// The seat to move.
        seat: Seat,
    },
    /// A roll was attempted while the dice of this turn are in play.
    #[error("{seat} has already rolled this turn")]
    AlreadyRolled {
        /// The seat to move.
        seat: Seat,
    },
    /// A rolled face does not exist on the table's dice.
    #[error("face {face} does not exist on {kind} dice")]
    BadFace {
        /// The face.
        face: u8,
        /// The dice of the table.
        kind: crate::dice::DiceKind,
    },
    /// The die index is not 0 or 1.
    #[error("there is no die {die} (dice are 0 and 1)")]
    NoSuchDie {
        /// The index given.
        die: u8,
    },
    /// The die was already used or discarded.
    #[error("die {die} has already been used or discarded")]
    DieSpent {
        /// The index given.
        die: u8,
    },
    /// The move is not legal.
    #[error("illegal move {mv}: {reason}")]
    IllegalMove {
        /// The move, handed back.
        mv: Move,
        /// Why.
        reason: MoveRejection,
    },
    /// The player tried to end the turn while a usable die is left and the table says every usable
    /// die must be used.
    #[error("every usable die must be used before the turn ends")]
    MustUseDice,
    /// The seat has already resigned.
    #[error("{seat} has already resigned")]
    AlreadyResigned {
        /// The seat.
        seat: Seat,
    },
    /// The settings are out of range.
    #[error("invalid settings: {error}")]
    Settings {
        /// What is out of range.
        #[from]
        error: SettingsError,
    },
}

/// What the game waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum Phase {
    /// `seat` must roll.
    Roll {
        /// The seat to move.
        seat: Seat,
    },
    /// `seat` plays its dice.
    Move {
        /// The seat to move.
        seat: Seat,
    },
    /// The game is over.
    Over,
}

/// A game of Chaturaji: the board, the scores, whose turn it is and the dice in play.
///
/// Pure: the dice come from [`Game::roll`] with an injected RNG, or from [`Action::Roll`] with
/// known faces (a record, a server that rolled).
///
/// # Examples
/// ```
/// use maharajah_chaturaji::{Game, Settings, Seat};
/// use rand::SeedableRng;
///
/// let mut game = Game::new(Settings::default()).unwrap();
/// let mut dice = rand_chacha::ChaCha8Rng::seed_from_u64(1);
/// game.roll(&mut dice).unwrap();
/// while let Some(&mv) = game.legal_moves().first() {
///     game.play(mv).unwrap();
/// }
/// assert_eq!(game.to_move(), Seat::Blue);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Game {
    settings: Settings,
    board: Board,
    scores: BySeat<u32>,
    resigned: BySeat<bool>,
    to_move: Seat,
    dice: Option<[Die; 2]>,
    round: u32,
    turns_without_capture: u32,
    captured_this_turn: bool,
    /// `kings_taken[captor][victim]`: the captor has captured a king of the victim.
    kings_taken: BySeat<BySeat<bool>>,
    /// `thrones[seat][owner]`: seat's king has scored the owner's throne.
    thrones: BySeat<BySeat<bool>>,
    /// The seat each round starts with, when it is not the settings' first seat (a custom
    /// position whose first mover is another seat).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    round_start: Option<Seat>,
    outcome: Option<Outcome>,
}

impl Game {
    /// A new game in the starting position, the first seat to roll.
    ///
    /// # Errors
    /// [`GameError::Settings`] if a setting is out of range.
    pub fn new(settings: Settings) -> Result<Game, GameError> {
        Game::from_position(settings, Board::start(), None)
    }

    /// A game from a custom position (puzzles, tests): `to_move` defaults to the settings' first
    /// seat. Scores start at zero and round 1 begins with `to_move`; every round starts with that
    /// seat.
    ///
    /// # Errors
    /// [`GameError::Settings`] if a setting is out of range.
    pub fn from_position(
        settings: Settings,
        board: Board,
        to_move: Option<Seat>,
    ) -> Result<Game, GameError> {
        settings.validate()?;
        let first = to_move.unwrap_or(settings.first_seat);
        Ok(Game {
            round_start: (first != settings.first_seat).then_some(first),
            to_move: first,
            settings,
            board,
            scores: BySeat::default(),
            resigned: BySeat::default(),
            dice: None,
            round: 1,
            turns_without_capture: 0,
            captured_this_turn: false,
            kings_taken: BySeat::default(),
            thrones: BySeat::default(),
            outcome: None,
        })
    }

    /// The table settings.
    #[must_use]
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The board.
    #[must_use]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Each seat's points.
    #[must_use]
    pub fn scores(&self) -> BySeat<u32> {
        self.scores
    }

    /// Which seats have resigned.
    #[must_use]
    pub fn resigned(&self) -> BySeat<bool> {
        self.resigned
    }

    /// The seat whose turn it is (the last one to move once the game is over).
    #[must_use]
    pub fn to_move(&self) -> Seat {
        self.to_move
    }

    /// The current round, from 1.
    #[must_use]
    pub fn round(&self) -> u32 {
        self.round
    }

    /// Consecutive turns that ended without a capture.
    #[must_use]
    pub fn turns_without_capture(&self) -> u32 {
        self.turns_without_capture
    }

    /// The two dice of the current turn, once rolled.
    #[must_use]
    pub fn dice(&self) -> Option<[Die; 2]> {
        self.dice
    }

    /// Whether `captor` has captured a king of `victim`.
    #[must_use]
    pub fn has_taken_king(&self, captor: Seat, victim: Seat) -> bool {
        self.kings_taken[captor][victim]
    }

    /// How the game ended, once it is over.
    #[must_use]
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    /// Whether the game is over.
    #[must_use]
    pub fn is_over(&self) -> bool {
        self.outcome.is_some()
    }

    /// What the game waits for.
    #[must_use]
    pub fn phase(&self) -> Phase {
        if self.is_over() {
            Phase::Over
        } else if self.dice.is_some() {
            Phase::Move { seat: self.to_move }
        } else {
            Phase::Roll { seat: self.to_move }
        }
    }

    /// The current ranking (final once the game is over).
    #[must_use]
    pub fn standings(&self) -> Vec<Standing> {
        standings(&self.board, self.scores, self.resigned)
    }

    /// Whether `seat` no longer takes turns: it resigned, or it has no piece left.
    #[must_use]
    pub fn is_frozen(&self, seat: Seat) -> bool {
        self.resigned[seat] || self.board.pieces_of(seat).next().is_none()
    }

    // ----- rolling -------------------------------------------------------------------------

    /// Rolls the two dice of the seat to move with `rng` and applies the roll.
    ///
    /// # Errors
    /// [`GameError::GameOver`] or [`GameError::AlreadyRolled`].
    pub fn roll(&mut self, rng: &mut impl Rng) -> Result<Vec<Event>, GameError> {
        self.check_roll()?;
        let kind = self.settings.dice;
        let dice = [kind.roll(rng), kind.roll(rng)];
        self.roll_with(dice)
    }

    /// Applies a roll whose faces are known. Dice that no piece can use are reported; when no die
    /// is usable the turn ends at once.
    ///
    /// # Errors
    /// [`GameError::GameOver`], [`GameError::AlreadyRolled`] or [`GameError::BadFace`].
    pub fn roll_with(&mut self, faces: [u8; 2]) -> Result<Vec<Event>, GameError> {
        self.check_roll()?;
        let kind = self.settings.dice;
        let mut dice = [Die { face: 0, class: DieClass::Boat, state: DieState::Unused }; 2];
        for (die, &face) in dice.iter_mut().zip(&faces) {
            let class = kind.class_of(face).ok_or(GameError::BadFace { face, kind })?;
            *die = Die { face, class, state: DieState::Unused };
        }
        let mut events = vec![Event::Rolled { seat: self.to_move, dice }];
        self.dice = Some(dice);
        self.captured_this_turn = false;
        self.end_turn_if_stuck(&mut events);
        Ok(events)
    }

    /// Checks that the seat to move may roll now.
    ///
    /// # Errors
    /// [`GameError::GameOver`] or [`GameError::AlreadyRolled`].
    pub fn check_roll(&self) -> Result<(), GameError> {
        match self.phase() {
            Phase::Over => Err(GameError::GameOver),
            Phase::Move { seat } => Err(GameError::AlreadyRolled { seat }),
            Phase::Roll { .. } => Ok(()),
        }
    }

    // ----- moving --------------------------------------------------------------------------

    /// Whether die `die` can be used now, or why not. `None` if there is no such unused die.
    #[must_use]
    pub fn die_usability(&self, die: u8) -> Option<Result<(), Unusable>> {
        let d = self.dice?.get(usize::from(die)).copied()?;
        if d.state != DieState::Unused {
            return None;
        }
        Some(self.class_usability(d.class))
    }

    fn class_usability(&self, class: DieClass) -> Result<(), Unusable> {
        let mut has_piece = false;
        for (from, piece) in self.board.pieces_of(self.to_move) {
            if class.allows(piece.role) {
                has_piece = true;
                let mut any = false;
                self.board.for_each_target(from, |_| any = true);
                if any {
                    return Ok(());
                }
            }
        }
        Err(if has_piece { Unusable::Blocked } else { Unusable::NoPiece })
    }

    /// Every legal move now, in a fixed order. When both unused dice allow the same class, the
    /// moves are listed for the lower die only (either die may be named when playing).
    #[must_use]
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut moves = Vec::new();
        self.for_each_legal_move(|mv| moves.push(mv));
        moves
    }

    /// Calls `f` for every legal move, as [`Game::legal_moves`] lists them.
    pub fn for_each_legal_move(&self, mut f: impl FnMut(Move)) {
        if self.is_over() {
            return;
        }
        let Some(dice) = self.dice else { return };
        for (i, d) in dice.iter().enumerate() {
            if d.state != DieState::Unused {
                continue;
            }
            if i == 1 && dice[0].state == DieState::Unused && dice[0].class == d.class {
                continue;
            }
            let die = i as u8;
            for (from, piece) in self.board.pieces_of(self.to_move) {
                if d.class.allows(piece.role) {
                    self.board.for_each_target(from, |to| f(Move { die, from, to }));
                }
            }
        }
    }

    /// Every action the seat to move may take now: its legal moves, then [`Action::EndTurn`] when
    /// allowed. Empty while waiting for a roll (the table rolls) and once the game is over;
    /// resignation is always open to a seat that has not resigned.
    #[must_use]
    pub fn legal_actions(&self) -> Vec<Action> {
        let mut actions: Vec<Action> = self.legal_moves().into_iter().map(Action::Move).collect();
        if self.can_end_turn() {
            actions.push(Action::EndTurn);
        }
        actions
    }

    /// Whether the seat to move may end its turn now.
    #[must_use]
    pub fn can_end_turn(&self) -> bool {
        self.check_end_turn().is_ok()
    }

    /// Checks a move without making it.
    ///
    /// # Errors
    /// Why the move is not legal now.
    pub fn check_move(&self, mv: Move) -> Result<(), GameError> {
        let dice = self.dice_in_play()?;
        let d = dice.get(usize::from(mv.die)).ok_or(GameError::NoSuchDie { die: mv.die })?;
        if d.state != DieState::Unused {
            return Err(GameError::DieSpent { die: mv.die });
        }
        let reject = |reason| Err(GameError::IllegalMove { mv, reason });
        let Some(piece) = self.board.get(mv.from) else {
            return reject(MoveRejection::EmptySquare);
        };
        if piece.seat != self.to_move {
            return reject(MoveRejection::NotYourPiece);
        }
        if !d.class.allows(piece.role) {
            return reject(MoveRejection::WrongClass);
        }
        let mut reachable = false;
        self.board.for_each_target(mv.from, |to| reachable |= to == mv.to);
        if !reachable {
            return reject(MoveRejection::Unreachable);
        }
        Ok(())
    }

    /// Makes a move with one die: captures, boat triumph, throne points, promotion, Chaturaji and
    /// the other ends of the game are all applied. The turn ends by itself when no unused die is
    /// usable afterwards.
    ///
    /// # Errors
    /// Why the move is not legal; the game is untouched.
    pub fn play(&mut self, mv: Move) -> Result<Vec<Event>, GameError> {
        self.check_move(mv)?;
        let mut events = Vec::new();
        self.play_unchecked(mv, &mut events);
        Ok(events)
    }

    /// Makes a move known to be legal (from [`Game::legal_moves`]), appending what happened to
    /// `events`. Use [`Game::play`] for moves from outside.
    pub fn play_unchecked(&mut self, mv: Move, events: &mut Vec<Event>) {
        let seat = self.to_move;
        let Some(piece) = self.board.set(mv.from, None) else { return };
        if let Some(dice) = self.dice.as_mut() {
            dice[usize::from(mv.die)].state = DieState::Used;
        }
        events.push(Event::Moved { seat, mv, role: piece.role });
        if let Some(victim) = self.board.set(mv.to, Some(piece)) {
            self.capture(seat, mv.to, victim, CaptureKind::Move, events);
        }
        if piece.role == Role::Boat && self.settings.boat_triumph {
            self.boat_triumph(seat, mv.to, events);
        }
        if piece.role == Role::King && self.settings.throne_points {
            for owner in seat.others() {
                if mv.to == throne(owner) && !self.thrones[seat][owner] {
                    self.thrones[seat][owner] = true;
                    self.scores[seat] += THRONE_POINTS;
                    events.push(Event::Throne { seat, throne_of: owner, points: THRONE_POINTS });
                }
            }
        }
        self.promote(seat, mv.to, events);
        if self.check_end_after_move(events) {
            return;
        }
        self.end_turn_if_stuck(events);
    }

    fn capture(
        &mut self,
        by: Seat,
        square: Square,
        victim: Piece,
        kind: CaptureKind,
        events: &mut Vec<Event>,
    ) {
        let points = victim.role.value();
        self.scores[by] += points;
        self.captured_this_turn = true;
        if victim.role == Role::King {
            self.kings_taken[by][victim.seat] = true;
        }
        events.push(Event::Captured { by, square, piece: victim, points, kind });
    }

    /// Captures the other three boats of every 2×2 square that the boat on `at` completes with one
    /// boat of each seat.
    fn boat_triumph(&mut self, seat: Seat, at: Square, events: &mut Vec<Event>) {
        for (df, dr) in [(-1, -1), (-1, 0), (0, -1), (0, 0)] {
            let Some(corner) = at.offset(df, dr) else { continue };
            let block = [(0, 0), (1, 0), (0, 1), (1, 1)].map(|(f, r)| corner.offset(f, r));
            let mut boats = Vec::with_capacity(4);
            for sq in block.into_iter().flatten() {
                if let Some(p) = self.board.get(sq).filter(|p| p.role == Role::Boat) {
                    boats.push((sq, p));
                }
            }
            let all_seats = Seat::ALL.iter().all(|&s| boats.iter().any(|(_, p)| p.seat == s));
            if boats.len() == 4 && all_seats {
                for (sq, p) in boats.into_iter().filter(|(_, p)| p.seat != seat) {
                    self.board.set(sq, None);
                    self.capture(seat, sq, p, CaptureKind::BoatTriumph, events);
                }
            }
        }
    }

    /// Promotes `seat`'s pawns per the table's promotion rule, after one of its moves to `to`.
    fn promote(&mut self, seat: Seat, to: Square, events: &mut Vec<Event>) {
        match self.settings.promotion {
            Promotion::Always => {
                let Some(piece) = self.board.get(to) else { return };
                if piece.role != Role::Pawn || !is_far_edge(seat, to) {
                    return;
                }
                if let Some(role) = promotion_mark(seat, to).filter(|&r| r != Role::King) {
                    self.board.set(to, Some(Piece { seat, role }));
                    events.push(Event::Promoted { seat, square: to, role });
                }
            }
            Promotion::OnlyMissingTypes => {
                let waiting: Vec<Square> = self
                    .board
                    .pieces_of(seat)
                    .filter(|&(sq, p)| p.role == Role::Pawn && is_far_edge(seat, sq))
                    .map(|(sq, _)| sq)
                    .collect();
                for square in waiting {
                    let Some(role) = promotion_mark(seat, square) else { continue };
                    if !self.board.has_role(seat, role) {
                        self.board.set(square, Some(Piece { seat, role }));
                        events.push(Event::Promoted { seat, square, role });
                    }
                }
            }
        }
    }

    /// Whether `seat` has Chaturaji now: it keeps a king, has itself captured a king of each
    /// other seat, and no other seat has a king left on the board.
    fn has_chaturaji(&self, seat: Seat) -> bool {
        self.board.has_king(seat)
            && seat.others().iter().all(|&o| self.kings_taken[seat][o] && !self.board.has_king(o))
    }

    /// Applies Chaturaji and "at most one king left" after a move (the only action that captures
    /// or promotes); returns whether the game ended. Every seat's Chaturaji is checked, not only
    /// the mover's: a third seat's capture of the last rival king can complete it (at most one
    /// seat can have it, since it needs every other king gone).
    fn check_end_after_move(&mut self, events: &mut Vec<Event>) -> bool {
        if let Some(seat) = Seat::ALL.into_iter().find(|&s| self.has_chaturaji(s)) {
            self.scores[seat] = self.scores[seat].max(CHATURAJI_POINTS);
            events.push(Event::Chaturaji { seat, points: self.scores[seat] });
            self.finish(EndReason::Chaturaji { seat }, events);
            true
        } else if self.board.kings_on_board() <= 1 {
            self.finish(EndReason::OneKingLeft, events);
            true
        } else {
            false
        }
    }

    // ----- ending turns and games ----------------------------------------------------------

    /// The dice of the turn in progress, or why no move can be made now.
    fn dice_in_play(&self) -> Result<[Die; 2], GameError> {
        match (self.is_over(), self.dice) {
            (true, _) => Err(GameError::GameOver),
            (false, None) => Err(GameError::NotRolled { seat: self.to_move }),
            (false, Some(dice)) => Ok(dice),
        }
    }

    fn check_end_turn(&self) -> Result<(), GameError> {
        let dice = self.dice_in_play()?;
        if self.settings.dice_use == DiceUse::MustUseAll
            && dice
                .iter()
                .any(|d| d.state == DieState::Unused && self.class_usability(d.class).is_ok())
        {
            return Err(GameError::MustUseDice);
        }
        Ok(())
    }

    /// Ends the turn of the seat to move; its unused dice are discarded as declined.
    ///
    /// # Errors
    /// [`GameError::GameOver`], [`GameError::NotRolled`], or [`GameError::MustUseDice`] when the
    /// table requires every usable die to be used.
    pub fn end_turn(&mut self) -> Result<Vec<Event>, GameError> {
        self.check_end_turn()?;
        let mut events = Vec::new();
        self.discard_and_pass(|_| Unusable::Declined, &mut events);
        Ok(events)
    }

    /// The time per turn of the seat to move ran out: its unused dice are discarded (or its roll
    /// forfeited) and the turn passes.
    ///
    /// # Errors
    /// [`GameError::GameOver`].
    pub fn time_out(&mut self) -> Result<Vec<Event>, GameError> {
        if self.is_over() {
            return Err(GameError::GameOver);
        }
        let mut events = Vec::new();
        self.discard_and_pass(|_| Unusable::TimeRanOut, &mut events);
        Ok(events)
    }

    /// `seat` resigns. Its army stays on the board, frozen, and can still be captured. If it was
    /// its turn, the turn passes; when three seats have resigned the game ends.
    ///
    /// # Errors
    /// [`GameError::GameOver`] or [`GameError::AlreadyResigned`].
    pub fn resign(&mut self, seat: Seat) -> Result<Vec<Event>, GameError> {
        if self.is_over() {
            return Err(GameError::GameOver);
        }
        if self.resigned[seat] {
            return Err(GameError::AlreadyResigned { seat });
        }
        self.resigned[seat] = true;
        let mut events = vec![Event::Resigned { seat }];
        if Seat::ALL.iter().filter(|&&s| self.resigned[s]).count() >= 3 {
            self.finish(EndReason::Resignations, &mut events);
        } else if seat == self.to_move {
            self.discard_and_pass(|_| Unusable::Resigned, &mut events);
        }
        Ok(events)
    }

    /// Applies any action.
    ///
    /// # Errors
    /// As the method for that action.
    pub fn apply(&mut self, action: Action) -> Result<Vec<Event>, GameError> {
        match action {
            Action::Roll { dice } => self.roll_with(dice),
            Action::Move(mv) => self.play(mv),
            Action::EndTurn => self.end_turn(),
            Action::TimeOut => self.time_out(),
            Action::Resign { seat } => self.resign(seat),
        }
    }

    /// Ends the turn when no unused die can be used, discarding those dice with their reasons.
    fn end_turn_if_stuck(&mut self, events: &mut Vec<Event>) {
        let Some(dice) = self.dice else { return };
        let stuck = dice
            .iter()
            .all(|d| d.state != DieState::Unused || self.class_usability(d.class).is_err());
        if stuck {
            let reasons =
                dice.map(|d| self.class_usability(d.class).err().unwrap_or(Unusable::Blocked));
            self.discard_and_pass(|i| reasons[i], events);
        }
    }

    fn discard_unused(&mut self, reason: impl Fn(usize) -> Unusable, events: &mut Vec<Event>) {
        if let Some(dice) = self.dice.as_mut() {
            for (i, d) in dice.iter_mut().enumerate() {
                if d.state == DieState::Unused {
                    let why = reason(i);
                    d.state = DieState::Discarded(why);
                    events.push(Event::DieDiscarded { die: i as u8, face: d.face, reason: why });
                }
            }
        }
    }

    fn discard_and_pass(&mut self, reason: impl Fn(usize) -> Unusable, events: &mut Vec<Event>) {
        self.discard_unused(reason, events);
        self.pass_turn(events);
    }

    /// Passes the turn clockwise, skipping frozen seats, counting rounds and turns without a
    /// capture, and ending the game at the round or no-capture limit.
    fn pass_turn(&mut self, events: &mut Vec<Event>) {
        events.push(Event::TurnEnded { seat: self.to_move });
        let mut captured = self.captured_this_turn;
        loop {
            if captured {
                self.turns_without_capture = 0;
            } else {
                self.turns_without_capture += 1;
            }
            captured = false;
            self.captured_this_turn = false;
            self.dice = None;
            self.to_move = self.to_move.next();
            // A game that ends here ends in the round just played: the round number is only
            // advanced when the next round is really played.
            let new_round = self.to_move == self.round_start.unwrap_or(self.settings.first_seat);
            if new_round && self.round >= self.settings.round_limit {
                self.finish(EndReason::RoundLimit, events);
                return;
            }
            if self.turns_without_capture >= 4 * self.settings.no_capture_rounds {
                self.finish(EndReason::NoCaptures, events);
                return;
            }
            if new_round {
                self.round += 1;
            }
            if !self.is_frozen(self.to_move) {
                return;
            }
            events.push(Event::TurnSkipped { seat: self.to_move });
        }
    }

    fn finish(&mut self, reason: EndReason, events: &mut Vec<Event>) {
        self.discard_unused(|_| Unusable::GameOver, events);
        let outcome = Outcome { reason, standings: self.standings() };
        events.push(Event::GameOver { outcome: outcome.clone() });
        self.outcome = Some(outcome);
    }
}

#[cfg(test)]
mod tests;
