//! Operations: `/healthz`, `/readyz` and `/metrics` (Prometheus text format) over plain HTTP on
//! their own address (`--admin`), kept off the players' port so a proxy never exposes them.
//!
//! - `/healthz`: 200 while the process serves (it answers at all).
//! - `/readyz`: 200 once the stored rooms are back and new connections are accepted, 503 before
//!   that and while shutting down (draining); in a cluster also 503 while the node cannot renew
//!   its leases (PostgreSQL unreachable for a lease).
//! - `/metrics`: open connections, rooms by state, moves handled, commit latency (a histogram),
//!   refusals by error code; in a cluster, `maharajah_cluster_*`: rooms owned, lease renewals
//!   and failures, rooms lost and claimed, fenced writes, forwarded connections. Never a token
//!   or an address.
//!
//! The HTTP is the smallest that serves those three `GET`s to probes and scrapers: one request
//! per connection (`Connection: close`), a request head of at most 8 KiB read within 5 s.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tracing::{debug, warn};

use super::{lock, Shared};

/// Room states as `/metrics` labels them.
pub(super) const STATES: [&str; 4] = ["waiting", "setup", "playing", "finished"];

/// Upper bounds of the commit-latency buckets, in seconds.
const COMMIT_BUCKETS: [f64; 11] =
    [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0];

/// One server's counters (per server, not per process: tests run several servers at once).
#[derive(Default)]
pub(super) struct Stats {
    /// Set once the stored rooms are back and connections are accepted.
    pub(super) ready: AtomicBool,
    /// Open WebSocket connections.
    pub(super) connections: AtomicU64,
    /// Live rooms in each of [`STATES`].
    rooms: [AtomicU64; 4],
    /// Moves handled.
    moves: AtomicU64,
    /// Commits in each bucket of [`COMMIT_BUCKETS`] (and one past the last).
    commits: [AtomicU64; 12],
    /// Sum of the commit times, in microseconds.
    commit_us: AtomicU64,
    /// Refusals sent, by error code.
    refusals: Mutex<BTreeMap<&'static str, u64>>,
}

impl Stats {
    /// A room entered `state` (an index into [`STATES`]) from `from`, if it had one.
    pub(super) fn room_state(&self, from: Option<usize>, to: Option<usize>) {
        if from == to {
            return;
        }
        if let Some(i) = from {
            let _ = self.rooms[i]
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| Some(n.saturating_sub(1)));
        }
        if let Some(i) = to {
            self.rooms[i].fetch_add(1, Ordering::Relaxed);
        }
    }

    pub(super) fn moved(&self) {
        self.moves.fetch_add(1, Ordering::Relaxed);
    }

    pub(super) fn committed(&self, took: Duration) {
        let secs = took.as_secs_f64();
        let i = COMMIT_BUCKETS.iter().position(|b| secs <= *b).unwrap_or(COMMIT_BUCKETS.len());
        self.commits[i].fetch_add(1, Ordering::Relaxed);
        let us = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        self.commit_us.fetch_add(us, Ordering::Relaxed);
    }

    pub(super) fn refused(&self, code: &'static str) {
        *lock(&self.refusals).entry(code).or_insert(0) += 1;
    }

    /// The Prometheus text exposition of these counters and of `rooms_held`.
    fn render(&self, rooms_held: usize) -> String {
        let mut out = String::new();
        let load = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let _ = writeln!(out, "# HELP maharajah_connections Open WebSocket connections.");
        let _ = writeln!(out, "# TYPE maharajah_connections gauge");
        let _ = writeln!(out, "maharajah_connections {}", load(&self.connections));
        let _ = writeln!(out, "# HELP maharajah_rooms Rooms held, by state.");
        let _ = writeln!(out, "# TYPE maharajah_rooms gauge");
        for (state, n) in STATES.iter().zip(&self.rooms) {
            let _ = writeln!(out, "maharajah_rooms{{state=\"{state}\"}} {}", load(n));
        }
        let _ = writeln!(out, "# HELP maharajah_rooms_held Rooms registered, of every kind.");
        let _ = writeln!(out, "# TYPE maharajah_rooms_held gauge");
        let _ = writeln!(out, "maharajah_rooms_held {rooms_held}");
        let _ = writeln!(out, "# HELP maharajah_moves_total Moves handled.");
        let _ = writeln!(out, "# TYPE maharajah_moves_total counter");
        let _ = writeln!(out, "maharajah_moves_total {}", load(&self.moves));
        let _ = writeln!(out, "# HELP maharajah_commit_seconds Time to store a room's change.");
        let _ = writeln!(out, "# TYPE maharajah_commit_seconds histogram");
        let mut cumulative = 0;
        for (bound, n) in COMMIT_BUCKETS.iter().zip(&self.commits) {
            cumulative += load(n);
            let _ = writeln!(out, "maharajah_commit_seconds_bucket{{le=\"{bound}\"}} {cumulative}");
        }
        cumulative += load(&self.commits[COMMIT_BUCKETS.len()]);
        let _ = writeln!(out, "maharajah_commit_seconds_bucket{{le=\"+Inf\"}} {cumulative}");
        let sum = load(&self.commit_us) as f64 / 1e6;
        let _ = writeln!(out, "maharajah_commit_seconds_sum {sum}");
        let _ = writeln!(out, "maharajah_commit_seconds_count {cumulative}");
        let _ = writeln!(out, "# HELP maharajah_refusals_total Refusals sent, by error code.");
        let _ = writeln!(out, "# TYPE maharajah_refusals_total counter");
        for (code, n) in lock(&self.refusals).iter() {
            let _ = writeln!(out, "maharajah_refusals_total{{code=\"{code}\"}} {n}");
        }
        out
    }
}

/// Longest wait for a request head.
const READ_WITHIN: Duration = Duration::from_secs(5);
/// Largest request head read.
const MAX_HEAD: usize = 8 * 1024;

/// Serves the endpoints on `listener` until the server stops.
pub(super) async fn serve(shared: Arc<Shared>, listener: TcpListener) {
    let mut shutdown = shared.shutdown.clone();
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    // Out of descriptors and the like: the players' port matters more.
                    warn!("admin listener: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = shutdown.recv() => return,
        };
        let shared = shared.clone();
        tokio::spawn(async move {
            if let Err(e) = answer(&shared, stream).await {
                debug!("admin request: {e}");
            }
        });
    }
}

async fn answer(shared: &Shared, mut stream: TcpStream) -> std::io::Result<()> {
    let mut head = Vec::with_capacity(512);
    let mut buf = [0u8; 1024];
    let read = async {
        while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < MAX_HEAD {
            let n = stream.read(&mut buf).await?;
            if n == 0 {
                break;
            }
            head.extend_from_slice(&buf[..n]);
        }
        Ok::<_, std::io::Error>(())
    };
    if tokio::time::timeout(READ_WITHIN, read).await.is_err() {
        return Ok(());
    }
    let line = head.split(|b| *b == b'\r').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line);
    let mut words = line.split(' ');
    let (method, path) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    let path = path.split('?').next().unwrap_or("");
    let (status, body) = match (method, path) {
        ("GET", "/healthz") => ("200 OK", "ok\n".to_owned()),
        ("GET", "/readyz") if shared.is_ready() => ("200 OK", "ready\n".to_owned()),
        ("GET", "/readyz") => ("503 Service Unavailable", "not ready\n".to_owned()),
        ("GET", "/metrics") => {
            let mut body = shared.stats.render(shared.room_count());
            if let Some(cluster) = &shared.cluster {
                body.push_str(&cluster.render());
            }
            ("200 OK", body)
        }
        ("GET", _) => ("404 Not Found", "not found\n".to_owned()),
        _ => ("405 Method Not Allowed", "only GET\n".to_owned()),
    };
    let kind = if path == "/metrics" { "text/plain; version=0.0.4" } else { "text/plain" };
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(response.as_bytes()).await?;
    stream.shutdown().await
}
