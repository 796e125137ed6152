//! What a local chess game is as storage keeps it: who plays it ([`Opponent`], the players'
//! [`Names`]), how it ended ([`GameResult`], [`EndReason`]) and its saved row ([`GameRecord`]).
//! A leaf: the session, the store and the commands all speak these words, and it imports
//! nothing of the app.

use maharajah_engine::clock::TimeControl;
use maharajah_engine::{Color, Move, Outcome, Variant};
use serde::{Deserialize, Serialize};

/// Who plays against the person holding the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Opponent {
    /// Pass-and-play: two people share the device.
    Human,
    /// The computer plays `color` at `level` (1 beginner … 8 strongest).
    Computer {
        /// The computer's colour.
        color: Color,
        /// Difficulty, 1 to 8.
        level: u8,
    },
}

/// The names two people at one board (pass-and-play) go by; a side without one is called by its
/// colour. Against the computer both are `None`: the person stays "You".
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Names {
    /// White's name.
    pub white: Option<String>,
    /// Black's name.
    pub black: Option<String>,
}

/// The longest name a player may give, in characters.
pub const NAME_MAX_CHARS: usize = 20;

/// What is wrong with a player's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameProblem {
    /// More than [`NAME_MAX_CHARS`] characters after trimming.
    TooLong,
    /// A control character (a line break, a tab…) or an invisible text-direction mark.
    Control,
}

/// A name refused for `color`'s player.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadPlayerName {
    /// Whose name it is.
    pub color: Color,
    /// What is wrong with it.
    pub problem: NameProblem,
}

impl std::fmt::Display for BadPlayerName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.problem {
            NameProblem::TooLong => {
                write!(f, "{}'s name is longer than {NAME_MAX_CHARS} characters", self.color)
            }
            NameProblem::Control => {
                write!(f, "{}'s name holds a control character", self.color)
            }
        }
    }
}

impl std::error::Error for BadPlayerName {}

/// Whether `c` may not stand in a name: a control character, or a mark that reorders the text
/// around it without being seen (the bidirectional embeddings, overrides and isolates).
fn is_forbidden(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// One player's name as given: trimmed; `None` when nothing is left (the colour's name then).
fn checked_name(color: Color, text: Option<&str>) -> Result<Option<String>, BadPlayerName> {
    let name = text.unwrap_or_default().trim();
    if name.is_empty() {
        return Ok(None);
    }
    let refuse = |problem| Err(BadPlayerName { color, problem });
    if name.chars().any(is_forbidden) {
        return refuse(NameProblem::Control);
    }
    if name.chars().count() > NAME_MAX_CHARS {
        return refuse(NameProblem::TooLong);
    }
    Ok(Some(name.to_owned()))
}

impl Names {
    /// The names as the players typed them, checked: each trimmed, 1 to [`NAME_MAX_CHARS`]
    /// characters without control characters; an empty one is no name.
    ///
    /// # Errors
    /// [`BadPlayerName`] for the first side whose name is too long or holds a control character.
    ///
    /// # Examples
    /// ```
    /// use maharajah_app::record::Names;
    /// let names = Names::checked(Some(" Ana "), Some("")).expect("fine");
    /// assert_eq!((names.white.as_deref(), names.black), (Some("Ana"), None));
    /// assert!(Names::checked(Some("a\tb"), None).is_err());
    /// ```
    pub fn checked(white: Option<&str>, black: Option<&str>) -> Result<Names, BadPlayerName> {
        Ok(Names {
            white: checked_name(Color::White, white)?,
            black: checked_name(Color::Black, black)?,
        })
    }

    /// These names checked again (see [`Names::checked`]).
    ///
    /// # Errors
    /// As [`Names::checked`].
    pub fn recheck(&self) -> Result<Names, BadPlayerName> {
        Names::checked(self.white.as_deref(), self.black.as_deref())
    }

    /// `color`'s name, if it has one.
    #[must_use]
    pub fn of(&self, color: Color) -> Option<&str> {
        match color {
            Color::White => self.white.as_deref(),
            Color::Black => self.black.as_deref(),
        }
    }

    /// Whether neither side has a name.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.white.is_none() && self.black.is_none()
    }
}

/// Why a game ended: the one vocabulary of the wire, the store and the result dialog (its
/// snake-case name is the dialog's i18n key `reason.<name>`).
pub use maharajah_protocol::EndReason;

/// How a game ended: the winner (none for a draw) and the reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameResult {
    /// The winner, `None` for a draw.
    pub winner: Option<Color>,
    /// Why it ended.
    pub reason: EndReason,
}

impl GameResult {
    /// The result of a game the board ended (checkmate, stalemate, repetition…).
    #[must_use]
    pub fn from_outcome(outcome: Outcome) -> GameResult {
        match outcome {
            Outcome::Decisive { winner, reason } => {
                GameResult { winner: Some(winner), reason: reason.into() }
            }
            Outcome::Draw { reason } => GameResult { winner: None, reason: reason.into() },
        }
    }

    /// The PGN result token.
    #[must_use]
    pub const fn pgn(self) -> &'static str {
        match self.winner {
            Some(Color::White) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        }
    }
}

/// An aid a person may ask for in a game against the computer (both off by default).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AidKind {
    /// The piece the engine would move, highlighted.
    Hint,
    /// What the opponent would play if it were their move, as an arrow.
    Threat,
}

impl AidKind {
    /// Both kinds.
    pub const ALL: [AidKind; 2] = [AidKind::Hint, AidKind::Threat];

    /// The word the PGN writes: the comment `{hint}` / `{threat}` on the move played after it.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            AidKind::Hint => "hint",
            AidKind::Threat => "threat",
        }
    }

    /// The PGN tag counting its uses: `[Hints "n"]` / `[Threats "n"]`.
    #[must_use]
    pub const fn tag(self) -> &'static str {
        match self {
            AidKind::Hint => "Hints",
            AidKind::Threat => "Threats",
        }
    }
}

/// An aid shown to the person: in the position after `ply` moves (the person to move).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AidUse {
    /// Moves played when it was shown.
    pub ply: usize,
    /// Which aid.
    pub kind: AidKind,
}

/// A saved game's row: what storage keeps and gives back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameRecord {
    /// Row id.
    pub id: i64,
    /// The variant.
    pub variant: Variant,
    /// The opponent.
    pub opponent: Opponent,
    /// FEN of the start position.
    pub start_fen: String,
    /// Moves in UCI, in order.
    pub moves: Vec<Move>,
    /// Result, once over.
    pub result: Option<GameResult>,
    /// Time control, if any.
    pub time_control: Option<TimeControl>,
    /// Remaining times when saved.
    pub clock_ms: Option<(u64, u64)>,
    /// Unix seconds of creation.
    pub created_at: i64,
    /// The hints and threats shown, in order (each position and kind once).
    pub aids: Vec<AidUse>,
    /// The side whose draw offer stands (it survives closing the app).
    pub draw_offer: Option<Color>,
    /// The players' names (pass-and-play; empty against the computer).
    pub names: Names,
}

#[cfg(test)]
mod tests {
    use super::EndReason;

    /// The result dialog shows `reason.<name>` from the catalogues: every reason the wire or the
    /// store can carry has a text in every language the UI ships.
    #[test]
    fn every_end_reason_has_a_text_in_every_catalogue() {
        let catalogues = [
            ("en", include_str!("../../../ui/i18n/en.js")),
            ("es", include_str!("../../../ui/i18n/es.js")),
        ];
        for (language, text) in catalogues {
            let keys = EndReason::ALL
                .iter()
                .map(|r| r.name())
                .chain(["left_before_start"])
                .map(|name| format!("'reason.{name}':"));
            let missing: Vec<String> = keys.filter(|k| !text.contains(k.as_str())).collect();
            assert!(missing.is_empty(), "{language} lacks {missing:?}");
        }
    }
}
