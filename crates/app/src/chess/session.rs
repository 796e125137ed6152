//! One game on this device: the engine's [`Game`], who plays it, its clock and how it ended.
//! Plain Rust with injected time (`now` in milliseconds), so every rule of a local game is tested
//! without a window. The UI receives [`GameView`] snapshots; it implements no rules itself.

use maharajah_analysis::{to_annotated_pgn, MoveTree};
use maharajah_engine::clock::{Clock, TimeControl};
use maharajah_engine::{
    from_pgn, to_pgn, ByColor, Color, Game, Move, PgnTags, Piece, Position, Role, Square, Status,
    Variant,
};
use serde::Serialize;

pub use crate::error::SessionError;
pub use crate::record::{AidKind, AidUse, EndReason, GameRecord, GameResult, Names, Opponent};

/// A piece on a square, for drawing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PieceView {
    /// Where it stands.
    pub square: Square,
    /// Its owner.
    pub color: Color,
    /// Its kind.
    pub role: Role,
}

/// A move as two squares, for highlighting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MoveView {
    /// Origin.
    pub from: Square,
    /// Destination.
    pub to: Square,
}

/// The aids as the game screen shows them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AidsView {
    /// The hint is on.
    pub hint: bool,
    /// The threat view is on.
    pub threat: bool,
    /// The square of the piece the engine would move, once found (hint on, person to move).
    pub hint_square: Option<Square>,
    /// The move the opponent would make if it were its turn, once found (threat on).
    pub threat_move: Option<MoveView>,
    /// The engine is looking for an aid now.
    pub thinking: bool,
    /// Hints shown in this game so far.
    pub hints_used: usize,
    /// Threats shown in this game so far.
    pub threats_used: usize,
}

/// A board to draw: pieces, the last move and the checked king.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BoardView {
    /// Every piece on the board.
    pub pieces: Vec<PieceView>,
    /// The move that led here.
    pub last_move: Option<MoveView>,
    /// The square of a king in check.
    pub check: Option<Square>,
    /// Side to move.
    pub turn: Color,
    /// Plies played to reach this board.
    pub ply: usize,
}

/// A board of the move list under review, with what had been captured by then: the player bars
/// follow the move shown, not the live game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReviewView {
    /// The board after `ply` moves.
    #[serde(flatten)]
    pub board: BoardView,
    /// Pieces each side had captured by then.
    pub captured: Captured,
    /// Material balance then, White minus Black, in army points.
    pub material: i32,
}

/// The clock as the UI shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ClockView {
    /// White's time left in milliseconds.
    pub white_ms: u64,
    /// Black's time left in milliseconds.
    pub black_ms: u64,
    /// The side whose time runs.
    pub running: Option<Color>,
    /// The time control.
    pub control: TimeControl,
}

/// Pieces each side has captured.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Captured {
    /// Pieces White took (black pieces).
    pub white: Vec<Role>,
    /// Pieces Black took (white pieces).
    pub black: Vec<Role>,
}

/// Everything the game screen shows, computed by the backend.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GameView {
    /// The saved game's id.
    pub id: i64,
    /// Chess, Maharajah or Horde.
    pub variant: Variant,
    /// Pass-and-play or the computer.
    pub opponent: Opponent,
    /// The players' names in pass-and-play (a side without one goes by its colour).
    pub names: Names,
    /// The current board.
    pub board: BoardView,
    /// Legal moves in UCI (promotions list one move per role the side may choose).
    pub legal: Vec<Move>,
    /// The moves played, in SAN.
    pub history: Vec<String>,
    /// Captured pieces.
    pub captured: Captured,
    /// Material balance (White minus Black), in army points.
    pub material: i32,
    /// A draw the side to move may claim now.
    pub claimable: Option<EndReason>,
    /// A standing draw offer by this side.
    pub draw_offer: Option<Color>,
    /// The clock is paused (a local game; a move or Resume starts it again).
    pub paused: bool,
    /// The result, once the game is over.
    pub result: Option<GameResult>,
    /// The clock, when the game has one.
    pub clock: Option<ClockView>,
    /// The current position as FEN.
    pub fen: String,
    /// `true` while the computer is thinking about its move.
    pub thinking: bool,
    /// Each side's Maharajah status (classic or variant); `None` outside Maharajah games.
    pub statuses: Option<Statuses>,
    /// The hint and the threat view; `None` outside games against the computer.
    pub aids: Option<AidsView>,
}

/// Both sides' Maharajah status, fixed at the start (rules/maharajah.md §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Statuses {
    /// White's status.
    pub white: Status,
    /// Black's status.
    pub black: Status,
}

/// A game in progress or finished on this device.
#[derive(Debug, Clone)]
pub struct Session {
    id: i64,
    opponent: Opponent,
    game: Game,
    clock: Option<Clock>,
    result: Option<GameResult>,
    draw_offer: Option<Color>,
    created_at: i64,
    aids: Vec<AidUse>,
    /// The clock is stopped by the person (the menu opened, the app went to the background).
    paused: bool,
    /// The players' names (pass-and-play).
    names: Names,
}

pub(crate) fn board_of(position: &Position, last: Option<Move>, ply: usize) -> BoardView {
    let check = if position.is_check() { position.king_of(position.turn()) } else { None };
    BoardView {
        pieces: position
            .pieces()
            .map(|(square, Piece { color, role })| PieceView { square, color, role })
            .collect(),
        last_move: last.map(|m| MoveView { from: m.from, to: m.to }),
        check,
        turn: position.turn(),
        ply,
    }
}

/// Material balance of `position`, White minus Black, in army points.
fn material(position: &Position) -> i32 {
    let mut balance = 0i32;
    for (_, piece) in position.pieces() {
        let value = i32::try_from(piece.role.cost()).unwrap_or(0);
        balance += if piece.color == Color::White { value } else { -value };
    }
    balance
}

impl GameView {
    /// The view of `game` with its moves in SAN (`history`) and the pieces each side took, as
    /// its owner keeps them: the board, the legal moves and a claimable draw (none once
    /// `finished`), material, FEN and statuses. What only the owner knows is left empty: the id
    /// (0), the opponent (a person), the draw offer, the result and the clock.
    #[must_use]
    pub fn of_game(
        game: &Game,
        history: Vec<String>,
        captured: Captured,
        finished: bool,
    ) -> GameView {
        let position = game.position();
        GameView {
            id: 0,
            variant: game.start().rules().variant,
            opponent: Opponent::Human,
            names: Names::default(),
            board: board_of(position, game.moves().last().copied(), game.moves().len()),
            legal: if finished {
                Vec::new()
            } else {
                position.legal_moves().iter().copied().collect()
            },
            history,
            captured,
            material: material(position),
            claimable: if finished { None } else { game.claimable_draw().map(Into::into) },
            draw_offer: None,
            paused: false,
            result: None,
            clock: None,
            fen: position.to_string(),
            thinking: false,
            statuses: match (
                position.rules().side(Color::White).status,
                position.rules().side(Color::Black).status,
            ) {
                (Some(white), Some(black)) => Some(Statuses { white, black }),
                _ => None,
            },
            aids: None,
        }
    }
}

impl Session {
    /// A new game from `start`. The clock, if any, starts after White's first move.
    #[must_use]
    pub fn new(
        id: i64,
        start: Position,
        opponent: Opponent,
        control: Option<TimeControl>,
        created_at: i64,
    ) -> Session {
        Session {
            id,
            opponent,
            game: Game::new(start),
            clock: control.map(Clock::new),
            result: None,
            draw_offer: None,
            created_at,
            aids: Vec::new(),
            paused: false,
            names: Names::default(),
        }
    }

    /// This game with the players' `names`; against the computer there are none (the person
    /// is "You"), whatever is given.
    #[must_use]
    pub fn with_names(mut self, names: Names) -> Session {
        self.names = match self.opponent {
            Opponent::Human => names,
            Opponent::Computer { .. } => Names::default(),
        };
        self
    }

    /// The players' names.
    #[must_use]
    pub const fn names(&self) -> &Names {
        &self.names
    }

    /// Restores a saved game; its clock (if any) resumes for the side to move at `now`.
    ///
    /// # Errors
    /// [`SessionError::Import`] when the stored FEN or moves no longer replay.
    pub fn from_record(record: &GameRecord, now: u64) -> Result<Session, SessionError> {
        let start = Position::from_fen(record.variant, &record.start_fen)
            .map_err(|e| SessionError::Import(e.to_string()))?;
        let mut game = Game::new(start);
        for mv in &record.moves {
            game.play(*mv).map_err(|e| SessionError::Import(e.to_string()))?;
        }
        let clock = record.time_control.map(|control| {
            let (white, black) = record.clock_ms.unwrap_or((control.base_ms, control.base_ms));
            let mut clock = Clock::with_remaining(control, ByColor { white, black });
            if record.result.is_none() && !game.moves().is_empty() {
                clock.start(game.position().turn(), now);
            }
            clock
        });
        Ok(Session {
            id: record.id,
            opponent: record.opponent,
            game,
            clock,
            result: record.result,
            draw_offer: record.draw_offer.filter(|_| record.result.is_none()),
            created_at: record.created_at,
            aids: record.aids.clone(),
            paused: false,
            names: record.names.clone(),
        })
    }

    /// What storage keeps of this game at `now`.
    #[must_use]
    pub fn to_record(&self, now: u64) -> GameRecord {
        GameRecord {
            id: self.id,
            variant: self.variant(),
            opponent: self.opponent,
            start_fen: self.game.start().to_string(),
            moves: self.game.moves().to_vec(),
            result: self.result,
            time_control: self.clock.as_ref().map(Clock::control),
            clock_ms: self
                .clock
                .as_ref()
                .map(|c| (c.remaining(Color::White, now), c.remaining(Color::Black, now))),
            created_at: self.created_at,
            aids: self.aids.clone(),
            draw_offer: self.draw_offer,
            names: self.names.clone(),
        }
    }

    /// Records that `kind` was shown in the position as it stands (once per position and
    /// kind); `true` if it was not recorded before.
    pub fn record_aid(&mut self, kind: AidKind) -> bool {
        let used = AidUse { ply: self.game.moves().len(), kind };
        if self.aids.contains(&used) {
            return false;
        }
        self.aids.push(used);
        true
    }

    /// The hints and threats shown so far.
    #[must_use]
    pub fn aids(&self) -> &[AidUse] {
        &self.aids
    }

    /// The saved game's id.
    #[must_use]
    pub const fn id(&self) -> i64 {
        self.id
    }

    /// Sets the id once storage has assigned one.
    pub fn set_id(&mut self, id: i64) {
        self.id = id;
    }

    /// The variant.
    #[must_use]
    pub fn variant(&self) -> Variant {
        self.game.start().rules().variant
    }

    /// The opponent.
    #[must_use]
    pub const fn opponent(&self) -> Opponent {
        self.opponent
    }

    /// The time control, if any.
    #[must_use]
    pub fn time_control(&self) -> Option<TimeControl> {
        self.clock.as_ref().map(Clock::control)
    }

    /// The engine game.
    #[must_use]
    pub const fn game(&self) -> &Game {
        &self.game
    }

    /// The result, once over.
    #[must_use]
    pub const fn result(&self) -> Option<GameResult> {
        self.result
    }

    /// `true` when the computer should move now.
    #[must_use]
    pub fn is_computer_turn(&self) -> bool {
        self.result.is_none()
            && matches!(self.opponent, Opponent::Computer { color, .. } if color == self.game.position().turn())
    }

    fn finish(&mut self, result: GameResult, now: u64) {
        self.result = Some(result);
        self.draw_offer = None;
        if let Some(clock) = &mut self.clock {
            clock.stop(now);
        }
    }

    /// Parses a move typed as UCI (`e2e4`, `e7e8q`) or SAN (`Nf3`, `e8=Q`).
    ///
    /// # Errors
    /// [`SessionError::BadMove`] when it is neither a legal UCI nor SAN move here.
    pub fn parse_move(&self, text: &str) -> Result<Move, SessionError> {
        let text = text.trim();
        let position = self.game.position();
        if let Ok(mv) = text.parse::<Move>() {
            if position.is_legal(mv) {
                return Ok(mv);
            }
        }
        position.parse_san(text).map_err(|_| SessionError::BadMove(text.to_owned()))
    }

    /// Plays `mv` at `now` (the clock is pressed; the game may end).
    ///
    /// # Errors
    /// [`SessionError::Finished`] after the end, [`SessionError::Illegal`] for an illegal move.
    pub fn play(&mut self, mv: Move, now: u64) -> Result<(), SessionError> {
        if self.check_flag(now) || self.result.is_some() {
            return Err(SessionError::Finished);
        }
        // A move plays on: the paused clock starts again for the mover, then is pressed.
        self.resume(now);
        self.game.play(mv).map_err(|e| SessionError::Illegal(e.mv.to_string()))?;
        // A move answers (declines) any standing offer by the opponent.
        if self.draw_offer != Some(self.game.position().turn().other()) {
            self.draw_offer = None;
        }
        if let Some(clock) = &mut self.clock {
            if clock.running().is_some() {
                // The mover's time runs: charge it, add the increment, start the opponent's.
                // `check_flag` above ended the game if that flag had fallen, so the press is
                // never refused.
                let _ = clock.press(now);
            } else {
                // The clock starts after White's first move, without an increment.
                clock.start(self.game.position().turn(), now);
            }
        }
        if let Some(outcome) = self.game.outcome() {
            self.finish(GameResult::from_outcome(outcome), now);
        }
        Ok(())
    }

    /// Ends the game on time if the running side's flag has fallen at `now`; `true` if it did.
    pub fn check_flag(&mut self, now: u64) -> bool {
        if self.result.is_some() {
            return false;
        }
        let Some(loser) = self.clock.as_ref().and_then(|c| c.flagged(now)) else {
            return false;
        };
        let winner = loser.other();
        let result = if self.game.position().has_mating_material(winner) {
            GameResult { winner: Some(winner), reason: EndReason::Timeout }
        } else {
            GameResult { winner: None, reason: EndReason::TimeoutVsInsufficientMaterial }
        };
        self.finish(result, now);
        true
    }

    /// The side to move claims the draw that is claimable now.
    ///
    /// # Errors
    /// [`SessionError::NothingToClaim`] when none is.
    pub fn claim_draw(&mut self, now: u64) -> Result<(), SessionError> {
        if self.check_flag(now) || self.result.is_some() {
            return Err(SessionError::Finished);
        }
        let reason = self.game.claimable_draw().ok_or(SessionError::NothingToClaim)?;
        self.finish(GameResult { winner: None, reason: reason.into() }, now);
        Ok(())
    }

    /// `color` resigns.
    ///
    /// # Errors
    /// [`SessionError::Finished`] after the end.
    pub fn resign(&mut self, color: Color, now: u64) -> Result<(), SessionError> {
        if self.result.is_some() {
            return Err(SessionError::Finished);
        }
        self.finish(
            GameResult { winner: Some(color.other()), reason: EndReason::Resignation },
            now,
        );
        Ok(())
    }

    /// `color` offers a draw; if the other side already offered one, the draw is agreed.
    /// Against the computer, `computer_accepts(game, computer's colour)` answers at once (the app
    /// passes [`crate::chess::computer::accepts_draw`], the computer's own search).
    ///
    /// # Errors
    /// [`SessionError::Finished`] after the end.
    pub fn offer_draw(
        &mut self,
        color: Color,
        now: u64,
        computer_accepts: impl FnOnce(&Game, Color) -> bool,
    ) -> Result<(), SessionError> {
        if self.check_flag(now) || self.result.is_some() {
            return Err(SessionError::Finished);
        }
        let agreed = match self.opponent {
            Opponent::Computer { color: computer, .. } => computer_accepts(&self.game, computer),
            Opponent::Human => self.draw_offer == Some(color.other()),
        };
        if agreed {
            self.finish(GameResult { winner: None, reason: EndReason::Agreement }, now);
        } else {
            self.draw_offer = Some(color);
        }
        Ok(())
    }

    /// Accepts the standing draw offer (pass-and-play: the other player taps "accept").
    ///
    /// # Errors
    /// [`SessionError::NothingToClaim`] when no offer stands.
    pub fn accept_draw(&mut self, now: u64) -> Result<(), SessionError> {
        if self.result.is_some() {
            return Err(SessionError::Finished);
        }
        if self.draw_offer.is_none() {
            return Err(SessionError::NothingToClaim);
        }
        self.finish(GameResult { winner: None, reason: EndReason::Agreement }, now);
        Ok(())
    }

    /// Stops a running clock at `now` (the person opened the menu or left the app); `true` when
    /// it was running. Nothing changes in a game without a running clock or after the end.
    pub fn pause(&mut self, now: u64) -> bool {
        if self.paused || self.result.is_some() {
            return false;
        }
        let Some(clock) = self.clock.as_mut().filter(|c| c.running().is_some()) else {
            return false;
        };
        clock.stop(now);
        self.paused = true;
        true
    }

    /// Starts the paused clock again at `now` for the side to move; `true` when it was paused.
    pub fn resume(&mut self, now: u64) -> bool {
        if !self.paused {
            return false;
        }
        self.paused = false;
        if let Some(clock) = &mut self.clock {
            clock.start(self.game.position().turn(), now);
        }
        true
    }

    /// Whether the clock is paused.
    #[must_use]
    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// Declines the standing draw offer (pass-and-play: the other player taps "decline"); the
    /// game goes on.
    ///
    /// # Errors
    /// [`SessionError::NothingToClaim`] when no offer stands, [`SessionError::Finished`] after
    /// the end.
    pub fn decline_draw(&mut self) -> Result<(), SessionError> {
        if self.result.is_some() {
            return Err(SessionError::Finished);
        }
        if self.draw_offer.take().is_none() {
            return Err(SessionError::NothingToClaim);
        }
        Ok(())
    }

    /// Takes back the last move (against the computer: back to the person's turn).
    ///
    /// # Errors
    /// [`SessionError::NothingToTakeBack`] at the start, [`SessionError::Finished`] after the end.
    pub fn takeback(&mut self, now: u64) -> Result<(), SessionError> {
        if self.result.is_some() {
            return Err(SessionError::Finished);
        }
        self.game.undo().ok_or(SessionError::NothingToTakeBack)?;
        if let Opponent::Computer { color, .. } = self.opponent {
            if self.game.position().turn() == color {
                // Undo the computer's reply too; when it had the first move, it simply replays.
                self.game.undo();
            }
        }
        self.draw_offer = None;
        if let Some(clock) = &mut self.clock {
            if self.game.moves().is_empty() {
                clock.stop(now);
            } else {
                clock.start(self.game.position().turn(), now);
            }
        }
        Ok(())
    }

    /// Material balance, White minus Black, in army points.
    #[must_use]
    pub fn material(&self) -> i32 {
        material(self.game.position())
    }

    fn captured(&self) -> Captured {
        self.captured_in(self.game.moves().len())
    }

    /// What each side had captured in the first `plies` moves.
    fn captured_in(&self, plies: usize) -> Captured {
        let mut captured = Captured::default();
        let mut position = self.game.start().clone();
        for mv in &self.game.moves()[..plies] {
            let taken = if position.is_en_passant(*mv) {
                Some(Role::Pawn)
            } else {
                position.piece_at(mv.to).filter(|p| p.color != position.turn()).map(|p| p.role)
            };
            if let Some(role) = taken {
                match position.turn() {
                    Color::White => captured.white.push(role),
                    Color::Black => captured.black.push(role),
                }
            }
            position.play_unchecked(*mv);
        }
        captured
    }

    /// The moves in SAN.
    #[must_use]
    pub fn history(&self) -> Vec<String> {
        let mut position = self.game.start().clone();
        self.game
            .moves()
            .iter()
            .map(|mv| {
                let san = position.san(*mv);
                position.play_unchecked(*mv);
                san
            })
            .collect()
    }

    /// The board after `ply` moves (clamped to the moves played), for reviewing, with the
    /// captures and material of that moment.
    #[must_use]
    pub fn review_at(&self, ply: usize) -> ReviewView {
        let ply = ply.min(self.game.moves().len());
        let mut position = self.game.start().clone();
        for mv in &self.game.moves()[..ply] {
            position.play_unchecked(*mv);
        }
        let last = ply.checked_sub(1).map(|i| self.game.moves()[i]);
        ReviewView {
            board: board_of(&position, last, ply),
            captured: self.captured_in(ply),
            material: material(&position),
        }
    }

    /// The clock as shown at `now`, when the game has one.
    #[must_use]
    pub fn clock_view(&self, now: u64) -> Option<ClockView> {
        self.clock.as_ref().map(|c| ClockView {
            white_ms: c.remaining(Color::White, now),
            black_ms: c.remaining(Color::Black, now),
            running: c.running(),
            control: c.control(),
        })
    }

    /// The snapshot the game screen draws at `now`.
    #[must_use]
    pub fn view(&self, now: u64) -> GameView {
        GameView {
            id: self.id,
            opponent: self.opponent,
            names: self.names.clone(),
            draw_offer: self.draw_offer,
            paused: self.paused,
            result: self.result,
            clock: self.clock_view(now),
            ..GameView::of_game(&self.game, self.history(), self.captured(), self.result.is_some())
        }
    }

    /// The game as PGN, with players (their names in pass-and-play), date and the result
    /// however the game ended.
    #[must_use]
    pub fn pgn(&self, date: &str) -> String {
        let name = |color: Color| match self.opponent {
            Opponent::Computer { color: computer, level } if computer == color => {
                format!("Computer (level {level})")
            }
            _ => self.names.of(color).map_or_else(
                || format!("{} player", if color == Color::White { "White" } else { "Black" }),
                str::to_owned,
            ),
        };
        let mut extra = vec![
            ("Event".to_owned(), "Maharajah app game".to_owned()),
            ("Site".to_owned(), "This device".to_owned()),
            ("Date".to_owned(), date.to_owned()),
            ("White".to_owned(), name(Color::White)),
            ("Black".to_owned(), name(Color::Black)),
        ];
        if let Some(control) = self.time_control() {
            extra.push((
                "TimeControl".to_owned(),
                format!("{}+{}", control.base_ms / 1000, control.increment_ms / 1000),
            ));
        }
        if !self.aids.is_empty() {
            return self.pgn_with_aids(extra);
        }
        let text = to_pgn(&self.game, &PgnTags { extra });
        match self.result {
            // The engine only knows board outcomes; resignations, time and claims are ours.
            Some(result) if self.game.outcome().is_none() => {
                let token = result.pgn();
                let text = text.replacen("[Result \"*\"]", &format!("[Result \"{token}\"]"), 1);
                match text.trim_end().strip_suffix('*') {
                    Some(body) => format!("{body}{token}\n"),
                    None => text,
                }
            }
            _ => text,
        }
    }

    /// The PGN of a game where hints or threats were shown: a tag counting each kind used
    /// (`[Hints "2"]`, `[Threats "1"]`) and a comment `{hint}` / `{threat}` on the position
    /// where it was shown (after the move that led there; before the first move for the start).
    fn pgn_with_aids(&self, mut extra: Vec<(String, String)>) -> String {
        for kind in AidKind::ALL {
            let used = self.aids.iter().filter(|a| a.kind == kind).count();
            if used > 0 {
                extra.push((kind.tag().to_owned(), used.to_string()));
            }
        }
        if let Some(result) = self.result {
            extra.push(("Result".to_owned(), result.pgn().to_owned()));
        }
        let mut tree = MoveTree::from_game(&self.game);
        let main = tree.main_line();
        for aid in &self.aids {
            let node =
                if aid.ply == 0 { Some(tree.root()) } else { main.get(aid.ply - 1).copied() };
            if let Some(node) = node.and_then(|n| tree.get_mut(n)) {
                node.comments.push(aid.kind.name().to_owned());
            }
        }
        to_annotated_pgn(&tree, &PgnTags { extra })
    }

    /// Reads a PGN (moves) or a FEN (a position) into a new pass-and-play game.
    ///
    /// # Errors
    /// [`SessionError::Import`] when the text is neither.
    pub fn import(text: &str, created_at: i64) -> Result<Session, SessionError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(SessionError::Import("the text is empty".to_owned()));
        }
        let looks_like_fen = !text.contains('[')
            && text.split_whitespace().next().is_some_and(|board| board.matches('/').count() == 7);
        let (game, names) = if looks_like_fen {
            (Game::new(position_from_fen(text)?), Names::default())
        } else {
            let pgn = from_pgn(text).map_err(|e| SessionError::Import(e.to_string()))?;
            let names = pgn_names(&pgn.tags);
            (pgn.game, names)
        };
        let mut session = Session::new(0, game.start().clone(), Opponent::Human, None, created_at)
            .with_names(names);
        for mv in game.moves() {
            session.game.play_unchecked(*mv);
        }
        if let Some(outcome) = session.game.outcome() {
            session.result = Some(GameResult::from_outcome(outcome));
        }
        Ok(session)
    }
}

/// The players' names in a PGN's `White` and `Black` tags: each kept when it is a name this app
/// accepts, and not PGN's unknown (`?`) or the `White player` / `Black player` this app writes
/// for a side without a name.
fn pgn_names(tags: &[(String, String)]) -> Names {
    let value = |tag: &str| {
        let value = tags.iter().find(|(k, _)| k == tag).map(|(_, v)| v.trim())?;
        (value != "?" && value != format!("{tag} player")).then_some(value)
    };
    let (white, black) = (value("White"), value("Black"));
    // A name this app would refuse is left out; the other side keeps its own.
    let one = |white, black| Names::checked(white, black).unwrap_or_default();
    Names { white: one(white, None).white, black: one(None, black).black }
}

/// A FEN in whichever variant it describes: eight fields or compound pieces mean Maharajah, a
/// board without a white king means Horde, anything else is chess.
pub(crate) fn position_from_fen(fen: &str) -> Result<Position, SessionError> {
    let board = fen.split_whitespace().next().unwrap_or("");
    let variant =
        if fen.split_whitespace().count() == 8 || board.contains(['M', 'C', 'A', 'm', 'c', 'a']) {
            Variant::Maharajah
        } else if !board.contains('K') {
            Variant::Horde
        } else {
            Variant::Chess
        };
    Position::from_fen(variant, fen).map_err(|e| SessionError::Import(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pass_and_play(variant: Variant, control: Option<TimeControl>) -> Session {
        Session::new(1, Position::new(variant), Opponent::Human, control, 0)
    }

    fn play_all(session: &mut Session, moves: &[&str]) {
        for text in moves {
            let mv = session.parse_move(text).expect("a legal move");
            session.play(mv, 0).expect("legal");
        }
    }

    #[test]
    fn fools_mate_ends_by_checkmate_and_exports_pgn() {
        let mut s = pass_and_play(Variant::Chess, None);
        play_all(&mut s, &["f2f3", "e5", "g4", "Qh4#"]);
        assert_eq!(
            s.result(),
            Some(GameResult { winner: Some(Color::Black), reason: EndReason::Checkmate })
        );
        let view = s.view(0);
        assert!(view.legal.is_empty(), "no moves after the end");
        assert_eq!(view.history, ["f3", "e5", "g4", "Qh4#"]);
        assert_eq!(view.board.check.map(|sq| sq.to_string()).as_deref(), Some("e1"));
        assert_eq!(s.play("e2e4".parse().expect("uci"), 0), Err(SessionError::Finished));
        let pgn = s.pgn("2026.11.29");
        assert!(pgn.contains("1. f3 e5 2. g4 Qh4# 0-1"), "{pgn}");
    }

    #[test]
    fn resignation_and_agreement_appear_in_the_pgn() {
        let mut s = pass_and_play(Variant::Chess, None);
        play_all(&mut s, &["e4"]);
        s.resign(Color::Black, 0).expect("running game");
        assert_eq!(s.result().map(|r| r.reason), Some(EndReason::Resignation));
        let pgn = s.pgn("?");
        assert!(pgn.contains("[Result \"1-0\"]") && pgn.trim_end().ends_with("1. e4 1-0"), "{pgn}");

        let mut s = pass_and_play(Variant::Chess, None);
        s.offer_draw(Color::White, 0, |_, _| unreachable!("no computer")).expect("running");
        assert_eq!(s.view(0).draw_offer, Some(Color::White));
        s.accept_draw(0).expect("offer stands");
        assert_eq!(s.result(), Some(GameResult { winner: None, reason: EndReason::Agreement }));
    }

    #[test]
    fn a_paused_clock_stands_still_until_resumed_or_a_move() {
        let mut s = pass_and_play(Variant::Chess, Some(TimeControl::new(1, 0)));
        assert!(!s.pause(0), "nothing runs before White's first move");
        s.play("e2e4".parse().expect("uci"), 1_000).expect("legal");
        assert!(s.pause(3_000), "Black's clock ran 2 s");
        assert!(s.view(3_000).paused);
        assert_eq!(
            s.view(50_000).clock.map(|c| (c.black_ms, c.running)),
            Some((58_000, None)),
            "frozen while paused"
        );
        assert!(!s.check_flag(500_000), "no flag falls while paused");
        assert!(s.resume(50_000));
        assert_eq!(
            s.view(51_000).clock.map(|c| c.black_ms),
            Some(57_000),
            "runs again from where it stood"
        );
        assert!(s.pause(51_000));
        s.play("e7e5".parse().expect("uci"), 90_000).expect("a move plays on");
        let clock = s.view(90_500).clock.expect("a clock");
        assert_eq!(
            (clock.black_ms, clock.white_ms, clock.running),
            (57_000, 59_500, Some(Color::White))
        );
        assert!(!s.view(90_500).paused);
    }

    #[test]
    fn a_draw_offer_survives_a_restart_and_can_be_declined() {
        let mut s = pass_and_play(Variant::Chess, None);
        play_all(&mut s, &["e4"]);
        s.offer_draw(Color::Black, 0, |_, _| unreachable!("no computer")).expect("running");
        let record = s.to_record(0);
        assert_eq!(record.draw_offer, Some(Color::Black));
        let mut back = Session::from_record(&record, 0).expect("restores");
        assert_eq!(back.view(0).draw_offer, Some(Color::Black), "the offer stands after a restart");
        back.decline_draw().expect("an offer to decline");
        assert_eq!(back.view(0).draw_offer, None);
        assert_eq!(back.result(), None, "declined: the game goes on");
        assert_eq!(back.decline_draw(), Err(SessionError::NothingToClaim));
        assert_eq!(back.to_record(0).draw_offer, None);
    }

    #[test]
    fn knights_shuffling_make_threefold_repetition_claimable() {
        let mut s = pass_and_play(Variant::Chess, None);
        assert_eq!(s.claim_draw(0), Err(SessionError::NothingToClaim));
        play_all(&mut s, &["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"]);
        assert_eq!(s.view(0).claimable, None);
        play_all(&mut s, &["Ng8"]);
        assert_eq!(s.view(0).claimable, Some(EndReason::ThreefoldRepetition));
        s.claim_draw(0).expect("claimable");
        assert_eq!(
            s.result(),
            Some(GameResult { winner: None, reason: EndReason::ThreefoldRepetition })
        );
    }

    #[test]
    fn promotion_offers_exactly_the_sides_set() {
        let start =
            Position::from_fen(Variant::Chess, "8/P6k/8/8/8/8/8/K7 w - - 0 1").expect("fen");
        let s = Session::new(1, start, Opponent::Human, None, 0);
        let mut roles: Vec<String> = s
            .view(0)
            .legal
            .iter()
            .filter(|m| m.to_string().starts_with("a7a8"))
            .map(ToString::to_string)
            .collect();
        roles.sort();
        assert_eq!(roles, ["a7a8b", "a7a8n", "a7a8q", "a7a8r"]);
    }

    #[test]
    fn a_variant_side_promotes_to_compound_pieces_and_a_classic_side_does_not() {
        // White has a compound piece (a variant side), Black has only orthodox pieces.
        let s = Session::import("7k/P7/8/8/8/8/6p1/K3M3 w - - 0 1", 0).expect("maharajah fen");
        assert_eq!(s.variant(), Variant::Maharajah);
        let promotions = |s: &Session, prefix: &str| {
            let mut roles: Vec<char> = s
                .view(0)
                .legal
                .iter()
                .map(ToString::to_string)
                .filter(|m| m.starts_with(prefix))
                .filter_map(|m| m.chars().nth(4))
                .collect();
            roles.sort_unstable();
            roles
        };
        assert_eq!(promotions(&s, "a7a8"), ['a', 'b', 'c', 'm', 'n', 'q', 'r']);
        let mut s = s;
        s.play(s.parse_move("Kb2").expect("legal"), 0).expect("legal");
        assert_eq!(promotions(&s, "g2g1"), ['b', 'n', 'q', 'r'], "Black is a classic side");
    }

    #[test]
    fn horde_starts_with_thirty_six_white_pawns() {
        let s = pass_and_play(Variant::Horde, None);
        let view = s.view(0);
        let white_pawns = view
            .board
            .pieces
            .iter()
            .filter(|p| p.color == Color::White && p.role == Role::Pawn)
            .count();
        assert_eq!(white_pawns, 36);
        assert_eq!(view.board.pieces.len(), 52);
        assert_eq!(view.variant, Variant::Horde);
    }

    #[test]
    fn clock_starts_after_the_first_move_and_flag_fall_ends_the_game() {
        let mut s = pass_and_play(Variant::Chess, Some(TimeControl::new(3, 2)));
        assert_eq!(s.view(5_000).clock.map(|c| c.running), Some(None));
        s.play(s.parse_move("e4").expect("legal"), 5_000).expect("legal");
        let clock = s.view(6_000).clock.expect("has a clock");
        assert_eq!(
            (clock.white_ms, clock.black_ms, clock.running),
            (180_000, 179_000, Some(Color::Black))
        );
        assert!(!s.check_flag(100_000));
        assert!(s.check_flag(185_000));
        assert_eq!(
            s.result(),
            Some(GameResult { winner: Some(Color::White), reason: EndReason::Timeout })
        );
    }

    #[test]
    fn time_out_against_a_lone_king_is_a_draw() {
        let start =
            Position::from_fen(Variant::Chess, "4k3/8/8/8/8/8/p7/4K3 w - - 0 1").expect("fen");
        let mut s = Session::new(1, start, Opponent::Human, Some(TimeControl::new(1, 0)), 0);
        s.play(s.parse_move("Kd1").expect("legal"), 0).expect("legal");
        assert!(s.check_flag(60_000), "black's flag falls; White has a lone king");
        assert_eq!(
            s.result(),
            Some(GameResult { winner: None, reason: EndReason::TimeoutVsInsufficientMaterial })
        );
    }

    #[test]
    fn captures_material_and_review() {
        let mut s = pass_and_play(Variant::Chess, None);
        play_all(&mut s, &["e4", "d5", "exd5", "Qxd5"]);
        let view = s.view(0);
        assert_eq!(view.captured.white, [Role::Pawn]);
        assert_eq!(view.captured.black, [Role::Pawn]);
        assert_eq!(view.material, 0);
        let review = s.review_at(2).board;
        assert_eq!(review.ply, 2);
        assert_eq!(review.last_move.map(|m| m.to.to_string()).as_deref(), Some("d5"));
        assert_eq!(review.turn, Color::White);
        // Under review the captures follow the move shown: after 3. exd5 only White has taken.
        let review = s.review_at(3);
        assert_eq!(review.board.ply, 3);
        assert_eq!(review.captured.white, [Role::Pawn]);
        assert!(review.captured.black.is_empty());
        assert_eq!(review.material, 1);
        assert_eq!(s.review_at(0).captured, Captured::default());
        assert_eq!(s.review_at(9).board.ply, 4, "clamped to the moves played");
        let json = serde_json::to_value(s.review_at(3)).expect("serialises");
        assert_eq!(json["ply"], 3, "the board's fields stay at the top: {json}");
        assert_eq!(json["captured"]["white"], serde_json::json!(["pawn"]));
    }

    #[test]
    fn takeback_against_the_computer_returns_to_the_persons_turn() {
        let mut s = Session::new(
            1,
            Position::default(),
            Opponent::Computer { color: Color::Black, level: 1 },
            None,
            0,
        );
        play_all(&mut s, &["e4", "e5"]);
        assert!(!s.is_computer_turn());
        s.takeback(0).expect("moves to take back");
        assert!(s.game().moves().is_empty());
        assert_eq!(s.takeback(0), Err(SessionError::NothingToTakeBack));
    }

    #[test]
    fn records_round_trip_and_the_clock_resumes() {
        let mut s = pass_and_play(Variant::Horde, Some(TimeControl::new(5, 3)));
        play_all(&mut s, &["e5"]);
        let record = s.to_record(10_000);
        assert_eq!(record.clock_ms, Some((300_000, 290_000)));
        let restored = Session::from_record(&record, 50).expect("replays");
        assert_eq!(restored.view(50).history, ["e5"]);
        assert_eq!(restored.view(1_050).clock.map(|c| c.black_ms), Some(289_000));
    }

    #[test]
    fn the_players_names_are_the_pgn_tags_and_come_back_on_import() {
        let names = Names { white: Some("Ana".to_owned()), black: Some("Bruno \"B\"".to_owned()) };
        let mut s = pass_and_play(Variant::Chess, None).with_names(names.clone());
        play_all(&mut s, &["f2f3", "e5", "g4", "Qh4#"]);
        assert_eq!(s.view(0).names, names, "the game screen gets them");
        assert_eq!(s.to_record(0).names, names, "storage keeps them");
        let pgn = s.pgn("2026.12.02");
        // The Seven Tag Roster in its order, the names where White and Black stand.
        let tags: Vec<&str> = pgn.lines().take(7).collect();
        assert_eq!(
            tags,
            [
                "[Event \"Maharajah app game\"]",
                "[Site \"This device\"]",
                "[Date \"2026.12.02\"]",
                "[Round \"?\"]",
                "[White \"Ana\"]",
                "[Black \"Bruno \\\"B\\\"\"]",
                "[Result \"0-1\"]",
            ]
        );
        let back = Session::import(&pgn, 0).expect("reads its own export");
        assert_eq!(back.names(), &names);

        // A side without a name is its colour's player, and stays nameless through an import.
        let half = Names { white: None, black: Some("Bruno".to_owned()) };
        let s = pass_and_play(Variant::Chess, None).with_names(half.clone());
        let pgn = s.pgn("?");
        assert!(pgn.contains("[White \"White player\"]\n[Black \"Bruno\"]"), "{pgn}");
        assert_eq!(Session::import(&pgn, 0).expect("reads").names(), &half);
        // Another program's unknown, or a name this app would refuse, is no name.
        let long = "x".repeat(21);
        let other = format!("[White \"?\"]\n[Black \"{long}\"]\n\n1. e4 *");
        assert_eq!(Session::import(&other, 0).expect("reads").names(), &Names::default());

        // Against the computer there are no names: the person is "You", the PGN as before.
        let computer = Opponent::Computer { color: Color::Black, level: 2 };
        let s = Session::new(1, Position::default(), computer, None, 0).with_names(names);
        assert_eq!(s.view(0).names, Names::default());
        let pgn = s.pgn("?");
        assert!(pgn.contains("[White \"White player\"]\n[Black \"Computer (level 2)\"]"), "{pgn}");
    }

    #[test]
    fn import_reads_pgn_and_fen_of_each_variant() {
        let s = Session::import("[Event \"x\"]\n\n1. e4 e5 2. Nf3 *", 0).expect("pgn");
        assert_eq!(s.history(), ["e4", "e5", "Nf3"]);
        let s = Session::import(
            "rnbqkbnr/pppppppp/8/1PP2PP1/PPPPPPPP/PPPPPPPP/PPPPPPPP/PPPPPPPP w kq - 0 1",
            0,
        )
        .expect("horde fen");
        assert_eq!(s.variant(), Variant::Horde);
        let s = Session::import("4k3/8/8/8/8/8/8/3MK3 w - - 0 1", 0).expect("maharajah fen");
        assert_eq!(s.variant(), Variant::Maharajah);
        assert!(matches!(Session::import("hello", 0), Err(SessionError::Import(_))));
    }
}
