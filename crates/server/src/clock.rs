//! A Fischer chess clock with injected time: pure, no timers, no wall clock.
//!
//! Time is a [`Millis`] on any monotonic timeline the owner chooses (the server uses
//! milliseconds since it started). The clock never reads the time itself: every call that
//! depends on it takes `now`. At most one side runs at a time; a frozen clock runs for nobody.

use maharajah_protocol::{ByColor, ClockView, Color, TimeControl};

/// A point in time, milliseconds on the owner's monotonic timeline.
pub type Millis = u64;

/// A Fischer clock: each side's remaining time, the increment, and who is running since when.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Remaining time per side; for the running side, as of `since`.
    remaining: ByColor<u64>,
    increment: u64,
    running: Option<(Color, Millis)>,
}

/// A side ran out of time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?}'s flag fell")]
pub struct Flagged(pub Color);

impl Clock {
    /// A stopped clock with the base time on both sides.
    pub fn new(tc: TimeControl) -> Clock {
        Clock {
            remaining: ByColor { white: tc.base_ms, black: tc.base_ms },
            increment: tc.increment_ms,
            running: None,
        }
    }

    /// A stopped clock with the given remaining times (e.g. recovered from storage).
    pub fn from_remaining(remaining: ByColor<u64>, increment_ms: u64) -> Clock {
        Clock { remaining, increment: increment_ms, running: None }
    }

    /// The side whose clock runs.
    pub fn running(&self) -> Option<Color> {
        self.running.map(|(c, _)| c)
    }

    /// Remaining time of `side` at `now` (zero once flagged).
    pub fn remaining(&self, side: Color, now: Millis) -> u64 {
        let base = *self.remaining.get(side);
        match self.running {
            Some((c, since)) if c == side => base.saturating_sub(now.saturating_sub(since)),
            _ => base,
        }
    }

    /// Both remaining times at `now`.
    pub fn remaining_both(&self, now: Millis) -> ByColor<u64> {
        ByColor::new_with(|c| self.remaining(c, now))
    }

    /// Stops the clock (charging the running side up to `now`); nobody runs afterwards.
    pub fn stop(&mut self, now: Millis) {
        if let Some((c, _)) = self.running {
            let left = self.remaining(c, now);
            *self.remaining.get_mut(c) = left;
        }
        self.running = None;
    }

    /// Starts `side`'s clock at `now` (stopping the other first).
    pub fn start(&mut self, side: Color, now: Millis) {
        self.stop(now);
        self.running = Some((side, now));
    }

    /// The running side completed a move at `now`: its time is charged, the increment added and
    /// the opponent's clock starts.
    ///
    /// # Errors
    ///
    /// [`Flagged`] if the running side had no time left at `now`; the clock is then unchanged.
    /// Pressing a clock that runs for nobody does nothing.
    pub fn press(&mut self, now: Millis) -> Result<(), Flagged> {
        let Some((side, _)) = self.running else { return Ok(()) };
        if self.remaining(side, now) == 0 {
            return Err(Flagged(side));
        }
        self.stop(now);
        let r = self.remaining.get_mut(side);
        *r = r.saturating_add(self.increment);
        self.running = Some((side.other(), now));
        Ok(())
    }

    /// The side whose flag has fallen at `now`, if any.
    pub fn flagged(&self, now: Millis) -> Option<Color> {
        self.running().filter(|&c| self.remaining(c, now) == 0)
    }

    /// When the running side's flag falls, if someone runs.
    pub fn deadline(&self) -> Option<Millis> {
        self.running.map(|(c, since)| since.saturating_add(*self.remaining.get(c)))
    }

    /// The wire view at `now`.
    pub fn view(&self, now: Millis) -> ClockView {
        ClockView {
            white_ms: self.remaining(Color::White, now),
            black_ms: self.remaining(Color::Black, now),
            running: self.running(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tc(base: u64, inc: u64) -> TimeControl {
        TimeControl { base_ms: base, increment_ms: inc }
    }

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
        assert_eq!(
            c.view(4_000),
            ClockView { white_ms: 9_000, black_ms: 11_000, running: Some(Color::White) }
        );
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
        let c = Clock::from_remaining(ByColor { white: 5, black: 7 }, 1);
        assert_eq!(c.view(123), ClockView { white_ms: 5, black_ms: 7, running: None });
    }
}
