//! The transposition table: one allocation, sized by the caller in megabytes, 16-byte entries,
//! always-replace except that a deeper entry of the current search survives a shallower one.

use crate::moves::Move;
use crate::types::{Role, Square};

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

/// One slot: the full key, a packed move, score, static eval, depth, bound and age.
#[derive(Debug, Clone, Copy, Default)]
struct Entry {
    key: u64,
    mv: u16,
    score: i16,
    eval: i16,
    depth: u8,
    /// Bound in the low 2 bits, generation in the high 6.
    flags: u8,
}

/// A probe hit.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hit {
    pub mv: Option<Move>,
    pub score: i32,
    pub eval: i32,
    pub depth: i32,
    pub bound: Bound,
}

/// The table.
pub(crate) struct Table {
    entries: Vec<Entry>,
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
    /// A table of about `mb` megabytes (at least one entry).
    pub(crate) fn new(mb: usize) -> Table {
        let n = (mb.max(1) * 1024 * 1024 / std::mem::size_of::<Entry>()).max(1);
        Table { entries: vec![Entry::default(); n], generation: 0 }
    }

    /// Forgets everything (a new game), keeping the allocation.
    pub(crate) fn clear(&mut self) {
        self.entries.fill(Entry::default());
        self.generation = 0;
    }

    /// Starts a new search: older entries become cheaper to replace.
    pub(crate) fn new_search(&mut self) {
        self.generation = (self.generation + 1) & 63;
    }

    #[inline]
    fn index(&self, key: u64) -> usize {
        ((u128::from(key) * self.entries.len() as u128) >> 64) as usize
    }

    /// The entry for `key`, if stored.
    #[inline]
    pub(crate) fn probe(&self, key: u64) -> Option<Hit> {
        let e = self.entries[self.index(key)];
        if e.key != key || e.flags & 3 == 0 {
            return None;
        }
        let bound = match e.flags & 3 {
            1 => Bound::Lower,
            2 => Bound::Upper,
            _ => Bound::Exact,
        };
        Some(Hit {
            mv: unpack(e.mv),
            score: i32::from(e.score),
            eval: i32::from(e.eval),
            depth: i32::from(e.depth),
            bound,
        })
    }

    /// Stores a result; scores must already be relative to this node (mate distance adjusted).
    #[inline]
    pub(crate) fn store(
        &mut self,
        key: u64,
        mv: Option<Move>,
        score: i32,
        eval: i32,
        depth: i32,
        bound: Bound,
    ) {
        let i = self.index(key);
        let old = self.entries[i];
        let old_gen = old.flags >> 2;
        if old.key == key || old_gen != self.generation || depth + 2 >= i32::from(old.depth) {
            let mv = match mv {
                Some(m) => pack(m),
                None if old.key == key => old.mv,
                None => 0,
            };
            self.entries[i] = Entry {
                key,
                mv,
                score: score.clamp(-32_000, 32_000) as i16,
                eval: eval.clamp(-32_000, 32_000) as i16,
                depth: depth.clamp(0, 255) as u8,
                flags: (bound as u8) | (self.generation << 2),
            };
        }
    }

    /// Permille of the first thousand slots used by the current search (UCI `hashfull`).
    pub(crate) fn hashfull(&self) -> u32 {
        let n = self.entries.len().min(1000);
        let used = self.entries[..n]
            .iter()
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
        let mut t = Table::new(1);
        let mv: Move = "e2e4".parse().expect("valid move text");
        t.store(12345, Some(mv), -77, 12, 5, Bound::Lower);
        let hit = t.probe(12345).expect("stored");
        assert_eq!(
            (hit.mv, hit.score, hit.eval, hit.depth, hit.bound),
            (Some(mv), -77, 12, 5, Bound::Lower)
        );
        assert!(t.probe(54321).is_none());
        t.clear();
        assert!(t.probe(12345).is_none());
    }
}
