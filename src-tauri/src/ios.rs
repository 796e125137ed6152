//! iOS's LAN discovery: the Swift plugin `MaharajahBonjourPlugin` (mobile/ios/Sources/), bridged
//! into `maharajah_net::bonjour` and installed as the native discovery, so `Browser` and
//! `Advertiser` (and with them the host list, `LanHost` and Chaturaji tables) use Apple's
//! Bonjour instead of mdns-sd (mobile/README.md). Compiled only for iOS: not built on the
//! machine this was written on.

use std::sync::Arc;

use maharajah_net::bonjour::{Bridge, EventSink, PluginBonjour};
use maharajah_net::discovery::set_native;
use tauri::ipc::{Channel, InvokeResponseBody};
use tauri::plugin::{Builder, PluginHandle, TauriPlugin};
use tauri::Runtime;

tauri::ios_plugin_binding!(init_plugin_maharajah_bonjour);

/// The plugin's commands over Tauri's handle.
struct TauriBridge<R: Runtime>(PluginHandle<R>);

impl<R: Runtime> Bridge for TauriBridge<R> {
    /// One `tauri::ipc::Channel` for the app's whole life: on mobile, `Channel::new` registers
    /// the channel in Tauri's process-wide table (`tauri::plugin::mobile`, where the Swift
    /// side's `Channel.send` finds it by id), and Tauri 2 never removes an entry, so a channel per
    /// browse or advert would leak one each. `PluginBonjour` routes the events by their `id`.
    fn listen(&self, events: EventSink) -> Result<(), String> {
        let channel: Channel = Channel::new(move |body| {
            match body {
                InvokeResponseBody::Json(text) => events(&text),
                InvokeResponseBody::Raw(bytes) => events(&String::from_utf8_lossy(&bytes)),
            }
            Ok(())
        });
        let channel = serde_json::to_value(&channel).map_err(|e| e.to_string())?;
        self.call("listen", serde_json::json!({ "onEvent": channel }))
    }

    fn call(&self, command: &str, args: serde_json::Value) -> Result<(), String> {
        self.0
            .run_mobile_plugin::<serde_json::Value>(command, args)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
}

/// The plugin: registers the Swift class and installs it as the native discovery.
pub fn init<R: Runtime>() -> TauriPlugin<R> {
    Builder::new("maharajah-bonjour")
        .setup(|_app, api| {
            let handle = api.register_ios_plugin(init_plugin_maharajah_bonjour)?;
            set_native(Arc::new(PluginBonjour::new(Arc::new(TauriBridge(handle)))));
            Ok(())
        })
        .build()
}
