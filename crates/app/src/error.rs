//! Errors the app reports: [`AppError`] (`{ code, message }`, what the UI receives) and
//! [`CoreError`] (the local-play core's).

use serde::Serialize;

use crate::chess::session::SessionError;
use crate::store::StoreError;

/// An error a command reports to the UI.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AppError {
    /// Stable machine-readable code the UI branches on, e.g. `"bad_fen"`.
    pub code: &'static str,
    /// A sentence for people.
    pub message: String,
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
        AppError { code, message: error.to_string() }
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
        let error = AppError { code: "bad_fen", message: "FEN has 5 fields".into() };
        let json = serde_json::to_value(&error).expect("plain struct serialises");
        assert_eq!(json, serde_json::json!({ "code": "bad_fen", "message": "FEN has 5 fields" }));
        let error = AppError::from(CoreError::NoGame);
        assert_eq!(error.code, "no_game");
    }
}
