//! What the UI asks of the device rather than of a game: the join link the system opened the app
//! with, which of the phone's facilities (haptics, a native share sheet) this build has, and the
//! Android share sheet. Pushed event: `join-link` (a link arrived while the app runs; the UI then
//! takes it with [`take_join_link`]).

use maharajah_app::link::OpenedLink;
use maharajah_app::{App, AppError};
use serde::Serialize;
use tauri::{AppHandle, Runtime, State};

/// What this build of the app can do on its device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct DeviceInfo {
    /// Built for Android or iOS.
    pub mobile: bool,
    /// The haptics plugin is registered (mobile builds only): the UI may ask for feedback.
    pub haptics: bool,
    /// [`share_text`] opens the system's share sheet (Android, whose WebView has no
    /// `navigator.share`); elsewhere the UI uses the Web Share API or the clipboard.
    pub share_sheet: bool,
}

/// Which facilities this build has.
///
/// # Errors
/// Never fails; the `Result` keeps every command's shape the same.
#[tauri::command]
pub fn device_info() -> Result<DeviceInfo, AppError> {
    Ok(DeviceInfo {
        mobile: cfg!(mobile),
        haptics: cfg!(mobile),
        share_sheet: cfg!(target_os = "android"),
    })
}

/// Opens the system's share sheet with `text` (a PGN, a room code and its link); `title` is its
/// subject. Asynchronous, so the Android main thread the sheet opens on is never the one waiting.
///
/// # Errors
/// `unsupported` on a build without a native sheet ([`DeviceInfo::share_sheet`] is false);
/// `share_failed` when the system refused.
#[tauri::command]
pub async fn share_text<R: Runtime>(
    app: AppHandle<R>,
    title: String,
    text: String,
) -> Result<(), AppError> {
    #[cfg(target_os = "android")]
    return crate::android::share(&app, &title, &text);
    #[cfg(not(target_os = "android"))]
    {
        let _ = (app, title, text);
        Err(AppError::new("unsupported", "this build has no native share sheet"))
    }
}

/// The join link the system opened the app with, once (null when none is waiting): the UI
/// follows it to the LAN or the Online screen's join.
///
/// # Errors
/// Never fails.
#[tauri::command]
pub fn take_join_link(app: State<'_, App>) -> Result<Option<OpenedLink>, AppError> {
    Ok(app.take_link())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_desktop_build_has_no_haptics() {
        let info = device_info().expect("never fails");
        assert_eq!(info, DeviceInfo { mobile: false, haptics: false, share_sheet: false });
    }
}
