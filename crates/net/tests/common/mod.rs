//! Shared helpers: a server on a given address, event waiting, armies, fast client options.
#![allow(clippy::unwrap_used, dead_code)]

use std::net::SocketAddr;
use std::time::Duration;

use maharajah_net::client::{ConnectOptions, NetEvent};
use maharajah_net::setup::{HiddenSetup, VerifiedStart};
use maharajah_protocol::{Color, RoomEvent, RoomOptions, TimeControl, Variant};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

pub const WHITE_ARMY: &str = "Ra1,Nb1,Bc1,Qd1,Ke1,Bf1,Ng1,Rh1,Pa2,Pb2,Pc2,Pd2,Pe2,Pf2,Pg2,Ph2";
pub const BLACK_ARMY: &str = "Ra8,Nb8,Bc8,Qd8,Ke8,Bf8,Ng8,Rh8,Pa7,Pb7,Pc7,Pd7,Pe7,Pf7,Pg7,Ph7";
/// A 39-point variant army: queen and a-rook traded for a Maharajah and a pawn.
pub const CUSTOM_BLACK: &str = "Pa8,Nb8,Bc8,Md8,Ke8,Bf8,Ng8,Rh8,Pa7,Pb7,Pc7,Pd7,Pe7,Pf7,Pg7,Ph7";

/// Longest wait for one step (generous: CI shares two cores with other builds).
pub const WAIT: Duration = Duration::from_secs(15);

pub struct TestServer {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<Result<(), maharajah_server::ServerError>>>,
}

impl TestServer {
    pub async fn start(bind: &str) -> TestServer {
        let listener = TcpListener::bind(bind).await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(maharajah_server::run(
            listener,
            maharajah_server::Config::default(),
            async move {
                let _ = stopped.await;
            },
        ));
        TestServer { addr, stop: Some(stop), task: Some(task) }
    }

    pub fn url(&self) -> String {
        format!("ws://{}/", self.addr)
    }

    pub async fn stop(mut self) {
        let _ = self.stop.take().unwrap().send(());
        tokio::time::timeout(WAIT, self.task.take().unwrap()).await.unwrap().unwrap().unwrap();
    }
}

/// Client options for tests: quick pings and silence detection, short backoff.
pub fn fast() -> ConnectOptions {
    ConnectOptions {
        client_name: "maharajah-net tests".into(),
        connect_timeout: Duration::from_secs(2),
        backoff_initial: Duration::from_millis(50),
        backoff_max: Duration::from_millis(400),
        ping_interval: Duration::from_millis(300),
        silence_timeout: Duration::from_millis(1500),
        extra_ca: None,
        identity: None,
    }
}

pub fn room(variant: Variant, hidden: bool, color: Color) -> RoomOptions {
    RoomOptions { variant, time_control: None, hidden_setup: hidden, color: Some(color) }
}

pub fn timed(variant: Variant, color: Color, base_ms: u64) -> RoomOptions {
    RoomOptions {
        variant,
        time_control: Some(TimeControl { base_ms, increment_ms: 0 }),
        hidden_setup: false,
        color: Some(color),
    }
}

/// Waits for an event satisfying `f`, returning it; panics after `WAIT` naming `what`.
pub async fn until(
    events: &mut mpsc::UnboundedReceiver<NetEvent>,
    what: &str,
    f: impl Fn(&NetEvent) -> bool,
) -> NetEvent {
    let wait = async {
        loop {
            let e =
                events.recv().await.unwrap_or_else(|| panic!("events closed waiting for {what}"));
            if f(&e) {
                return e;
            }
        }
    };
    tokio::time::timeout(WAIT, wait)
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
}

/// Waits for a room event satisfying `f`.
pub async fn until_room(
    events: &mut mpsc::UnboundedReceiver<NetEvent>,
    what: &str,
    f: impl Fn(&RoomEvent) -> bool,
) -> RoomEvent {
    match until(events, what, |e| matches!(e, NetEvent::Room { event, .. } if f(event))).await {
        NetEvent::Room { event, .. } => event,
        _ => unreachable!(),
    }
}

/// Drains what is already queued.
pub fn drain(events: &mut mpsc::UnboundedReceiver<NetEvent>) -> Vec<NetEvent> {
    let mut out = Vec::new();
    while let Ok(e) = events.try_recv() {
        out.push(e);
    }
    out
}

/// Waits until the connection's room is in `phase` (from a snapshot or an event).
pub async fn until_phase(
    conn: &maharajah_net::Connection,
    events: &mut mpsc::UnboundedReceiver<NetEvent>,
    phase: maharajah_protocol::Phase,
) {
    let wait = async {
        while conn.room().phase() != Some(phase) {
            events.recv().await.unwrap();
        }
    };
    tokio::time::timeout(WAIT, wait)
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {phase:?}"))
}

/// Feeds room events to the setup until `done`; returns the verified start if one came.
pub async fn feed(
    events: &mut mpsc::UnboundedReceiver<NetEvent>,
    setup: &mut HiddenSetup,
    done: impl Fn(&HiddenSetup, &Option<VerifiedStart>) -> bool,
) -> Option<VerifiedStart> {
    let mut verified = None;
    let wait = async {
        while !done(setup, &verified) {
            match events.recv().await.unwrap() {
                NetEvent::Room { event, .. } => {
                    if let Some(v) = setup.observe(&event).unwrap() {
                        verified = Some(v);
                    }
                }
                NetEvent::Snapshot(s) => {
                    if let Some(v) = setup.observe_snapshot(&s).unwrap() {
                        verified = Some(v);
                    }
                }
                _ => {}
            }
        }
    };
    tokio::time::timeout(WAIT, wait).await.expect("setup step");
    verified
}
