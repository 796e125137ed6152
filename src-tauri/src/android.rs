//! Android's Wi-Fi multicast lock: a mobile plugin whose commands `acquire` and `release` (payload
//! `{ "use": "BROWSING" | "ADVERTISING" }`) call `LanMulticastLock` (mobile/README.md). The
//! counting of uses is [`maharajah_app::multicast`]'s.

use maharajah_app::multicast::{set_platform, Change};
use tauri::plugin::{Builder, TauriPlugin};
use tauri::Runtime;

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
