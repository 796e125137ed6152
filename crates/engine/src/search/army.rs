//! The computer's Maharajah army: generate candidate 39-point armies, score each one by a short
//! search from the start position against a stand-in opponent (the orthodox army — the real
//! opponent's army is never looked at), and pick among the best with variety set by the level.
//!
//! Candidates put seven pieces on the home rank (prices drawn with weights that favour the
//! pieces strong for their cost, such as the archbishop) and spend the rest on pawns, placed
//! first in front of the king; a few uniformly random armies and the orthodox army join them.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use rand::Rng;

use super::{Level, Limits, Score, Searcher};
use crate::army::{start_position, Army};
use crate::game::Game;
use crate::types::{Color, Role, Square};

/// Candidates scored per level, and how many of the best the pick is drawn from.
const CANDIDATES: [(usize, usize); 8] =
    [(4, 4), (6, 4), (10, 4), (16, 4), (24, 3), (40, 3), (60, 2), (90, 2)];

/// Nodes of the scoring search per candidate.
const SCORE_NODES: u64 = 1_500;

/// Home-rank roles and their drawing weights.
const BACK_ROLES: [(Role, u32); 7] = [
    (Role::Knight, 3),
    (Role::Bishop, 3),
    (Role::Rook, 2),
    (Role::Archbishop, 4),
    (Role::Chancellor, 3),
    (Role::Queen, 1),
    (Role::Maharajah, 2),
];

/// Pawn files in order of preference: the king's shield first.
const PAWN_FILES: [u8; 8] = [4, 3, 5, 2, 6, 1, 0, 7];

/// Builds a legal 39-point army for `color` at `level`; deterministic for a given `rng` state.
///
/// Stronger levels score more candidates and pick among fewer of the best; level 1 takes any of
/// a handful of sensible candidates. Takes a few tenths of a second at level 8 (release build).
#[must_use]
pub fn build_army(color: Color, level: Level, rng: &mut impl Rng) -> Army {
    let (count, top) = CANDIDATES[usize::from(level.number() - 1)];
    let mut candidates = vec![Army::orthodox(Color::White)];
    while candidates.len() < count {
        let army = if rng.random_range(0..8) == 0 {
            Army::random(Color::White, rng)
        } else {
            candidate(rng)
        };
        if army.validate().is_ok() {
            candidates.push(army);
        }
    }
    let opponent = Army::orthodox(Color::Black);
    let mut searcher = Searcher::new(1);
    let stop = AtomicBool::new(false);
    let mut scored: Vec<(i32, Army)> = candidates
        .into_iter()
        .filter_map(|army| {
            let pos = start_position(&army, &opponent).ok()?;
            searcher.clear();
            let r = searcher.think(
                &Game::new(pos),
                &Limits { depth: Some(3), nodes: Some(SCORE_NODES), ..Limits::default() },
                &stop,
                &|| Duration::ZERO,
                &mut |_| {},
            );
            let score = match r.score {
                Score::Cp(cp) => cp,
                Score::Mate(n) if n > 0 => 10_000,
                Score::Mate(_) => -10_000,
            };
            Some((score, army))
        })
        .collect();
    scored.sort_by_key(|s| std::cmp::Reverse(s.0));
    let pick = rng.random_range(0..top.min(scored.len()).max(1));
    let army = scored.into_iter().nth(pick).map_or_else(|| Army::orthodox(Color::White), |s| s.1);
    if color == Color::White {
        army
    } else {
        army.mirrored()
    }
}

/// One candidate White army: seven weighted home-rank pieces, the rest of the budget in pawns.
fn candidate(rng: &mut impl Rng) -> Army {
    let total_weight: u32 = BACK_ROLES.iter().map(|(_, w)| w).sum();
    for _ in 0..200 {
        let mut back = [Role::Knight; 7];
        for slot in &mut back {
            let mut x = rng.random_range(0..total_weight);
            for (role, w) in BACK_ROLES {
                if x < w {
                    *slot = role;
                    break;
                }
                x -= w;
            }
        }
        let cost: u32 = back.iter().map(|r| r.cost()).sum();
        if cost > 39 || 39 - cost < 3 || 39 - cost > 16 {
            continue;
        }
        let pawns = (39 - cost) as usize;
        // Shuffle the home rank.
        for i in (1..back.len()).rev() {
            back.swap(i, rng.random_range(0..=i));
        }
        let mut army = Army::new(Color::White);
        let files = [0u8, 1, 2, 3, 5, 6, 7];
        for (f, role) in files.into_iter().zip(back) {
            army.set(square(f, 0), Some(role));
        }
        // Pawns: rank 2 in shield-first order with a little shuffling, the rest on rank 3.
        let mut order = PAWN_FILES;
        for i in 0..order.len() - 1 {
            if rng.random_range(0..3) == 0 {
                order.swap(i, i + 1);
            }
        }
        for f in order.into_iter().take(pawns.min(8)) {
            army.set(square(f, 1), Some(Role::Pawn));
        }
        let mut rank3 = PAWN_FILES;
        for i in (1..rank3.len()).rev() {
            rank3.swap(i, rng.random_range(0..=i));
        }
        for f in rank3.into_iter().take(pawns.saturating_sub(8)) {
            army.set(square(f, 2), Some(Role::Pawn));
        }
        return army;
    }
    Army::orthodox(Color::White)
}

fn square(file: u8, rank: u8) -> Square {
    Square::from_coords(file, rank).unwrap_or(Square::A1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn armies_are_legal_for_both_colours_and_every_level() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for n in [1, 4] {
            for color in Color::ALL {
                let army = build_army(color, Level::new(n), &mut rng);
                assert_eq!(army.color(), color);
                assert_eq!(army.validate(), Ok(()), "{army}");
            }
        }
        for _ in 0..50 {
            assert_eq!(candidate(&mut rng).validate(), Ok(()));
        }
    }

    #[test]
    fn same_seed_same_army() {
        let a = build_army(Color::Black, Level::new(3), &mut rand::rngs::StdRng::seed_from_u64(1));
        let b = build_army(Color::Black, Level::new(3), &mut rand::rngs::StdRng::seed_from_u64(1));
        assert_eq!(a, b);
    }
}
