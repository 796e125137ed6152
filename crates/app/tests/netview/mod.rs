//! Waiting for the app's network session to push a view: shared by the network test files.
#![allow(dead_code)]

use std::time::Duration;

use maharajah_app::chess::online::{NetUpdate, NetView};
use tokio::sync::mpsc;

const WAIT: Duration = Duration::from_secs(20);

/// Waits for a pushed view satisfying `f`.
pub async fn view_until(
    rx: &mut mpsc::UnboundedReceiver<NetUpdate>,
    what: &str,
    f: impl Fn(&NetView) -> bool,
) -> NetView {
    let found = tokio::time::timeout(WAIT, async {
        loop {
            match rx.recv().await {
                Some(NetUpdate::View(v)) if f(&v) => return *v,
                Some(_) => {}
                None => panic!("the session stopped pushing while waiting for {what}"),
            }
        }
    })
    .await;
    found.unwrap_or_else(|_| panic!("timed out waiting for {what}"))
}
