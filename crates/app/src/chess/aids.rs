//! Hint and threat in games against the computer, both off by default: the person turns each
//! on in the game screen; while it is on, every position where the person is to move is
//! searched on the aids' own thread ([`AppState::run_aids`](crate::chess::local::AppState)),
//! never on a command's, and the answer is shown when it comes — the hint as the square of the
//! piece the engine would move, the threat as the move the computer would make if it were its
//! turn (an arrow). Each one shown is recorded in the game ([`AidUse`]) and in its PGN.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use maharajah_analysis::analyse::{analyse, AnalysisConfig};
use maharajah_engine::search::{Limits, Searcher};
use maharajah_engine::{Game, Move, Position};

pub use crate::chess::session::AidsView;
pub use crate::record::{AidKind, AidUse};

/// Nodes the engine searches for a hint or a threat (about a third of a second on one core of
/// a phone; the answer is the same on every device).
pub const AID_NODES: u64 = 300_000;

/// A search for one aid: what to search and how to recognise the answer.
#[derive(Debug, Clone)]
pub struct AidRequest {
    /// Which aid.
    pub kind: AidKind,
    /// The game to search: the game itself for a hint, the same board with the opponent to
    /// move for a threat.
    pub game: Game,
    /// The game's id and the FEN of the position it was asked in: the answer is taken only
    /// while the same game stands there.
    pub session: i64,
    /// That FEN.
    pub fen: String,
    /// Raised when the answer is no longer wanted (the position changed, the aid turned off).
    pub stop: Arc<AtomicBool>,
}

impl AidRequest {
    /// The engine's answer, searched on this thread with `searcher`: its best move, `None` if
    /// stopped before it had one or there is no move.
    #[must_use]
    pub fn answer(&self, searcher: &mut Searcher) -> Option<Move> {
        let config = AnalysisConfig { lines: 1, limits: Limits::nodes(AID_NODES) };
        let update = analyse(searcher, &self.game, &config, &self.stop, &mut |_| {});
        if self.stop.load(Ordering::Relaxed) {
            return None;
        }
        update.best_move()
    }
}

/// The game the opponent would move in if it were their turn: the same board with the other
/// side to move (no en passant, no history). `None` when the side to move is in check (the
/// threat is the check itself) or the board does not stand with the other side to move.
#[must_use]
pub fn threat_game(position: &Position) -> Option<Game> {
    if position.is_check() {
        return None;
    }
    let fen = position.to_string();
    let mut fields: Vec<&str> = fen.split_whitespace().collect();
    let turn = match fields.get(1) {
        Some(&"w") => "b",
        Some(&"b") => "w",
        _ => return None,
    };
    fields[1] = turn;
    if let Some(ep) = fields.get_mut(3) {
        *ep = "-";
    }
    let flipped = Position::from_fen(position.rules().variant, &fields.join(" ")).ok()?;
    flipped.has_legal_moves().then(|| Game::new(flipped))
}

/// What the core keeps of the aids: which are on, what was found, what is being searched.
#[derive(Debug, Default)]
pub(crate) struct Aids {
    hint: bool,
    threat: bool,
    /// Answers found: kind, the FEN it was found for, the move.
    found: Vec<(AidKind, String, Move)>,
    /// Searches asked: kind, FEN, stop flag.
    pending: Vec<(AidKind, String, Arc<AtomicBool>)>,
}

impl Aids {
    /// Whether `kind` is on.
    pub(crate) fn is_on(&self, kind: AidKind) -> bool {
        match kind {
            AidKind::Hint => self.hint,
            AidKind::Threat => self.threat,
        }
    }

    /// Turns `kind` on or off (off stops its search).
    pub(crate) fn set(&mut self, kind: AidKind, on: bool) {
        match kind {
            AidKind::Hint => self.hint = on,
            AidKind::Threat => self.threat = on,
        }
        if !on {
            self.pending.retain(|(k, _, stop)| {
                let keep = *k != kind;
                if !keep {
                    stop.store(true, Ordering::Relaxed);
                }
                keep
            });
        }
    }

    /// Both off, every search stopped, nothing remembered (a new game, leaving).
    pub(crate) fn reset(&mut self) {
        for (_, _, stop) in self.pending.drain(..) {
            stop.store(true, Ordering::Relaxed);
        }
        *self = Aids::default();
    }

    /// Stops the searches for another position than `fen` and forgets their answers.
    pub(crate) fn keep_only(&mut self, fen: &str) {
        self.found.retain(|(_, f, _)| f == fen);
        self.pending.retain(|(_, f, stop)| {
            let keep = f == fen;
            if !keep {
                stop.store(true, Ordering::Relaxed);
            }
            keep
        });
    }

    /// The answer found for `kind` in `fen`.
    pub(crate) fn found(&self, kind: AidKind, fen: &str) -> Option<Move> {
        self.found.iter().find(|(k, f, _)| *k == kind && f == fen).map(|&(_, _, mv)| mv)
    }

    /// `true` while a search for `kind` in `fen` is asked and unanswered.
    pub(crate) fn is_pending(&self, kind: AidKind, fen: &str) -> bool {
        self.pending.iter().any(|(k, f, _)| *k == kind && f == fen)
    }

    /// `true` while any search is asked and unanswered.
    pub(crate) fn is_thinking(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Notes a search asked.
    pub(crate) fn asked(&mut self, kind: AidKind, fen: String, stop: Arc<AtomicBool>) {
        self.pending.push((kind, fen, stop));
    }

    /// The search for `kind` in `fen` ended with `mv`: `true` if it is still wanted (the
    /// answer is kept then).
    pub(crate) fn answered(&mut self, kind: AidKind, fen: &str, mv: Option<Move>) -> bool {
        let before = self.pending.len();
        self.pending.retain(|(k, f, _)| !(*k == kind && f == fen));
        let wanted = self.pending.len() < before && self.is_on(kind);
        if let (true, Some(mv)) = (wanted, mv) {
            self.found.push((kind, fen.to_owned(), mv));
        }
        wanted && mv.is_some()
    }
}

#[cfg(test)]
mod tests {
    use maharajah_engine::Variant;

    use super::*;

    #[test]
    fn the_threat_is_the_opponents_move_on_the_same_board() {
        // White to move; Black, if it were its turn, mates with Ra1#.
        let position = Position::from_fen(Variant::Chess, "r5k1/5ppp/8/8/8/8/5PPP/6K1 w - - 0 1")
            .expect("fen");
        let game = threat_game(&position).expect("a threat game");
        assert_eq!(game.position().turn(), maharajah_engine::Color::Black);
        let request = AidRequest {
            kind: AidKind::Threat,
            game,
            session: 1,
            fen: position.to_string(),
            stop: Arc::new(AtomicBool::new(false)),
        };
        assert_eq!(request.answer(&mut Searcher::new(1)), Some("a8a1".parse().expect("uci")));
        // In check there is no "if it were their move".
        let checked =
            Position::from_fen(Variant::Chess, "4k3/8/8/8/8/8/8/r3K3 w - - 0 1").expect("fen");
        assert!(threat_game(&checked).is_none());
        // A Maharajah army and Horde flip too.
        for variant in [Variant::Maharajah, Variant::Horde] {
            let start = Position::new(variant);
            let flipped = threat_game(&start).expect("flips");
            assert_ne!(flipped.position().turn(), start.turn(), "{variant:?}");
        }
    }

    #[test]
    fn answers_are_kept_only_while_wanted_and_for_their_position() {
        let mut aids = Aids::default();
        assert!(!aids.is_on(AidKind::Hint) && !aids.is_on(AidKind::Threat), "off by default");
        let mv: Move = "e2e4".parse().expect("uci");
        aids.set(AidKind::Hint, true);
        let stop = Arc::new(AtomicBool::new(false));
        aids.asked(AidKind::Hint, "A".into(), Arc::clone(&stop));
        assert!(aids.is_pending(AidKind::Hint, "A") && aids.is_thinking());
        // The position changed: the search is stopped and its answer refused.
        aids.keep_only("B");
        assert!(stop.load(Ordering::Relaxed));
        assert!(!aids.answered(AidKind::Hint, "A", Some(mv)));
        assert_eq!(aids.found(AidKind::Hint, "A"), None);
        // Asked and answered in the same position: kept.
        aids.asked(AidKind::Hint, "B".into(), Arc::new(AtomicBool::new(false)));
        assert!(aids.answered(AidKind::Hint, "B", Some(mv)));
        assert_eq!(aids.found(AidKind::Hint, "B"), Some(mv));
        assert!(!aids.is_thinking());
        // Turned off meanwhile: refused.
        let stop = Arc::new(AtomicBool::new(false));
        aids.set(AidKind::Threat, true);
        aids.asked(AidKind::Threat, "B".into(), Arc::clone(&stop));
        aids.set(AidKind::Threat, false);
        assert!(stop.load(Ordering::Relaxed));
        assert!(!aids.answered(AidKind::Threat, "B", Some(mv)));
        aids.reset();
        assert_eq!(aids.found(AidKind::Hint, "B"), None);
        assert!(!aids.is_on(AidKind::Hint));
    }
}
