//! Static evaluation for the search: material, piece placement, mobility, king safety, pawn
//! structure and Horde terms, tapered between middlegame and endgame. Scores are centipawns
//! from the side to move's point of view.
//!
//! # How the weights were chosen
//! They are hand-set, not machine-tuned: standard engine defaults for the orthodox terms, the
//! published self-play results below for the compound pieces, and two checks in this crate —
//! the Horde start must evaluate near balance (unit test) and the self-play runs recorded in
//! BENCHMARKS.md (level ladder; army builder against random armies) must come out sensibly.
//! A proper tuning run (Texel-style fitting on self-play positions) is future work.
//! * **Material** starts from the army-builder costs (pawn 1 … Maharajah 13) but the costs are
//!   prices, not strengths: they undervalue the archbishop and chancellor. The compound values
//!   follow H. G. Muller's computer self-play studies of Capablanca pieces (archbishop and
//!   chancellor close to a queen, far above their 6 and 8 point prices) and Fairy-Stockfish's
//!   amazon, worth clearly more than a queen and a half-knight; the orthodox values are the
//!   usual 100/320/330/480–530/950.
//! * **Mobility** is counted per movement atom (knight leap, diagonal slide, orthogonal slide),
//!   so a compound piece's mobility is the sum of its halves with the same per-atom weights as
//!   the orthodox pieces — no separate table per compound piece.
//! * **King safety** weighs each enemy attacker of the king zone by how many atoms reach into
//!   it (a Maharajah counts as queen + knight) and squares the total, as in most engines, plus a
//!   pawn-shield term. Only the middlegame half uses it.
//! * **Horde**: a side without a king (its rules say `has_king == false`) owns only pawns at the
//!   start, and every pawn is a potential queen and the side's only shield; its pawns are worth
//!   more (1.05 / 1.25 pawns), pawns defended by a pawn more again, and isolated ones are
//!   penalised harder, so the Horde start evaluates near balance (as practical results say)
//!   rather than −11 pawns, and the king side is rewarded for breaking the horde into islands.
//!   Doubled pawns cost the horde little: it is stacked by design.
//! * **Mop-up**: with a winning material lead and no enemy pawns, drive the lone king to the
//!   edge and bring the own king close, so the compound pieces' mates are found.

use crate::attacks::{bishop_attacks, king_attacks, knight_attacks, rook_attacks};
use crate::position::Position;
use crate::types::{Bitboard, Color, Role, Square};

/// Middlegame and endgame material of each role (index = [`Role::index`]).
pub const MATERIAL: [(i32, i32); 9] = [
    (100, 120),   // pawn
    (320, 300),   // knight
    (330, 320),   // bishop
    (480, 530),   // rook
    (950, 960),   // queen
    (0, 0),       // king
    (850, 860),   // archbishop
    (900, 940),   // chancellor
    (1280, 1320), // Maharajah
];

/// Pawn value of a side without a king (Horde's White), middlegame and endgame.
const KINGLESS_PAWN: (i32, i32) = (105, 125);

/// Every role but the pawn, in evaluation order.
const PIECE_ROLES: [Role; 8] = [
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
    Role::King,
    Role::Archbishop,
    Role::Chancellor,
    Role::Maharajah,
];

/// Game-phase weight of each role; the phase is full (middlegame) at [`PHASE_MAX`].
const PHASE: [i32; 9] = [0, 1, 1, 2, 4, 0, 3, 3, 5];
const PHASE_MAX: i32 = 24;

/// Mobility per safe square, per movement atom: (mg, eg).
const MOB_KNIGHT: (i32, i32) = (4, 4);
const MOB_DIAG: (i32, i32) = (4, 5);
const MOB_ORTH: (i32, i32) = (2, 4);

/// King-zone attack units per role.
const KING_ATTACK: [i32; 9] = [0, 2, 2, 3, 5, 0, 4, 5, 7];

const PASSED_MG: [i32; 8] = [0, 5, 10, 15, 30, 50, 80, 0];
const PASSED_EG: [i32; 8] = [0, 10, 20, 35, 60, 100, 150, 0];
const PAWN_ADVANCE: [i32; 8] = [0, 0, 3, 6, 12, 20, 30, 0];
const TEMPO: i32 = 10;

const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = FILE_A << 7;

/// Value of `role` for move ordering and pruning margins (middlegame material).
#[inline]
#[must_use]
pub const fn role_value(role: Role) -> i32 {
    MATERIAL[role as usize].0
}

/// Centralisation of a square: 5 in the centre, −1 in the corners.
#[inline]
fn center(sq: Square) -> i32 {
    let f = i32::from(sq.file());
    let r = i32::from(sq.rank());
    6 - ((2 * f - 7).abs() + (2 * r - 7).abs()) / 2
}

/// Squares attacked by all pawns of `color` in `pawns`.
#[inline]
#[must_use]
pub fn pawn_attacks_bb(color: Color, pawns: Bitboard) -> Bitboard {
    let p = pawns.0;
    Bitboard(match color {
        Color::White => ((p & !FILE_H) << 9) | ((p & !FILE_A) << 7),
        Color::Black => ((p & !FILE_A) >> 9) | ((p & !FILE_H) >> 7),
    })
}

/// Files adjacent to `file` (not the file itself).
#[inline]
fn adjacent_files(file: u8) -> u64 {
    let f = FILE_A << file;
    ((f & !FILE_H) << 1) | ((f & !FILE_A) >> 1)
}

/// Squares strictly in front of `sq` (from `color`'s view) on the given files.
#[inline]
fn front_span(color: Color, sq: Square, files: u64) -> u64 {
    let r = u32::from(sq.rank());
    let ahead = match color {
        Color::White => {
            if r >= 7 {
                0
            } else {
                !0u64 << (8 * (r + 1))
            }
        }
        Color::Black => {
            if r == 0 {
                0
            } else {
                !0u64 >> (8 * (8 - r))
            }
        }
    };
    ahead & files
}

/// A middlegame/endgame score pair.
#[derive(Clone, Copy, Default)]
struct S(i32, i32);

impl std::ops::AddAssign for S {
    fn add_assign(&mut self, o: S) {
        self.0 += o.0;
        self.1 += o.1;
    }
}

impl std::ops::SubAssign for S {
    fn sub_assign(&mut self, o: S) {
        self.0 -= o.0;
        self.1 -= o.1;
    }
}

/// Static evaluation of `pos` in centipawns from the side to move's point of view.
///
/// Pure and deterministic; it does not detect mate or stalemate (the search does).
#[must_use]
pub fn evaluate(pos: &Position) -> i32 {
    let mut score = S::default();
    let mut phase = 0;
    let mut material = [0i32; 2];
    for color in Color::ALL {
        let s = side(pos, color, &mut phase, &mut material);
        if color == Color::White {
            score += s;
        } else {
            score -= s;
        }
    }
    let phase = phase.min(PHASE_MAX);
    let mut v = (score.0 * phase + score.1 * (PHASE_MAX - phase)) / PHASE_MAX;
    v += mop_up(pos, material);
    let v = if pos.turn() == Color::White { v } else { -v };
    v + TEMPO
}

/// Everything that belongs to one side, as a White-positive pair for `color`.
fn side(pos: &Position, us: Color, phase: &mut i32, material: &mut [i32; 2]) -> S {
    let them = us.other();
    let ours = pos.by_color(us);
    let theirs = pos.by_color(them);
    let occ = pos.occupied();
    let pawns = pos.by_role(Role::Pawn);
    let our_pawns = pawns & ours;
    let their_pawns = pawns & theirs;
    let their_pawn_attacks = pawn_attacks_bb(them, their_pawns);
    let kingless = !pos.rules().side(us).has_king;
    let their_king = pos.king_of(them);
    let king_zone = their_king.map_or(Bitboard::EMPTY, |k| {
        let z = king_attacks(k).with(k);
        z | z.forward(them)
    });
    let mut s = S::default();
    let mut attack_units = 0;
    let mut attackers = 0;
    let safe = !ours & !their_pawn_attacks;

    // Pieces.
    let mut bishops_light = false;
    let mut bishops_dark = false;
    for (sq, role) in PIECE_ROLES
        .into_iter()
        .flat_map(|role| (pos.by_role(role) & ours).map(move |sq| (sq, role)))
    {
        let (mg, eg) = MATERIAL[role.index()];
        s += S(mg, eg);
        material[us as usize] += mg;
        *phase += PHASE[role.index()];
        if role == Role::King {
            continue;
        }
        let atoms = role.atoms();
        let mut zone_hits = 0;
        let rel = sq.relative(us);
        if atoms.knight {
            let a = knight_attacks(sq);
            let n = (a & safe).count() as i32;
            s += S(MOB_KNIGHT.0 * n, MOB_KNIGHT.1 * n);
            let c = center(sq);
            s += S(5 * c - 10, 3 * c - 6);
            zone_hits += (a & king_zone).count();
        }
        if atoms.diagonal {
            let a = bishop_attacks(sq, occ);
            let n = (a & safe).count() as i32;
            s += S(MOB_DIAG.0 * n, MOB_DIAG.1 * n);
            zone_hits += (a & king_zone).count();
        }
        if atoms.orthogonal {
            let a = rook_attacks(sq, occ);
            let n = (a & safe).count() as i32;
            s += S(MOB_ORTH.0 * n, MOB_ORTH.1 * n);
            zone_hits += (a & king_zone).count();
            let file = Bitboard::file(sq.file()).0;
            if file & our_pawns.0 == 0 {
                s += if file & their_pawns.0 == 0 { S(20, 10) } else { S(10, 5) };
            }
            if rel.rank() == 6 {
                s += S(10, 20);
            }
        }
        if role == Role::Bishop {
            if sq.is_light() {
                bishops_light = true;
            } else {
                bishops_dark = true;
            }
        }
        if zone_hits > 0 {
            attackers += 1;
            attack_units += KING_ATTACK[role.index()] + zone_hits as i32;
        }
    }
    if bishops_light && bishops_dark {
        s += S(30, 50);
    }
    if attackers >= 2 {
        let danger = (attack_units * attack_units * attackers.min(4) / 8).min(600);
        s += S(danger, danger / 8);
    }

    // Pawns.
    let pawn_value = if kingless { KINGLESS_PAWN } else { MATERIAL[0] };
    let our_pawn_attacks = pawn_attacks_bb(us, our_pawns);
    for sq in our_pawns {
        s += S(pawn_value.0, pawn_value.1);
        material[us as usize] += pawn_value.0;
        let rel = usize::from(sq.relative(us).rank());
        let c = center(sq);
        s += S(PAWN_ADVANCE[rel] + if c >= 4 && rel >= 3 { 8 } else { 0 }, PAWN_ADVANCE[rel]);
        let file = sq.file();
        let adj = adjacent_files(file);
        let own_file = FILE_A << file;
        if our_pawns.0 & adj == 0 {
            s -= if kingless { S(18, 22) } else { S(10, 15) };
        }
        if front_span(us, sq, own_file) & our_pawns.0 != 0 {
            s -= if kingless { S(4, 8) } else { S(10, 20) };
        }
        if front_span(us, sq, own_file | adj) & their_pawns.0 == 0 {
            let mut mg = PASSED_MG[rel];
            let mut eg = PASSED_EG[rel];
            if front_span(us, sq, own_file) & occ.0 != 0 {
                mg /= 2;
                eg /= 2;
            }
            s += S(mg, eg);
        }
        if kingless && our_pawn_attacks.contains(sq) {
            s += S(8, 10);
        }
    }

    // Our king: pawn shield and placement.
    if let Some(k) = pos.king_of(us) {
        let rel = k.relative(us);
        let c = center(k);
        s += S(if rel.rank() == 0 { 0 } else { -15 * i32::from(rel.rank().min(3)) }, 4 * c);
        if rel.rank() <= 1 {
            let files = adjacent_files(k.file()) | (FILE_A << k.file());
            let near = front_span(us, k, files);
            let one = Bitboard(near & king_attacks(k).0);
            let shield = (our_pawns & one).count() as i32;
            let two = (Bitboard(near) & our_pawns & !one).count() as i32;
            s += S(12 * shield + 5 * two, 0);
            for f in [k.file().saturating_sub(1), k.file(), (k.file() + 1).min(7)] {
                if Bitboard::file(f).0 & our_pawns.0 == 0 {
                    s -= S(12, 0);
                }
            }
        }
    }
    s
}

/// Endgame help: with a material lead of a minor piece or more and no enemy pawns, push the
/// weaker king to the edge and bring the stronger king close. White-positive.
fn mop_up(pos: &Position, material: [i32; 2]) -> i32 {
    let diff = material[0] - material[1];
    if diff.abs() < 300 {
        return 0;
    }
    let (strong, weak) =
        if diff > 0 { (Color::White, Color::Black) } else { (Color::Black, Color::White) };
    if (pos.by_role(Role::Pawn) & pos.by_color(weak)).any() {
        return 0;
    }
    let Some(wk) = pos.king_of(weak) else { return 0 };
    let mut bonus = 10 * (5 - center(wk));
    if let Some(sk) = pos.king_of(strong) {
        let d = i32::from(sk.file().abs_diff(wk.file()).max(sk.rank().abs_diff(wk.rank())));
        bonus += 6 * (7 - d);
    }
    if strong == Color::White {
        bonus
    } else {
        -bonus
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Variant;

    fn eval(variant: Variant, fen: &str) -> i32 {
        evaluate(&Position::from_fen(variant, fen).expect("test FEN is valid"))
    }

    #[test]
    fn start_positions_are_near_balance() {
        let chess = evaluate(&Position::new(Variant::Chess));
        assert!(chess.abs() < 40, "{chess}");
        let horde = evaluate(&Position::new(Variant::Horde));
        assert!(horde.abs() < 250, "horde start {horde}");
    }

    #[test]
    fn symmetric_positions_differ_only_by_tempo() {
        let w = eval(Variant::Maharajah, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/AACAKBN1 w - - 0 1");
        let b = eval(Variant::Maharajah, "aacakbn1/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b - - 0 1");
        assert_eq!(w, b);
    }

    #[test]
    fn compound_pieces_outrank_their_parts() {
        assert!(
            role_value(Role::Maharajah) > role_value(Role::Queen) + role_value(Role::Knight) / 2
        );
        assert!(role_value(Role::Chancellor) > role_value(Role::Rook) + role_value(Role::Knight));
        assert!(role_value(Role::Archbishop) > role_value(Role::Bishop) + role_value(Role::Knight));
        let up = eval(Variant::Maharajah, "4k3/8/8/8/8/8/8/M3K3 w - - 0 1");
        assert!(up > 1000, "{up}");
    }
}
