//! A computation on its own thread that can be asked to stop, in two shapes: a [`Task`] hands
//! its result to a callback on its own thread and is never waited for (what an app wants: a
//! command thread must not block on the engine), and a [`Worker`] gives its result back to the
//! caller who waits for it (a program, a test). A live analysis ([`crate::analyse`]) and a
//! review ([`crate::review`]) come in both.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::Arc;

/// Why a background analysis or review could not start.
#[derive(Debug)]
pub struct SpawnError(pub std::io::Error);

impl std::fmt::Display for SpawnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot start the analysis thread: {}", self.0)
    }
}

impl std::error::Error for SpawnError {}

/// A thread working on something, with a stop flag it checks; when the work ends (complete or
/// stopped) its thread hands the result to the `then` callback given at the start. Stopping or
/// dropping a task only raises the flag: it never waits for the thread, which ends within a
/// few thousand nodes and then runs `then`.
#[derive(Debug)]
pub struct Task {
    stop: Arc<AtomicBool>,
    finished: Arc<AtomicBool>,
}

impl Task {
    /// Runs `work` on a new thread named `name`, with a large stack (the search recurses with
    /// a position per ply), then `then` with what it computed, on the same thread; `work` gets
    /// the stop flag to check.
    pub(crate) fn spawn<T>(
        name: &str,
        work: impl FnOnce(&AtomicBool) -> T + Send + 'static,
        then: impl FnOnce(T) + Send + 'static,
    ) -> Result<Task, SpawnError> {
        let stop = Arc::new(AtomicBool::new(false));
        let finished = Arc::new(AtomicBool::new(false));
        let (flag, done) = (Arc::clone(&stop), Arc::clone(&finished));
        std::thread::Builder::new()
            .name(name.into())
            .stack_size(16 << 20)
            .spawn(move || {
                let result = work(&flag);
                done.store(true, Ordering::Release);
                then(result);
            })
            .map_err(SpawnError)?;
        Ok(Task { stop, finished })
    }

    /// Asks the work to stop now; returns at once (the `then` callback still runs, with what
    /// was done).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// `true` once the work has ended (complete or stopped); its `then` may still be running.
    #[must_use]
    pub fn is_finished(&self) -> bool {
        self.finished.load(Ordering::Acquire)
    }
}

impl Drop for Task {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A [`Task`] whose result comes back to the caller: [`Worker::join`] waits for it. Dropping
/// it stops the work and waits for the thread.
#[derive(Debug)]
pub struct Worker<T> {
    task: Task,
    result: Option<Receiver<T>>,
}

impl<T: Send + 'static> Worker<T> {
    /// Runs `work` on a new thread named `name` (see [`Task::spawn`]).
    pub(crate) fn spawn(
        name: &str,
        work: impl FnOnce(&AtomicBool) -> T + Send + 'static,
    ) -> Result<Worker<T>, SpawnError> {
        let (tx, rx) = mpsc::sync_channel(1);
        // A receiver gone (the worker dropped) has nothing left to hear.
        let task = Task::spawn(name, work, move |result| drop(tx.send(result)))?;
        Ok(Worker { task, result: Some(rx) })
    }
}

impl<T> Worker<T> {
    /// Asks the work to stop now; returns at once.
    pub fn stop(&self) {
        self.task.stop();
    }

    /// `true` once the thread has ended (complete or stopped).
    #[must_use]
    pub fn is_finished(&self) -> bool {
        self.task.is_finished()
    }

    /// Waits for the thread without stopping it and returns what it computed (complete or, if
    /// stopped, partial). `None` if the thread panicked.
    #[must_use]
    pub fn join(mut self) -> Option<T> {
        self.result.take().and_then(|rx| rx.recv().ok())
    }

    /// Stops the work, waits for the thread and returns what it computed. `None` if the thread
    /// panicked.
    #[must_use]
    pub fn finish(self) -> Option<T> {
        self.stop();
        self.join()
    }
}

impl<T> Drop for Worker<T> {
    fn drop(&mut self) {
        self.task.stop();
        if let Some(rx) = self.result.take() {
            // A panic in the thread has nothing left to report here.
            drop(rx.recv());
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    /// Work that spins until stopped, counting its rounds.
    fn until_stopped(stop: &AtomicBool) -> u64 {
        let mut rounds = 0;
        while !stop.load(Ordering::Relaxed) {
            rounds += 1;
            std::thread::sleep(Duration::from_millis(1));
        }
        rounds
    }

    #[test]
    fn a_dropped_task_stops_without_waiting_and_hands_its_result_on() {
        let (tx, rx) = mpsc::channel();
        let task = Task::spawn("test", until_stopped, move |rounds| {
            let _ = tx.send(rounds);
        })
        .expect("a thread");
        assert!(!task.is_finished());
        // Would block here for ever if dropping waited for work that only ends when told.
        drop(task);
        let rounds = rx.recv_timeout(Duration::from_secs(10)).expect("the result handed on");
        assert!(rounds < u64::MAX);
    }

    #[test]
    fn a_task_left_alone_runs_to_the_end() {
        let (tx, rx) = mpsc::channel();
        let task = Task::spawn(
            "test",
            |_| 42,
            move |n| {
                let _ = tx.send(n);
            },
        )
        .expect("a thread");
        assert_eq!(rx.recv_timeout(Duration::from_secs(10)), Ok(42));
        let asked = Instant::now();
        while !task.is_finished() {
            assert!(asked.elapsed() < Duration::from_secs(10), "finished flag set");
            std::thread::yield_now();
        }
    }

    #[test]
    fn a_worker_gives_its_result_back_and_a_panic_is_none() {
        let worker = Worker::spawn("test", until_stopped).expect("a thread");
        assert!(worker.finish().is_some());
        let worker = Worker::spawn("test", |_| 7).expect("a thread");
        assert_eq!(worker.join(), Some(7));
        let worker: Worker<u8> = Worker::spawn("test", |_| panic!("on purpose")).expect("thread");
        assert_eq!(worker.join(), None);
    }
}
