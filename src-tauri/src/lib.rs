//! The Maharajah app shell: a thin Tauri 2 layer between the web-view UI and `maharajah-app`.
//!
//! Layout:
//! - [`run`]: builds the app; the desktop `main` and the mobile entry point both call it.
//! - [`builder`]: the Tauri builder with every service managed and every command registered.
//! - [`commands`]: the commands the UI invokes, grouped by area, each forwarding to the app.
//! - `android`: the Android plugin for the Wi-Fi multicast lock.

#[cfg(target_os = "android")]
mod android;
pub mod commands;

use std::path::PathBuf;
use std::sync::mpsc;

use maharajah_app::chaturaji::{self, lan::ChaturajiLan, local::ChaturajiState};
use maharajah_app::chess::local::{AppState, Core, ThinkRequest};
use maharajah_app::chess::online::{NetPlay, NetUpdate};
use maharajah_app::lan::{Lan, LanConfig, LanPush};
use maharajah_app::store::{Store, StoreError};
use tauri::{Emitter, Manager};

/// Environment variable naming the folder for saved games (tests use a temporary one).
pub const DATA_DIR_ENV: &str = "MAHARAJAH_DATA_DIR";
/// Environment variable naming the folder exported PGN files go to (default: Downloads).
pub const EXPORT_DIR_ENV: &str = "MAHARAJAH_EXPORT_DIR";

/// Builds the Tauri application with every command registered.
///
/// Separate from [`run`] so tests can drive the same command set on a mock runtime.
pub fn builder<R: tauri::Runtime>() -> tauri::Builder<R> {
    let builder = tauri::Builder::<R>::new();
    #[cfg(target_os = "android")]
    let builder = builder.plugin(android::init());
    builder
        .setup(|app| {
            let handle = app.handle().clone();
            let data_dir = std::env::var_os(DATA_DIR_ENV)
                .map(PathBuf::from)
                .or_else(|| app.path().app_data_dir().ok())
                .unwrap_or_else(std::env::temp_dir);
            let export_dir = std::env::var_os(EXPORT_DIR_ENV)
                .map(PathBuf::from)
                .or_else(|| app.path().download_dir().ok())
                .unwrap_or_else(|| data_dir.clone());
            let database = data_dir.join("maharajah.sqlite");
            let store = std::fs::create_dir_all(&data_dir)
                .map_err(|e| StoreError(e.to_string()))
                .and_then(|()| Store::open(&database))
                .or_else(|error| {
                    eprintln!("{error}; games will not be kept after the app closes");
                    Store::in_memory()
                })?;
            let (sender, receiver) = mpsc::channel::<ThinkRequest>();
            if let Some((tables, seat)) = chaturaji::local::open(&database) {
                app.manage(seat);
                app.manage(tables);
                let handle = handle.clone();
                std::thread::spawn(move || {
                    let tables = handle.state::<ChaturajiState>();
                    chaturaji::local::run_worker(&tables, |view| {
                        let _ = handle.emit("chaturaji", view);
                    });
                });
            }
            app.manage(AppState::new(Core::new(store), sender, export_dir));
            let emitter = handle.clone();
            app.manage(NetPlay::new(move |update| {
                let _ = match update {
                    NetUpdate::View(view) => emitter.emit("net", view),
                    NetUpdate::Tick(tick) => emitter.emit("net-clock", tick),
                };
            }));
            let emitter = handle.clone();
            let sink = std::sync::Arc::new(move |push: LanPush| {
                let _ = match push {
                    LanPush::Hosts(list) => emitter.emit("lan-hosts", list),
                    LanPush::Status(status) => emitter.emit("lan-status", status),
                };
            });
            app.manage(Lan::new(LanConfig::from_env(), sink));
            app.manage(ChaturajiLan::new(LanConfig::from_env()));
            let computer = handle.clone();
            std::thread::spawn(move || {
                computer.state::<AppState>().run_computer(&receiver, |view| {
                    let _ = computer.emit("game", view);
                });
            });
            std::thread::spawn(move || {
                handle.state::<AppState>().run_ticker(
                    |view| {
                        let _ = handle.emit("game", view);
                    },
                    |clock| {
                        let _ = handle.emit("clock", clock);
                    },
                );
            });
            Ok(())
        })
        .invoke_handler(tauri::generate_handler![
            commands::chess::versions,
            commands::chess::start_info,
            commands::chess::new_game,
            commands::chess::open_game,
            commands::chess::current_game,
            commands::chess::play_move,
            commands::chess::review,
            commands::chess::claim_draw,
            commands::chess::offer_draw,
            commands::chess::accept_draw,
            commands::chess::resign,
            commands::chess::takeback,
            commands::chess::rematch,
            commands::chess::leave_game,
            commands::chess::history,
            commands::chess::export_pgn,
            commands::chess::save_pgn,
            commands::chess::import_game,
            commands::chess::settings,
            commands::chess::set_setting,
            commands::chess::army_view,
            commands::chess::army_place,
            commands::chess::army_move,
            commands::chess::army_preset,
            commands::chess::start_check,
            commands::chess::new_custom_game,
            commands::chess::saved_armies,
            commands::chess::save_army,
            commands::chess::rename_army,
            commands::chess::delete_army,
            commands::chess::learn_reach,
            commands::chaturaji::chaturaji_new,
            commands::chaturaji::chaturaji_current,
            commands::chaturaji::chaturaji_roll,
            commands::chaturaji::chaturaji_move,
            commands::chaturaji::chaturaji_end_turn,
            commands::chaturaji::chaturaji_resign,
            commands::chaturaji::chaturaji_leave,
            commands::chaturaji::chaturaji_record,
            commands::online::net_create,
            commands::online::net_join,
            commands::online::net_view,
            commands::online::net_move,
            commands::online::net_pause,
            commands::online::net_resume,
            commands::online::net_resign,
            commands::online::net_offer_draw,
            commands::online::net_decline_draw,
            commands::online::net_claim_draw,
            commands::online::net_lock_army,
            commands::online::net_leave,
            commands::online::net_kept,
            commands::online::net_rejoin,
            commands::lan::lan_host,
            commands::lan::lan_hosted,
            commands::lan::lan_browse,
            commands::lan::lan_stop_browsing,
            commands::lan::lan_join,
            commands::lan::lan_status,
            commands::lan::lan_leave,
            commands::chaturaji::chaturaji_net_create,
            commands::chaturaji::chaturaji_net_join,
            commands::chaturaji::chaturaji_net_roll,
            commands::chaturaji::chaturaji_net_move,
            commands::chaturaji::chaturaji_net_end_turn,
            commands::chaturaji::chaturaji_net_resign,
            commands::chaturaji::chaturaji_net_view,
            commands::chaturaji::chaturaji_net_leave,
            chaturaji_commands::lan::chaturaji_lan_host,
            chaturaji_commands::lan::chaturaji_lan_hosted,
            chaturaji_commands::lan::chaturaji_lan_join,
        ])
}

/// Starts the app: opens the main window showing the embedded `ui/`.
///
/// # Panics
/// Panics when the window system cannot be initialised (no display on desktop); there is nothing
/// useful the app can do then, and the message says why.
#[cfg_attr(mobile, tauri::mobile_entry_point)]
pub fn run() {
    builder::<tauri::Wry>()
        .run(tauri::generate_context!())
        .expect("the Tauri runtime could not start (is a display available?)");
}
