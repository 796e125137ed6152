//! The online lobby and the player's identity: open the lobby of a server, register a name,
//! post, cancel and accept challenges, quick pairing, watch a room, the recovery code. Pushed
//! event: `lobby` (a new view); a match continues as the `net` game. No command returns the
//! player's secret key.

use maharajah_app::chess::online::NetView;
use maharajah_app::identity::IdentityView;
use maharajah_app::lobby::LobbyView;
use maharajah_app::{App, AppError};
use maharajah_protocol::{
    ChallengeId, ChallengeOptions, GameId, LeaderboardEntry, LiveGame, LobbyGame, Profile,
    SpeedClass, TimeControl,
};
use tauri::State;

/// Opens the lobby of the server at `url` (the player's key is made on first use).
///
/// # Errors
/// `bad_url`, `connect_failed`, `version_mismatch`, `storage`.
#[tauri::command]
pub async fn lobby_open(app: State<'_, App>, url: String) -> Result<LobbyView, AppError> {
    app.lobby.open(&url).await
}

/// The lobby as it stands.
///
/// # Errors
/// Never fails.
#[tauri::command]
pub fn lobby_view(app: State<'_, App>) -> Result<LobbyView, AppError> {
    Ok(app.lobby.view())
}

/// Closes the lobby's connection (our challenges and pairing wait end).
///
/// # Errors
/// Never fails.
#[tauri::command]
pub async fn lobby_close(app: State<'_, App>) -> Result<(), AppError> {
    app.lobby.close().await;
    Ok(())
}

/// Registers the player's display name.
///
/// # Errors
/// `invalid_name`, `name_taken`, `not_identified`, `wrong_phase`, `lobby_closed`.
#[tauri::command]
pub async fn lobby_register_name(app: State<'_, App>, name: String) -> Result<LobbyView, AppError> {
    app.lobby.register_name(&name).await
}

/// Posts a challenge.
///
/// # Errors
/// `not_identified`, `too_many_challenges`, `unavailable`, `rate_limited`, `lobby_closed`.
#[tauri::command]
pub async fn lobby_create(
    app: State<'_, App>,
    options: ChallengeOptions,
) -> Result<LobbyView, AppError> {
    app.lobby.create(options).await
}

/// Withdraws one of our challenges.
///
/// # Errors
/// `challenge_not_found`, `lobby_closed`.
#[tauri::command]
pub async fn lobby_cancel(app: State<'_, App>, id: ChallengeId) -> Result<LobbyView, AppError> {
    app.lobby.cancel(id).await
}

/// Accepts a challenge; the game's view answers.
///
/// # Errors
/// `challenge_not_found`, `not_identified`, `lobby_closed`.
#[tauri::command]
pub async fn lobby_accept(app: State<'_, App>, id: ChallengeId) -> Result<NetView, AppError> {
    app.lobby.accept(id).await
}

/// Sits this device at the table of Chaturaji challenge `id` (the table screen takes over when
/// it starts: the view's `matched_game` is `chaturaji`, and `chaturaji` views are pushed).
///
/// # Errors
/// `challenge_not_found`, `wrong_phase`, `not_identified`, `unavailable`, `lobby_closed`.
#[tauri::command]
pub async fn lobby_join_table(app: State<'_, App>, id: ChallengeId) -> Result<LobbyView, AppError> {
    app.lobby.join_table(id).await
}

/// Quick pairing for `game` with `time_control`; for Chaturaji, CPUs take a table's empty
/// seats after `cpu_after_s` seconds (absent: the protocol's default).
///
/// # Errors
/// `not_identified`, `invalid_options`, `unavailable`, `rate_limited`, `lobby_closed`.
#[tauri::command]
pub async fn lobby_play_now(
    app: State<'_, App>,
    game: LobbyGame,
    time_control: TimeControl,
    rated: bool,
    cpu_after_s: Option<u32>,
) -> Result<LobbyView, AppError> {
    if game == LobbyGame::Chaturaji {
        let wait = cpu_after_s.unwrap_or(maharajah_protocol::lobby::DEFAULT_CPU_AFTER_S);
        return app.lobby.play_now_table(time_control, rated, wait).await;
    }
    app.lobby.play_now(game, time_control, rated).await
}

/// Leaves the quick-pairing queue.
///
/// # Errors
/// `lobby_closed`, `closed`.
#[tauri::command]
pub async fn lobby_cancel_play_now(app: State<'_, App>) -> Result<LobbyView, AppError> {
    app.lobby.cancel_play_now().await
}

/// Watches room `code` on the server at `url` as a spectator.
///
/// # Errors
/// `bad_code`, `bad_url`, `connect_failed`, `room_not_found`, `too_many_spectators`.
#[tauri::command]
pub async fn net_watch(
    app: State<'_, App>,
    url: String,
    code: String,
) -> Result<NetView, AppError> {
    app.net_watch(&url, &code).await
}

/// The recovery code of the player's identity (the screen asks for a confirmation first).
///
/// # Errors
/// `storage`.
#[tauri::command]
pub fn identity_recovery_code(app: State<'_, App>) -> Result<String, AppError> {
    app.lobby.identity().recovery_code()
}

/// Takes over the identity of a recovery code typed on this device (replacing this device's
/// own key; the screen asks for a confirmation first).
///
/// # Errors
/// `bad_recovery_code`, `storage`.
#[tauri::command]
pub fn identity_recover(app: State<'_, App>, code: String) -> Result<IdentityView, AppError> {
    app.lobby.identity().recover(&code)
}

/// The best players of `game` in speed class `speed`.
///
/// # Errors
/// `rate_limited`, `lobby_closed`.
#[tauri::command]
pub async fn lobby_leaderboard(
    app: State<'_, App>,
    game: LobbyGame,
    speed: SpeedClass,
) -> Result<Vec<LeaderboardEntry>, AppError> {
    app.lobby.leaderboard(game, speed).await
}

/// A player's profile: ratings and recent games.
///
/// # Errors
/// `player_not_found`, `rate_limited`, `lobby_closed`.
#[tauri::command]
pub async fn lobby_profile(app: State<'_, App>, name: String) -> Result<Profile, AppError> {
    app.lobby.profile(&name).await
}

/// The games being played now, to watch.
///
/// # Errors
/// `rate_limited`, `lobby_closed`.
#[tauri::command]
pub async fn lobby_playing_now(app: State<'_, App>) -> Result<Vec<LiveGame>, AppError> {
    app.lobby.playing_now().await
}

/// Saves finished online game `id` as a PGN file; answers its path.
///
/// # Errors
/// `game_not_found`, `no_pgn`, `write_failed`, `lobby_closed`.
#[tauri::command]
pub async fn lobby_save_pgn(app: State<'_, App>, id: GameId) -> Result<String, AppError> {
    app.lobby.save_pgn(id).await
}

/// Offers (or accepts) a rematch of the finished network game, colours swapped.
///
/// # Errors
/// `no_game`, `wrong_phase`, `closed`.
#[tauri::command]
pub async fn net_rematch(app: State<'_, App>) -> Result<NetView, AppError> {
    Ok(app.net.rematch().await?)
}
