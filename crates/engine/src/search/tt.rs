//! The transposition table: one allocation, sized by the caller in megabytes, 16-byte entries,
//! always-replace except that a deeper entry of the current search survives a shallower one.
//!
//! Lock-free, for the threads of one search to share: a slot is two atomic words, the packed
//! data and the key XOR the data. A probe that reads the words of two different writes (a torn
//! entry) sees a key that does not match and treats the slot as empty, so a thread never takes
//! another position's entry for its own. Relaxed loads and stores cost the same as plain ones.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::moves::Move;
use crate::types::{Role, Square};

/// Asks the kernel to back `len` bytes from `addr` (an allocation not yet written) with
/// transparent huge pages where the system leaves that to the program (`madvise` mode, the
/// usual default). Only whole 2 MB pages inside the range are advised.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn advise_huge_pages(addr: usize, len: usize) {
    const HUGE: usize = 2 << 20;
    let start = addr.next_multiple_of(HUGE);
    let end = (addr + len) / HUGE * HUGE;
    if end > start {
        // SAFETY: the range lies inside an allocation the caller owns; MADV_HUGEPAGE changes
        // how the kernel backs it, never what it holds. A refusal (no THP) is harmless.
        #[allow(unsafe_code)]
        let _ =
            unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
    }
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn advise_huge_pages(_addr: usize, _len: usize) {}

/// A cache prefetch of the line at `p`: a hint, it never faults and reads nothing.
#[inline]
#[allow(unsafe_code, unused_unsafe)]
fn prefetch(p: *const i8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` is a hint that never faults, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p);
    }
    #[cfg(target_arch = "aarch64")]
    // SAFETY: `prfm` is a hint that never faults, whatever the address.
    unsafe {
        std::arch::asm!("prfm pldl1keep, [{0}]", in(reg) p, options(nostack, readonly, preserves_flags));
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let _ = p;
}

/// What a stored score means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bound {
    /// The true score is at least this (a cut-off).
    Lower = 1,
    /// The true score is at most this (no move raised alpha).
    Upper = 2,
    /// The exact score.
    Exact = 3,
}

/// The stored evaluation of an entry stored without one: read back as `None`. (The search
/// stores one everywhere since quiescence lost its lazy cut; the format keeps the case.)
const NO_EVAL: i16 = i16::MIN;

/// One slot's contents: a packed move, score, static eval, depth, bound and age.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Entry {
    mv: u16,
    score: i16,
    eval: i16,
    depth: u8,
    /// Bound in the low 2 bits, generation in the high 6.
    flags: u8,
}

impl Entry {
    #[inline]
    fn pack(self) -> u64 {
        u64::from(self.mv)
            | u64::from(self.score as u16) << 16
            | u64::from(self.eval as u16) << 32
            | u64::from(self.depth) << 48
            | u64::from(self.flags) << 56
    }

    #[inline]
    fn unpack(data: u64) -> Entry {
        Entry {
            mv: data as u16,
            score: (data >> 16) as u16 as i16,
            eval: (data >> 32) as u16 as i16,
            depth: (data >> 48) as u8,
            flags: (data >> 56) as u8,
        }
    }
}

/// A slot: `[key ^ data, data]`.
#[derive(Debug, Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

impl Slot {
    /// The entry if it belongs to `key` and is whole.
    #[inline]
    fn load(&self, key: u64) -> Option<Entry> {
        let data = self.data.load(Ordering::Relaxed);
        let check = self.check.load(Ordering::Relaxed);
        (check ^ data == key && data != 0).then(|| Entry::unpack(data))
    }

    /// The entry whatever its key (for replacement decisions and statistics), and whether it
    /// is `key`'s.
    #[inline]
    fn peek(&self, key: u64) -> (Entry, bool) {
        let data = self.data.load(Ordering::Relaxed);
        let check = self.check.load(Ordering::Relaxed);
        (Entry::unpack(data), check ^ data == key && data != 0)
    }

    #[inline]
    fn save(&self, key: u64, e: Entry) {
        let data = e.pack();
        self.data.store(data, Ordering::Relaxed);
        self.check.store(key ^ data, Ordering::Relaxed);
    }
}

/// A probe hit.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hit {
    pub mv: Option<Move>,
    pub score: i32,
    /// The raw static evaluation, if the node computed it in full.
    pub eval: Option<i32>,
    pub depth: i32,
    pub bound: Bound,
}

/// The table.
pub(crate) struct Table {
    slots: Vec<Slot>,
    generation: u8,
}

const ROLES: [Role; 9] = Role::ALL;

/// Packs a move in 16 bits: from (6), to (6), promotion role + 1 (4).
#[inline]
pub(crate) fn pack(mv: Move) -> u16 {
    let promo = mv.promotion.map_or(0, |r| r.index() as u16 + 1);
    mv.from.index() as u16 | (mv.to.index() as u16) << 6 | promo << 12
}

/// Inverse of [`pack`]; 0 is "no move".
#[inline]
pub(crate) fn unpack(bits: u16) -> Option<Move> {
    if bits == 0 {
        return None;
    }
    let from = Square::new((bits & 63) as u8)?;
    let to = Square::new((bits >> 6 & 63) as u8)?;
    let promotion = match bits >> 12 {
        0 => None,
        p => Some(*ROLES.get(usize::from(p - 1))?),
    };
    Some(Move { from, to, promotion })
}

impl Table {
    /// A table of about `mb` megabytes (at least one slot).
    pub(crate) fn new(mb: usize) -> Table {
        let n = (mb.max(1) * 1024 * 1024 / std::mem::size_of::<Slot>()).max(1);
        let mut slots = Vec::with_capacity(n);
        // Asked before the first write, so the kernel backs the table with huge pages from the
        // start: one table-sized TLB reach instead of a page walk on most probes.
        advise_huge_pages(slots.as_ptr() as usize, n * std::mem::size_of::<Slot>());
        slots.extend(std::iter::repeat_with(Slot::default).take(n));
        Table { slots, generation: 0 }
    }

    /// Starts loading `key`'s slot into the cache, so that the probe a few hundred
    /// instructions later (in the child's search) does not wait on memory. A hint only.
    #[inline]
    pub(crate) fn prefetch(&self, key: u64) {
        prefetch(std::ptr::from_ref(self.slot(key)).cast());
    }

    /// Forgets everything (a new game), keeping the allocation.
    pub(crate) fn clear(&mut self) {
        for slot in &mut self.slots {
            *slot.check.get_mut() = 0;
            *slot.data.get_mut() = 0;
        }
        self.generation = 0;
    }

    /// Starts a new search: older entries become cheaper to replace.
    pub(crate) fn new_search(&mut self) {
        self.generation = (self.generation + 1) & 63;
    }

    #[inline]
    fn slot(&self, key: u64) -> &Slot {
        &self.slots[((u128::from(key) * self.slots.len() as u128) >> 64) as usize]
    }

    /// The entry for `key`, if stored.
    #[inline]
    pub(crate) fn probe(&self, key: u64) -> Option<Hit> {
        let e = self.slot(key).load(key)?;
        let bound = match e.flags & 3 {
            1 => Bound::Lower,
            2 => Bound::Upper,
            3 => Bound::Exact,
            _ => return None,
        };
        Some(Hit {
            mv: unpack(e.mv),
            score: i32::from(e.score),
            eval: (e.eval != NO_EVAL).then(|| i32::from(e.eval)),
            depth: i32::from(e.depth),
            bound,
        })
    }

    /// Stores a result; scores must already be relative to this node (mate distance adjusted).
    /// `eval` is the raw static evaluation, `None` where the node did not compute it in full.
    /// Several threads may store at once: the last whole write wins.
    #[inline]
    pub(crate) fn store(
        &self,
        key: u64,
        mv: Option<Move>,
        score: i32,
        eval: Option<i32>,
        depth: i32,
        bound: Bound,
    ) {
        let slot = self.slot(key);
        let (old, same) = slot.peek(key);
        // A quiescence result never replaces a real search of the same position.
        if same && depth == 0 && old.depth > 0 {
            return;
        }
        let old_gen = old.flags >> 2;
        if same || old_gen != self.generation || depth + 2 >= i32::from(old.depth) {
            let mv = match mv {
                Some(m) => pack(m),
                None if same => old.mv,
                None => 0,
            };
            slot.save(
                key,
                Entry {
                    mv,
                    score: score.clamp(-32_000, 32_000) as i16,
                    eval: eval.map_or(NO_EVAL, |e| e.clamp(-32_000, 32_000) as i16),
                    depth: depth.clamp(0, 255) as u8,
                    flags: (bound as u8) | (self.generation << 2),
                },
            );
        }
    }

    /// Permille of the first thousand slots used by the current search (UCI `hashfull`).
    pub(crate) fn hashfull(&self) -> u32 {
        let n = self.slots.len().min(1000);
        let used = self.slots[..n]
            .iter()
            .map(|slot| Entry::unpack(slot.data.load(Ordering::Relaxed)))
            .filter(|e| e.flags & 3 != 0 && e.flags >> 2 == self.generation)
            .count();
        (used * 1000 / n.max(1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_pack_and_unpack() {
        for text in ["a1h8", "e7e8m", "b2a1n", "h1a1"] {
            let mv: Move = text.parse().expect("valid move text");
            assert_eq!(unpack(pack(mv)), Some(mv), "{text}");
        }
    }

    #[test]
    fn store_then_probe() {
        let t = Table::new(1);
        let mv: Move = "e2e4".parse().expect("valid move text");
        t.store(12345, Some(mv), -77, Some(12), 5, Bound::Lower);
        let hit = t.probe(12345).expect("stored");
        assert_eq!(
            (hit.mv, hit.score, hit.eval, hit.depth, hit.bound),
            (Some(mv), -77, Some(12), 5, Bound::Lower)
        );
        // An entry without an evaluation reads back without one; others are clamped.
        let t = Table::new(1);
        t.store(777, None, 40, None, 0, Bound::Upper);
        assert_eq!(t.probe(777).expect("stored").eval, None);
        let t = Table::new(1);
        t.store(778, None, 40, Some(-40_000), 0, Bound::Upper);
        assert_eq!(t.probe(778).expect("stored").eval, Some(-32_000));
        assert!(t.probe(54321).is_none());
        let mut t = t;
        t.clear();
        assert!(t.probe(12345).is_none());
    }

    #[test]
    fn entries_pack_and_unpack() {
        let e = Entry { mv: 0xBEEF, score: -31_000, eval: 517, depth: 200, flags: 0b1111_1110 };
        assert_eq!(Entry::unpack(e.pack()), e);
    }

    #[test]
    fn a_torn_entry_reads_as_empty() {
        let t = Table::new(1);
        t.store(12345, None, 50, Some(0), 3, Bound::Exact);
        // Another thread's half-written entry: the data of one write, the check of another.
        let slot = t.slot(12345);
        let other = Entry { mv: 0, score: 9_999, eval: 0, depth: 30, flags: 3 }.pack();
        slot.data.store(other, Ordering::Relaxed);
        assert!(t.probe(12345).is_none(), "a mixed entry must not match the key");
    }

    #[test]
    fn threads_store_and_probe_at_once() {
        let t = Table::new(1);
        std::thread::scope(|s| {
            for id in 0..4u64 {
                let t = &t;
                s.spawn(move || {
                    for k in 1..20_000u64 {
                        let key = k.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ id;
                        t.store(key, None, (k % 500) as i32, Some(id as i32), 4, Bound::Lower);
                        if let Some(hit) = t.probe(key) {
                            // Whatever survives is one whole write for this key.
                            assert_eq!(hit.score, (k % 500) as i32);
                            assert_eq!(hit.eval, Some(id as i32));
                        }
                    }
                });
            }
        });
    }
}
