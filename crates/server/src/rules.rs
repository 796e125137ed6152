//! The one place where the server calls the rules engine (`maharajah-engine`).
//!
//! Everything the rooms need from the rules is here: start positions, building a position from
//! two armies, validating an army, playing a UCI move, the FEN, automatic game ends, claimable
//! draws and mating material. Every move a room accepts has been checked by
//! [`maharajah_engine::Game::play`] here.

use maharajah_engine as engine;
use maharajah_protocol::army;
use maharajah_protocol::{Color, EndReason, GameResult, Variant};

/// Version of the rules engine, reported to clients.
pub const ENGINE_VERSION: &str = engine::VERSION;

/// Why the rules refused something.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    /// The move is not legal (or not a move).
    #[error("illegal move {uci}: {reason}")]
    IllegalMove {
        /// The move as sent.
        uci: String,
        /// Why.
        reason: String,
    },
    /// The army breaks the army rules.
    #[error("{0}")]
    InvalidArmy(String),
    /// Two valid armies do not make a valid start (e.g. a king in check).
    #[error("{0}")]
    InvalidStart(String),
    /// The engine cannot do this.
    #[error("the rules engine cannot do this: {0}")]
    Unavailable(&'static str),
}

/// A game in progress as the rules see it.
#[derive(Clone, Debug)]
pub struct Game {
    game: engine::Game,
}

impl Game {
    /// The standard start of `variant` (for Maharajah without custom setup: the orthodox array).
    ///
    /// # Errors
    ///
    /// [`RulesError::InvalidStart`] if the engine refuses its own start position (a bug).
    pub fn start(variant: Variant) -> Result<Game, RulesError> {
        Game::start_of(variant)
    }

    /// The game as the engine holds it (for its PGN).
    #[must_use]
    pub fn engine(&self) -> &engine::Game {
        &self.game
    }

    fn start_of(variant: Variant) -> Result<Game, RulesError> {
        let fen = match variant {
            Variant::Horde => engine::fen::HORDE_START,
            Variant::Chess | Variant::Maharajah => engine::fen::STANDARD_START,
        };
        let pos = engine::Position::from_fen(variant, fen)
            .map_err(|e| RulesError::InvalidStart(e.to_string()))?;
        Ok(Game { game: engine::Game::new(pos) })
    }

    /// A Maharajah game from two canonical armies (see `maharajah_protocol::army`).
    ///
    /// # Errors
    ///
    /// [`RulesError::InvalidArmy`] if an army breaks the army rules, [`RulesError::InvalidStart`]
    /// if together they may not start (a king in check, no legal move).
    pub fn from_armies(white: &str, black: &str) -> Result<Game, RulesError> {
        let invalid = |e: army::ArmyTextError| RulesError::InvalidArmy(e.to_string());
        let w = army::to_army(Color::White, white).map_err(invalid)?;
        let b = army::to_army(Color::Black, black).map_err(invalid)?;
        match engine::start_position(&w, &b) {
            Ok(pos) => Ok(Game { game: engine::Game::new(pos) }),
            Err(engine::StartError::Army(errors)) => Err(RulesError::InvalidArmy(
                errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "),
            )),
            Err(e) => Err(RulesError::InvalidStart(e.to_string())),
        }
    }

    /// Plays a UCI move.
    ///
    /// # Errors
    ///
    /// [`RulesError::IllegalMove`] if it is not a move or not legal; the game is unchanged.
    pub fn play_uci(&mut self, uci: &str) -> Result<(), RulesError> {
        let illegal = |reason: String| RulesError::IllegalMove {
            uci: uci.chars().take(12).collect(),
            reason,
        };
        let mv: engine::Move =
            uci.parse().map_err(|e: engine::ParseMoveError| illegal(e.to_string()))?;
        self.game.play(mv).map_err(|_| illegal("not legal in this position".into()))
    }

    /// The current position as FEN (extended FEN for Maharajah).
    pub fn fen(&self) -> String {
        self.game.position().to_string()
    }

    /// The side to move.
    pub fn side_to_move(&self) -> Color {
        self.game.position().turn()
    }

    /// The result if the game ended by itself (mate, stalemate, automatic draws).
    pub fn outcome(&self) -> Option<GameResult> {
        self.game.outcome().map(GameResult::from)
    }

    /// Whether `color` could ever mate (for the draw on time).
    pub fn has_mating_material(&self, color: Color) -> bool {
        self.game.position().has_mating_material(color)
    }

    /// A draw the side to move may claim now (threefold repetition, fifty moves).
    pub fn claimable_draw(&self) -> Option<EndReason> {
        self.game.claimable_draw().map(EndReason::from)
    }
}

/// Checks one army (canonical text) against the army rules for `color`.
///
/// # Errors
///
/// [`RulesError::InvalidArmy`] naming the broken rules and squares.
pub fn validate_army(color: Color, text: &str) -> Result<(), RulesError> {
    army::check_army(color, text).map(drop).map_err(|e| RulesError::InvalidArmy(e.to_string()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use maharajah_protocol::Outcome;

    /// The orthodox White army in the protocol's army text.
    pub const WHITE: &str = "Ra1,Nb1,Bc1,Qd1,Ke1,Bf1,Ng1,Rh1,Pa2,Pb2,Pc2,Pd2,Pe2,Pf2,Pg2,Ph2";
    /// The orthodox Black army.
    pub const BLACK: &str = "Ra8,Nb8,Bc8,Qd8,Ke8,Bf8,Ng8,Rh8,Pa7,Pb7,Pc7,Pd7,Pe7,Pf7,Pg7,Ph7";

    #[test]
    fn moves_are_validated_by_the_engine() {
        let mut g = Game::start(Variant::Chess).unwrap();
        assert_eq!(g.side_to_move(), Color::White);
        assert!(matches!(g.play_uci("e2e5"), Err(RulesError::IllegalMove { .. })));
        assert!(matches!(g.play_uci("zz"), Err(RulesError::IllegalMove { .. })));
        let before = g.fen();
        assert!(g.play_uci("e7e5").is_err(), "Black cannot move first");
        assert_eq!(g.fen(), before);
        for m in ["f2f3", "e7e5", "g2g4"] {
            g.play_uci(m).unwrap();
        }
        assert_eq!(g.outcome(), None);
        g.play_uci("d8h4").unwrap();
        assert_eq!(
            g.outcome(),
            Some(GameResult { outcome: Outcome::BlackWins, reason: EndReason::Checkmate })
        );
        assert!(g.play_uci("a2a3").is_err());
    }

    #[test]
    fn armies_are_validated_and_combined() {
        validate_army(Color::White, WHITE).unwrap();
        validate_army(Color::Black, BLACK).unwrap();
        // 39 points: queen (9) swapped for a Maharajah (13) overspends.
        let err = validate_army(Color::White, &WHITE.replace("Qd1", "Md1")).unwrap_err();
        assert!(matches!(err, RulesError::InvalidArmy(_)), "{err}");
        // White pieces on Black's half.
        assert!(validate_army(Color::Black, WHITE).is_err());
        let g = Game::from_armies(WHITE, BLACK).unwrap();
        assert!(g.fen().starts_with("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w"));
        // Queen + rook (14) traded for a Maharajah (13) and a pawn (1): a variant army.
        let custom = "Pa1,Nb1,Bc1,Md1,Ke1,Bf1,Ng1,Rh1,Pa2,Pb2,Pc2,Pd2,Pe2,Pf2,Pg2,Ph2";
        validate_army(Color::White, custom).unwrap();
        let g = Game::from_armies(custom, BLACK).unwrap();
        assert!(g.fen().contains('M'));
        assert!(g.has_mating_material(Color::White));
    }

    #[test]
    fn mating_material() {
        let g = Game::start(Variant::Horde).unwrap();
        assert!(g.has_mating_material(Color::White));
        assert!(g.has_mating_material(Color::Black));
        assert_eq!(g.claimable_draw(), None);
    }
}
