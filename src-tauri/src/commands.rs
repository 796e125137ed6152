//! Commands the web-view UI invokes. Each returns `Result<T, CommandError>`; the error serialises
//! as `{ code, message }` so the UI can branch on `code` and show `message`.

use serde::Serialize;

/// An error a command reports to the UI.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommandError {
    /// Stable machine-readable code the UI branches on, e.g. `"bad_fen"`.
    pub code: &'static str,
    /// A sentence for people.
    pub message: String,
}

impl std::fmt::Display for CommandError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for CommandError {}

/// Versions shown in the About screen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Versions {
    /// The app's version (the `maharajah` package).
    pub app: String,
    /// The rules engine's version (the `maharajah-engine` package).
    pub engine: String,
}

/// Returns the app and engine versions.
///
/// # Errors
/// Never fails today; the `Result` keeps every command's shape the same.
#[tauri::command]
pub fn versions() -> Result<Versions, CommandError> {
    Ok(Versions {
        app: env!("CARGO_PKG_VERSION").to_owned(),
        engine: maharajah_engine::VERSION.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_the_packages_versions() {
        let v = versions().expect("versions never fails");
        assert_eq!(v.app, env!("CARGO_PKG_VERSION"));
        assert_eq!(v.engine, maharajah_engine::VERSION);
        assert!(!v.engine.is_empty());
    }

    #[test]
    fn command_error_serialises_as_code_and_message() {
        let error = CommandError { code: "bad_fen", message: "FEN has 5 fields".into() };
        let json = serde_json::to_value(&error).expect("plain struct serialises");
        assert_eq!(json, serde_json::json!({ "code": "bad_fen", "message": "FEN has 5 fields" }));
    }
}
