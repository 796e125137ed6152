//! The app's one source of time, injected into every service: milliseconds on a monotonic scale
//! (clocks, turn timers, countdowns, deadlines) and the wall clock's seconds (dates). The core
//! never reads the time itself; tests hand it a [`FakeTime`] and move it by hand.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// Where the app reads the time.
pub trait TimeSource: Send + Sync + std::fmt::Debug {
    /// Milliseconds since an arbitrary start, never going back.
    fn now_ms(&self) -> u64;
    /// Seconds since 1970 by the wall clock.
    fn unix(&self) -> i64;
}

/// The time source services share.
pub type Time = Arc<dyn TimeSource>;

/// The machine's time: milliseconds since the app started, and the wall clock.
#[derive(Debug)]
pub struct WallClock {
    epoch: Instant,
}

impl TimeSource for WallClock {
    fn now_ms(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn unix(&self) -> i64 {
        unix_now()
    }
}

/// The machine's time, starting now.
#[must_use]
pub fn system() -> Time {
    Arc::new(WallClock { epoch: Instant::now() })
}

/// A time that moves only when told (tests).
#[derive(Debug, Default)]
pub struct FakeTime {
    ms: AtomicU64,
    start_ms: u64,
    start_unix: i64,
}

impl FakeTime {
    /// A fake time at `ms` on the monotonic scale and `unix` seconds on the wall clock.
    #[must_use]
    pub fn new(ms: u64, unix: i64) -> Arc<FakeTime> {
        Arc::new(FakeTime { ms: AtomicU64::new(ms), start_ms: ms, start_unix: unix })
    }

    /// Moves both scales forward by `ms` milliseconds.
    pub fn advance(&self, ms: u64) {
        self.ms.fetch_add(ms, Ordering::SeqCst);
    }
}

impl TimeSource for FakeTime {
    fn now_ms(&self) -> u64 {
        self.ms.load(Ordering::SeqCst)
    }

    fn unix(&self) -> i64 {
        let seconds = self.now_ms().saturating_sub(self.start_ms) / 1000;
        self.start_unix.saturating_add(i64::try_from(seconds).unwrap_or(i64::MAX))
    }
}

/// Seconds since 1970 by the wall clock (what [`WallClock`] reads).
#[must_use]
pub fn unix_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fake_time_moves_only_when_told() {
        let time = FakeTime::new(5, 100);
        assert_eq!((time.now_ms(), time.unix()), (5, 100));
        time.advance(2_500);
        assert_eq!((time.now_ms(), time.unix()), (2_505, 102));
        let wall = system();
        assert!(wall.unix() > 1_600_000_000, "the wall clock reads today");
    }
}
