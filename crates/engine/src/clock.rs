//! The Fischer chess clock and its time control, with injected time (scalachess keeps its one
//! `Clock` in the rules library the same way; the server and the app share this one).
//!
//! Time is a [`Millis`] on any monotonic timeline the owner chooses (the server counts from its
//! start, the app from its launch). The clock never reads the time itself: every call that
//! depends on it takes `now`, so tests advance a fake time by hand. At most one side runs at a
//! time; a stopped clock runs for nobody and flags nobody.
//!
//! ```
//! use maharajah_engine::clock::{Clock, TimeControl};
//! use maharajah_engine::Color;
//!
//! let mut clock = Clock::new(TimeControl::new(3, 2)); // 3 minutes + 2 seconds a move
//! clock.start(Color::White, 0);
//! clock.press(10_000)?; // White moved after 10 s: charged, +2 s, Black's clock runs
//! assert_eq!(clock.remaining(Color::White, 10_000), 172_000);
//! assert_eq!(clock.running(), Some(Color::Black));
//! assert_eq!(clock.deadline(), Some(190_000)); // when Black's flag falls
//! # Ok::<(), maharajah_engine::clock::Flagged>(())
//! ```

use serde::{Deserialize, Serialize};

use crate::types::{ByColor, Color};

/// A point in time (or a duration), milliseconds on the owner's monotonic timeline.
pub type Millis = u64;

/// A Fischer time control: base time plus an increment added after each move.
///
/// Its serde form is the wire's: `{"base_ms":300000,"increment_ms":2000}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TimeControl {
    /// Starting time of each side, in milliseconds.
    pub base_ms: u64,
    /// Time added to the mover's clock after each of their moves, in milliseconds.
    pub increment_ms: u64,
}

impl TimeControl {
    /// `minutes` of base time plus `increment_seconds` per move.
    #[must_use]
    pub const fn new(minutes: u64, increment_seconds: u64) -> TimeControl {
        TimeControl { base_ms: minutes * 60_000, increment_ms: increment_seconds * 1000 }
    }
}

/// A side ran out of time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flagged(pub Color);

impl std::fmt::Display for Flagged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}'s flag fell", self.0)
    }
}

impl std::error::Error for Flagged {}

/// A two-sided Fischer clock: each side's remaining time, the time control, and who is running
/// since when.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clock {
    control: TimeControl,
    /// Remaining time per side; for the running side, as of the start of its stretch.
    remaining: ByColor<Millis>,
    /// The running side and the instant its current stretch started.
    running: Option<(Color, Millis)>,
}

impl Clock {
    /// A stopped clock with the base time on both sides.
    #[must_use]
    pub const fn new(control: TimeControl) -> Clock {
        let base = control.base_ms;
        Clock { control, remaining: ByColor { white: base, black: base }, running: None }
    }

    /// A stopped clock with the given remaining times (a stored game being restored).
    #[must_use]
    pub const fn with_remaining(control: TimeControl, remaining: ByColor<Millis>) -> Clock {
        Clock { control, remaining, running: None }
    }

    /// The time control.
    #[must_use]
    pub const fn control(&self) -> TimeControl {
        self.control
    }

    /// The side whose time is running, if any.
    #[must_use]
    pub fn running(&self) -> Option<Color> {
        self.running.map(|(side, _)| side)
    }

    /// Time left for `side` at `now`, never below zero.
    #[must_use]
    pub fn remaining(&self, side: Color, now: Millis) -> Millis {
        let stored = self.remaining[side];
        match self.running {
            Some((running, since)) if running == side => {
                stored.saturating_sub(now.saturating_sub(since))
            }
            _ => stored,
        }
    }

    /// Both sides' time left at `now`.
    #[must_use]
    pub fn remaining_both(&self, now: Millis) -> ByColor<Millis> {
        ByColor::new_with(|side| self.remaining(side, now))
    }

    /// Stops the clock at `now`, charging the running side for its stretch; nobody runs
    /// afterwards and nobody gets an increment.
    pub fn stop(&mut self, now: Millis) {
        if let Some((side, _)) = self.running {
            self.remaining[side] = self.remaining(side, now);
        }
        self.running = None;
    }

    /// Starts `side`'s time at `now` (stopping the other side first, without increment).
    pub fn start(&mut self, side: Color, now: Millis) {
        self.stop(now);
        self.running = Some((side, now));
    }

    /// The running side completed a move at `now`: it is charged, gets the increment, and the
    /// opponent's time starts. Pressing a clock that runs for nobody does nothing (a game whose
    /// clock starts after the first move starts it with [`Clock::start`]).
    ///
    /// # Errors
    ///
    /// [`Flagged`] if the running side had no time left at `now`; the clock is then unchanged,
    /// so a late move can never be accepted.
    pub fn press(&mut self, now: Millis) -> Result<(), Flagged> {
        let Some((side, _)) = self.running else { return Ok(()) };
        let left = self.remaining(side, now);
        if left == 0 {
            return Err(Flagged(side));
        }
        self.remaining[side] = left.saturating_add(self.control.increment_ms);
        self.running = Some((side.other(), now));
        Ok(())
    }

    /// The side whose flag has fallen at `now` (its running time reached zero), if any.
    #[must_use]
    pub fn flagged(&self, now: Millis) -> Option<Color> {
        self.running().filter(|&side| self.remaining(side, now) == 0)
    }

    /// When the running side's flag falls, if someone runs: the owner wakes up then, without
    /// waiting for a client.
    #[must_use]
    pub fn deadline(&self) -> Option<Millis> {
        self.running.map(|(side, since)| since.saturating_add(self.remaining[side]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tc(base: u64, inc: u64) -> TimeControl {
        TimeControl { base_ms: base, increment_ms: inc }
    }

    // From the server's clock.

    #[test]
    fn fischer_increment_after_each_move() {
        let mut c = Clock::new(tc(10_000, 2_000));
        assert_eq!(c.running(), None);
        c.start(Color::White, 0);
        assert_eq!(c.remaining(Color::White, 3_000), 7_000);
        assert_eq!(c.remaining(Color::Black, 3_000), 10_000);
        assert_eq!(c.press(3_000), Ok(()));
        assert_eq!(c.remaining(Color::White, 3_000), 9_000);
        assert_eq!(c.running(), Some(Color::Black));
        assert_eq!(c.press(4_000), Ok(()));
        assert_eq!(c.remaining_both(4_000), ByColor { white: 9_000, black: 11_000 });
        assert_eq!(c.running(), Some(Color::White));
        assert_eq!(c.deadline(), Some(13_000));
    }

    #[test]
    fn flag_falls_at_zero_and_a_late_press_is_refused() {
        let mut c = Clock::new(tc(1_000, 5_000));
        c.start(Color::White, 100);
        assert_eq!(c.flagged(1_099), None);
        assert_eq!(c.deadline(), Some(1_100));
        assert_eq!(c.flagged(1_100), Some(Color::White));
        let before = c.clone();
        assert_eq!(c.press(1_100), Err(Flagged(Color::White)));
        assert_eq!(c, before, "a refused press changes nothing");
        assert_eq!(c.remaining(Color::White, 99_999), 0);
        assert_eq!(Flagged(Color::White).to_string(), "White's flag fell");
    }

    #[test]
    fn stop_freezes_both_and_start_resumes() {
        let mut c = Clock::new(tc(10_000, 0));
        c.start(Color::White, 0);
        c.stop(4_000);
        assert_eq!(c.running(), None);
        assert_eq!(c.deadline(), None);
        assert_eq!(c.remaining_both(60_000), ByColor { white: 6_000, black: 10_000 });
        assert_eq!(c.flagged(1_000_000), None);
        assert_eq!(c.press(70_000), Ok(()), "pressing a frozen clock is a no-op");
        assert_eq!(c.remaining_both(70_000), ByColor { white: 6_000, black: 10_000 });
        c.start(Color::White, 60_000);
        assert_eq!(c.remaining(Color::White, 61_000), 5_000);
    }

    #[test]
    fn recovered_clock_is_frozen_with_given_times() {
        let c = Clock::with_remaining(tc(10, 1), ByColor { white: 5, black: 7 });
        assert_eq!(c.remaining_both(123), ByColor { white: 5, black: 7 });
        assert_eq!(c.running(), None);
        assert_eq!(c.control(), tc(10, 1));
    }

    // From the app's clock.

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
        assert_eq!(clock.press(11_000), Ok(()));
        assert_eq!(clock.remaining(Color::White, 50_000), 172_000, "increment added");
        assert_eq!(clock.running(), Some(Color::Black));
        assert_eq!(clock.remaining(Color::Black, 16_000), 175_000);
    }

    #[test]
    fn the_flag_falls_exactly_at_zero_and_time_never_goes_negative() {
        let remaining = ByColor { white: 500, black: 60_000 };
        let mut clock = Clock::with_remaining(TimeControl::new(1, 0), remaining);
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

    #[test]
    fn time_control_wire_form() {
        let json = serde_json::to_string(&TimeControl::new(5, 2)).expect("serialises");
        assert_eq!(json, r#"{"base_ms":300000,"increment_ms":2000}"#);
        let back: TimeControl = serde_json::from_str(&json).expect("parses");
        assert_eq!(back, TimeControl::new(5, 2));
    }
}
