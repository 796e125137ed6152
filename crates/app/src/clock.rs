//! A Fischer chess clock (base time plus an increment per move) with injected time: every method
//! that needs "now" takes it as milliseconds on a monotonic scale chosen by the caller, so tests
//! advance a fake time by hand and the app passes milliseconds since it started.

use maharajah_engine::Color;
use serde::{Deserialize, Serialize};

/// A time control: base minutes and increment seconds, both stored in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeControl {
    /// Starting time of each side, in milliseconds.
    pub base_ms: u64,
    /// Time added after each of a side's moves, in milliseconds.
    pub increment_ms: u64,
}

impl TimeControl {
    /// `minutes` + `seconds` per move.
    #[must_use]
    pub const fn new(minutes: u64, increment_seconds: u64) -> TimeControl {
        TimeControl { base_ms: minutes * 60_000, increment_ms: increment_seconds * 1000 }
    }
}

/// A two-sided Fischer clock. At most one side runs at a time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clock {
    control: TimeControl,
    white_ms: u64,
    black_ms: u64,
    /// The running side and the instant its current stretch started.
    running: Option<(Color, u64)>,
}

impl Clock {
    /// A stopped clock with both sides at the base time.
    #[must_use]
    pub const fn new(control: TimeControl) -> Clock {
        Clock { control, white_ms: control.base_ms, black_ms: control.base_ms, running: None }
    }

    /// A stopped clock with the given remaining times (a saved game being restored).
    #[must_use]
    pub const fn with_remaining(control: TimeControl, white_ms: u64, black_ms: u64) -> Clock {
        Clock { control, white_ms, black_ms, running: None }
    }

    /// The time control.
    #[must_use]
    pub const fn control(&self) -> TimeControl {
        self.control
    }

    /// The side whose time is running, if any.
    #[must_use]
    pub fn running(&self) -> Option<Color> {
        self.running.map(|(color, _)| color)
    }

    fn stored(&self, color: Color) -> u64 {
        match color {
            Color::White => self.white_ms,
            Color::Black => self.black_ms,
        }
    }

    fn set_stored(&mut self, color: Color, ms: u64) {
        match color {
            Color::White => self.white_ms = ms,
            Color::Black => self.black_ms = ms,
        }
    }

    /// Time left for `color` at `now`, never below zero.
    #[must_use]
    pub fn remaining(&self, color: Color, now: u64) -> u64 {
        let stored = self.stored(color);
        match self.running {
            Some((side, since)) if side == color => {
                stored.saturating_sub(now.saturating_sub(since))
            }
            _ => stored,
        }
    }

    /// Starts `color`'s time at `now` (stopping the other side without increment).
    pub fn start(&mut self, color: Color, now: u64) {
        self.stop(now);
        self.running = Some((color, now));
    }

    /// Stops the clock at `now`, charging the running side for its stretch.
    pub fn stop(&mut self, now: u64) {
        if let Some((side, _)) = self.running {
            let left = self.remaining(side, now);
            self.set_stored(side, left);
            self.running = None;
        }
    }

    /// The running side completed a move at `now`: charge it, add its increment, start the other.
    /// A stopped clock starts `next` without giving anyone an increment.
    pub fn press(&mut self, next: Color, now: u64) {
        if let Some((side, _)) = self.running {
            let left = self.remaining(side, now);
            self.set_stored(side, left.saturating_add(self.control.increment_ms));
        }
        self.running = Some((next, now));
    }

    /// The side whose flag has fallen at `now` (its running time reached zero).
    #[must_use]
    pub fn flagged(&self, now: u64) -> Option<Color> {
        let (side, _) = self.running?;
        (self.remaining(side, now) == 0).then_some(side)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn running_side_loses_time_and_gains_increment_on_press() {
        let mut clock = Clock::new(TimeControl::new(3, 2));
        assert_eq!(clock.remaining(Color::White, 0), 180_000);
        clock.start(Color::White, 1_000);
        assert_eq!(clock.remaining(Color::White, 11_000), 170_000);
        assert_eq!(
            clock.remaining(Color::Black, 11_000),
            180_000,
            "the waiting side keeps its time"
        );
        clock.press(Color::Black, 11_000);
        assert_eq!(clock.remaining(Color::White, 50_000), 172_000, "increment added");
        assert_eq!(clock.running(), Some(Color::Black));
        assert_eq!(clock.remaining(Color::Black, 16_000), 175_000);
    }

    #[test]
    fn the_flag_falls_exactly_at_zero_and_time_never_goes_negative() {
        let mut clock = Clock::with_remaining(TimeControl::new(1, 0), 500, 60_000);
        clock.start(Color::White, 0);
        assert_eq!(clock.flagged(499), None);
        assert_eq!(clock.flagged(500), Some(Color::White));
        assert_eq!(clock.remaining(Color::White, 10_000), 0);
        clock.stop(10_000);
        assert_eq!(clock.running(), None);
        assert_eq!(clock.flagged(20_000), None, "a stopped clock flags nobody");
    }

    #[test]
    fn stop_then_start_carries_the_remaining_time() {
        let mut clock = Clock::new(TimeControl::new(5, 3));
        clock.start(Color::Black, 0);
        clock.stop(4_000);
        assert_eq!(clock.remaining(Color::Black, 100_000), 296_000);
        clock.start(Color::Black, 100_000);
        assert_eq!(clock.remaining(Color::Black, 101_000), 295_000);
    }
}
