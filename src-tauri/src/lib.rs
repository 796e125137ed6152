//! The Maharajah app shell: a thin Tauri 2 layer that exposes the engine to the web-view UI.
//!
//! Layout:
//! - [`commands`]: the commands the UI invokes, each returning `Result<T, CommandError>`.
//! - [`run`]: builds the app; the desktop `main` and the mobile entry point both call it.

pub mod commands;

/// Builds the Tauri application with every command registered.
///
/// Separate from [`run`] so tests can drive the same command set on a mock runtime.
pub fn builder<R: tauri::Runtime>() -> tauri::Builder<R> {
    tauri::Builder::<R>::new().invoke_handler(tauri::generate_handler![commands::versions])
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
