//! What every kind of room shares, pure like the rooms themselves: the refusal type
//! [`RoomError`], the [`Lifetimes`] of rooms, and the versioned event ring [`EventLog`].
//!
//! Versioned events (lila-ws style): a room numbers every event it emits; a client that comes
//! back sends the number of the last one it saw and gets exactly the missed ones while the ring
//! still holds them, or a full snapshot when the gap is older (or the room was recovered from
//! storage, which starts with an empty ring).

use std::collections::VecDeque;
use std::time::Duration;

use maharajah_protocol::{ErrorCode, ServerMsg};

/// How many recent events a room keeps for resync.
pub const EVENT_RING: usize = 128;

/// How long rooms live without activity, and the recovery grace after a restart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lifetimes {
    /// A room whose second seat is still free expires this long after creation.
    pub open: Duration,
    /// A room still waiting for players is dropped once nobody seated in it has been connected
    /// for this long (its creator left), so departed creators do not keep the server full.
    pub abandoned: Duration,
    /// A room in setup or play expires after this long without any accepted action.
    pub idle: Duration,
    /// A finished room is kept this long, so both players can see the result.
    pub finished: Duration,
    /// After a restart, clocks stay frozen at most this long waiting for the side to move.
    pub recovery_grace: Duration,
}

impl Default for Lifetimes {
    fn default() -> Self {
        Lifetimes {
            open: Duration::from_secs(24 * 3600),
            abandoned: Duration::from_secs(10 * 60),
            idle: Duration::from_secs(24 * 3600),
            finished: Duration::from_secs(15 * 60),
            recovery_grace: Duration::from_secs(120),
        }
    }
}

impl Lifetimes {
    /// When a waiting room is dropped whose people have all been away since `away_since`
    /// (`None` while someone is there).
    pub(crate) fn abandoned_at(&self, away_since: Option<u64>) -> Option<u64> {
        away_since.map(|t| t.saturating_add(ms(self.abandoned)))
    }
}

/// A duration in milliseconds, saturating.
pub(crate) fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// A refused request: the code for programs and a message for people. Nothing changed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{code:?}: {message}")]
pub struct RoomError {
    /// What went wrong.
    pub code: ErrorCode,
    /// For people.
    pub message: String,
}

impl RoomError {
    /// Builds an error.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> RoomError {
        RoomError { code, message: message.into() }
    }

    /// The wire form.
    pub fn to_msg(&self) -> ServerMsg {
        ServerMsg::error(self.code, self.message.clone())
    }
}

/// A room's numbered events: the number of the last one and a ring of the most recent
/// [`EVENT_RING`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventLog<E> {
    seq: u64,
    ring: VecDeque<(u64, E)>,
}

impl<E> Default for EventLog<E> {
    fn default() -> Self {
        EventLog::starting_at(0)
    }
}

impl<E> EventLog<E> {
    /// An empty log whose last event was number `seq` (0 for a new room; a recovered room
    /// continues its numbering with an empty ring).
    pub fn starting_at(seq: u64) -> EventLog<E> {
        EventLog { seq, ring: VecDeque::new() }
    }
}

impl<E: Clone> EventLog<E> {
    /// The number of the last event.
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// Numbers `event` and keeps it, dropping the oldest beyond the ring's size; returns its
    /// number.
    pub fn push(&mut self, event: E) -> u64 {
        self.seq += 1;
        if self.ring.len() == EVENT_RING {
            self.ring.pop_front();
        }
        self.ring.push_back((self.seq, event));
        self.seq
    }

    /// The events numbered after `seq`, oldest first, if the ring still holds all of them;
    /// `None` means the client needs a snapshot (also for a number from the future).
    pub fn after(&self, seq: u64) -> Option<Vec<(u64, E)>> {
        if seq > self.seq {
            return None;
        }
        let oldest = self.ring.front().map_or(self.seq + 1, |(s, _)| *s);
        if seq < self.seq && seq + 1 < oldest {
            return None;
        }
        Some(self.ring.iter().filter(|(s, _)| *s > seq).cloned().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ring_answers_gaps_it_holds_and_asks_for_a_snapshot_otherwise() {
        let mut log = EventLog::default();
        assert_eq!(log.after(0), Some(vec![]));
        for e in 0..EVENT_RING + 2 {
            log.push(e);
        }
        let last = log.seq();
        assert_eq!(last, EVENT_RING as u64 + 2);
        assert_eq!(log.after(last), Some(vec![]));
        assert_eq!(log.after(last - 1), Some(vec![(last, EVENT_RING + 1)]));
        assert_eq!(log.after(2).map(|v| v.len()), Some(EVENT_RING), "oldest held is 3");
        assert_eq!(log.after(1), None, "event 2 was dropped");
        assert_eq!(log.after(last + 1), None, "a number from the future");
    }

    #[test]
    fn a_recovered_log_continues_its_numbers_with_an_empty_ring() {
        let mut log = EventLog::starting_at(40);
        assert_eq!(log.after(40), Some(vec![]));
        assert_eq!(log.after(39), None);
        assert_eq!(log.push("x"), 41);
        assert_eq!(log.after(40), Some(vec![(41, "x")]));
        assert_eq!(log.after(39), None);
    }
}
