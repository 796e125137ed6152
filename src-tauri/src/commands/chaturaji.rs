//! The Chaturaji commands: the local table, a seat of a network table (online or a LAN host), and
//! a table hosted on this device's Wi-Fi. Every answer is a `TableView`; pushed event: `chaturaji`
//! (a new view after a CPU action, a time-out or a room event).

use maharajah_app::chaturaji::lan::{ChaturajiHosted, HostedTable};
use maharajah_app::chaturaji::local::{parse_settings, parse_square};
use maharajah_app::chaturaji::TableView;
use maharajah_app::lan::JoinTarget;
use maharajah_app::{App, AppError};
use maharajah_chaturaji::Seat;
use tauri::State;

/// Opens a new table. `settings` is any subset of the table settings (the rest take defaults).
///
/// # Errors
/// `bad_settings`, `storage`.
#[tauri::command]
pub fn chaturaji_new(
    app: State<'_, App>,
    settings: serde_json::Value,
) -> Result<TableView, AppError> {
    let settings = parse_settings(settings)?;
    let now = app.tables.now();
    Ok(app.tables.core().new_table(settings, rand::random(), now)?)
}

/// The open table, or the newest unfinished saved one, or null.
///
/// # Errors
/// `storage`.
#[tauri::command]
pub fn chaturaji_current(app: State<'_, App>) -> Result<Option<TableView>, AppError> {
    let now = app.tables.now();
    Ok(app.tables.core().current(now)?)
}

/// The person to move rolls.
///
/// # Errors
/// As `ChaturajiCore::roll`: `no_table`, `cpu_seat`, `illegal`.
#[tauri::command]
pub fn chaturaji_roll(app: State<'_, App>) -> Result<TableView, AppError> {
    let now = app.tables.now();
    Ok(app.tables.core().roll(now)?)
}

/// The person to move plays `from`→`to` (with `die`, or whichever die allows it).
///
/// # Errors
/// `bad_square`; `no_table`, `cpu_seat`, `illegal`.
#[tauri::command]
pub fn chaturaji_move(
    app: State<'_, App>,
    from: String,
    to: String,
    die: Option<u8>,
) -> Result<TableView, AppError> {
    let (from, to) = (parse_square(&from)?, parse_square(&to)?);
    let now = app.tables.now();
    Ok(app.tables.core().play(from, to, die, now)?)
}

/// The person to move ends the turn.
///
/// # Errors
/// `no_table`, `cpu_seat`, `illegal`.
#[tauri::command]
pub fn chaturaji_end_turn(app: State<'_, App>) -> Result<TableView, AppError> {
    let now = app.tables.now();
    Ok(app.tables.core().end_turn(now)?)
}

/// A person's seat resigns.
///
/// # Errors
/// `no_table`, `cpu_seat`, `illegal`.
#[tauri::command]
pub fn chaturaji_resign(app: State<'_, App>, seat: Seat) -> Result<TableView, AppError> {
    let now = app.tables.now();
    Ok(app.tables.core().resign(seat, now)?)
}

/// Closes the table (it stays saved).
///
/// # Errors
/// Never.
#[tauri::command]
pub fn chaturaji_leave(app: State<'_, App>) -> Result<(), AppError> {
    app.tables.core().leave();
    Ok(())
}

/// The open table's record (settings, seed, actions) as JSON.
///
/// # Errors
/// `no_table`.
#[tauri::command]
pub fn chaturaji_record(app: State<'_, App>) -> Result<String, AppError> {
    Ok(app.tables.core().record_json()?)
}

/// Creates a network table on the server at `url` and takes its first person seat.
///
/// # Errors
/// `bad_settings`; as `NetState::create`.
#[tauri::command]
pub async fn chaturaji_net_create(
    app: State<'_, App>,
    url: String,
    settings: serde_json::Value,
) -> Result<TableView, AppError> {
    app.table_net.create(&url, parse_settings(settings)?, app.table_push()).await
}

/// Joins the network table `code` on the server at `url`.
///
/// # Errors
/// As `NetState::join`.
#[tauri::command]
pub async fn chaturaji_net_join(
    app: State<'_, App>,
    url: String,
    code: String,
) -> Result<TableView, AppError> {
    app.table_net.join(&url, &code, app.table_push()).await
}

/// Rolls for this device's seat.
///
/// # Errors
/// As `NetState::roll`.
#[tauri::command]
pub async fn chaturaji_net_roll(app: State<'_, App>) -> Result<TableView, AppError> {
    app.table_net.roll().await
}

/// Moves a piece for this device's seat.
///
/// # Errors
/// `bad_square`; as `NetState::play`.
#[tauri::command]
pub async fn chaturaji_net_move(
    app: State<'_, App>,
    from: String,
    to: String,
    die: Option<u8>,
) -> Result<TableView, AppError> {
    app.table_net.play(parse_square(&from)?, parse_square(&to)?, die).await
}

/// Ends this device's turn.
///
/// # Errors
/// As `NetState::end_turn`.
#[tauri::command]
pub async fn chaturaji_net_end_turn(app: State<'_, App>) -> Result<TableView, AppError> {
    app.table_net.end_turn().await
}

/// Resigns this device's seat.
///
/// # Errors
/// As `NetState::resign`.
#[tauri::command]
pub async fn chaturaji_net_resign(app: State<'_, App>) -> Result<TableView, AppError> {
    app.table_net.resign().await
}

/// The network table's view.
///
/// # Errors
/// `no_table`.
#[tauri::command]
pub fn chaturaji_net_view(app: State<'_, App>) -> Result<TableView, AppError> {
    app.table_net.view()
}

/// Closes the network table (the seat stays; the room's CPU plays it). A table this device hosts
/// on the Wi-Fi stops with it.
///
/// # Errors
/// Never.
#[tauri::command]
pub async fn chaturaji_net_leave(app: State<'_, App>) -> Result<(), AppError> {
    app.table_net_leave().await;
    Ok(())
}

/// Hosts a Chaturaji table on this device's Wi-Fi and takes its first person seat.
///
/// # Errors
/// As `ChaturajiLan::host`; `bad_settings` for unreadable settings.
#[tauri::command]
pub async fn chaturaji_lan_host(
    app: State<'_, App>,
    name: String,
    settings: serde_json::Value,
) -> Result<HostedTable, AppError> {
    app.table_lan_host(&name, parse_settings(settings)?).await
}

/// How to join the hosted table (null when not hosting).
///
/// # Errors
/// Never.
#[tauri::command]
pub async fn chaturaji_lan_hosted(
    app: State<'_, App>,
) -> Result<Option<ChaturajiHosted>, AppError> {
    Ok(app.table_lan_hosted().await)
}

/// Joins a Chaturaji table from the LAN list, by address and room code, or by join code.
///
/// # Errors
/// As `ChaturajiLan::join`.
#[tauri::command]
pub async fn chaturaji_lan_join(
    app: State<'_, App>,
    target: JoinTarget,
) -> Result<TableView, AppError> {
    app.table_lan_join(&target).await
}
