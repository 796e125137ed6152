//! Helpers shared by the app's integration tests: the network-namespace scaffolding (from
//! `maharajah-testkit`), a `Lan` whose pushes arrive on a channel, waiting for a push or a
//! condition, and playing a Chaturaji network table to its end.
#![allow(clippy::unwrap_used, dead_code)]

use std::sync::Arc;
use std::time::Duration;

use maharajah_app::chaturaji::online::NetState;
use maharajah_app::chaturaji::TableView;
use maharajah_app::lan::{HostList, Lan, LanConfig, LanPush, LanStatus};
use maharajah_chaturaji::{Phase, Seat};
use tokio::sync::mpsc;

// Not every test file uses both (dead_code does not cover re-exports).
#[allow(unused_imports)]
pub use maharajah_testkit::netns::{in_namespace, runtime};

/// Advertises on loopback, by hand, a host of a future protocol version under the app's service
/// type; call `shutdown` on the daemon when done. Only inside a namespace.
pub fn advertise_future_host() -> mdns_sd::ServiceDaemon {
    maharajah_testkit::mdns::advertise_future_host(maharajah_net::SERVICE_TYPE)
}

/// Longest wait for one step (CI shares two cores with builds).
pub const WAIT: Duration = Duration::from_secs(15);

/// A `Lan` with `config` whose pushes arrive on the returned channel.
pub fn lan_with(config: LanConfig) -> (Lan, mpsc::UnboundedReceiver<LanPush>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let sink = Arc::new(move |p| {
        let _ = tx.send(p);
    });
    (Lan::new(config, sink), rx)
}

/// A `Lan` on loopback, the guest saying the host has left after `gone_after`.
pub fn lan(gone_after: Duration) -> (Lan, mpsc::UnboundedReceiver<LanPush>) {
    lan_with(LanConfig { host_gone_after: gone_after, ..LanConfig::loopback() })
}

/// The first thing from `rx` that `pick` takes (panics after [`WAIT`] or when `rx` ends).
pub async fn next_picked<T, U>(
    rx: &mut mpsc::UnboundedReceiver<T>,
    what: &str,
    mut pick: impl FnMut(T) -> Option<U>,
) -> U {
    let wait = async {
        while let Some(item) = rx.recv().await {
            if let Some(picked) = pick(item) {
                return picked;
            }
        }
        panic!("the channel ended before {what}");
    };
    tokio::time::timeout(WAIT, wait).await.unwrap_or_else(|_| panic!("timed out: {what}"))
}

/// The next pushed host list for which `pred` holds.
pub async fn next_list(
    pushes: &mut mpsc::UnboundedReceiver<LanPush>,
    what: &str,
    pred: impl Fn(&HostList) -> bool,
) -> HostList {
    next_picked(pushes, what, |p| match p {
        LanPush::Hosts(list) if pred(&list) => Some(list),
        _ => None,
    })
    .await
}

/// The next pushed LAN status for which `pred` holds.
pub async fn next_status(
    pushes: &mut mpsc::UnboundedReceiver<LanPush>,
    what: &str,
    pred: impl Fn(&LanStatus) -> bool,
) -> LanStatus {
    next_picked(pushes, what, |p| match p {
        LanPush::Status(s) if pred(&s) => Some(s),
        _ => None,
    })
    .await
}

/// Waits until `f` holds (panics after [`WAIT`]).
pub async fn until(what: &str, mut f: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + WAIT;
    while !f() {
        assert!(tokio::time::Instant::now() < deadline, "timed out: {what}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Plays Red's seat on `red` and Blue's on `blue` (the room's CPUs play Yellow and Green), each
/// rolling on its turn and moving with the first usable die's first move, until the game ends;
/// answers Red's final view.
pub async fn play_to_the_end(red: &NetState, blue: &NetState) -> TableView {
    for _ in 0..1000 {
        let v = red.view().unwrap();
        if v.outcome.is_some() {
            return v;
        }
        let me = match v.to_move {
            Seat::Red => red,
            Seat::Blue => blue,
            _ => {
                tokio::time::sleep(Duration::from_millis(30)).await;
                continue;
            }
        };
        let mine = me.view().unwrap();
        if mine.actions != v.actions || mine.to_move != v.to_move || mine.cpu_to_move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            continue;
        }
        let result = match mine.phase {
            Phase::Roll { .. } => me.roll().await,
            _ => match mine.dice.iter().flatten().find(|d| d.usable) {
                Some(d) => me.play(d.moves[0].from, d.moves[0].to, None).await,
                None => me.end_turn().await,
            },
        };
        result.expect("the seat's own action is accepted");
    }
    panic!("the game never ended");
}

/// An online server on a free loopback port (in memory), stopped when dropped.
pub struct Server {
    /// Its WebSocket address.
    pub url: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Server {
    /// Starts one on the current Tokio runtime.
    pub async fn start() -> Server {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("ws://{}/", listener.local_addr().unwrap());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(maharajah_server::run(
            listener,
            maharajah_server::Config::default(),
            async move {
                let _ = stopped.await;
            },
        ));
        Server { url, stop: Some(stop) }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}
