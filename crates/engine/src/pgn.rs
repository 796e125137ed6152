//! PGN export and import. Maharajah games carry `[Variant "Maharajah"]`, custom starts
//! `[SetUp "1"]` and `[FEN "..."]` (the extended FEN for Maharajah). Import tolerates comments,
//! NAGs, variations (skipped), move numbers and a result token.
//!
//! Export writes the Seven Tag Roster first, in order (Event, Site, Date, Round, White, Black,
//! Result), then the caller's other tags, then `Variant`, `SetUp` and `FEN`. A Maharajah game
//! whose two sides are classic and whose start plays exactly like chess
//! ([`Position::is_plain_chess`]) is written as `[Variant "From Position"]` with a plain FEN, as
//! lichess writes chess from a set-up position, so every chess tool opens it; a `[Maharajah "cc"]`
//! tag, which other tools ignore, brings it back here as the Maharajah game it was. Import reads
//! `[Variant "From Position"]` without that tag as chess from the `FEN` tag.

use std::fmt;

use crate::game::Game;
use crate::position::Position;
use crate::profile::Variant;
use crate::san::SanError;
use crate::FenError;

/// Tag pairs written by [`to_pgn`] besides the required ones.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PgnTags {
    /// `(name, value)` pairs such as `("White", "Ana")`, written in order.
    pub extra: Vec<(String, String)>,
}

/// Why a PGN could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PgnError {
    /// A tag pair is malformed.
    Tag(String),
    /// The `Variant` tag names an unknown variant.
    Variant(String),
    /// The `FEN` tag is invalid.
    Fen(FenError),
    /// A move is not legal SAN in its position (with its 1-based ply).
    Move {
        /// Ply number, 1-based.
        ply: usize,
        /// The SAN problem.
        error: SanError,
    },
    /// A comment or variation is not closed.
    Unterminated,
}

impl fmt::Display for PgnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PgnError::Tag(s) => write!(f, "bad PGN tag: {s}"),
            PgnError::Variant(s) => write!(f, "unknown PGN variant {s:?}"),
            PgnError::Fen(e) => write!(f, "bad PGN FEN tag: {e}"),
            PgnError::Move { ply, error } => write!(f, "ply {ply}: {error}"),
            PgnError::Unterminated => f.write_str("unterminated comment or variation"),
        }
    }
}

impl std::error::Error for PgnError {}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The Seven Tag Roster, in the order the PGN standard writes it.
const SEVEN_TAGS: [&str; 7] = ["Event", "Site", "Date", "Round", "White", "Black", "Result"];
/// Lichess's `Variant` value for a chess game from a set-up position.
const FROM_POSITION: &str = "From Position";
/// The tag that marks a `From Position` export as a Maharajah game with two classic sides.
const MAHARAJAH_TAG: &str = "Maharajah";

/// Writes a game as PGN. The `Result` tag is the game's outcome if it is over, else `*`.
#[must_use]
pub fn to_pgn(game: &Game, tags: &PgnTags) -> String {
    let start = game.start();
    let variant = start.rules().variant;
    let result = game.outcome().map_or("*", |o| o.result_str());
    let mut out = String::new();
    let mut tag = |k: &str, v: &str| out.push_str(&format!("[{k} \"{}\"]\n", escape(v)));
    let given = |k: &str| tags.extra.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    // The Seven Tag Roster first, in its order (PGN standard 8.1.1); Result is the game's.
    for (k, default) in [
        ("Event", "?"),
        ("Site", "?"),
        ("Date", "????.??.??"),
        ("Round", "?"),
        ("White", "?"),
        ("Black", "?"),
    ] {
        tag(k, given(k).unwrap_or(default));
    }
    tag("Result", result);
    for (k, v) in &tags.extra {
        if !SEVEN_TAGS.contains(&k.as_str())
            && !matches!(k.as_str(), "Variant" | "SetUp" | "FEN" | MAHARAJAH_TAG)
        {
            tag(k, v);
        }
    }
    if variant == Variant::Maharajah && start.is_plain_chess() {
        // Two classic sides whose rules are exactly chess here: plain FEN that every chess tool
        // opens (lichess's "From Position"), and a tag only this program reads, so the game comes
        // back as the Maharajah game it was.
        tag("Variant", FROM_POSITION);
        tag("SetUp", "1");
        tag("FEN", &start.plain_fen());
        tag(MAHARAJAH_TAG, "cc");
    } else {
        match variant {
            Variant::Chess => {}
            Variant::Maharajah => tag("Variant", "Maharajah"),
            Variant::Horde => tag("Variant", "Horde"),
        }
        let default_start = Position::new(start.rules().variant);
        if start.to_string() != default_start.to_string() || variant == Variant::Maharajah {
            tag("SetUp", "1");
            tag("FEN", &start.to_string());
        }
    }
    out.push('\n');
    let mut pos = start.clone();
    let mut text = String::new();
    for (i, mv) in game.moves().iter().enumerate() {
        if pos.turn() == crate::Color::White {
            text.push_str(&format!("{}. ", pos.fullmove_number()));
        } else if i == 0 {
            text.push_str(&format!("{}... ", pos.fullmove_number()));
        }
        text.push_str(&pos.san(*mv));
        text.push(' ');
        pos.play_unchecked(*mv);
    }
    text.push_str(result);
    // Wrap the movetext at about 80 columns.
    let mut line_len = 0;
    for word in text.split(' ') {
        if line_len > 0 && line_len + word.len() + 1 > 80 {
            out.push('\n');
            line_len = 0;
        } else if line_len > 0 {
            out.push(' ');
            line_len += 1;
        }
        out.push_str(word);
        line_len += word.len();
    }
    out.push('\n');
    out
}

/// `true` for lichess's `From Position` (also written `fromPosition`): chess from the `FEN` tag.
fn is_from_position(v: &str) -> bool {
    v.replace(' ', "").eq_ignore_ascii_case("fromposition")
}

/// A parsed PGN game: its tags and the replayed game.
#[derive(Debug, Clone)]
pub struct PgnGame {
    /// All tag pairs in file order.
    pub tags: Vec<(String, String)>,
    /// The game, replayed move by move.
    pub game: Game,
}

/// Reads the first game of a PGN text.
///
/// # Errors
/// [`PgnError`] for malformed tags, an unknown variant, a bad FEN or an illegal move.
pub fn from_pgn(text: &str) -> Result<PgnGame, PgnError> {
    let mut tags = Vec::new();
    let mut rest = text.trim_start_matches('\u{feff}');
    // Tag section.
    loop {
        rest = rest.trim_start();
        if !rest.starts_with('[') {
            break;
        }
        let end = rest
            .find(']')
            .ok_or_else(|| PgnError::Tag(rest.lines().next().unwrap_or("").to_owned()))?;
        let inner = &rest[1..end];
        // A quoted value may contain ']': find the closing quote instead when quoted.
        let (inner, consumed) = match inner.find('"') {
            Some(q) => {
                let bytes = rest.as_bytes();
                let mut i = 1 + q + 1;
                let mut esc = false;
                while i < bytes.len() {
                    match bytes[i] {
                        b'\\' if !esc => esc = true,
                        b'"' if !esc => break,
                        _ => esc = false,
                    }
                    i += 1;
                }
                let close = rest[i..].find(']').map(|j| i + j).ok_or(PgnError::Unterminated)?;
                (&rest[1..close], close + 1)
            }
            None => (inner, end + 1),
        };
        let inner = inner.trim();
        let (name, value) =
            inner.split_once(char::is_whitespace).ok_or_else(|| PgnError::Tag(inner.to_owned()))?;
        let value = value.trim();
        let value = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .ok_or_else(|| PgnError::Tag(inner.to_owned()))?;
        tags.push((name.to_owned(), value.replace("\\\"", "\"").replace("\\\\", "\\")));
        rest = &rest[consumed..];
    }
    let tag =
        |k: &str| tags.iter().find(|(n, _)| n.eq_ignore_ascii_case(k)).map(|(_, v)| v.as_str());
    let variant = match tag("Variant") {
        None => Variant::Chess,
        Some(v) if is_from_position(v) && tag(MAHARAJAH_TAG).is_some() => Variant::Maharajah,
        Some(v) if is_from_position(v) => Variant::Chess,
        Some(v) => v.parse().map_err(|_| PgnError::Variant(v.to_owned()))?,
    };
    let start = match tag("FEN") {
        Some(fen) => Position::from_fen(variant, fen).map_err(PgnError::Fen)?,
        None => Position::new(variant),
    };
    let mut game = Game::new(start);

    // Movetext.
    let mut depth = 0usize;
    let mut chars = rest.char_indices().peekable();
    let mut token = String::new();
    let mut ply = 0;
    let mut flush = |token: &mut String, game: &mut Game| -> Result<bool, PgnError> {
        if token.is_empty() {
            return Ok(true);
        }
        let t = std::mem::take(token);
        let t = t.as_str();
        if matches!(t, "1-0" | "0-1" | "1/2-1/2" | "*") {
            return Ok(false);
        }
        if t.starts_with('$') || t.chars().all(|c| c.is_ascii_digit() || c == '.') {
            return Ok(true);
        }
        if matches!(t, "!" | "?" | "!!" | "??" | "!?" | "?!") {
            return Ok(true);
        }
        ply += 1;
        let mv = game.position().parse_san(t).map_err(|error| PgnError::Move { ply, error })?;
        game.play_unchecked(mv);
        Ok(true)
    };
    while let Some((_, c)) = chars.next() {
        match c {
            '{' => {
                if depth == 0 && !flush(&mut token, &mut game)? {
                    break;
                }
                loop {
                    match chars.next() {
                        Some((_, '}')) => break,
                        Some(_) => {}
                        None => return Err(PgnError::Unterminated),
                    }
                }
            }
            ';' => {
                if depth == 0 && !flush(&mut token, &mut game)? {
                    break;
                }
                for (_, c) in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '(' => {
                if depth == 0 && !flush(&mut token, &mut game)? {
                    break;
                }
                token.clear();
                depth += 1;
            }
            ')' => {
                depth = depth.saturating_sub(1);
                token.clear();
            }
            '[' if depth == 0 && token.is_empty() => break, // next game
            c if c.is_whitespace() => {
                if depth == 0 && !flush(&mut token, &mut game)? {
                    break;
                }
                token.clear();
            }
            c => {
                if depth == 0 {
                    if c == '.' && token.chars().all(|d| d.is_ascii_digit()) {
                        token.clear();
                        continue;
                    }
                    token.push(c);
                }
            }
        }
    }
    if depth > 0 {
        return Err(PgnError::Unterminated);
    }
    if depth == 0 {
        flush(&mut token, &mut game)?;
    }
    Ok(PgnGame { tags, game })
}
