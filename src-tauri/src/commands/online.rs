//! The network game commands (an online server or a LAN host): create, join, play, pause, draws,
//! hidden lock-in, leave, and the seat kept across restarts. Pushed events: `net` (a new view)
//! and `net-clock` (the running clocks).

use maharajah_app::chess::local::AppState;
use maharajah_app::chess::online::{
    keep_seat, kept_room, kept_seat, KeptRoom, NetPlay, NetPlayError, NetView,
};
use maharajah_app::AppError;
use maharajah_engine::Army;
use maharajah_protocol::{Color, RoomOptions, TimeControl, Variant};
use tauri::State;

/// The room this device held a seat in when the app was last closed, if any.
///
/// # Errors
/// `storage`.
#[tauri::command]
pub fn net_kept(app: State<'_, AppState>) -> Result<Option<KeptRoom>, AppError> {
    kept_room(app.core().store())
}

/// Takes back the kept seat (after the app was closed).
///
/// # Errors
/// `no_game` when no seat is kept; `connect_failed`, `version_mismatch`, `storage`.
#[tauri::command]
pub async fn net_rejoin(
    net: State<'_, NetPlay>,
    app: State<'_, AppState>,
) -> Result<NetView, AppError> {
    let seat = kept_seat(app.core().store())?.ok_or(NetPlayError::NoGame)?;
    Ok(net.rejoin(&seat).await?)
}

/// Connects to `url` and creates a room: `variant`, optional clock, hidden setup (Maharajah),
/// the creator's colour (`None`: drawn by the server).
///
/// # Errors
/// `bad_url`, `connect_failed`, `version_mismatch`, `invalid_options`…
#[tauri::command]
pub async fn net_create(
    net: State<'_, NetPlay>,
    app: State<'_, AppState>,
    url: String,
    variant: Variant,
    time_control: Option<TimeControl>,
    hidden_setup: bool,
    color: Option<Color>,
) -> Result<NetView, AppError> {
    let options = RoomOptions { variant, time_control, hidden_setup, color };
    let view = net.create(&url, options).await?;
    keep_seat(app.core().store(), net.saved_seat())?;
    Ok(view)
}

/// Connects to `url` and joins the room `code`.
///
/// # Errors
/// `bad_code`, `bad_url`, `connect_failed`, `version_mismatch`, `room_not_found`, `room_full`.
#[tauri::command]
pub async fn net_join(
    net: State<'_, NetPlay>,
    app: State<'_, AppState>,
    url: String,
    code: String,
) -> Result<NetView, AppError> {
    let view = net.join(&url, &code).await?;
    keep_seat(app.core().store(), net.saved_seat())?;
    Ok(view)
}

/// The open network game, if any.
///
/// # Errors
/// Never fails.
#[tauri::command]
pub fn net_view(net: State<'_, NetPlay>) -> Result<Option<NetView>, AppError> {
    Ok(net.view())
}

/// Plays a move (UCI).
///
/// # Errors
/// `illegal_move`, `not_your_turn`, `game_paused`, `game_over`, `no_game`…
#[tauri::command]
pub async fn net_move(net: State<'_, NetPlay>, mv: String) -> Result<NetView, AppError> {
    Ok(net.play(&mv).await?)
}

/// Uses our pause.
///
/// # Errors
/// `pause_used`, `no_clock`, `no_game`…
#[tauri::command]
pub async fn net_pause(net: State<'_, NetPlay>) -> Result<NetView, AppError> {
    Ok(net.pause().await?)
}

/// Ends our pause early.
///
/// # Errors
/// `not_paused`, `no_game`…
#[tauri::command]
pub async fn net_resume(net: State<'_, NetPlay>) -> Result<NetView, AppError> {
    Ok(net.resume().await?)
}

/// Resigns.
///
/// # Errors
/// `game_over`, `no_game`…
#[tauri::command]
pub async fn net_resign(net: State<'_, NetPlay>) -> Result<NetView, AppError> {
    Ok(net.resign().await?)
}

/// Offers (or accepts) a draw.
///
/// # Errors
/// `game_over`, `no_game`…
#[tauri::command]
pub async fn net_offer_draw(net: State<'_, NetPlay>) -> Result<NetView, AppError> {
    Ok(net.offer_draw().await?)
}

/// Declines the opponent's draw offer.
///
/// # Errors
/// `no_draw`, `no_game`…
#[tauri::command]
pub async fn net_decline_draw(net: State<'_, NetPlay>) -> Result<NetView, AppError> {
    Ok(net.decline_draw().await?)
}

/// Claims a draw.
///
/// # Errors
/// `no_draw`, `no_game`…
#[tauri::command]
pub async fn net_claim_draw(net: State<'_, NetPlay>) -> Result<NetView, AppError> {
    Ok(net.claim_draw().await?)
}

/// Hidden setup: locks in our army (commitment now, reveal when both are fixed).
///
/// # Errors
/// `bad_army`, `wrong_phase`, `already_committed`, `no_game`…
#[tauri::command]
pub async fn net_lock_army(
    net: State<'_, NetPlay>,
    army: Army,
) -> Result<NetView, AppError> {
    Ok(net.lock_army(&army).await?)
}

/// Leaves the network game (and forgets its kept seat).
///
/// # Errors
/// `storage`.
#[tauri::command]
pub async fn net_leave(
    net: State<'_, NetPlay>,
    app: State<'_, AppState>,
) -> Result<(), AppError> {
    net.leave().await;
    keep_seat(app.core().store(), None)
}
