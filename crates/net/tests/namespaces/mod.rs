//! Scaffolding for tests inside private network namespaces (../../../shared/notes/lan-testing.md),
//! shared by this crate's `tests/lan.rs` and the app's `crates/app/tests/common` (which includes
//! this file with `#[path]`: test helpers cannot be a dependency, and these three are too small
//! for a crate of their own). Each test runs on a fresh thread that unshares its network
//! namespace and only then builds its tokio runtime, so every mDNS daemon lives in the namespace.
#![allow(clippy::unwrap_used, dead_code)]

use std::collections::HashMap;

use maharajah_net::discovery::SERVICE_TYPE;
use maharajah_net::netns;

/// A tokio runtime with two workers (build it inside the namespace: its threads stay there).
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

/// Runs `f` on a new thread inside a new network namespace; None when skipped (not under CI).
pub fn in_namespace<T: Send + 'static>(
    name: &'static str,
    f: impl FnOnce() -> T + Send + 'static,
) -> Option<T> {
    std::thread::spawn(move || netns::enter_private_or_skip(name).then(f)).join().unwrap()
}

/// Advertises on loopback, by hand, a host of a future protocol version (99) named "Future" with
/// one open seat; call `shutdown` on the returned daemon when done. Only inside a namespace.
pub fn advertise_future_host() -> mdns_sd::ServiceDaemon {
    let future = mdns_sd::ServiceDaemon::new().unwrap();
    future.disable_interface(mdns_sd::IfKind::All).unwrap();
    future.enable_interface(mdns_sd::IfKind::LoopbackV4).unwrap();
    let txt: HashMap<String, String> =
        [("pv", "99"), ("name", "Future"), ("code", "ABCD2345"), ("seats", "1")]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
    let mut info = mdns_sd::ServiceInfo::new(
        SERVICE_TYPE,
        "future-host",
        "future-host.local.",
        "127.0.0.1",
        9,
        txt,
    )
    .unwrap();
    info.set_requires_probe(false);
    future.register(info).unwrap();
    future
}
