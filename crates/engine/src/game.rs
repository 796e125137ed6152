//! A game: the start position, the moves played and the hash history needed for repetition.

use crate::moves::Move;
use crate::position::{DrawReason, Outcome, PlayError, Position};

/// A game in progress: start position, moves, and positions for repetition detection.
#[derive(Debug, Clone)]
pub struct Game {
    start: Position,
    position: Position,
    moves: Vec<Move>,
    /// Hash of every position reached, the start included (index i = after i moves).
    hashes: Vec<u64>,
}

impl Game {
    /// A game from `start`.
    #[must_use]
    pub fn new(start: Position) -> Game {
        Game { hashes: vec![start.hash()], position: start.clone(), start, moves: Vec::new() }
    }

    /// The start position.
    #[must_use]
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The current position.
    #[must_use]
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The moves played so far.
    #[must_use]
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Plays `mv` if legal. A finished game accepts no moves.
    ///
    /// # Errors
    /// [`PlayError`] with the move and the current position if it is illegal or the game is over.
    pub fn play(&mut self, mv: Move) -> Result<(), PlayError> {
        if self.outcome().is_some() || !self.position.is_legal(mv) {
            return Err(PlayError { mv, position: Box::new(self.position.clone()) });
        }
        self.play_unchecked(mv);
        Ok(())
    }

    /// Plays a move known to be legal.
    pub fn play_unchecked(&mut self, mv: Move) {
        self.position.play_unchecked(mv);
        self.moves.push(mv);
        self.hashes.push(self.position.hash());
    }

    /// Takes back the last move; returns it, or `None` at the start.
    pub fn undo(&mut self) -> Option<Move> {
        let mv = self.moves.pop()?;
        self.hashes.pop();
        let mut pos = self.start.clone();
        for m in &self.moves {
            pos.play_unchecked(*m);
        }
        self.position = pos;
        Some(mv)
    }

    /// How many times the current position has occurred (1 the first time). Only positions
    /// since the last capture or pawn move can repeat.
    #[must_use]
    pub fn repetitions(&self) -> usize {
        let current = self.position.hash();
        let window = (self.position.halfmove_clock() as usize + 1).min(self.hashes.len());
        self.hashes[self.hashes.len() - window..]
            .iter()
            .rev()
            .step_by(2)
            .filter(|h| **h == current)
            .count()
    }

    /// The automatic end, if the game is over: checkmate, stalemate, capture-all, insufficient
    /// material, 75-move rule, fivefold repetition.
    #[must_use]
    pub fn outcome(&self) -> Option<Outcome> {
        if let Some(o) = self.position.outcome() {
            return Some(o);
        }
        (self.repetitions() >= 5)
            .then_some(Outcome::Draw { reason: DrawReason::FivefoldRepetition })
    }

    /// A draw the side to move may claim now: threefold repetition or the fifty-move rule.
    #[must_use]
    pub fn claimable_draw(&self) -> Option<DrawReason> {
        if self.outcome().is_some() {
            None
        } else if self.repetitions() >= 3 {
            Some(DrawReason::ThreefoldRepetition)
        } else if self.position.halfmove_clock() >= 100 {
            Some(DrawReason::FiftyMoves)
        } else {
            None
        }
    }
}
