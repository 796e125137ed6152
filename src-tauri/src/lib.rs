//! The Maharajah app shell: a thin Tauri 2 layer that exposes the engine to the web-view UI.
//!
//! Layout:
//! - [`commands`]: the commands the UI invokes, each returning `Result<T, CommandError>`.
//! - [`builder`]: the army builder's answers, start validation, the Learn board's reach.
//! - [`app`]: the local-play core (open game, storage, computer state), testable without a window.
//! - [`netplay`]: one network game (online server or LAN host) for the UI: create/join, moves,
//!   pause, draws, hidden lock-in; pushes `net` and `net-clock` events.
//! - [`session`]: one game: moves, clock, result, snapshots for the UI, PGN.
//! - [`clock`]: the Fischer clock with injected time.
//! - [`store`]: saved games and settings in SQLite.
//! - [`chaturaji`]: the local Chaturaji table (people and CPU seats), its commands and worker.
//! - [`multicast`]: Android's Wi-Fi multicast lock, held while browsing or advertising.
//! - [`chaturaji_lan`]: a Chaturaji table hosted on this device over the Wi-Fi, and joining one.
//! - [`chaturaji_net`]: a Chaturaji seat of a room on a server (online or a LAN host).
//! - [`computer`]: the computer opponent's move choice.
//! - [`lan`]: two devices on one Wi-Fi: host, browse, join.
//! - [`run`]: builds the app; the desktop `main` and the mobile entry point both call it.

pub mod app;
pub mod builder;
pub mod chaturaji;
pub mod chaturaji_lan;
pub mod chaturaji_net;
pub mod clock;
pub mod commands;
pub mod computer;
pub mod lan;
pub mod multicast;
pub mod netplay;
pub mod session;
pub mod store;

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

use tauri::{Emitter, Manager};

use crate::app::{Core, ThinkRequest};
use crate::commands::{unix_now, AppState};
use crate::store::Store;

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
    let builder = builder.plugin(multicast::android::init());
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
            let store = std::fs::create_dir_all(&data_dir)
                .map_err(|e| store::StoreError(e.to_string()))
                .and_then(|()| Store::open(&data_dir.join("maharajah.sqlite")))
                .or_else(|error| {
                    eprintln!("{error}; games will not be kept after the app closes");
                    Store::in_memory()
                })?;
            let (sender, receiver) = mpsc::channel::<ThinkRequest>();
            chaturaji::setup(app, &data_dir.join("maharajah.sqlite"));
            app.manage(AppState::new(Core::new(store), sender, export_dir));
            let emitter = handle.clone();
            app.manage(netplay::NetPlay::new(move |update| {
                let _ = match update {
                    netplay::NetUpdate::View(view) => emitter.emit("net", view),
                    netplay::NetUpdate::Tick(tick) => emitter.emit("net-clock", tick),
                };
            }));
            app.manage(lan::Lan::new(lan::LanConfig::from_env(), lan::emit_to(handle.clone())));
            app.manage(chaturaji_lan::ChaturajiLan::new(lan::LanConfig::from_env()));
            spawn_computer(handle.clone(), receiver);
            spawn_ticker(handle);
            Ok(())
        })
        .invoke_handler(tauri::generate_handler![
            commands::versions,
            commands::start_info,
            commands::new_game,
            commands::open_game,
            commands::current_game,
            commands::play_move,
            commands::review,
            commands::claim_draw,
            commands::offer_draw,
            commands::accept_draw,
            commands::resign,
            commands::takeback,
            commands::rematch,
            commands::leave_game,
            commands::history,
            commands::export_pgn,
            commands::save_pgn,
            commands::import_game,
            commands::settings,
            commands::set_setting,
            commands::army_view,
            commands::army_place,
            commands::army_move,
            commands::army_preset,
            commands::start_check,
            commands::new_custom_game,
            commands::saved_armies,
            commands::save_army,
            commands::rename_army,
            commands::delete_army,
            commands::learn_reach,
            chaturaji::chaturaji_new,
            chaturaji::chaturaji_current,
            chaturaji::chaturaji_roll,
            chaturaji::chaturaji_move,
            chaturaji::chaturaji_end_turn,
            chaturaji::chaturaji_resign,
            chaturaji::chaturaji_leave,
            chaturaji::chaturaji_record,
            netplay::commands::net_create,
            netplay::commands::net_join,
            netplay::commands::net_view,
            netplay::commands::net_move,
            netplay::commands::net_pause,
            netplay::commands::net_resume,
            netplay::commands::net_resign,
            netplay::commands::net_offer_draw,
            netplay::commands::net_decline_draw,
            netplay::commands::net_claim_draw,
            netplay::commands::net_lock_army,
            netplay::commands::net_leave,
            netplay::commands::net_kept,
            netplay::commands::net_rejoin,
            lan::commands::lan_host,
            lan::commands::lan_hosted,
            lan::commands::lan_browse,
            lan::commands::lan_stop_browsing,
            lan::commands::lan_join,
            lan::commands::lan_status,
            lan::commands::lan_leave,
            chaturaji_net::chaturaji_net_create,
            chaturaji_net::chaturaji_net_join,
            chaturaji_net::chaturaji_net_roll,
            chaturaji_net::chaturaji_net_move,
            chaturaji_net::chaturaji_net_end_turn,
            chaturaji_net::chaturaji_net_resign,
            chaturaji_net::chaturaji_net_view,
            chaturaji_net::chaturaji_net_leave,
            chaturaji_lan::commands::chaturaji_lan_host,
            chaturaji_lan::commands::chaturaji_lan_hosted,
            chaturaji_lan::commands::chaturaji_lan_join,
        ])
}

/// The computer's thread: searches each request off the UI thread and pushes a `game` event with
/// its move, unless the request was cancelled meanwhile (takeback, leaving, a new game).
fn spawn_computer<R: tauri::Runtime>(
    handle: tauri::AppHandle<R>,
    receiver: mpsc::Receiver<ThinkRequest>,
) {
    std::thread::spawn(move || {
        // Made at the first request: its 16 MB table is not held by people who never play it.
        let mut computer: Option<computer::Computer> = None;
        for request in receiver {
            // A short pause so the reply does not land before the person's own move is drawn.
            std::thread::sleep(Duration::from_millis(250));
            if request.stop.load(std::sync::atomic::Ordering::Relaxed) {
                continue;
            }
            let computer = computer.get_or_insert_with(computer::Computer::new);
            let mv = computer.choose(&request.game, request.level, request.clock, &request.stop);
            let state = handle.state::<AppState>();
            let now = state.now();
            let answer = state.core().computer_moved(request.generation, mv, now, unix_now());
            match answer {
                Ok(Some(view)) => {
                    let _ = handle.emit("game", view);
                }
                Ok(None) => {}
                Err(error) => eprintln!("the computer's move was refused: {error}"),
            }
        }
    });
}

/// The clock's thread: a few times a second, pushes the running clock (`clock`) or, when a flag
/// falls, the finished game (`game`).
fn spawn_ticker<R: tauri::Runtime>(handle: tauri::AppHandle<R>) {
    std::thread::spawn(move || loop {
        std::thread::sleep(Duration::from_millis(200));
        let state = handle.state::<AppState>();
        let now = state.now();
        let mut core = state.core();
        match core.tick(now, unix_now()) {
            Ok(Some(view)) => {
                let _ = handle.emit("game", view);
            }
            Ok(None) => {
                if let Some(clock) = core.running_clock(now) {
                    let _ = handle.emit("clock", clock);
                }
            }
            Err(error) => eprintln!("the clock could not save the result: {error}"),
        }
    });
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
