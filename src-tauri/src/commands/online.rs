//! The network game commands (an online server or a LAN host): create, join, play, pause, draws,
//! hidden lock-in, leave, and the seat kept across restarts. Pushed events: `net` (a new view)
//! and `net-clock` (the running clocks).

use maharajah_app::chess::online::{KeptRoom, NetView};
use maharajah_app::{App, AppError};
use maharajah_engine::Army;
use maharajah_protocol::{Color, RoomOptions, TimeControl, Variant};
use tauri::State;

/// The room this device held a seat in when the app was last closed, if any.
///
/// # Errors
/// `storage`.
#[tauri::command]
pub fn net_kept(app: State<'_, App>) -> Result<Option<KeptRoom>, AppError> {
    app.net_kept()
}

/// Takes back the kept seat (after the app was closed).
///
/// # Errors
/// `no_game` when no seat is kept; `connect_failed`, `version_mismatch`, `storage`.
#[tauri::command]
pub async fn net_rejoin(app: State<'_, App>) -> Result<NetView, AppError> {
    app.net_rejoin().await
}

/// Connects to `url` and creates a room: `variant`, optional clock, hidden setup (Maharajah),
/// the creator's colour (`None`: drawn by the server).
///
/// # Errors
/// `bad_url`, `connect_failed`, `version_mismatch`, `invalid_options`…
#[tauri::command]
pub async fn net_create(
    app: State<'_, App>,
    url: String,
    variant: Variant,
    time_control: Option<TimeControl>,
    hidden_setup: bool,
    color: Option<Color>,
) -> Result<NetView, AppError> {
    app.net_create(&url, RoomOptions { variant, time_control, hidden_setup, color }).await
}

/// Connects to `url` and joins the room `code`.
///
/// # Errors
/// `bad_code`, `bad_url`, `connect_failed`, `version_mismatch`, `room_not_found`, `room_full`.
#[tauri::command]
pub async fn net_join(app: State<'_, App>, url: String, code: String) -> Result<NetView, AppError> {
    app.net_join(&url, &code).await
}

/// The open network game, if any.
///
/// # Errors
/// Never fails.
#[tauri::command]
pub fn net_view(app: State<'_, App>) -> Result<Option<NetView>, AppError> {
    Ok(app.net.view())
}

/// Plays a move (UCI).
///
/// # Errors
/// `illegal_move`, `not_your_turn`, `game_paused`, `game_over`, `no_game`…
#[tauri::command]
pub async fn net_move(app: State<'_, App>, mv: String) -> Result<NetView, AppError> {
    Ok(app.net.play(&mv).await?)
}

/// Uses our pause.
///
/// # Errors
/// `pause_used`, `no_clock`, `no_game`…
#[tauri::command]
pub async fn net_pause(app: State<'_, App>) -> Result<NetView, AppError> {
    Ok(app.net.pause().await?)
}

/// Ends our pause early.
///
/// # Errors
/// `not_paused`, `no_game`…
#[tauri::command]
pub async fn net_resume(app: State<'_, App>) -> Result<NetView, AppError> {
    Ok(app.net.resume().await?)
}

/// Resigns.
///
/// # Errors
/// `game_over`, `no_game`…
#[tauri::command]
pub async fn net_resign(app: State<'_, App>) -> Result<NetView, AppError> {
    Ok(app.net.resign().await?)
}

/// Offers (or accepts) a draw.
///
/// # Errors
/// `game_over`, `no_game`…
#[tauri::command]
pub async fn net_offer_draw(app: State<'_, App>) -> Result<NetView, AppError> {
    Ok(app.net.offer_draw().await?)
}

/// Declines the opponent's draw offer.
///
/// # Errors
/// `no_draw`, `no_game`…
#[tauri::command]
pub async fn net_decline_draw(app: State<'_, App>) -> Result<NetView, AppError> {
    Ok(app.net.decline_draw().await?)
}

/// Claims a draw.
///
/// # Errors
/// `no_draw`, `no_game`…
#[tauri::command]
pub async fn net_claim_draw(app: State<'_, App>) -> Result<NetView, AppError> {
    Ok(app.net.claim_draw().await?)
}

/// Hidden setup: locks in our army (commitment now, reveal when both are fixed).
///
/// # Errors
/// `bad_army`, `wrong_phase`, `already_committed`, `no_game`…
#[tauri::command]
pub async fn net_lock_army(app: State<'_, App>, army: Army) -> Result<NetView, AppError> {
    Ok(app.net.lock_army(&army).await?)
}

/// Leaves the network game (and forgets its kept seat).
///
/// # Errors
/// `storage`.
#[tauri::command]
pub async fn net_leave(app: State<'_, App>) -> Result<(), AppError> {
    app.net_leave().await
}
