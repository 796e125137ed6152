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
    known: &[u64; 64],
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
        let mut candidate = Some(known[sq]);
        'search: loop {
            // The recorded factor first (found by this very search once); search only if it fails.
            let factor = candidate.take().unwrap_or_else(|| rng.sparse());
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

/// Magic factors found by [`find_magics`] from the seed in [`build`], recorded so that start-up
/// needs no search (the search takes about a second; filling the tables a few milliseconds).
/// Regenerate with `cargo test -p maharajah-engine --lib print_magic_factors -- --ignored --nocapture`.
const ROOK_FACTORS: [u64; 64] = [
    0x2080002080400010,
    0x00C0002001401000,
    0x2100110008402002,
    0x0880080081041000,
    0x0200020020041008,
    0x2300040008010012,
    0x0C00283004008201,
    0x0180010000407A80,
    0x0168800080400020,
    0x0010400040201000,
    0x1001002001001048,
    0x1001002408100100,
    0x0801000408010012,
    0x4001000209000400,
    0x08A20004C8020001,
    0x2002801145002280,
    0x0080860021004200,
    0x001000C009402002,
    0x00B0002004002800,
    0x100A808010020800,
    0x8101010008000410,
    0x0244008002000480,
    0x0000040010810208,
    0x2000020000448534,
    0x4104400480008033,
    0x0000810100204000,
    0x0440430900200010,
    0x4600240900100100,
    0x0060080080040080,
    0x0001000300080400,
    0x0004084400011002,
    0x0023040200008041,
    0x0580050043002080,
    0x0400804002802008,
    0x0001002001004010,
    0x1000200901001000,
    0x4410800801800C00,
    0xA012003806001004,
    0x0020100104008802,
    0x0004808402000041,
    0x0010400170898000,
    0x0080500020004004,
    0x1040408012020020,
    0x8010040008004040,
    0x2001080100110004,
    0x0000020004008080,
    0x0021010810040002,
    0x0800008C43020024,
    0x0000800021005100,
    0x0070201040008080,
    0x0000D04282006A00,
    0x0010014400080240,
    0x0001080110050100,
    0x0012000810240600,
    0x0402000801040200,
    0x028100108A004100,
    0x0050800300102045,
    0x8208210040120882,
    0x8010600101183441,
    0x020B000910006045,
    0x0241001002480005,
    0x0081000400880241,
    0x0000009008024124,
    0x0048122980410402,
];
const BISHOP_FACTORS: [u64; 64] = [
    0x0848020822040013,
    0x8010A40085821200,
    0x0008008430840822,
    0x0808048108040000,
    0x1304042100008104,
    0x5001012010204023,
    0x81048801B8200420,
    0x200A008084012000,
    0x0040102001042084,
    0x840A505042428020,
    0x0000700102202920,
    0x44101C0C10800002,
    0x0040040422000000,
    0x0180020802090202,
    0x4020020811041202,
    0x000104308C042000,
    0x4140661002424400,
    0x0028012008010460,
    0x0188062102002A00,
    0x0014004840102008,
    0x0105000290400002,
    0x8001022200410400,
    0x104A041918013446,
    0x008A000082008238,
    0x04A0060008100430,
    0x0008220008820801,
    0x2508041208005010,
    0x4008080200202020,
    0x2441001013004000,
    0x0030008060407000,
    0x4008108000420800,
    0x0012021050290100,
    0x0210080482200500,
    0xCC01112048100480,
    0x0020402806500440,
    0x00048E0080580080,
    0x0040102020020080,
    0x0028010440080807,
    0x4601041108008800,
    0x8040810E04104200,
    0x901210110400088A,
    0xA003080212081050,
    0x00C1004048401004,
    0x900000A014400800,
    0x0008021040405401,
    0x4020008206002090,
    0x0004190424030100,
    0x0424008A02026250,
    0x8004088250900040,
    0x1C00430088A04200,
    0x0001020094040001,
    0x8040210020880061,
    0x2010040450442032,
    0x0800840850044001,
    0x0004040802140004,
    0x0004080A04222020,
    0x8088802110022000,
    0x1081A10416114400,
    0x0205010A24060820,
    0x0000000720411080,
    0x1008000208430400,
    0x580C026028810840,
    0x802020441020A110,
    0x12C0022401020018,
];

fn build() -> Tables {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let mut attacks = Vec::with_capacity(102_400 + 5_248);
    let rook = find_magics(&ROOK_DIRS, &ROOK_FACTORS, &mut attacks, &mut rng);
    let bishop = find_magics(&BISHOP_DIRS, &BISHOP_FACTORS, &mut attacks, &mut rng);
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
    fn recorded_magic_factors_need_no_search() {
        for (dirs, known) in [(&ROOK_DIRS, &ROOK_FACTORS), (&BISHOP_DIRS, &BISHOP_FACTORS)] {
            // A failing recorded factor would be replaced by a searched one and differ here.
            let mut attacks = Vec::new();
            let magics = find_magics(dirs, known, &mut attacks, &mut XorShift(12345));
            for (m, k) in magics.iter().zip(known.iter()) {
                assert_eq!(m.factor, *k);
            }
        }
    }

    #[test]
    #[ignore]
    fn print_magic_factors() {
        let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
        let mut attacks = Vec::new();
        for dirs in [&ROOK_DIRS, &BISHOP_DIRS] {
            let magics = find_magics(dirs, &[0; 64], &mut attacks, &mut rng);
            let factors: Vec<String> =
                magics.iter().map(|m| format!("0x{:016X}", m.factor)).collect();
            println!("[{}]", factors.join(", "));
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
