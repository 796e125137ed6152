//! Android's Wi-Fi multicast lock, held while the app browses for LAN hosts or advertises one.
//!
//! Android drops incoming multicast (and so mDNS) unless an app holds a `WifiManager.MulticastLock`.
//! Every browser and every advertisement takes a [`Hold`] of its [`Use`]; the uses are counted,
//! so the platform is told once when the first hold of a use starts and once when the last hold
//! of it ends ([`Counts`]). On Android the platform is the Kotlin `LanMulticastLock` (through the
//! small mobile plugin `LanMulticastPlugin`, `mobile/android/`), which acquires the system lock
//! once when the first use starts and releases it once when the last use ends. On other systems
//! nothing needs the lock and no platform is set: the counting still runs.

use std::sync::{Mutex, OnceLock, PoisonError};

/// Why the lock is needed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Use {
    /// A host list is shown (mDNS queries and answers come in).
    Browsing,
    /// A hosted game or table is advertised (queries come in).
    Advertising,
}

impl Use {
    /// The name the Kotlin side knows (`LanMulticastLock.Use`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Use::Browsing => "BROWSING",
            Use::Advertising => "ADVERTISING",
        }
    }
}

/// What the platform must do after a hold starts or ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// The first hold of this use started.
    Start(Use),
    /// The last hold of this use ended.
    Stop(Use),
}

/// Holds per use; answers the changes the platform must hear (pure, tested on every system).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Counts {
    browsing: usize,
    advertising: usize,
}

impl Counts {
    fn slot(&mut self, use_: Use) -> &mut usize {
        match use_ {
            Use::Browsing => &mut self.browsing,
            Use::Advertising => &mut self.advertising,
        }
    }

    /// One more hold of `use_`; [`Change::Start`] when it is the first.
    pub fn start(&mut self, use_: Use) -> Option<Change> {
        let n = self.slot(use_);
        *n += 1;
        (*n == 1).then_some(Change::Start(use_))
    }

    /// One hold of `use_` fewer; [`Change::Stop`] when it was the last. An end without a start
    /// changes nothing.
    pub fn end(&mut self, use_: Use) -> Option<Change> {
        let n = self.slot(use_);
        if *n == 0 {
            return None;
        }
        *n -= 1;
        (*n == 0).then_some(Change::Stop(use_))
    }

    /// Whether any use holds the lock now.
    #[must_use]
    pub fn held(&self) -> bool {
        self.browsing + self.advertising > 0
    }
}

type Platform = Box<dyn Fn(Change) + Send + Sync>;

static COUNTS: Mutex<Counts> = Mutex::new(Counts { browsing: 0, advertising: 0 });
static PLATFORM: OnceLock<Platform> = OnceLock::new();

/// Sets where changes go (once, at start-up; the Android plugin). Later calls are ignored.
pub fn set_platform(platform: impl Fn(Change) + Send + Sync + 'static) {
    let _ = PLATFORM.set(Box::new(platform));
}

fn apply(change: Option<Change>) {
    if let (Some(change), Some(platform)) = (change, PLATFORM.get()) {
        platform(change);
    }
}

/// One use of the lock, until dropped.
#[derive(Debug)]
pub struct Hold {
    use_: Use,
}

impl Hold {
    /// Starts a use (the platform hears it if it is the first of its kind).
    #[must_use]
    pub fn start(use_: Use) -> Hold {
        let change = COUNTS.lock().unwrap_or_else(PoisonError::into_inner).start(use_);
        apply(change);
        Hold { use_ }
    }
}

impl Drop for Hold {
    fn drop(&mut self) {
        let change = COUNTS.lock().unwrap_or_else(PoisonError::into_inner).end(self.use_);
        apply(change);
    }
}

/// Whether some use holds the lock now (diagnostics).
#[must_use]
pub fn held() -> bool {
    COUNTS.lock().unwrap_or_else(PoisonError::into_inner).held()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the Kotlin object does with the changes: the system lock is taken when the first use
    /// starts and let go when the last ends.
    #[derive(Default)]
    struct Kotlin {
        active: std::collections::HashSet<Use>,
        acquired: usize,
        released: usize,
    }

    impl Kotlin {
        fn hear(&mut self, change: Option<Change>) {
            match change {
                Some(Change::Start(u)) => {
                    assert!(self.active.insert(u), "{u:?} started twice");
                    if self.active.len() == 1 {
                        self.acquired += 1;
                    }
                }
                Some(Change::Stop(u)) => {
                    assert!(self.active.remove(&u), "{u:?} stopped without a start");
                    if self.active.is_empty() {
                        self.released += 1;
                    }
                }
                None => {}
            }
        }
    }

    #[test]
    fn the_lock_is_taken_once_for_the_first_use_and_let_go_once_after_the_last() {
        let mut counts = Counts::default();
        let mut k = Kotlin::default();
        assert!(!counts.held());
        k.hear(counts.start(Use::Browsing));
        assert_eq!((k.acquired, k.released), (1, 0));
        // A second browser and two advertisements (a chess game and a Chaturaji table).
        assert_eq!(counts.start(Use::Browsing), None);
        k.hear(counts.start(Use::Advertising));
        assert_eq!(counts.start(Use::Advertising), None);
        assert_eq!((k.acquired, k.released), (1, 0));
        assert_eq!(counts.end(Use::Browsing), None);
        k.hear(counts.end(Use::Browsing));
        assert!(counts.held(), "still advertising");
        assert_eq!(counts.end(Use::Advertising), None);
        assert_eq!(k.released, 0);
        let last = counts.end(Use::Advertising);
        assert_eq!(last, Some(Change::Stop(Use::Advertising)));
        k.hear(last);
        assert_eq!((k.acquired, k.released), (1, 1));
        assert!(!counts.held());
        // An end without a start changes nothing; a new start takes the lock again.
        assert_eq!(counts.end(Use::Browsing), None);
        k.hear(counts.start(Use::Advertising));
        assert_eq!((k.acquired, k.released), (2, 1));
    }

    #[test]
    fn holds_count_in_the_process_and_end_when_dropped() {
        let a = Hold::start(Use::Browsing);
        let b = Hold::start(Use::Browsing);
        assert!(held());
        drop(a);
        assert!(held());
        drop(b);
        // Other tests of this binary may hold it too; only this test's holds are known here.
        let c = Hold::start(Use::Advertising);
        assert!(held());
        drop(c);
    }
}
