//! Attack tables: leaper tables built at compile time, slider attacks by magic bitboards whose
//! magic factors are searched once, deterministically, on first use.

use std::sync::OnceLock;

use crate::types::{Bitboard, Color, Square};

const fn leaper_table(deltas: &[(i8, i8)]) -> [u64; 64] {
    let mut table = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let (f, r) = ((sq % 8) as i8, (sq / 8) as i8);
        let mut i = 0;
        while i < deltas.len() {
            let (nf, nr) = (f + deltas[i].0, r + deltas[i].1);
            if nf >= 0 && nf < 8 && nr >= 0 && nr < 8 {
                table[sq] |= 1 << (nr * 8 + nf);
            }
            i += 1;
        }
        sq += 1;
    }
    table
}

const KNIGHT: [u64; 64] =
    leaper_table(&[(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]);
const KING: [u64; 64] =
    leaper_table(&[(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]);
const WHITE_PAWN: [u64; 64] = leaper_table(&[(-1, 1), (1, 1)]);
const BLACK_PAWN: [u64; 64] = leaper_table(&[(-1, -1), (1, -1)]);

const ROOK_DIRS: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DIRS: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// Knight leaps from `sq`.
#[inline]
#[must_use]
pub fn knight_attacks(sq: Square) -> Bitboard {
    Bitboard(KNIGHT[sq.index()])
}

/// King steps from `sq`.
#[inline]
#[must_use]
pub fn king_attacks(sq: Square) -> Bitboard {
    Bitboard(KING[sq.index()])
}

/// Squares a `color` pawn on `sq` attacks.
#[inline]
#[must_use]
pub fn pawn_attacks(color: Color, sq: Square) -> Bitboard {
    match color {
        Color::White => Bitboard(WHITE_PAWN[sq.index()]),
        Color::Black => Bitboard(BLACK_PAWN[sq.index()]),
    }
}

fn slide(sq: usize, occ: u64, dirs: &[(i8, i8); 4]) -> u64 {
    let mut att = 0;
    for &(df, dr) in dirs {
        let (mut f, mut r) = ((sq % 8) as i8, (sq / 8) as i8);
        loop {
            f += df;
            r += dr;
            if !(0..8).contains(&f) || !(0..8).contains(&r) {
                break;
            }
            let b = 1u64 << (r * 8 + f);
            att |= b;
            if occ & b != 0 {
                break;
            }
        }
    }
    att
}

fn relevant_mask(sq: usize, dirs: &[(i8, i8); 4]) -> u64 {
    let mut mask = 0;
    for &(df, dr) in dirs {
        let (mut f, mut r) = ((sq % 8) as i8, (sq / 8) as i8);
        loop {
            f += df;
            r += dr;
            let (nf, nr) = (f + df, r + dr);
            if !(0..8).contains(&nf) || !(0..8).contains(&nr) {
                break;
            }
            mask |= 1u64 << (r * 8 + f);
        }
    }
    mask
}

#[derive(Clone, Copy, Default)]
struct Magic {
    mask: u64,
    factor: u64,
    shift: u32,
    offset: usize,
}

struct Tables {
    rook: [Magic; 64],
    bishop: [Magic; 64],
    attacks: Vec<Bitboard>,
    between: Vec<Bitboard>,
    line: Vec<Bitboard>,
}

/// Small deterministic generator used only for the magic search.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn sparse(&mut self) -> u64 {
        self.next() & self.next() & self.next()
    }
}

fn find_magics(
    dirs: &[(i8, i8); 4],
    attacks: &mut Vec<Bitboard>,
    rng: &mut XorShift,
) -> [Magic; 64] {
    let mut magics = [Magic::default(); 64];
    let mut occs = Vec::with_capacity(4096);
    let mut refs = Vec::with_capacity(4096);
    let mut used = vec![0u32; 4096];
    let mut epoch = 0u32;
    for (sq, magic) in magics.iter_mut().enumerate() {
        let mask = relevant_mask(sq, dirs);
        let bits = mask.count_ones();
        occs.clear();
        refs.clear();
        let mut sub = 0u64;
        loop {
            occs.push(sub);
            refs.push(slide(sq, sub, dirs));
            sub = sub.wrapping_sub(mask) & mask;
            if sub == 0 {
                break;
            }
        }
        let size = 1usize << bits;
        let offset = attacks.len();
        attacks.resize(offset + size, Bitboard::EMPTY);
        let shift = 64 - bits;
        'search: loop {
            let factor = rng.sparse();
            if (mask.wrapping_mul(factor) >> 56).count_ones() < 6 {
                continue;
            }
            epoch += 1;
            for (occ, att) in occs.iter().zip(&refs) {
                let idx = (occ.wrapping_mul(factor) >> shift) as usize;
                if used[idx] == epoch {
                    if attacks[offset + idx].0 != *att {
                        continue 'search;
                    }
                } else {
                    used[idx] = epoch;
                    attacks[offset + idx] = Bitboard(*att);
                }
            }
            *magic = Magic { mask, factor, shift, offset };
            break;
        }
    }
    magics
}

fn build() -> Tables {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let mut attacks = Vec::with_capacity(102_400 + 5_248);
    let rook = find_magics(&ROOK_DIRS, &mut attacks, &mut rng);
    let bishop = find_magics(&BISHOP_DIRS, &mut attacks, &mut rng);
    let mut between = vec![Bitboard::EMPTY; 64 * 64];
    let mut line = vec![Bitboard::EMPTY; 64 * 64];
    for a in 0..64usize {
        for dirs in [&ROOK_DIRS, &BISHOP_DIRS] {
            let from_a = slide(a, 0, dirs);
            for b in Bitboard(from_a) {
                let b = b.index();
                // The full line through a and b: the rays of a in the direction of b and opposite.
                let mut l = 1u64 << a | 1u64 << b;
                for &(df, dr) in dirs {
                    let ray_a = ray(a, df, dr);
                    if ray_a & (1 << b) != 0 {
                        l |= ray_a | ray(a, -df, -dr);
                    }
                }
                line[a * 64 + b] = Bitboard(l);
                between[a * 64 + b] = Bitboard(slide(a, 1 << b, dirs) & slide(b, 1 << a, dirs) & l);
            }
        }
    }
    Tables { rook, bishop, attacks, between, line }
}

fn ray(sq: usize, df: i8, dr: i8) -> u64 {
    let (mut f, mut r) = ((sq % 8) as i8, (sq / 8) as i8);
    let mut out = 0;
    loop {
        f += df;
        r += dr;
        if !(0..8).contains(&f) || !(0..8).contains(&r) {
            return out;
        }
        out |= 1u64 << (r * 8 + f);
    }
}

static TABLES: OnceLock<Tables> = OnceLock::new();

#[inline]
fn tables() -> &'static Tables {
    TABLES.get_or_init(build)
}

/// Forces the one-time table initialisation (a few milliseconds), e.g. before timing.
pub fn init() {
    let _ = tables();
}

#[inline]
fn magic_lookup(t: &Tables, m: &Magic, occ: Bitboard) -> Bitboard {
    let idx = ((occ.0 & m.mask).wrapping_mul(m.factor) >> m.shift) as usize;
    t.attacks[m.offset + idx]
}

/// Rook slides from `sq` given the occupied squares.
#[inline]
#[must_use]
pub fn rook_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    let t = tables();
    magic_lookup(t, &t.rook[sq.index()], occ)
}

/// Bishop slides from `sq` given the occupied squares.
#[inline]
#[must_use]
pub fn bishop_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    let t = tables();
    magic_lookup(t, &t.bishop[sq.index()], occ)
}

/// Squares strictly between `a` and `b` if they share a line, else empty.
#[inline]
#[must_use]
pub fn between(a: Square, b: Square) -> Bitboard {
    tables().between[a.index() * 64 + b.index()]
}

/// The whole line (rank, file or diagonal) through `a` and `b`, or empty.
#[inline]
#[must_use]
pub fn line(a: Square, b: Square) -> Bitboard {
    tables().line[a.index() * 64 + b.index()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magics_match_slow_slides() {
        let mut rng = XorShift(12345);
        for sq in 0..64u8 {
            for _ in 0..200 {
                let occ = rng.next() & rng.next();
                let s = Square::new_wrapping(sq.into());
                assert_eq!(rook_attacks(s, Bitboard(occ)).0, slide(sq.into(), occ, &ROOK_DIRS));
                assert_eq!(bishop_attacks(s, Bitboard(occ)).0, slide(sq.into(), occ, &BISHOP_DIRS));
            }
        }
    }

    #[test]
    fn between_and_line() {
        let a1 = Square::A1;
        let h8 = Square::H8;
        assert_eq!(between(a1, h8).count(), 6);
        assert_eq!(line(a1, Square::E1).count(), 8);
        assert!(between(a1, Square::B1).is_empty());
        assert!(line(a1, Square::B1.offset(1, 2).expect("c3 exists")).any());
        assert!(line(a1, Square::B1.offset(0, 2).expect("b3 exists")).is_empty());
        assert_eq!(between(Square::C1, Square::C8).count(), 6);
    }
}
