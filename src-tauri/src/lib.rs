//! The Maharajah app shell: a thin Tauri 2 layer between the web-view UI and `maharajah-app`.
//!
//! Layout:
//! - [`run`]: builds the app; the desktop `main` and the mobile entry point both call it.
//! - [`builder`]: the Tauri builder with every service managed and every command registered.
//! - [`commands`]: the commands the UI invokes, grouped by area, each forwarding to the app.
//! - `android`: the Android plugin for the Wi-Fi multicast lock.
//! - `ios`: the iOS Bonjour plugin, installed as LAN discovery (mdns-sd cannot run there).
//! - [`follow_links`]: `maharajah://join/…` deep links (tauri-plugin-deep-link) to the app core.
//!
//! Plugins: deep links everywhere; haptics (tauri-plugin-haptics) only on Android and iOS, where
//! the UI asks for a light impact on a move and a notification on check and at the end
//! (`capabilities/mobile.json`); on the desktop the UI asks for nothing.

#[cfg(target_os = "android")]
mod android;
pub mod commands;
#[cfg(target_os = "ios")]
mod ios;

use std::path::PathBuf;
use std::sync::Arc;

use maharajah_app::lan::LanConfig;
use maharajah_app::{App, Push, Sink};
use tauri::{AppHandle, Emitter, Manager, Runtime};

/// Environment variable naming the folder for saved games (tests use a temporary one).
pub const DATA_DIR_ENV: &str = "MAHARAJAH_DATA_DIR";
/// Environment variable naming the folder exported PGN files go to (default: Downloads).
pub const EXPORT_DIR_ENV: &str = "MAHARAJAH_EXPORT_DIR";

/// The app's pushes as Tauri events: the push's event name, its payload.
struct Events<R: Runtime>(AppHandle<R>);

impl<R: Runtime> Sink for Events<R> {
    fn push(&self, push: Push) {
        let _ = self.0.emit(push.event(), push);
    }
}

/// Builds the Tauri application with every command registered.
///
/// Separate from [`run`] so tests can drive the same command set on a mock runtime.
pub fn builder<R: Runtime>() -> tauri::Builder<R> {
    with_app(tauri::Builder::<R>::new())
}

/// Adds the app to `builder`: its plugins, the core in the setup hook, every command.
fn with_app<R: Runtime>(builder: tauri::Builder<R>) -> tauri::Builder<R> {
    let builder = builder.plugin(tauri_plugin_deep_link::init());
    #[cfg(mobile)]
    let builder = builder.plugin(tauri_plugin_haptics::init());
    #[cfg(target_os = "android")]
    let builder = builder.plugin(android::init()).plugin(android::share_sheet());
    #[cfg(target_os = "ios")]
    let builder = builder.plugin(ios::init());
    builder
        .setup(|app| {
            let data_dir = std::env::var_os(DATA_DIR_ENV)
                .map(PathBuf::from)
                .or_else(|| app.path().app_data_dir().ok())
                .unwrap_or_else(std::env::temp_dir);
            let export_dir = std::env::var_os(EXPORT_DIR_ENV)
                .map(PathBuf::from)
                .or_else(|| app.path().download_dir().ok())
                .unwrap_or_else(|| data_dir.clone());
            let events = Arc::new(Events(app.handle().clone()));
            let core = App::open(
                &data_dir.join("maharajah.sqlite"),
                &export_dir,
                LanConfig::from_env(),
                maharajah_app::time::system(),
                events,
            )?;
            core.start();
            app.manage(core);
            follow_links(app);
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
            commands::chess::decline_draw,
            commands::chess::pause_game,
            commands::chess::resume_game,
            commands::chess::resign,
            commands::chess::takeback,
            commands::chess::set_aid,
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
            commands::chess::check_names,
            commands::chess::saved_armies,
            commands::chess::save_army,
            commands::chess::rename_army,
            commands::chess::delete_army,
            commands::chess::learn_reach,
            commands::device::device_info,
            commands::device::take_join_link,
            commands::device::share_text,
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
            commands::lobby::lobby_open,
            commands::lobby::lobby_view,
            commands::lobby::lobby_close,
            commands::lobby::lobby_register_name,
            commands::lobby::lobby_create,
            commands::lobby::lobby_cancel,
            commands::lobby::lobby_accept,
            commands::lobby::lobby_join_table,
            commands::lobby::lobby_play_now,
            commands::lobby::lobby_cancel_play_now,
            commands::lobby::net_watch,
            commands::lobby::identity_recovery_code,
            commands::lobby::identity_recover,
            commands::lobby::lobby_leaderboard,
            commands::lobby::lobby_profile,
            commands::lobby::lobby_playing_now,
            commands::lobby::lobby_save_pgn,
            commands::lobby::net_rematch,
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
            commands::chaturaji::chaturaji_lan_host,
            commands::chaturaji::chaturaji_lan_hosted,
            commands::chaturaji::chaturaji_lan_join,
            commands::analysis::analysis_open,
            commands::analysis::analysis_view,
            commands::analysis::analysis_play,
            commands::analysis::analysis_step,
            commands::analysis::analysis_go,
            commands::analysis::analysis_promote,
            commands::analysis::analysis_delete,
            commands::analysis::analysis_lines,
            commands::analysis::analysis_review,
            commands::analysis::analysis_stop_review,
            commands::analysis::analysis_pgn,
            commands::analysis::analysis_save_pgn,
            commands::analysis::analysis_close,
        ])
}

/// Hands every `maharajah://join/…` link the system opens the app with to the app core, which
/// keeps it for the UI and announces it (`join-link`): the link the app was started with, and
/// those that arrive while it runs. On Linux and Windows the scheme is (re)registered with the
/// desktop at each start, on a thread of its own (see `register_links`), so a build that was
/// not installed by a package opens links too (the .deb's desktop entry registers it as well);
/// on macOS, Android and iOS the bundle's configuration does (`plugins.deep-link` in
/// tauri.conf.json).
pub fn follow_links<R: Runtime>(app: &tauri::App<R>) {
    use tauri_plugin_deep_link::DeepLinkExt;
    #[cfg(any(windows, target_os = "linux"))]
    register_links(app.handle());
    let handle = app.handle().clone();
    app.deep_link().on_open_url(move |event| {
        let core = handle.state::<App>();
        for url in event.urls() {
            core.open_link(url.as_str());
        }
    });
    if let Ok(Some(urls)) = app.deep_link().get_current() {
        let core = app.state::<App>();
        for url in urls {
            core.open_link(url.as_str());
        }
    }
}

/// Registers the `maharajah://` scheme with the desktop without holding up the window.
///
/// The setup hook runs on the main thread after the window is created and before its page can
/// load, and on Linux registering runs desktop tools (`update-desktop-database`, then
/// `xdg-mime`, a shell script of a dozen processes): 40–250 ms at every start that the first
/// page waited for. Nothing at start needs it done (it only tells the desktop where to send
/// later links; the link the app was started with comes from its arguments), so it runs on a
/// thread of its own, or here if no thread can be started.
#[cfg(any(windows, target_os = "linux"))]
fn register_links<R: Runtime>(handle: &AppHandle<R>) {
    fn register<R: Runtime>(handle: &AppHandle<R>) {
        use tauri_plugin_deep_link::DeepLinkExt;
        if let Err(error) = handle.deep_link().register_all() {
            eprintln!("the maharajah:// links could not be registered: {error}");
        }
    }
    let moved = handle.clone();
    let spawned =
        std::thread::Builder::new().name("register-links".into()).spawn(move || register(&moved));
    if spawned.is_err() {
        register(handle);
    }
}

/// Starts the app: opens the main window showing the embedded `ui/`.
///
/// # Panics
/// Panics when the window system cannot be initialised (no display on desktop); there is nothing
/// useful the app can do then, and the message says why.
#[cfg_attr(mobile, tauri::mobile_entry_point)]
pub fn run() {
    // First, so a second start of the desktop app (a `maharajah://` link opened while it runs)
    // hands its link to this one and exits. Only here: tests and the web shell run several
    // builders at once on purpose. Without a D-Bus session (Linux) the app starts normally.
    let context = tauri::generate_context!();
    #[cfg(target_os = "linux")]
    hand_over_to_running_instance(&context.config().identifier);
    #[cfg(desktop)]
    let app = tauri::Builder::<tauri::Wry>::new().plugin(tauri_plugin_single_instance::init(
        |app, _argv, _cwd| {
            if let Some(window) = app.get_webview_window("main") {
                let _ = window.unminimize();
                let _ = window.set_focus();
            }
        },
    ));
    #[cfg(mobile)]
    let app = tauri::Builder::<tauri::Wry>::new();
    with_app(app)
        .run(context)
        .expect("the Tauri runtime could not start (is a display available?)");
}

/// Linux: when an instance of the app already owns its D-Bus name, hands it this start's
/// arguments (a `maharajah://` link) and exits, before the window system is touched.
///
/// tauri-plugin-single-instance does the same from its setup, but by then tao has started its X11
/// device-event thread, and `std::process::exit` runs libX11's destructor under that thread's
/// `XOpenDisplay`: about one second start in a hundred died of SIGSEGV. Here no such thread exists
/// yet. The name, path and method are the plugin's (`platform_impl/linux.rs`), so the running
/// instance's plugin answers; where anything fails the plugin still does its own hand-over. On a
/// first start nobody owns the name, and the call fails at once (`ServiceUnknown`): one round trip.
#[cfg(target_os = "linux")]
fn hand_over_to_running_instance(identifier: &str) {
    let name = format!("{identifier}.SingleInstance");
    let path = format!("/{}", name.replace('.', "/").replace('-', "_"));
    let Ok(connection) = zbus::blocking::Connection::session() else { return };
    let argv: Vec<String> =
        std::env::args_os().map(|arg| arg.to_string_lossy().into_owned()).collect();
    let cwd = std::env::current_dir().unwrap_or_default().to_string_lossy().into_owned();
    let handed = connection.call_method(
        Some(name.as_str()),
        path.as_str(),
        Some("org.SingleInstance.DBus"),
        "ExecuteCallback",
        &(argv, cwd.as_str()),
    );
    if handed.is_ok() {
        std::process::exit(0);
    }
}
