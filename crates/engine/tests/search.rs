//! Search tests: mates (orthodox, compound pieces, Horde) checked against an exhaustive solver,
//! material wins, legality of the best move over random positions of every variant, the stop
//! flag, injected time, determinism under a node limit, and the levels.
#![allow(clippy::unwrap_used)]

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use maharajah_engine::search::{pick_move_for_level, Level, Limits, Score, SearchResult, Searcher};
use maharajah_engine::{Army, Color, Game, Move, Outcome, Position, Variant};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn pos(variant: Variant, fen: &str) -> Position {
    Position::from_fen(variant, fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn think(position: &Position, limits: Limits) -> SearchResult {
    think_with(&mut Searcher::new(4), position, limits)
}

fn think_with(searcher: &mut Searcher, position: &Position, limits: Limits) -> SearchResult {
    let stop = AtomicBool::new(false);
    searcher.think(&Game::new(position.clone()), &limits, &stop, &|| Duration::ZERO, &mut |_| {})
}

/// Runs an infinite search of `p` on another thread, raises the stop flag after `wait` and
/// returns the result and how long the whole took.
fn stopped_after(mut searcher: Searcher, p: &Position, wait: Duration) -> (SearchResult, Duration) {
    let stop = AtomicBool::new(false);
    let start = std::time::Instant::now();
    let r = std::thread::scope(|s| {
        let h = s.spawn(|| {
            searcher.think(
                &Game::new(p.clone()),
                &Limits::infinite(),
                &stop,
                &|| start.elapsed(),
                &mut |_| {},
            )
        });
        std::thread::sleep(wait);
        stop.store(true, Ordering::Relaxed);
        h.join().unwrap()
    });
    (r, start.elapsed())
}

/// The search's answer is right for a mate in `n`: that score, and a move that mates (n = 1) or
/// leaves the opponent no escape (n > 1, checked by the solver).
fn assert_mates(p: &Position, r: &SearchResult, n: i32, what: &str) {
    assert_eq!(r.score, Score::Mate(n), "{what}: {r:?}");
    let best = r.best_move.unwrap();
    assert!(p.is_legal(best), "{what}: {best}");
    let mut after = p.clone();
    after.play_unchecked(best);
    assert!(
        n == 1 && matches!(after.outcome(), Some(Outcome::Decisive { .. }))
            || n > 1 && !forced_win(&after, 1) && forced_win(p, n as u32),
        "{what}: {best}"
    );
}

/// The best move and the whole PV are legal; no move only when there is none.
fn check_legal_answer(p: &Position, r: &SearchResult) -> Result<(), TestCaseError> {
    match r.best_move {
        Some(m) => {
            prop_assert!(p.is_legal(m), "{} {}", p, m);
            let mut q = p.clone();
            for mv in &r.pv {
                prop_assert!(q.is_legal(*mv), "pv {:?} in {}", r.pv, p);
                q.play_unchecked(*mv);
            }
        }
        None => prop_assert!(p.legal_moves().is_empty()),
    }
    Ok(())
}

/// `true` if the side to move can force a win (mate or capture-all) within `n` of its moves.
/// Plain minimax over legal moves: independent of the search under test.
fn forced_win(p: &Position, n: u32) -> bool {
    let me = p.turn();
    p.legal_moves().iter().any(|&m| {
        let mut q = p.clone();
        q.play_unchecked(m);
        match q.outcome() {
            Some(Outcome::Decisive { winner, .. }) => winner == me,
            Some(Outcome::Draw { .. }) => false,
            None => {
                n > 1
                    && q.legal_moves().iter().all(|&r| {
                        let mut s = q.clone();
                        s.play_unchecked(r);
                        forced_win(&s, n - 1)
                    })
            }
        }
    })
}

/// Positions with a forced win in exactly `n` moves for the side to move.
const MATES: [(Variant, &str, i32); 11] = [
    // Orthodox back-rank mate.
    (Variant::Chess, "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", 1),
    // The classic 1.Ra6 bxa6 2.b7#.
    (Variant::Chess, "kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1", 2),
    // Archbishop: a smothered mate with its knight half.
    (Variant::Maharajah, "6rk/6pp/3A4/8/8/8/8/6K1 w - - 0 1", 1),
    // Chancellor: back rank with its rook half.
    (Variant::Maharajah, "6k1/5ppp/8/8/8/8/8/C5K1 w - - 0 1", 1),
    // Black's chancellor mates.
    (Variant::Maharajah, "c3k3/8/8/8/8/8/5PPP/6K1 b - - 0 1", 1),
    // Maharajah: a discovered check by the king, then mate.
    (Variant::Maharajah, "k7/8/2K5/8/8/8/8/7M w - - 0 1", 2),
    // Chancellor and king against king.
    (Variant::Maharajah, "6k1/8/5K2/8/8/8/8/2C5 w - - 0 1", 2),
    // Archbishop and king against king.
    (Variant::Maharajah, "7k/8/6K1/8/8/8/8/1A6 w - - 0 1", 3),
    // Horde: Black wins by capturing the last white pawn.
    (Variant::Horde, "4k3/8/8/8/8/8/3P4/3r4 b - - 0 1", 1),
    // Horde: White's pawns promote with mate.
    (Variant::Horde, "7k/5P1P/6P1/8/8/8/8/8 w - - 0 1", 1),
    (Variant::Horde, "6k1/4P1P1/5P2/8/8/8/8/8 w - - 0 1", 3),
];

#[test]
fn mates_are_found_and_agree_with_the_solver() {
    for (variant, fen, n) in MATES {
        let p = pos(variant, fen);
        let solver_n = (1..=n as u32).find(|&k| forced_win(&p, k));
        let r = think(&p, Limits::depth(2 * n as u32 + 1));
        // The solver is the referee: report both if they disagree.
        assert_eq!(solver_n, Some(n as u32), "solver on {fen}");
        assert_mates(&p, &r, n, fen);
    }
}

#[test]
fn searcher_can_move_to_a_worker_thread() {
    fn assert_send<T: Send + 'static>() {}
    assert_send::<Searcher>();
}

#[test]
fn a_hanging_compound_piece_is_taken() {
    let cases = [
        (Variant::Maharajah, "4k3/8/8/3c4/8/8/8/3RK3 w - - 0 1", "d1d5"),
        // (White has a pawn to win with: a lone minor piece against pawns is a draw, and the
        // evaluation scores it so.)
        (Variant::Maharajah, "4k3/7p/2m5/8/3N4/8/P7/4K3 w - - 0 1", "d4c6"),
        (Variant::Maharajah, "4k3/pp6/8/1a6/8/8/4B2P/4K3 w - - 0 1", "e2b5"),
    ];
    for (variant, fen, expected) in &cases {
        let r = think(&pos(*variant, fen), Limits::depth(4));
        let best = r.best_move.unwrap().to_string();
        let p = pos(*variant, fen);
        let mv: Move = best.parse().unwrap();
        assert!(p.is_capture(mv), "{fen}: {best} (expected a capture like {expected})");
        assert!(matches!(r.score, Score::Cp(cp) if cp > 0), "{fen}: {r:?}");
    }
}

#[test]
fn node_limited_search_is_deterministic() {
    let p =
        pos(Variant::Chess, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    let a = think(&p, Limits::nodes(20_000));
    let b = think(&p, Limits::nodes(20_000));
    assert_eq!(a, b);
    assert_eq!(a.nodes, 20_000);
}

#[test]
fn stop_flag_set_before_returns_a_legal_move_at_once() {
    let p = Position::new(Variant::Horde);
    let stop = AtomicBool::new(true);
    let r = Searcher::new(1).think(
        &Game::new(p.clone()),
        &Limits::infinite(),
        &stop,
        &|| Duration::ZERO,
        &mut |_| {},
    );
    assert!(r.nodes <= 2048, "{}", r.nodes);
    assert!(p.is_legal(r.best_move.unwrap()));
}

#[test]
fn stop_flag_from_another_thread_ends_an_infinite_search() {
    let p = Position::new(Variant::Chess);
    let (r, took) = stopped_after(Searcher::new(1), &p, Duration::from_millis(100));
    assert!(took < Duration::from_secs(2), "{took:?}");
    assert!(p.is_legal(r.best_move.unwrap()));
}

#[test]
fn movetime_is_read_from_the_injected_clock() {
    // A fake clock that advances 5 ms per look: a 200 ms move time ends the search after a
    // few dozen looks, whatever the machine's speed.
    let t = Cell::new(Duration::ZERO);
    let elapsed = || {
        t.set(t.get() + Duration::from_millis(5));
        t.get()
    };
    let p = Position::new(Variant::Chess);
    let stop = AtomicBool::new(false);
    let r = Searcher::new(1).think(
        &Game::new(p.clone()),
        &Limits::movetime(Duration::from_millis(200)),
        &stop,
        &elapsed,
        &mut |_| {},
    );
    assert!(t.get() <= Duration::from_millis(400), "{:?}", t.get());
    assert!(p.is_legal(r.best_move.unwrap()));
}

#[test]
fn levels_pick_legal_moves_reproducibly() {
    let p = Position::new(Variant::Chess);
    let game = Game::new(p.clone());
    let stop = AtomicBool::new(false);
    for n in 1..=8u8 {
        let level = Level::new(n);
        let limits = Limits { movetime: None, nodes: Some(3_000), ..level.search_limits() };
        let pick = |seed| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            pick_move_for_level(
                &mut Searcher::new(1),
                &game,
                level,
                &limits,
                &mut rng,
                &stop,
                &|| Duration::ZERO,
                &mut |_| {},
            )
        };
        let (a, b) = (pick(3), pick(3));
        assert_eq!(a.best_move, b.best_move, "level {n}");
        assert!(p.is_legal(a.best_move.unwrap()));
    }
    // Level 1 varies its opening moves with the seed.
    let level = Level::WEAKEST;
    let moves: std::collections::HashSet<Move> = (0..12)
        .filter_map(|seed| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            pick_move_for_level(
                &mut Searcher::new(1),
                &game,
                level,
                &level.search_limits(),
                &mut rng,
                &stop,
                &|| Duration::ZERO,
                &mut |_| {},
            )
            .best_move
        })
        .collect();
    assert!(moves.len() >= 3, "{moves:?}");
}

/// A random position of `variant`: the start (random armies for Maharajah) plus random moves.
fn random_position(variant: Variant, seed: u64, plies: usize) -> Position {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut p = match variant {
        Variant::Maharajah => loop {
            let w = Army::random(Color::White, &mut rng);
            let b = Army::random(Color::Black, &mut rng);
            if let Ok(p) = maharajah_engine::start_position(&w, &b) {
                break p;
            }
        },
        v => Position::new(v),
    };
    for _ in 0..plies {
        let moves = p.legal_moves();
        if moves.is_empty() || p.outcome().is_some() {
            break;
        }
        p.play_unchecked(moves[rng.random_range(0..moves.len())]);
    }
    p
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn best_move_is_always_legal(seed in any::<u64>(), plies in 0usize..80, v in 0usize..3, nodes in 1u64..3_000) {
        let variant = [Variant::Chess, Variant::Maharajah, Variant::Horde][v];
        let p = random_position(variant, seed, plies);
        let r = think(&p, Limits::nodes(nodes));
        check_legal_answer(&p, &r)?;
    }
}

/// A searcher with `threads` threads (Lazy SMP) and a small table.
fn smp(threads: usize) -> Searcher {
    let mut s = Searcher::new(4);
    s.set_threads(threads);
    assert_eq!(s.threads(), threads);
    s
}

#[test]
fn several_threads_find_the_same_mates() {
    for threads in [2, 4] {
        let mut searcher = smp(threads);
        for (variant, fen, n) in MATES {
            let p = pos(variant, fen);
            searcher.clear();
            let r = think_with(&mut searcher, &p, Limits::depth(2 * n as u32 + 1));
            assert_mates(&p, &r, n, &format!("{threads} threads, {fen}"));
        }
    }
}

#[test]
fn helper_threads_search_and_their_nodes_count() {
    // Depth-limited: the helpers run until the main thread finishes its last iteration, and
    // their nodes are added to the result's.
    let p = Position::new(Variant::Maharajah);
    let stop = AtomicBool::new(false);
    let one = think(&p, Limits::depth(7));
    let mut reported = 0;
    let two = smp(2).think(
        &Game::new(p.clone()),
        &Limits::depth(7),
        &stop,
        &|| Duration::ZERO,
        &mut |i| reported = i.nodes,
    );
    assert_eq!(two.depth, 7);
    assert!(p.is_legal(two.best_move.unwrap()));
    // The last report counted every thread's published nodes; the result adds the rest.
    assert!(reported > 0 && two.nodes >= reported, "{} vs reported {reported}", two.nodes);
    // A one-thread search to depth 7 is deterministic; with a helper sharing the table the
    // count cannot come out the same unless the helper did nothing.
    assert_ne!(two.nodes, one.nodes, "two threads searched exactly like one");
}

#[test]
fn a_node_limit_counts_every_thread() {
    let p = Position::new(Variant::Chess);
    let r = think_with(&mut smp(2), &p, Limits::nodes(200_000));
    // The main thread stops once the total (its own + the helper's published count) reaches the
    // limit; the helper stops within one poll interval after that.
    assert!(r.nodes >= 100_000 && r.nodes <= 200_000 + 4 * 1024, "{}", r.nodes);
    assert!(p.is_legal(r.best_move.unwrap()));
}

#[test]
fn stop_flag_ends_a_multi_threaded_infinite_search() {
    let p = Position::new(Variant::Horde);
    let (r, took) = stopped_after(smp(3), &p, Duration::from_millis(150));
    assert!(took < Duration::from_secs(2), "{took:?}");
    assert!(p.is_legal(r.best_move.unwrap()));
    assert!(r.nodes > 0);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn best_move_is_always_legal_with_helper_threads(seed in any::<u64>(), plies in 0usize..80, v in 0usize..3, nodes in 1u64..20_000) {
        let variant = [Variant::Chess, Variant::Maharajah, Variant::Horde][v];
        let p = random_position(variant, seed, plies);
        let r = think_with(&mut smp(2), &p, Limits::nodes(nodes));
        check_legal_answer(&p, &r)?;
    }
}
