//! The LAN commands: host a game on this device, browse the hosts on the Wi-Fi, join one, leave.
//! Pushed events: `lan-hosts` (the live list), `lan-status` (the LAN game's state) and
//! `lan-hosted` (the hosted view again, when its advert problem changes); the game itself is a
//! network game (`net` events, see [`super::online`]).

use maharajah_app::lan::{HostList, HostRequest, HostedView, JoinTarget, LanStatus};
use maharajah_app::{App, AppError};
use tauri::State;

/// Hosts a game on this device; the network game screen takes it over at once (its view
/// arrives as `net` events; the host card stays until a guest is seated).
///
/// # Errors
/// As `Lan::host`.
#[tauri::command]
pub async fn lan_host(app: State<'_, App>, request: HostRequest) -> Result<HostedView, AppError> {
    app.lan_host(request).await
}

/// What the host's screen shows while hosting (null otherwise).
///
/// # Errors
/// Never.
#[tauri::command]
pub async fn lan_hosted(app: State<'_, App>) -> Result<Option<HostedView>, AppError> {
    Ok(app.lan.hosted().await)
}

/// Starts browsing; the list follows as `lan-hosts` events.
///
/// # Errors
/// As `Lan::browse`.
#[tauri::command]
pub async fn lan_browse(app: State<'_, App>) -> Result<HostList, AppError> {
    app.lan.browse().await
}

/// Stops browsing.
///
/// # Errors
/// Never.
#[tauri::command]
pub async fn lan_stop_browsing(app: State<'_, App>) -> Result<(), AppError> {
    app.lan.stop_browsing().await;
    Ok(())
}

/// Joins a host from the list, by address and room code, or by join code; the network game
/// screen takes the game over (`net` events, or `net_view`).
///
/// # Errors
/// As `Lan::join`.
#[tauri::command]
pub async fn lan_join(app: State<'_, App>, target: JoinTarget) -> Result<LanStatus, AppError> {
    app.lan_join(target).await
}

/// The LAN game's state (null when not in one).
///
/// # Errors
/// Never.
#[tauri::command]
pub async fn lan_status(app: State<'_, App>) -> Result<Option<LanStatus>, AppError> {
    Ok(app.lan.status().await)
}

/// Leaves the LAN game (a host stops hosting), and closes it on the network game screen.
///
/// # Errors
/// Never.
#[tauri::command]
pub async fn lan_leave(app: State<'_, App>) -> Result<(), AppError> {
    app.lan_leave().await;
    Ok(())
}
