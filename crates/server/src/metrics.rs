//! Process-wide counters for benchmarks: how long the server takes to handle a move.
//!
//! A move's server time runs from the moment its frame is decoded to the moment its `move_ack`
//! is queued for the mover's connection: the room command channel, engine validation, the
//! commit (when storage is durable) and the broadcast. Not included: reading the frame from the
//! socket and writing the answer to it. Recording is a few relaxed atomic adds; the counters are
//! shared by every server in the process.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Width of one bucket.
const BUCKET_US: u64 = 50;
/// Buckets up to 1 s; slower moves land in the last one.
const BUCKETS: usize = 20_001;

static COUNTS: [AtomicU64; BUCKETS] = [const { AtomicU64::new(0) }; BUCKETS];
static MAX_US: AtomicU64 = AtomicU64::new(0);

/// Counts one handled move that took `d`.
pub(crate) fn record_move(d: Duration) {
    let us = u64::try_from(d.as_micros()).unwrap_or(u64::MAX);
    let i = usize::try_from(us / BUCKET_US).unwrap_or(BUCKETS - 1).min(BUCKETS - 1);
    COUNTS[i].fetch_add(1, Ordering::Relaxed);
    MAX_US.fetch_max(us, Ordering::Relaxed);
}

/// Server-side move times since the last [`reset`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MoveTimes {
    /// Moves handled.
    pub count: u64,
    /// Median, in milliseconds (to the bucket's upper edge, 0.05 ms).
    pub p50_ms: f64,
    /// 99th percentile, in milliseconds (to the bucket's upper edge).
    pub p99_ms: f64,
    /// Slowest, in milliseconds.
    pub max_ms: f64,
}

/// Reads the counters.
pub fn move_times() -> MoveTimes {
    let counts: Vec<u64> = COUNTS.iter().map(|c| c.load(Ordering::Relaxed)).collect();
    let count: u64 = counts.iter().sum();
    let at = |p: f64| {
        if count == 0 {
            return 0.0;
        }
        let rank = ((count as f64 * p).ceil() as u64).max(1);
        let mut seen = 0;
        for (i, n) in counts.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return ((i as u64 + 1) * BUCKET_US) as f64 / 1000.0;
            }
        }
        (BUCKETS as u64 * BUCKET_US) as f64 / 1000.0
    };
    MoveTimes {
        count,
        p50_ms: at(0.50),
        p99_ms: at(0.99),
        max_ms: MAX_US.load(Ordering::Relaxed) as f64 / 1000.0,
    }
}

/// Sets the counters back to zero (a benchmark does this when its window opens).
pub fn reset() {
    for c in &COUNTS {
        c.store(0, Ordering::Relaxed);
    }
    MAX_US.store(0, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_come_from_the_recorded_times() {
        reset();
        for ms in 1..=100u64 {
            record_move(Duration::from_millis(ms));
        }
        let t = move_times();
        assert_eq!(t.count, 100);
        assert!((t.p50_ms - 50.05).abs() < 1e-9, "{t:?}");
        assert!((t.p99_ms - 99.05).abs() < 1e-9, "{t:?}");
        assert!((t.max_ms - 100.0).abs() < 1e-9, "{t:?}");
        record_move(Duration::from_secs(5));
        assert!((move_times().max_ms - 5000.0).abs() < 1e-9);
        reset();
        assert_eq!(move_times(), MoveTimes::default());
    }
}
