//! The LAN commands: host a game on this device, browse the hosts on the Wi-Fi, join one, leave.
//! Pushed events: `lan-hosts` (the live list) and `lan-status` (the LAN game's state); the game
//! itself is a network game (`net` events, see [`super::online`]).

use maharajah_app::chess::online::NetPlay;
use maharajah_app::lan::{HostList, HostRequest, HostedView, JoinTarget, Lan, LanStatus};
use maharajah_app::AppError;
use tauri::State;

/// Hosts a game on this device; the network game screen takes it over at once (its view
/// arrives as `net` events; the host card stays until a guest is seated).
///
/// # Errors
/// As [`Lan::host`].
#[tauri::command]
pub async fn lan_host(
    lan: State<'_, Lan>,
    net: State<'_, NetPlay>,
    request: HostRequest,
) -> Result<HostedView, AppError> {
    let hosted = lan.host(request).await?;
    lan.hand_over(&net).await;
    Ok(hosted)
}

/// What the host's screen shows while hosting (null otherwise).
///
/// # Errors
/// Never.
#[tauri::command]
pub async fn lan_hosted(lan: State<'_, Lan>) -> Result<Option<HostedView>, AppError> {
    Ok(lan.hosted().await)
}

/// Starts browsing; the list follows as `lan-hosts` events.
///
/// # Errors
/// As [`Lan::browse`].
#[tauri::command]
pub async fn lan_browse(lan: State<'_, Lan>) -> Result<HostList, AppError> {
    lan.browse().await
}

/// Stops browsing.
///
/// # Errors
/// Never.
#[tauri::command]
pub async fn lan_stop_browsing(lan: State<'_, Lan>) -> Result<(), AppError> {
    lan.stop_browsing().await;
    Ok(())
}

/// Joins a host from the list, by address and room code, or by join code; the network game
/// screen takes the game over (`net` events, or `net_view`).
///
/// # Errors
/// As [`Lan::join`].
#[tauri::command]
pub async fn lan_join(
    lan: State<'_, Lan>,
    net: State<'_, NetPlay>,
    target: JoinTarget,
) -> Result<LanStatus, AppError> {
    let status = lan.join(target).await?;
    lan.hand_over(&net).await;
    Ok(status)
}

/// The LAN game's state (null when not in one).
///
/// # Errors
/// Never.
#[tauri::command]
pub async fn lan_status(lan: State<'_, Lan>) -> Result<Option<LanStatus>, AppError> {
    Ok(lan.status().await)
}

/// Leaves the LAN game (a host stops hosting), and closes it on the network game screen.
///
/// # Errors
/// Never.
#[tauri::command]
pub async fn lan_leave(
    lan: State<'_, Lan>,
    net: State<'_, NetPlay>,
) -> Result<(), AppError> {
    lan.leave_with(&net).await;
    Ok(())
}
