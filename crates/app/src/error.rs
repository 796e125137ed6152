//! Errors the app reports: [`AppError`] (`{ code, message }`, what the UI receives),
//! [`CoreError`] (the local-play core's) and [`SessionError`] (a local game's refusals).
//!
//! One vocabulary of codes for every mode: a failure of the network (online, LAN, Chaturaji) has
//! the same code wherever it happens ([`From<NetError>`](AppError#impl-From<NetError>-for-AppError)),
//! and a refusal by a server carries the server's own code, its serde name (`room_full`).

use std::borrow::Cow;

use maharajah_net::NetError;
use serde::Serialize;

use crate::record::BadPlayerName;
use crate::store::StoreError;

/// Every code the app itself reports in an [`AppError`] (or a network game's notice), besides
/// the server's own ([`maharajah_protocol::ErrorCode::ALL`], by their wire names). The UI words
/// each from its catalogues (`error.<code>` in `ui/i18n/*.js`); a test fails when one lacks it.
pub const CODES: &[&str] = &[
    // Local games (SessionError, CoreError) and their settings, files and armies.
    "bad_move",
    "illegal_move",
    "game_over",
    "not_your_turn",
    "nothing_to_claim",
    "nothing_to_take_back",
    "no_aids",
    "bad_import",
    "storage",
    "no_game",
    "bad_setting",
    "bad_name",
    "bad_player_name",
    "write_failed",
    "bad_start",
    "bad_army",
    // Chaturaji tables.
    "bad_square",
    "bad_settings",
    "bad_record",
    "no_table",
    "cpu_seat",
    "illegal",
    // Network play, online and on the LAN.
    "bad_url",
    "bad_code",
    "bad_join_code",
    "bad_link",
    "bad_address",
    "connect_failed",
    "version_mismatch",
    "protocol",
    "not_seated",
    "already_seated",
    "interrupted",
    "closed",
    "reveal_refused",
    "setup_rejected",
    "lan_busy",
    "lan_discovery",
    "lan_permission",
    "lan_host",
    "lan_unknown_host",
    "lan_incompatible",
    "lan_chaturaji",
    "lan_not_chaturaji",
    // The analysis board (and its shell command's step names).
    "no_analysis",
    "no_node",
    "bad_step",
    // The device: a facility this build does not have (the Android share sheet elsewhere).
    "unsupported",
    "share_failed",
];

/// Why an action on a session was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionError {
    /// The text is not a move (UCI or SAN) in this position.
    BadMove(String),
    /// The move is not legal here.
    Illegal(String),
    /// The game is over.
    Finished,
    /// It is the computer's turn.
    NotYourTurn,
    /// No draw can be claimed now.
    NothingToClaim,
    /// There is no move to take back.
    NothingToTakeBack,
    /// Hints and threats are for games against the computer.
    NoAids,
    /// A PGN or FEN could not be read.
    Import(String),
}

impl SessionError {
    /// The stable code the UI branches on.
    #[must_use]
    pub const fn code(&self) -> &'static str {
        match self {
            SessionError::BadMove(_) => "bad_move",
            SessionError::Illegal(_) => "illegal_move",
            SessionError::Finished => "game_over",
            SessionError::NotYourTurn => "not_your_turn",
            SessionError::NothingToClaim => "nothing_to_claim",
            SessionError::NothingToTakeBack => "nothing_to_take_back",
            SessionError::NoAids => "no_aids",
            SessionError::Import(_) => "bad_import",
        }
    }
}

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionError::BadMove(text) => write!(f, "{text:?} is not a move here"),
            SessionError::Illegal(text) => write!(f, "{text} is not legal here"),
            SessionError::Finished => f.write_str("the game is over"),
            SessionError::NotYourTurn => f.write_str("it is the computer's turn"),
            SessionError::NothingToClaim => f.write_str("no draw can be claimed now"),
            SessionError::NothingToTakeBack => f.write_str("there is no move to take back"),
            SessionError::NoAids => f.write_str("hints are for games against the computer"),
            SessionError::Import(why) => write!(f, "could not read the game: {why}"),
        }
    }
}

impl std::error::Error for SessionError {}

/// An error a command reports to the UI.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AppError {
    /// Stable machine-readable code the UI branches on, e.g. `"bad_fen"`.
    pub code: Cow<'static, str>,
    /// A sentence for people.
    pub message: String,
}

impl AppError {
    /// An error with one of the app's own codes.
    #[must_use]
    pub fn new(code: &'static str, message: impl Into<String>) -> AppError {
        AppError { code: Cow::Borrowed(code), message: message.into() }
    }
}

/// The code of a network failure: `connect_failed` when nobody answers (online, LAN and
/// Chaturaji alike), `version_mismatch`, the server's own code for a refusal (`room_full`), and
/// `protocol`, `not_seated`, `already_seated`, `interrupted`, `closed`.
#[must_use]
pub fn net_code(error: &NetError) -> Cow<'static, str> {
    Cow::Borrowed(match error {
        NetError::Connect { .. } => "connect_failed",
        NetError::VersionMismatch(_) => "version_mismatch",
        NetError::Server { code, .. } => return server_code(*code),
        NetError::Protocol(_) => "protocol",
        NetError::NotSeated => "not_seated",
        NetError::AlreadySeated(_) => "already_seated",
        NetError::Interrupted => "interrupted",
        NetError::Closed => "closed",
    })
}

/// A server's error code as the UI's word: its wire name (serde's snake_case form).
#[must_use]
pub fn server_code(code: maharajah_protocol::ErrorCode) -> Cow<'static, str> {
    match serde_json::to_value(code) {
        Ok(serde_json::Value::String(name)) => Cow::Owned(name),
        _ => Cow::Borrowed("internal"),
    }
}

impl From<NetError> for AppError {
    fn from(error: NetError) -> AppError {
        AppError { code: net_code(&error), message: error.to_string() }
    }
}

impl std::fmt::Display for AppError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for AppError {}

impl From<CoreError> for AppError {
    fn from(error: CoreError) -> AppError {
        let code = match &error {
            CoreError::Session(e) => e.code(),
            CoreError::Store(_) => "storage",
            CoreError::NoGame => "no_game",
            CoreError::Name(_) => "bad_player_name",
        };
        AppError::new(code, error.to_string())
    }
}

/// Why a core operation failed; commands turn it into [`AppError`].
#[derive(Debug)]
pub enum CoreError {
    /// A game rule refused the action.
    Session(SessionError),
    /// Storage failed.
    Store(StoreError),
    /// No game is open.
    NoGame,
    /// A player's name was refused (too long, a control character).
    Name(BadPlayerName),
}

impl From<BadPlayerName> for CoreError {
    fn from(error: BadPlayerName) -> CoreError {
        CoreError::Name(error)
    }
}

impl From<BadPlayerName> for AppError {
    fn from(error: BadPlayerName) -> AppError {
        CoreError::Name(error).into()
    }
}

impl From<SessionError> for CoreError {
    fn from(error: SessionError) -> CoreError {
        CoreError::Session(error)
    }
}

impl From<StoreError> for CoreError {
    fn from(error: StoreError) -> CoreError {
        CoreError::Store(error)
    }
}

impl std::fmt::Display for CoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CoreError::Session(e) => e.fmt(f),
            CoreError::Store(e) => e.fmt(f),
            CoreError::NoGame => f.write_str("no game is open"),
            CoreError::Name(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for CoreError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_error_serialises_as_code_and_message() {
        let error = AppError::new("bad_fen", "FEN has 5 fields");
        let json = serde_json::to_value(&error).expect("plain struct serialises");
        assert_eq!(json, serde_json::json!({ "code": "bad_fen", "message": "FEN has 5 fields" }));
        let error = AppError::from(CoreError::NoGame);
        assert_eq!(error.code, "no_game");
    }

    /// The code literals an error is built with in `source` (its tests left out): `code: "x"`,
    /// `AppError::new("x"`, `TableError::new("x"`, `error("x"` (whitespace allowed before the
    /// literal), and the `=> "x"` arms of its `fn code` functions.
    fn code_literals(source: &str) -> Vec<String> {
        let source = source.split("#[cfg(test)]").next().unwrap_or_default();
        let literals = |text: &str, pattern: &str| -> Vec<String> {
            let mut found = Vec::new();
            for (at, _) in text.match_indices(pattern) {
                let rest = text[at + pattern.len()..].trim_start();
                let Some(rest) = rest.strip_prefix('"') else { continue };
                let Some(end) = rest.find('"') else { continue };
                let word = &rest[..end];
                if !word.is_empty() && word.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') {
                    found.push(word.to_owned());
                }
            }
            found
        };
        let mut found: Vec<String> = ["code: ", "AppError::new(", "TableError::new(", " error("]
            .iter()
            .flat_map(|pattern| literals(source, pattern))
            .collect();
        for (at, _) in source.match_indices("fn code(") {
            let body = &source[at..];
            let body = &body[..body.find("\n    }").unwrap_or(body.len())];
            found.extend(literals(body, "=> "));
        }
        found
    }

    #[test]
    fn every_error_code_has_a_sentence_in_every_catalogue() {
        use maharajah_protocol::ErrorCode;
        // Every code the sources build an error with is in CODES (so a new one cannot be missed).
        let sources = [
            include_str!("error.rs"),
            include_str!("lan.rs"),
            include_str!("link.rs"),
            include_str!("chess/army.rs"),
            include_str!("chess/local.rs"),
            include_str!("chess/online.rs"),
            include_str!("chess/session.rs"),
            include_str!("chaturaji/local.rs"),
            include_str!("chaturaji/lan.rs"),
            include_str!("chaturaji/online.rs"),
            include_str!("analysis.rs"),
            include_str!("../../../src-tauri/src/commands/analysis.rs"),
            include_str!("../../../src-tauri/src/commands/chess.rs"),
            include_str!("../../../src-tauri/src/commands/chaturaji.rs"),
            include_str!("../../../src-tauri/src/commands/lan.rs"),
            include_str!("../../../src-tauri/src/commands/online.rs"),
        ];
        let found: Vec<String> = sources.iter().flat_map(|source| code_literals(source)).collect();
        assert!(found.len() > 30, "the scan found only {found:?}");
        let servers: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        let unlisted: Vec<&String> = found
            .iter()
            .filter(|c| !CODES.contains(&c.as_str()) && !servers.contains(&c.as_str()))
            .collect();
        assert!(unlisted.is_empty(), "codes missing from CODES: {unlisted:?}");
        let session = [
            SessionError::BadMove(String::new()),
            SessionError::Illegal(String::new()),
            SessionError::Finished,
            SessionError::NotYourTurn,
            SessionError::NothingToClaim,
            SessionError::NothingToTakeBack,
            SessionError::NoAids,
            SessionError::Import(String::new()),
        ];
        for error in session {
            assert!(CODES.contains(&error.code()), "{}", error.code());
        }
        // Every code, the app's and the server's, has its sentence in English and Spanish.
        let catalogues = [
            (
                "en",
                [
                    include_str!("../../../ui/i18n/en.js"),
                    include_str!("../../../ui/i18n/chaturaji.en.js"),
                ],
            ),
            (
                "es",
                [
                    include_str!("../../../ui/i18n/es.js"),
                    include_str!("../../../ui/i18n/chaturaji.es.js"),
                ],
            ),
        ];
        for (language, texts) in catalogues {
            let missing: Vec<&str> = CODES
                .iter()
                .copied()
                .chain(servers.iter().copied())
                .filter(|code| {
                    let key = format!("'error.{code}':");
                    !texts.iter().any(|text| text.contains(&key))
                })
                .collect();
            assert!(missing.is_empty(), "{language} has no sentence for {missing:?}");
        }
    }

    #[test]
    fn one_code_for_one_failure_and_the_servers_codes_by_their_wire_names() {
        use maharajah_protocol::ErrorCode;
        let refused = |code| AppError::from(NetError::Server { code, message: String::new() });
        assert_eq!(refused(ErrorCode::RoomFull).code, "room_full");
        assert_eq!(refused(ErrorCode::NotYourTurn).code, "not_your_turn");
        assert_eq!(refused(ErrorCode::VersionMismatch).code, "version_mismatch");
        assert_eq!(refused(ErrorCode::ShuttingDown).code, "shutting_down");
        assert_eq!(AppError::from(NetError::Closed).code, "closed");
    }
}
