//! Chaturaji ("four kings"): four-player dice chess on an 8×8 board — rules, scoring, game records
//! and CPU players. Pure: no I/O, no clock; dice come from an injected RNG or from known faces.
//!
//! # Layout
//! - [`seat`]: [`Seat`] (Red, Blue, Yellow, Green; clockwise turn order) and [`BySeat`] tables.
//! - [`board`]: [`Square`], [`Role`], [`Piece`], [`Board`], starting armies, piece movement,
//!   pawn directions, promotion marks and thrones.
//! - [`dice`]: [`DiceKind`] (cubic, long), [`DieClass`], [`Die`], [`Unusable`] reasons.
//! - [`settings`]: [`Settings`] — every table setting with the spec's defaults.
//! - [`game`]: [`Game`], the state machine: [`Game::roll`] / [`Action::Roll`],
//!   [`Game::legal_moves`], [`Game::play`], [`Game::end_turn`], [`Game::time_out`],
//!   [`Game::resign`]; reports [`Event`]s and refuses with [`GameError`].
//! - [`fair`]: verifiable dice for networked tables: hash-chain commitments, per-turn reveals,
//!   [`fair::Verifier`], [`fair::DiceProof`] (kept in a [`Record`]); local tables keep seeded dice.
//! - [`rank`]: the final ranking ([`Standing`]) with shared places and rated results.
//! - [`record`]: the JSON game [`Record`], exact [`Record::replay`] with the first
//!   [`Violation`], and [`RecordedGame`] (a live game that writes its record).
//! - [`cpu`]: CPU players ([`cpu::Level`]) and [`cpu::play_out`] for self-play.
//! - `src/bin/chaturaji.rs`: replays a record file and prints scores, ranking and the first
//!   violation. `src/bin/chaturaji-bench.rs`: CPU win rates and decision times.
//! - `records/sample.json`: a complete recorded game (seed and dice), replayed by the CLI tests.
//! - `tests/`: property tests (`props.rs`) and the command line (`cli.rs`).
//!
//! # Driving a game (UI, server room)
//! 1. `Game::new(settings)`; show [`Game::board`], [`Game::scores`], [`Game::round`],
//!    [`Game::phase`].
//! 2. On [`Phase::Roll`], roll with the table's RNG ([`Game::roll`], or
//!    [`RecordedGame::roll`] to keep a replayable record). The returned [`Event`]s say which dice
//!    were discarded and why; [`Game::dice`] shows each die's face, class and state.
//! 3. On [`Phase::Move`], offer [`Game::legal_moves`] (and "end turn" when
//!    [`Game::can_end_turn`]); apply the choice with [`Game::apply`]. CPU seats call
//!    [`cpu::choose_action`].
//! 4. When [`Game::outcome`] is `Some`, show its [`EndReason`] and standings.
//!
//! Everything a peer needs (`Game`, `Action`, `Event`, `GameError`, `Settings`, `Record`) is
//! serde-serialisable.
//!
//! # Rule choices
//! Where the spec is silent, this crate decides as follows.
//! - **Dice usability is judged move by move.** After the roll and after each move, an unused die
//!   is usable if some piece of its class has a legal move *now*. The turn ends by itself as soon
//!   as no unused die is usable; those dice are discarded with their reason ([`Unusable::NoPiece`]
//!   or [`Unusable::Blocked`]). So a die blocked at the roll can become usable after the other
//!   die's move. "Must use all usable dice" forbids ending the turn while an unused die is usable.
//! - **Equal classes**: with two dice of the same class, either die may be named; legal move lists
//!   name the lower one only.
//! - **Boat triumph** is checked for the boat that moved (not a pawn promoted to a boat), on every
//!   2×2 square containing its destination; the completing seat captures the other three boats,
//!   2 points each (6), even boats of resigned seats. A triumph counts as a capture.
//! - **Throne points**: a king (also a promoted one) scores a rival's throne by moving onto it;
//!   a pawn promoting there does not. Each seat scores each rival throne once, whether or not the
//!   rival's king is still alive.
//! - **Promotion "only missing types"**: at the end of each move by the owner, its waiting pawns are
//!   checked in square order (a1 first); a pawn on a king square becomes a king if its owner has
//!   none. Option "always": the pawn on a king square stays a pawn for good. Promotion happens
//!   before the end-of-game checks of that move.
//! - **Chaturaji**: a seat has a king on the board, has itself captured a king of each other
//!   seat, and no other seat has a king on the board. Checked for every seat after every move
//!   (captures, boat triumphs and promotions happen only in moves), so a third seat's capture of
//!   the last rival king completes it for the seat that took the others. The score becomes 54
//!   (or stays if higher) and the game ends at once. Otherwise the game ends when at most one
//!   king is on the board.
//! - **Frozen seats**: a seat that resigned, or has no piece left, is skipped; a skipped turn still
//!   counts toward the round and the no-capture limit. A seat may resign at any time; if it is its
//!   turn, the turn passes.
//! - **No-capture limit**: the game ends after `4 × no_capture_rounds` consecutive turns
//!   (12 rounds by default) in which nothing was captured. [`Game::round`] is then the last round
//!   played (12 rounds from the start: round 12).
//! - **Round limit**: the game ends when round `round_limit` is complete (every seat has had its
//!   turn in it); a round starts with the game's first seat (for [`Game::from_position`], the
//!   seat that moves first there).
//! - **Ranking**: by points, then a king on the board, then the value of the pieces on the board,
//!   and nothing else: a resigned seat keeps the place these give it and is marked
//!   ([`Standing::resigned`]). Equal seats share the place (1, 1, 3).
//!   In rated play each pair of seats scores 1 / ½ / 0 ([`Standing::rated_result`]).
//! - **Time per turn**, **someone leaves** and **people vs CPU** are the room's business: the room
//!   owns the clock and calls [`Game::time_out`]; the settings carry the choice
//!   ([`settings::TurnTime`], [`settings::Player`], [`settings::LeaveRule`]).
//! - **CPU levels**: Random, Greedy (captures the most valuable piece it can), Medium (searches
//!   every way to play both dice and weighs what the rivals' dice could capture next) and Strong
//!   (the default: Medium plus expectimax over the next seat's dice).

pub mod board;
pub mod cpu;
pub mod dice;
pub mod fair;
pub mod game;
pub mod rank;
pub mod record;
pub mod seat;
pub mod settings;

pub use board::{Board, Piece, Role, Square};
pub use dice::{DiceKind, Die, DieClass, DieState, Unusable};
pub use game::{
    Action, CaptureKind, EndReason, Event, Game, GameError, Move, MoveRejection, Outcome, Phase,
};
pub use rank::Standing;
pub use record::{Record, RecordError, RecordedGame, Replay, Step, StepError, Violation};
pub use seat::{BySeat, Seat};
pub use settings::Settings;
