//! The online player's identity on this device: an Ed25519 key pair made on first online use and
//! kept in the store, its recovery code, and taking an identity over from another device.
//!
//! The secret key never leaves the app core: no command returns it and no push carries it. The
//! web view sees the public key, whether the recovery code has been shown, and — only when the
//! player asks, after a confirmation on the screen — the recovery code itself. Every online
//! connection signs the server's challenge with the key ([`Identity::connect_options`]).

use std::sync::{Arc, Mutex, PoisonError};

use maharajah_net::ConnectOptions;
use maharajah_protocol::identity::{PlayerSecret, RecoveryCode};
use serde::Serialize;

use crate::error::AppError;
use crate::store::{Store, StoreError};
use crate::time::Time;

/// What the screens may know of the identity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IdentityView {
    /// The public key (64 hex digits).
    pub key: String,
    /// Whether the player has seen the recovery code (the Online screen offers it until then).
    pub code_shown: bool,
}

/// The identity service: makes the key once, keeps it, shows its recovery code, replaces it.
#[derive(Clone)]
pub struct Identity {
    store: Store,
    time: Time,
    /// The key read or made, so each connection does not go to the store.
    cached: Arc<Mutex<Option<PlayerSecret>>>,
}

impl std::fmt::Debug for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Identity").finish_non_exhaustive()
    }
}

fn storage(e: StoreError) -> AppError {
    AppError::new("storage", e.to_string())
}

impl Identity {
    /// The identity kept in `store` (none is made until [`Identity::secret`] is first called).
    #[must_use]
    pub fn new(store: Store, time: Time) -> Identity {
        Identity { store, time, cached: Arc::new(Mutex::new(None)) }
    }

    /// The player's key: the kept one, or a new one made from fresh random bytes and kept
    /// (first online use).
    ///
    /// # Errors
    /// `storage` when the store cannot be read or written.
    pub(crate) fn secret(&self) -> Result<PlayerSecret, AppError> {
        let mut cached = self.cached.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(secret) = cached.as_ref() {
            return Ok(secret.clone());
        }
        let secret = match self.store.player_secret().map_err(storage)? {
            Some((bytes, _)) => PlayerSecret::from_bytes(bytes),
            None => {
                // ThreadRng is a CSPRNG seeded from the operating system.
                let bytes: [u8; 32] = rand::random();
                self.store.set_player_secret(&bytes, false, self.time.unix()).map_err(storage)?;
                PlayerSecret::from_bytes(bytes)
            }
        };
        *cached = Some(secret.clone());
        Ok(secret)
    }

    /// The identity as the screens see it (made now if there was none).
    ///
    /// # Errors
    /// `storage`.
    pub fn view(&self) -> Result<IdentityView, AppError> {
        let key = self.secret()?.public().to_string();
        let code_shown = self.store.player_secret().map_err(storage)?.is_some_and(|(_, s)| s);
        Ok(IdentityView { key, code_shown })
    }

    /// Connection options that identify as this player on every (re)connection.
    ///
    /// # Errors
    /// `storage`.
    pub fn connect_options(&self) -> Result<ConnectOptions, AppError> {
        Ok(ConnectOptions { identity: Some(self.secret()?), ..ConnectOptions::default() })
    }

    /// The recovery code of the player's key, for the player to write down (the screen asks
    /// for a confirmation first); from now on it counts as shown.
    ///
    /// # Errors
    /// `storage`.
    pub fn recovery_code(&self) -> Result<String, AppError> {
        let code = RecoveryCode::of(&self.secret()?).to_string();
        self.store.mark_recovery_code_shown().map_err(storage)?;
        Ok(code)
    }

    /// Takes over the identity of `code` (typed on this device): its key replaces the one kept
    /// here (the screen asks for a confirmation first, as the old identity is lost unless its
    /// own code was written down).
    ///
    /// # Errors
    /// `bad_recovery_code` when the code does not read; `storage`.
    pub fn recover(&self, code: &str) -> Result<IdentityView, AppError> {
        let code: RecoveryCode =
            code.parse().map_err(|e| AppError::new("bad_recovery_code", format!("{e}")))?;
        let secret = code.secret();
        self.store
            .set_player_secret(&secret.to_bytes(), true, self.time.unix())
            .map_err(storage)?;
        *self.cached.lock().unwrap_or_else(PoisonError::into_inner) = Some(secret);
        self.view()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_is_made_once_and_a_recovery_code_moves_it() {
        let dir = std::env::temp_dir().join(format!("maharajah-identity-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a folder");
        let path = dir.join("a.sqlite");
        let _ = std::fs::remove_file(&path);
        let first = Identity::new(Store::open(&path).expect("a store"), crate::time::system());
        let made = first.view().expect("made");
        assert!(!made.code_shown);
        assert_eq!(made.key.len(), 64);
        // Reopened: the same key, no new one.
        let again = Identity::new(Store::open(&path).expect("reopened"), crate::time::system());
        assert_eq!(again.view().expect("kept"), made);
        let code = again.recovery_code().expect("a code");
        assert!(again.view().expect("kept").code_shown);
        // Another device takes it over.
        let other = Identity::new(Store::in_memory().expect("a store"), crate::time::system());
        assert_ne!(other.view().expect("its own").key, made.key);
        assert_eq!(other.recover(&code).expect("recovered").key, made.key);
        assert_eq!(
            other.recover("not a code").map_err(|e| e.code),
            Err("bad_recovery_code".into())
        );
        // The secret never shows in what the screens get.
        let json = serde_json::to_string(&other.view().expect("view")).expect("json");
        let secret_hex: String =
            other.secret().expect("s").to_bytes().iter().map(|b| format!("{b:02x}")).collect();
        assert!(!json.contains(&secret_hex));
    }
}
