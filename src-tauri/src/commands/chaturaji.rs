//! The Chaturaji commands: the local table, a seat of a network table (online or a LAN host), and
//! a table hosted on this device's Wi-Fi. Every answer is a `TableView`; pushed event: `chaturaji`
//! (a new view after a CPU action, a time-out or a room event).

use maharajah_app::chaturaji::lan::{ChaturajiHosted, ChaturajiLan, HostedTable};
use maharajah_app::chaturaji::local::{parse_settings, parse_square, ChaturajiState};
use maharajah_app::chaturaji::online::NetState;
use maharajah_app::chaturaji::TableView;
use maharajah_app::lan::{JoinTarget, Lan};
use maharajah_app::AppError;
use maharajah_chaturaji::Seat;
use tauri::{AppHandle, Emitter, Runtime, State};

/// Pushes each view of a network table as a `chaturaji` event.
fn pusher<R: Runtime>(app: AppHandle<R>) -> impl Fn(TableView) + Send + 'static {
    move |view| {
        let _ = app.emit("chaturaji", view);
    }
}

/// Opens a new table. `settings` is any subset of the table settings (the rest take defaults).
///
/// # Errors
/// `bad_settings`, `storage`.
#[tauri::command]
pub fn chaturaji_new(
    state: State<'_, ChaturajiState>,
    settings: serde_json::Value,
) -> Result<TableView, AppError> {
    let settings = parse_settings(settings)?;
    let now = state.now();
    Ok(state.core().new_table(settings, rand::random(), now)?)
}

/// The open table, or the newest unfinished saved one, or null.
///
/// # Errors
/// `storage`.
#[tauri::command]
pub fn chaturaji_current(state: State<'_, ChaturajiState>) -> Result<Option<TableView>, AppError> {
    let now = state.now();
    Ok(state.core().current(now)?)
}

/// The person to move rolls.
///
/// # Errors
/// As `ChaturajiCore::roll`: `no_table`, `cpu_seat`, `illegal`.
#[tauri::command]
pub fn chaturaji_roll(state: State<'_, ChaturajiState>) -> Result<TableView, AppError> {
    let now = state.now();
    Ok(state.core().roll(now)?)
}

/// The person to move plays `from`→`to` (with `die`, or whichever die allows it).
///
/// # Errors
/// `bad_square`; `no_table`, `cpu_seat`, `illegal`.
#[tauri::command]
pub fn chaturaji_move(
    state: State<'_, ChaturajiState>,
    from: String,
    to: String,
    die: Option<u8>,
) -> Result<TableView, AppError> {
    let (from, to) = (parse_square(&from)?, parse_square(&to)?);
    let now = state.now();
    Ok(state.core().play(from, to, die, now)?)
}

/// The person to move ends the turn.
///
/// # Errors
/// `no_table`, `cpu_seat`, `illegal`.
#[tauri::command]
pub fn chaturaji_end_turn(state: State<'_, ChaturajiState>) -> Result<TableView, AppError> {
    let now = state.now();
    Ok(state.core().end_turn(now)?)
}

/// A person's seat resigns.
///
/// # Errors
/// `no_table`, `cpu_seat`, `illegal`.
#[tauri::command]
pub fn chaturaji_resign(
    state: State<'_, ChaturajiState>,
    seat: Seat,
) -> Result<TableView, AppError> {
    let now = state.now();
    Ok(state.core().resign(seat, now)?)
}

/// Closes the table (it stays saved).
///
/// # Errors
/// Never.
#[tauri::command]
pub fn chaturaji_leave(state: State<'_, ChaturajiState>) -> Result<(), AppError> {
    state.core().leave();
    Ok(())
}

/// The open table's record (settings, seed, actions) as JSON.
///
/// # Errors
/// `no_table`.
#[tauri::command]
pub fn chaturaji_record(state: State<'_, ChaturajiState>) -> Result<String, AppError> {
    Ok(state.core().record_json()?)
}

/// Creates a network table on the server at `url` and takes its first person seat.
///
/// # Errors
/// `bad_settings`; as [`NetState::create`].
#[tauri::command]
pub async fn chaturaji_net_create<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, NetState>,
    url: String,
    settings: serde_json::Value,
) -> Result<TableView, AppError> {
    state.create(&url, parse_settings(settings)?, pusher(app)).await
}

/// Joins the network table `code` on the server at `url`.
///
/// # Errors
/// As [`NetState::join`].
#[tauri::command]
pub async fn chaturaji_net_join<R: Runtime>(
    app: AppHandle<R>,
    state: State<'_, NetState>,
    url: String,
    code: String,
) -> Result<TableView, AppError> {
    state.join(&url, &code, pusher(app)).await
}

/// Rolls for this device's seat.
///
/// # Errors
/// As [`NetState::roll`].
#[tauri::command]
pub async fn chaturaji_net_roll(state: State<'_, NetState>) -> Result<TableView, AppError> {
    state.roll().await
}

/// Moves a piece for this device's seat.
///
/// # Errors
/// `bad_square`; as [`NetState::play`].
#[tauri::command]
pub async fn chaturaji_net_move(
    state: State<'_, NetState>,
    from: String,
    to: String,
    die: Option<u8>,
) -> Result<TableView, AppError> {
    state.play(parse_square(&from)?, parse_square(&to)?, die).await
}

/// Ends this device's turn.
///
/// # Errors
/// As [`NetState::end_turn`].
#[tauri::command]
pub async fn chaturaji_net_end_turn(state: State<'_, NetState>) -> Result<TableView, AppError> {
    state.end_turn().await
}

/// Resigns this device's seat.
///
/// # Errors
/// As [`NetState::resign`].
#[tauri::command]
pub async fn chaturaji_net_resign(state: State<'_, NetState>) -> Result<TableView, AppError> {
    state.resign().await
}

/// The network table's view.
///
/// # Errors
/// `no_table`.
#[tauri::command]
pub fn chaturaji_net_view(state: State<'_, NetState>) -> Result<TableView, AppError> {
    state.view()
}

/// Closes the network table (the seat stays; the room's CPU plays it). A table this device hosts
/// on the Wi-Fi stops with it.
///
/// # Errors
/// Never.
#[tauri::command]
pub async fn chaturaji_net_leave(
    state: State<'_, NetState>,
    hosting: State<'_, ChaturajiLan>,
) -> Result<(), AppError> {
    hosting.stop(&state).await;
    state.leave().await;
    Ok(())
}

/// Hosts a Chaturaji table on this device's Wi-Fi and takes its first person seat.
///
/// # Errors
/// As [`ChaturajiLan::host`]; `bad_settings` for unreadable settings.
#[tauri::command]
pub async fn chaturaji_lan_host<R: Runtime>(
    app: AppHandle<R>,
    hosting: State<'_, ChaturajiLan>,
    net: State<'_, NetState>,
    name: String,
    settings: serde_json::Value,
) -> Result<HostedTable, AppError> {
    hosting.host(&name, parse_settings(settings)?, &net, pusher(app)).await
}

/// How to join the hosted table (null when not hosting).
///
/// # Errors
/// Never.
#[tauri::command]
pub async fn chaturaji_lan_hosted(
    hosting: State<'_, ChaturajiLan>,
) -> Result<Option<ChaturajiHosted>, AppError> {
    Ok(hosting.hosted().await)
}

/// Joins a Chaturaji table from the LAN list, by address and room code, or by join code.
///
/// # Errors
/// As [`ChaturajiLan::join`].
#[tauri::command]
pub async fn chaturaji_lan_join<R: Runtime>(
    app: AppHandle<R>,
    hosting: State<'_, ChaturajiLan>,
    lan: State<'_, Lan>,
    net: State<'_, NetState>,
    target: JoinTarget,
) -> Result<TableView, AppError> {
    hosting.join(&lan, &target, &net, pusher(app)).await
}
