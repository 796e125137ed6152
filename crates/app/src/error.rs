//! Errors the app reports: [`AppError`] (`{ code, message }`, what the UI receives) and
//! [`CoreError`] (the local-play core's).
//!
//! One vocabulary of codes for every mode: a failure of the network (online, LAN, Chaturaji) has
//! the same code wherever it happens ([`From<NetError>`](AppError#impl-From<NetError>-for-AppError)),
//! and a refusal by a server carries the server's own code, its serde name (`room_full`).

use std::borrow::Cow;

use maharajah_net::NetError;
use serde::Serialize;

use crate::chess::session::SessionError;
use crate::store::StoreError;

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
