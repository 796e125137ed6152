//! mDNS fixtures: hosts advertised by hand, as no released version of the app would. Only inside
//! a private network namespace ([`crate::netns`]): a daemon in the machine's own namespace sends
//! multicast out of the real interface.

use std::collections::HashMap;

use mdns_sd::{IfKind, ServiceDaemon, ServiceInfo};

/// Advertises on loopback, by hand, under `service_type` (the app's is
/// `maharajah_net::SERVICE_TYPE`), a host of a future protocol version (99) named "Future" with
/// one open seat; call `shutdown` on the returned daemon when done.
///
/// # Panics
///
/// When the daemon cannot start or the service cannot be registered.
pub fn advertise_future_host(service_type: &str) -> ServiceDaemon {
    let future = ServiceDaemon::new().expect("an mDNS daemon");
    future.disable_interface(IfKind::All).expect("interfaces off");
    future.enable_interface(IfKind::LoopbackV4).expect("loopback on");
    let txt: HashMap<String, String> =
        [("pv", "99"), ("name", "Future"), ("code", "ABCD2345"), ("seats", "1")]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
    let mut info =
        ServiceInfo::new(service_type, "future-host", "future-host.local.", "127.0.0.1", 9, txt)
            .expect("a valid service");
    info.set_requires_probe(false);
    future.register(info).expect("registered");
    future
}
