//! Annotated PGN: a [`MoveTree`] with comments, `[%eval …]` evaluations, NAGs and variations,
//! written and read.
//!
//! The tag section is the engine's ([`maharajah_engine::to_pgn`] and
//! [`maharajah_engine::from_pgn`]: Seven Tag Roster, `Variant`, `SetUp`, `FEN`, the extended
//! Maharajah FEN), so an annotated file opens wherever a plain one does. The movetext is
//! written here:
//!
//! * a node's evaluation and comments go in one comment after its move,
//!   `{ [%eval -2.95] Blunder. Nf3 was best. }` (lichess's form);
//! * the move-assessment NAGs 1–6 are written as glyphs after the move (`Qh4??`, `e4!`), as
//!   lichess and most tools write them; other NAGs as `$n`;
//! * variations in parentheses after the move they replace, with move numbers restated.
//!
//! Import reads all of these back, also NAGs written `$2`, glyphs with a space (`Qh4 ??`),
//! `;` comments and nested variations.

use std::fmt::Write as _;

use maharajah_engine::{from_pgn, to_pgn, Color, PgnError, PgnTags};

use crate::eval::Eval;
use crate::tree::{MoveTree, NodeId};

/// A game read from annotated PGN: its tags in file order and its tree.
#[derive(Debug, Clone)]
pub struct AnnotatedGame {
    /// Tag pairs in file order.
    pub tags: Vec<(String, String)>,
    /// The main line, variations and annotations; the cursor is at the root.
    pub tree: MoveTree,
}

impl AnnotatedGame {
    /// The value of tag `name` (case-insensitive).
    #[must_use]
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// The glyph of a move-assessment NAG (1 `!`, 2 `?`, 3 `!!`, 4 `??`, 5 `!?`, 6 `?!`).
#[must_use]
pub const fn nag_glyph(nag: u8) -> Option<&'static str> {
    match nag {
        1 => Some("!"),
        2 => Some("?"),
        3 => Some("!!"),
        4 => Some("??"),
        5 => Some("!?"),
        6 => Some("?!"),
        _ => None,
    }
}

/// The NAG a glyph stands for (the inverse of [`nag_glyph`]).
#[must_use]
pub fn glyph_nag(glyph: &str) -> Option<u8> {
    (1..=6).find(|&n| nag_glyph(n) == Some(glyph))
}

/// A PGN result token, if `s` is one.
fn is_result(s: &str) -> bool {
    matches!(s, "1-0" | "0-1" | "1/2-1/2" | "*")
}

/// Writes `tree` as annotated PGN with `tags` (see [`maharajah_engine::to_pgn`] for the tag
/// rules). The result is the main line's outcome if the rules ended it, else a `Result` tag
/// given in `tags` (a resignation, a flag), else `*`.
#[must_use]
pub fn to_annotated_pgn(tree: &MoveTree, tags: &PgnTags) -> String {
    let main = tree.main_game();
    let plain = to_pgn(&main, tags);
    let header = plain.split_once("\n\n").map_or(plain.as_str(), |(h, _)| h);
    let given = tags.extra.iter().find(|(k, _)| k == "Result").map(|(_, v)| v.as_str());
    let result = match main.outcome() {
        Some(o) => o.result_str(),
        None => given.filter(|r| is_result(r)).unwrap_or("*"),
    };
    let mut out = String::with_capacity(header.len() + 64 * tree.len());
    for line in header.lines() {
        if line.starts_with("[Result ") {
            let _ = writeln!(out, "[Result \"{result}\"]");
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push('\n');

    let mut words = Vec::new();
    let root = tree.node(tree.root());
    push_comment(&mut words, root.eval, &root.comments);
    // The first move always has its number (`1...` when Black starts).
    write_children(tree, tree.root(), true, &mut words);
    words.push(result.to_owned());
    wrap(&words, &mut out);
    out
}

/// Appends `{ [%eval x] comments }` if there is anything to say.
fn push_comment(words: &mut Vec<String>, eval: Option<Eval>, comments: &[String]) {
    if eval.is_none() && comments.iter().all(|c| c.trim().is_empty()) {
        return;
    }
    let mut text = String::from("{");
    if let Some(e) = eval {
        let _ = write!(text, " [%eval {e}]");
    }
    for c in comments {
        let c = c.trim();
        if !c.is_empty() {
            text.push(' ');
            // A brace would end the comment early.
            text.push_str(&c.replace('}', ")"));
        }
    }
    text.push_str(" }");
    words.push(text);
}

/// Writes one move: number when needed, SAN with its glyph, other NAGs, the comment. Returns
/// `true` if a comment followed (so the next move restates its number).
fn write_move(tree: &MoveTree, id: NodeId, force_number: bool, words: &mut Vec<String>) -> bool {
    let node = tree.node(id);
    let parent = tree.node(node.parent().expect("a move node has a parent"));
    let before = parent.position();
    if before.turn() == Color::White {
        words.push(format!("{}.", before.fullmove_number()));
    } else if force_number {
        words.push(format!("{}...", before.fullmove_number()));
    }
    let mut san = node.san().to_owned();
    let mut glyph_written = false;
    let mut others = Vec::new();
    for &nag in &node.nags {
        match nag_glyph(nag) {
            Some(g) if !glyph_written => {
                san.push_str(g);
                glyph_written = true;
            }
            _ => others.push(format!("${nag}")),
        }
    }
    words.push(san);
    words.extend(others);
    let before_len = words.len();
    push_comment(words, node.eval, &node.comments);
    words.len() > before_len
}

/// Writes the continuation of `id`: its main child, that child's siblings as variations, then
/// the rest of the line.
fn write_children(tree: &MoveTree, id: NodeId, force_number: bool, words: &mut Vec<String>) {
    let mut at = id;
    let mut force = force_number;
    loop {
        let children = tree.node(at).children();
        let Some((&main, variations)) = children.split_first() else { return };
        let commented = write_move(tree, main, force, words);
        for &v in variations {
            words.push("(".into());
            let commented = write_move(tree, v, true, words);
            write_children(tree, v, commented, words);
            words.push(")".into());
        }
        force = commented || !variations.is_empty();
        at = main;
    }
}

/// Joins words with spaces, no space inside parentheses, lines wrapped at about 80 columns.
fn wrap(words: &[String], out: &mut String) {
    let mut line_len = 0;
    let mut prev: Option<&str> = None;
    for word in words {
        let glue = !matches!(prev, None | Some("(")) && word != ")";
        for (i, piece) in pieces(word).into_iter().enumerate() {
            let space = i > 0 || glue;
            if space && line_len + piece.len() + 1 > 80 {
                out.push('\n');
                line_len = 0;
            } else if space {
                out.push(' ');
                line_len += 1;
            }
            out.push_str(&piece);
            line_len += piece.len();
        }
        prev = Some(word);
    }
    out.push('\n');
}

/// Splits a word at its spaces for wrapping, keeping each `[%command …]` in one piece.
fn pieces(word: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    // Inside a command, or just after the opening brace (`{ [%eval 0.35]` stays together).
    let (mut open, mut join) = (false, false);
    for piece in word.split(' ') {
        match out.last_mut() {
            Some(last) if join => {
                last.push(' ');
                last.push_str(piece);
            }
            _ => out.push(piece.to_owned()),
        }
        if piece.starts_with("[%") {
            open = true;
        }
        if piece.contains(']') {
            open = false;
        }
        join = open || piece == "{";
    }
    out
}

/// Splits a comment's text into its `[%eval …]` value and the rest (other commands such as
/// `[%clk …]` stay in the text).
fn split_eval(text: &str) -> (Option<Eval>, String) {
    let mut eval = None;
    let mut rest = String::new();
    let mut s = text;
    while let Some(i) = s.find("[%eval") {
        rest.push_str(&s[..i]);
        let after = &s[i + "[%eval".len()..];
        match after.find(']') {
            Some(j) => {
                // `[%eval 0.35,12]` carries a depth after the comma.
                let value = after[..j].split(',').next().unwrap_or("");
                match value.trim().parse::<Eval>() {
                    Ok(e) => eval = Some(e),
                    Err(_) => rest.push_str(&s[i..i + "[%eval".len() + j + 1]),
                }
                s = &after[j + 1..];
            }
            None => {
                rest.push_str(&s[i..]);
                s = "";
            }
        }
    }
    rest.push_str(s);
    (eval, rest.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// A movetext token.
#[derive(Debug, PartialEq, Eq)]
enum Token<'a> {
    Comment(&'a str),
    Open,
    Close,
    Nag(u8),
    Word(&'a str),
}

/// Splits movetext into tokens; `None` for an unterminated comment. Stops at the end of the
/// game (a result token at depth 0 is returned as a word, the caller stops there).
fn tokenize(text: &str) -> Option<Vec<Token<'_>>> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'{' => {
                let end = text[i + 1..].find('}')? + i + 1;
                out.push(Token::Comment(&text[i + 1..end]));
                i = end + 1;
            }
            b';' => {
                let end = text[i..].find('\n').map_or(text.len(), |j| i + j);
                out.push(Token::Comment(&text[i + 1..end]));
                i = end;
            }
            b'(' => {
                out.push(Token::Open);
                i += 1;
            }
            b')' => {
                out.push(Token::Close);
                i += 1;
            }
            c if c.is_ascii_whitespace() => i += 1,
            _ => {
                let end = text[i..]
                    .find(|ch: char| ch.is_ascii_whitespace() || "{}();".contains(ch))
                    .map_or(text.len(), |j| i + j);
                let word = &text[i..end];
                match word.strip_prefix('$').map(str::parse::<u8>) {
                    Some(Ok(n)) => out.push(Token::Nag(n)),
                    _ => out.push(Token::Word(word)),
                }
                i = end;
            }
        }
    }
    Some(out)
}

/// Strips a move number (`12.`, `12...`, `12…`) from the front of a word.
fn strip_move_number(word: &str) -> &str {
    let digits = word.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return word;
    }
    let rest = &word[digits..];
    let dots = rest.trim_start_matches(['.', '…']);
    if dots.len() == rest.len() {
        word
    } else {
        dots
    }
}

/// Reads the first game of a PGN text with its comments, evaluations, NAGs and variations.
///
/// # Errors
/// [`PgnError`] for a bad tag section (see [`maharajah_engine::from_pgn`]), a move that is not
/// legal where it stands (its ply counted from the start along its line), or an unterminated
/// comment or variation.
pub fn from_annotated_pgn(text: &str) -> Result<AnnotatedGame, PgnError> {
    let text = text.trim_start_matches('\u{feff}');
    // The tag section: leading lines that are tag pairs (or blank).
    let mut header_end = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        if !(t.is_empty() || t.starts_with('[')) {
            break;
        }
        header_end += line.len();
    }
    let (header, movetext) = text.split_at(header_end);
    let parsed = from_pgn(header)?;
    let mut tree = MoveTree::new(parsed.game.start().clone());

    let tokens = tokenize(movetext).ok_or(PgnError::Unterminated)?;
    // `at`: the node the next move is played from's child, i.e. the last move of the line.
    let mut at = tree.root();
    let mut stack: Vec<NodeId> = Vec::new();
    // Comments before a variation's first move wait for it.
    let mut pending: Vec<String> = Vec::new();
    let mut just_opened = false;
    for token in tokens {
        match token {
            Token::Comment(text) => {
                let (eval, rest) = split_eval(text);
                if just_opened {
                    // Before a variation's first move: it belongs to that move.
                    if !rest.is_empty() {
                        pending.push(rest);
                    }
                    continue;
                }
                // After a move, or before the first move (the root's comment).
                let node = tree.get_mut(at).expect("the current node is live");
                node.eval = eval.or(node.eval);
                if !rest.is_empty() {
                    node.comments.push(rest);
                }
            }
            Token::Nag(n) => {
                if let Some(node) = tree.get_mut(at).filter(|n| n.parent().is_some()) {
                    node.nags.push(n);
                }
            }
            Token::Open => {
                let Some(parent) = tree.node(at).parent() else {
                    // A variation before any move: nothing to replace.
                    return Err(PgnError::Unterminated);
                };
                stack.push(at);
                at = parent;
                just_opened = true;
            }
            Token::Close => {
                at = stack.pop().ok_or(PgnError::Unterminated)?;
                pending.clear();
                just_opened = false;
            }
            Token::Word(word) => {
                if is_result(word) {
                    if stack.is_empty() {
                        break;
                    }
                    continue;
                }
                if word.starts_with('[') && stack.is_empty() {
                    break; // the next game's tags
                }
                let word = strip_move_number(word);
                if word.is_empty() {
                    continue;
                }
                if let Some(n) = glyph_nag(word) {
                    if let Some(node) = tree.get_mut(at).filter(|n| n.parent().is_some()) {
                        node.nags.push(n);
                    }
                    continue;
                }
                let san_end = word.trim_end_matches(['!', '?']).len();
                let (san, glyph) = word.split_at(san_end);
                let ply = tree.path(at).len();
                let mv = tree
                    .node(at)
                    .position()
                    .parse_san(san)
                    .map_err(|error| PgnError::Move { ply, error })?;
                let id = tree.add(at, mv).expect("parse_san returns a legal move");
                let node = tree.get_mut(id).expect("just added");
                if let Some(n) = glyph_nag(glyph) {
                    node.nags.push(n);
                }
                node.comments.append(&mut pending);
                at = id;
                just_opened = false;
            }
        }
    }
    if !stack.is_empty() {
        return Err(PgnError::Unterminated);
    }
    Ok(AnnotatedGame { tags: parsed.tags, tree })
}

#[cfg(test)]
mod tests {
    use maharajah_engine::{Position, Variant};

    use super::*;
    use crate::judge::Judgement;

    const ANNOTATED: &str = r#"[Event "Casual"]
[Site "?"]
[Date "2026.12.01"]
[Round "?"]
[White "Ana"]
[Black "Ben"]
[Result "1-0"]

{ A short game. } 1. e4 { [%eval 0.30] } 1... e5 (1... c5 { [%eval 0.25] Sicilian. }
2. Nf3 (2. c3 $1) 2... d6) 2. Nf3 Qh4?? { [%eval 5.10] Blunder. Nc6 was best. }
(2... Nc6 { [%eval 0.35] }) 3. Nxh4 $14 { [%eval 5.00] [%clk 0:05:00] } 1-0
"#;

    #[test]
    fn import_keeps_comments_nags_evals_and_variations() {
        let g = from_annotated_pgn(ANNOTATED).expect("valid PGN");
        let t = &g.tree;
        assert_eq!(g.tag("White"), Some("Ana"));
        assert_eq!(t.main_line_san(), ["e4", "e5", "Nf3", "Qh4", "Nxh4"]);
        assert_eq!(t.node(t.root()).comments, ["A short game."]);
        let main = t.main_line();
        assert_eq!(t.node(main[0]).eval, Some(Eval::Cp(30)));
        let qh4 = t.node(main[3]);
        assert_eq!(qh4.nags, [Judgement::Blunder.nag()]);
        assert_eq!(qh4.eval, Some(Eval::Cp(510)));
        assert_eq!(qh4.comments, ["Blunder. Nc6 was best."]);
        let nxh4 = t.node(main[4]);
        assert_eq!(nxh4.nags, [14]);
        assert_eq!(nxh4.comments, ["[%clk 0:05:00]"]);
        // 1... c5 with its nested 2. c3!
        let e4 = t.node(main[0]);
        assert_eq!(e4.children().len(), 2);
        let c5 = t.node(e4.children()[1]);
        assert_eq!((c5.san(), c5.eval), ("c5", Some(Eval::Cp(25))));
        assert_eq!(c5.comments, ["Sicilian."]);
        let nf3 = t.node(c5.children()[0]);
        assert_eq!(nf3.san(), "Nf3");
        assert_eq!(t.node(nf3.children()[0]).san(), "d6");
        let c3 = t.node(c5.children()[1]);
        assert_eq!((c3.san(), c3.nags.as_slice()), ("c3", &[1][..]));
        let nc6 = t.node(t.node(main[2]).children()[1]);
        assert_eq!(nc6.san(), "Nc6");
    }

    #[test]
    fn round_trip_is_exact() {
        let g = from_annotated_pgn(ANNOTATED).expect("valid PGN");
        let tags = PgnTags { extra: g.tags.clone() };
        let written = to_annotated_pgn(&g.tree, &tags);
        let flat = written.replace('\n', " ");
        assert!(flat.contains("2. Nf3 Qh4?? { [%eval 5.10] Blunder. Nc6 was best. }"), "{written}");
        assert!(
            flat.contains("(1... c5 { [%eval 0.25] Sicilian. } 2. Nf3 (2. c3!) 2... d6)"),
            "{written}"
        );
        assert!(written.lines().all(|l| l.len() <= 80), "wrapped: {written}");
        let whole_commands = |l: &str| l.split("[%").skip(1).all(|c| c.contains(']'));
        assert!(!written.lines().any(|l| l.ends_with('{')), "a brace opens its comment: {written}");
        assert!(written.lines().all(whole_commands), "[%eval] kept on one line: {written}");
        assert!(written.contains("[Result \"1-0\"]"), "the given result is kept: {written}");
        assert!(written.trim_end().ends_with("1-0"));
        let again = from_annotated_pgn(&written).expect("our own output reads back");
        assert_eq!(to_annotated_pgn(&again.tree, &PgnTags { extra: again.tags.clone() }), written);
        // The same tree: every node's SAN, NAGs, comments and eval.
        let dump = |t: &MoveTree| {
            let mut out = Vec::new();
            let mut stack = vec![t.root()];
            while let Some(id) = stack.pop() {
                let n = t.node(id);
                out.push((n.san().to_owned(), n.nags.clone(), n.comments.clone(), n.eval));
                stack.extend(n.children().iter().rev());
            }
            out
        };
        assert_eq!(dump(&again.tree), dump(&g.tree));
    }

    #[test]
    fn maharajah_and_horde_round_trip_with_their_tags() {
        let mut t = MoveTree::new(Position::new(Variant::Horde));
        t.play_san("e5").expect("legal");
        let id = t.play_san("d6").expect("legal");
        t.get_mut(id).expect("live").eval = Some(Eval::Mate { winner: Color::Black, moves: 7 });
        let text = to_annotated_pgn(&t, &PgnTags::default());
        assert!(text.contains("[Variant \"Horde\"]"), "{text}");
        assert!(text.contains("{ [%eval #-7] }"), "{text}");
        let back = from_annotated_pgn(&text).expect("reads back");
        assert_eq!(back.tree.main_line_san(), ["e5", "d6"]);
        assert_eq!(back.tree.position().rules().variant, Variant::Horde);

        let start = Position::from_fen(
            Variant::Maharajah,
            "rnbqkbnr/pppppppp/8/8/8/8/8/CCCAKBA1 w kq - 0 1",
        )
        .expect("a Maharajah army");
        let mut m = MoveTree::new(start);
        m.play_san("Ab3").expect("legal");
        m.back();
        m.play_san("Kf2").expect("legal");
        let text = to_annotated_pgn(&m, &PgnTags::default());
        assert!(text.contains("[Variant \"Maharajah\"]"), "{text}");
        assert!(text.contains("1. Ab3 (1. Kf2) *"), "{text}");
        let back = from_annotated_pgn(&text).expect("reads back");
        assert_eq!(back.tree.node(back.tree.root()).children().len(), 2);
    }

    #[test]
    fn nags_spelled_any_way() {
        let g =
            from_annotated_pgn("1. e4 $6 e5 ?! 2. Qh5 $2 $18 Nc6 ? 3. Bc4 !? *").expect("valid");
        let t = &g.tree;
        let nags: Vec<_> = t.main_line().iter().map(|&n| t.node(n).nags.clone()).collect();
        assert_eq!(nags, [vec![6], vec![6], vec![2, 18], vec![2], vec![5]]);
        let text = to_annotated_pgn(t, &PgnTags::default());
        assert!(text.contains("1. e4?! e5?! 2. Qh5? $18 Nc6? 3. Bc4!? *"), "{text}");
    }

    #[test]
    fn bad_pgn_is_an_error() {
        assert!(matches!(
            from_annotated_pgn("1. e4 e5 2. Ke3 *"),
            Err(PgnError::Move { ply: 3, .. })
        ));
        assert!(matches!(
            from_annotated_pgn("1. e4 (1. d4 d5 2. Kd3) *"),
            Err(PgnError::Move { ply: 3, .. })
        ));
        assert!(matches!(from_annotated_pgn("1. e4 { open"), Err(PgnError::Unterminated)));
        assert!(matches!(from_annotated_pgn("1. e4 (1. d4"), Err(PgnError::Unterminated)));
        assert!(matches!(
            from_annotated_pgn("[Variant \"Shogi\"]\n\n1. e4"),
            Err(PgnError::Variant(_))
        ));
        assert!(from_annotated_pgn("1. e4 e5) *").is_err());
    }

    #[test]
    fn stops_at_the_next_game() {
        let two = "[Event \"a\"]\n\n1. e4 e5 1-0\n\n[Event \"b\"]\n\n1. d4 *\n";
        let g = from_annotated_pgn(two).expect("valid");
        assert_eq!(g.tree.main_line_san(), ["e4", "e5"]);
        assert_eq!(g.tag("Event"), Some("a"));
    }
}
