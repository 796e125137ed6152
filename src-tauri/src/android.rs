//! The Android plugins (mobile/README.md):
//! - the Wi-Fi multicast lock: commands `acquire` and `release` (payload
//!   `{ "use": "BROWSING" | "ADVERTISING" }`) call `LanMulticastLock`; the counting of uses is
//!   [`maharajah_app::multicast`]'s;
//! - the share sheet: Android's WebView has no `navigator.share`, so `SharePlugin.share`
//!   (`{ "title", "text" }`) opens the system's chooser for an `ACTION_SEND` of the text.

use maharajah_app::multicast::{set_platform, Change};
use maharajah_app::AppError;
use tauri::plugin::{Builder, PluginHandle, TauriPlugin};
use tauri::{AppHandle, Manager, Runtime};

/// The plugin: registers `app.maharajah.chess.LanMulticastPlugin` and sends every change to it
/// (on the async runtime, so no caller waits for the Android main thread).
pub fn init<R: Runtime>() -> TauriPlugin<R> {
    Builder::new("lan-multicast")
        .setup(|_app, api| {
            let handle =
                api.register_android_plugin("app.maharajah.chess", "LanMulticastPlugin")?;
            set_platform(move |change| {
                let (command, use_) = match change {
                    Change::Start(u) => ("acquire", u),
                    Change::Stop(u) => ("release", u),
                };
                let handle = handle.clone();
                tauri::async_runtime::spawn(async move {
                    let payload = serde_json::json!({ "use": use_.name() });
                    if let Err(e) =
                        handle.run_mobile_plugin_async::<serde_json::Value>(command, payload).await
                    {
                        eprintln!("multicast lock {command} {}: {e}", use_.name());
                    }
                });
            });
            Ok(())
        })
        .build()
}

/// The registered `app.maharajah.chess.SharePlugin`.
struct ShareSheet<R: Runtime>(PluginHandle<R>);

/// The share-sheet plugin: registers `SharePlugin` and keeps its handle for [`share`].
pub fn share_sheet<R: Runtime>() -> TauriPlugin<R> {
    Builder::new("share-sheet")
        .setup(|app, api| {
            let handle = api.register_android_plugin("app.maharajah.chess", "SharePlugin")?;
            app.manage(ShareSheet(handle));
            Ok(())
        })
        .build()
}

/// Opens the system's share sheet with `text` (`title` as its subject and the chooser's title).
///
/// # Errors
/// `unsupported` when the plugin is not registered; `share_failed` when Android refused.
pub fn share<R: Runtime>(app: &AppHandle<R>, title: &str, text: &str) -> Result<(), AppError> {
    let sheet = app
        .try_state::<ShareSheet<R>>()
        .ok_or_else(|| AppError::new("unsupported", "the share sheet is not registered"))?;
    let payload = serde_json::json!({ "title": title, "text": text });
    sheet
        .0
        .run_mobile_plugin::<serde_json::Value>("share", payload)
        .map(|_| ())
        .map_err(|e| AppError::new("share_failed", format!("the share sheet did not open: {e}")))
}
