//! One deadline-driven scheduler for the app's timed work: the local clock's pushes and flag
//! falls, the Chaturaji CPU seats' steps and turn time-outs. Its thread sleeps until the earliest
//! deadline the work reports, or until a command wakes it ([`Scheduler::wake`]), like the
//! server's room actors; nothing polls while nothing is due.

use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use crate::time::Time;

/// The scheduler's wake-up flag and the condition its thread waits on.
#[derive(Debug, Default)]
pub struct Scheduler {
    woken: Mutex<bool>,
    cond: Condvar,
}

impl Scheduler {
    /// A scheduler nobody has woken yet.
    #[must_use]
    pub fn new() -> Scheduler {
        Scheduler::default()
    }

    /// Something changed (a move, a new game or table): the thread looks at its work again now.
    pub fn wake(&self) {
        *self.flag() = true;
        self.cond.notify_all();
    }

    fn flag(&self) -> MutexGuard<'_, bool> {
        self.woken.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits until `deadline` on `time`'s scale (forever for `None`) or a wake-up, whichever is
    /// first.
    pub fn wait(&self, time: &Time, deadline: Option<u64>) {
        let mut woken = self.flag();
        while !*woken {
            match deadline {
                None => woken = self.cond.wait(woken).unwrap_or_else(PoisonError::into_inner),
                Some(at) => {
                    let left = at.saturating_sub(time.now_ms());
                    if left == 0 {
                        break;
                    }
                    let (guard, _) = self
                        .cond
                        .wait_timeout(woken, Duration::from_millis(left))
                        .unwrap_or_else(PoisonError::into_inner);
                    woken = guard;
                }
            }
        }
        *woken = false;
    }

    /// The scheduler's loop (run it on a thread of its own; it never returns): `step` does what is
    /// due at the time it is given and answers its next deadline (`None`: nothing until woken).
    pub fn run(&self, time: &Time, mut step: impl FnMut(u64) -> Option<u64>) {
        loop {
            let next = step(time.now_ms());
            self.wait(time, next);
        }
    }
}

/// A lock on a service's core that wakes the scheduler when let go: whatever a command changed,
/// the scheduler sees it at once (the scheduler's own steps lock without waking).
#[derive(Debug)]
pub struct Woken<'a, T> {
    guard: MutexGuard<'a, T>,
    scheduler: &'a Scheduler,
}

impl<'a, T> Woken<'a, T> {
    /// Wraps `guard`; `scheduler` is woken when it is dropped.
    pub fn new(guard: MutexGuard<'a, T>, scheduler: &'a Scheduler) -> Woken<'a, T> {
        Woken { guard, scheduler }
    }
}

impl<T> std::ops::Deref for Woken<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T> std::ops::DerefMut for Woken<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.guard
    }
}

impl<T> Drop for Woken<'_, T> {
    fn drop(&mut self) {
        self.scheduler.wake();
    }
}

/// The earlier of two deadlines (`None` is never).
#[must_use]
pub fn earliest(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_wake_up_ends_the_wait_and_a_past_deadline_does_not_wait() {
        let time: Time = crate::time::FakeTime::new(1_000, 0);
        let scheduler = Arc::new(Scheduler::new());
        scheduler.wait(&time, Some(999));
        scheduler.wake();
        scheduler.wait(&time, None);
        let waiter = Arc::clone(&scheduler);
        let clock = Arc::clone(&time);
        let thread = std::thread::spawn(move || waiter.wait(&clock, None));
        std::thread::sleep(Duration::from_millis(20));
        scheduler.wake();
        thread.join().expect("the waiter wakes");
        assert_eq!(earliest(Some(5), None), Some(5));
        assert_eq!(earliest(Some(5), Some(3)), Some(3));
        assert_eq!(earliest(None, None), None);
    }
}
