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

/// The plugin's commands over Tauri's handle; events arrive on a channel per browse or advert.
struct TauriBridge<R: Runtime>(PluginHandle<R>);

impl<R: Runtime> Bridge for TauriBridge<R> {
    fn call(
        &self,
        command: &str,
        mut args: serde_json::Value,
        on_event: Option<EventSink>,
    ) -> Result<(), String> {
        if let Some(sink) = on_event {
            let channel: Channel = Channel::new(move |body| {
                match body {
                    InvokeResponseBody::Json(text) => sink(&text),
                    InvokeResponseBody::Raw(bytes) => sink(&String::from_utf8_lossy(&bytes)),
                }
                Ok(())
            });
            args["onEvent"] = serde_json::to_value(&channel).map_err(|e| e.to_string())?;
        }
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
