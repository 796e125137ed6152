//! Desktop entry point; everything lives in the library so the mobile builds share it.

// No console window beside the app on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    maharajah_lib::run();
}
