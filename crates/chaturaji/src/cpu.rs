//! CPU players: random, greedy capturer, medium (one-turn search) and strong (expectimax over the
//! next seat's dice). Deterministic for a given game and RNG.

use rand::seq::IndexedRandom;
use rand::Rng;

use crate::board::{Board, Role};
use crate::dice::{DiceKind, DieClass};
use crate::game::{Action, Game, Move, Phase};
use crate::seat::{BySeat, Seat};
use crate::settings::DiceUse;

/// The CPU levels are table settings; they live in [`crate::settings`] and are re-exported here.
pub use crate::settings::Level;

/// How many of Medium's best plans Strong looks at more deeply.
const STRONG_CANDIDATES: usize = 12;

/// The next action for the seat to move, or `None` when the game waits for a roll or is over (the
/// caller rolls: dice are the table's, not the player's).
///
/// # Examples
/// ```
/// use maharajah_chaturaji::{cpu, Game, Settings};
/// use rand::SeedableRng;
///
/// let mut game = Game::new(Settings::default()).unwrap();
/// let mut dice = rand_chacha::ChaCha8Rng::seed_from_u64(3);
/// let mut cpu_rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
/// game.roll(&mut dice).unwrap();
/// while let Some(action) = cpu::choose_action(&game, cpu::Level::Strong, &mut cpu_rng) {
///     game.apply(action).unwrap();
///     if game.dice().is_none() { break; }
/// }
/// ```
pub fn choose_action(game: &Game, level: Level, rng: &mut impl Rng) -> Option<Action> {
    if !matches!(game.phase(), Phase::Move { .. }) {
        return None;
    }
    let moves = game.legal_moves();
    if moves.is_empty() {
        return Some(Action::EndTurn);
    }
    let mv = match level {
        Level::Random => moves.choose(rng).copied(),
        Level::Greedy => greedy_move(game, &moves, rng),
        Level::Medium => best_plan(game, 0).first,
        Level::Strong => best_plan(game, STRONG_CANDIDATES).first,
    };
    Some(mv.map_or(Action::EndTurn, Action::Move))
}

fn greedy_move(game: &Game, moves: &[Move], rng: &mut impl Rng) -> Option<Move> {
    let gain = |mv: &Move| game.board().get(mv.to).map_or(0, |p| p.role.value());
    let best = moves.iter().map(gain).max().unwrap_or(0);
    let candidates: Vec<Move> = moves.iter().copied().filter(|mv| gain(mv) == best).collect();
    candidates.choose(rng).copied()
}

/// A way to play the rest of the turn: the first move (none = end the turn now) and the state
/// after the whole plan, before the turn is handed on.
struct Plan {
    first: Option<Move>,
    after: Game,
    value: f64,
}

/// The plan with the best value for the seat to move. With `candidates > 0`, the best
/// `candidates` plans by static value are re-scored by expectimax over the next seat's dice.
fn best_plan(game: &Game, candidates: usize) -> Plan {
    let me = game.to_move();
    let mut plans = enumerate_plans(game);
    for plan in &mut plans {
        plan.value = evaluate(&plan.after, me);
    }
    if candidates > 0 && plans.len() > 1 {
        plans.sort_by(|a, b| b.value.total_cmp(&a.value));
        plans.truncate(candidates.min(STRONG_WORK / (10 * plans.len())).max(2));
        for plan in &mut plans {
            plan.value = expected_after_next_seat(&plan.after, me);
        }
    }
    plans
        .into_iter()
        .reduce(|best, p| if p.value > best.value { p } else { best })
        .unwrap_or_else(|| Plan { first: None, after: game.clone(), value: 0.0 })
}

/// Every plan for the seat to move: each legal move, followed by each legal move of the remaining
/// die; stopping early is included when the table allows it.
fn enumerate_plans(game: &Game) -> Vec<Plan> {
    let me = game.to_move();
    let may_stop = game.settings().dice_use == DiceUse::MayLeaveUnused;
    let mut plans = Vec::new();
    let mut events = Vec::new();
    let moves = game.legal_moves();
    if may_stop || moves.is_empty() {
        plans.push(Plan { first: None, after: game.clone(), value: 0.0 });
    }
    for first in moves {
        let mut g1 = game.clone();
        events.clear();
        g1.play_unchecked(first, &mut events);
        let still_mine = !g1.is_over() && g1.to_move() == me && g1.dice().is_some();
        if !still_mine || may_stop {
            plans.push(Plan { first: Some(first), after: g1.clone(), value: 0.0 });
        }
        if still_mine {
            g1.for_each_legal_move(|second| {
                let mut g2 = g1.clone();
                events.clear();
                g2.play_unchecked(second, &mut events);
                plans.push(Plan { first: Some(first), after: g2, value: 0.0 });
            });
        }
    }
    plans
}

/// Strong's work budget in evaluated replies, which bounds its time per decision: each candidate
/// costs the next seat's ten dice pairs, each answered by a search about as wide as ours.
const STRONG_WORK: usize = 60_000;

/// The expected value for `me` after the next seat's turn: its dice are enumerated exactly (the
/// ten unordered class pairs with their probabilities) and it answers each as Medium would. The
/// seats after it are left to the evaluation's threat terms.
fn expected_after_next_seat(after: &Game, me: Seat) -> f64 {
    let passed = finish_turn(after.clone());
    if passed.is_over() {
        return evaluate(&passed, me);
    }
    let kind = passed.settings().dice;
    let mut total = 0.0;
    for (i, &a) in DieClass::ALL.iter().enumerate() {
        for &b in &DieClass::ALL[i..] {
            let p = kind.probability(a) * kind.probability(b) * if a == b { 1.0 } else { 2.0 };
            let mut reply = passed.clone();
            if reply.roll_with([kind.face_for(a), kind.face_for(b)]).is_err() {
                continue;
            }
            total += p * evaluate(&finish_turn(play_as_medium(reply)), me);
        }
    }
    total
}

/// The state after the seat to move plays its dice as Medium would.
fn play_as_medium(game: Game) -> Game {
    if game.is_over() || game.dice().is_none() {
        return game;
    }
    best_plan(&game, 0).after
}

/// Hands the turn on if the seat to move still holds dice (a plan that stops early).
fn finish_turn(mut game: Game) -> Game {
    if !game.is_over() && game.dice().is_some() && game.end_turn().is_err() {
        // Only reachable if a plan stopped where the table forbids it; time out instead.
        let _ = game.time_out();
    }
    game
}

/// What ending the game in each place is worth, on top of the position's value: a win beats any
/// unfinished position and a last place is worse than any.
const PLACE_BONUS: [f64; 4] = [1000.0, 0.0, -300.0, -1000.0];
/// Extra worth of keeping one's king: it breaks ranking ties and guards against Chaturaji.
const KING_KEPT_BONUS: f64 = 4.0;
/// Weight of material still on the board (it scores nothing by itself but ranks ties and plays on).
const MATERIAL_WEIGHT: f64 = 0.5;
/// Weight of what one may capture next turn.
const OPPORTUNITY_WEIGHT: f64 = 0.3;
/// Weight of what one may capture when one rolls next.
const NEXT_ROLL_OPPORTUNITY_WEIGHT: f64 = 0.8;
/// Weight of the rivals' points (they compete for places).
const RIVAL_POINTS_WEIGHT: f64 = 0.25;

/// The value of a state for `seat`: points, material, kept king, minus the expected loss to the
/// dice the other seats may roll, plus capture chances; a finished game is valued by place.
#[must_use]
pub fn evaluate(game: &Game, seat: Seat) -> f64 {
    let board = game.board();
    let kind = game.settings().dice;
    let scores = game.scores();
    let (threat, chance, place_bonus) = match game.outcome() {
        // A finished game: nothing is threatened any more; the place is what counts.
        Some(outcome) => {
            let place = outcome.standings.iter().find(|s| s.seat == seat).map_or(4, |s| s.place);
            ([0.0; 64], [0.0; 64], PLACE_BONUS[usize::from(place.clamp(1, 4)) - 1])
        }
        None => {
            let movers =
                BySeat::from_fn(|s| s != seat && !game.is_frozen(s) && moves_before(game, s, seat));
            let (threat, chance) = threats(board, seat, kind, movers);
            (threat, chance, 0.0)
        }
    };
    // When `seat` rolls next, its capture chances are close at hand.
    let opportunity = if game.to_move() == seat && game.dice().is_none() {
        NEXT_ROLL_OPPORTUNITY_WEIGHT
    } else {
        OPPORTUNITY_WEIGHT
    };
    let mut value = place_bonus + f64::from(scores[seat]);
    for other in seat.others() {
        value -= RIVAL_POINTS_WEIGHT * f64::from(scores[other]);
    }
    for (square, piece) in board.pieces() {
        let worth = f64::from(piece.role.value())
            + if piece.role == Role::King { KING_KEPT_BONUS } else { 0.0 };
        if piece.seat == seat {
            value += MATERIAL_WEIGHT * worth - worth * threat[square.index()];
            if piece.role == Role::Pawn {
                value += 0.05 * f64::from(pawn_progress(seat, square));
            }
        } else {
            value += opportunity * worth * chance[square.index()];
        }
    }
    value
}

/// Whether `other` moves before `seat` next moves.
fn moves_before(game: &Game, other: Seat, seat: Seat) -> bool {
    let mut at = game.to_move();
    if at == seat {
        // `seat` is finishing its turn: everyone else moves first. At its roll: no one.
        return game.dice().is_some();
    }
    while at != seat {
        if at == other {
            return true;
        }
        at = at.next();
    }
    false
}

/// How far a pawn of `seat` on `square` has come from its seat's side, 0–6.
fn pawn_progress(seat: Seat, square: crate::board::Square) -> u8 {
    let (f, r) = (square.file() as u8, square.rank() as u8);
    match seat {
        Seat::Red => r.saturating_sub(1),
        Seat::Blue => f.saturating_sub(1),
        Seat::Yellow => 6u8.saturating_sub(r),
        Seat::Green => 6u8.saturating_sub(f),
    }
}

/// For every square: the probability that a piece of `seat` there is captured before `seat`'s
/// next turn (each active rival rolls two dice; one attack class suffices), and the probability
/// that `seat` itself can capture what stands there next turn.
fn threats(
    board: &Board,
    seat: Seat,
    kind: DiceKind,
    active: BySeat<bool>,
) -> ([f64; 64], [f64; 64]) {
    // Attack classes as bit sets, per attacking seat and target square.
    let mut masks = [[0u8; 64]; 4];
    for (from, piece) in board.pieces() {
        if !active[piece.seat] && piece.seat != seat {
            continue;
        }
        let bit = class_bit(piece.role);
        let attacker = piece.seat.index();
        board.for_each_target(from, |to| {
            if board.get(to).is_some() {
                masks[attacker][to.index()] |= bit;
            }
        });
    }
    let p_any = |mask: u8| {
        let p: f64 = DieClass::ALL
            .iter()
            .enumerate()
            .filter(|(i, _)| mask & (1 << i) != 0)
            .map(|(_, &c)| kind.probability(c))
            .sum();
        1.0 - (1.0 - p) * (1.0 - p)
    };
    let mut threat = [0.0; 64];
    let mut chance = [0.0; 64];
    for sq in 0..64 {
        let mut safe = 1.0;
        for other in seat.others() {
            let mask = masks[other.index()][sq];
            if mask != 0 && active[other] {
                safe *= 1.0 - p_any(mask);
            }
        }
        threat[sq] = 1.0 - safe;
        let mine = masks[seat.index()][sq];
        if mine != 0 {
            chance[sq] = p_any(mine);
        }
    }
    (threat, chance)
}

fn class_bit(role: Role) -> u8 {
    match role {
        Role::Pawn | Role::King => 1,
        Role::Boat => 2,
        Role::Horse => 4,
        Role::Elephant => 8,
    }
}

/// Plays a whole game with the given player levels, rolling from `dice_rng` and deciding with
/// `cpu_rng`; returns the game and every action taken (a record's steps).
pub fn play_out(
    mut game: Game,
    levels: BySeat<Level>,
    dice_rng: &mut impl Rng,
    cpu_rng: &mut impl Rng,
) -> (Game, Vec<Action>) {
    let mut actions = Vec::new();
    while !game.is_over() {
        let action = match game.phase() {
            Phase::Roll { .. } => {
                let kind = game.settings().dice;
                Action::Roll { dice: [kind.roll(dice_rng), kind.roll(dice_rng)] }
            }
            Phase::Move { seat } => {
                choose_action(&game, levels[seat], cpu_rng).unwrap_or(Action::EndTurn)
            }
            Phase::Over => break,
        };
        match game.apply(action) {
            Ok(_) => actions.push(action),
            // A CPU only proposes legal actions; should one ever be refused, pass the turn so the
            // game still ends.
            Err(_) => {
                if game.time_out().is_ok() {
                    actions.push(Action::TimeOut);
                }
            }
        }
    }
    (game, actions)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Board, Piece, Square};
    use crate::settings::Settings;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn sq(s: &str) -> Square {
        s.parse().expect("test square")
    }

    /// Red can take Blue's king with its elephant (and nothing else is at stake but a pawn).
    fn king_hangs() -> Game {
        let mut board = Board::empty();
        for (s, seat, role) in [
            ("a1", Seat::Red, Role::King),
            ("d4", Seat::Red, Role::Elephant),
            ("d7", Seat::Blue, Role::King),
            ("g4", Seat::Blue, Role::Pawn),
            ("h8", Seat::Yellow, Role::King),
            ("h1", Seat::Green, Role::King),
            ("c5", Seat::Green, Role::Pawn),
        ] {
            board.set(sq(s), Some(Piece { seat, role }));
        }
        let mut game =
            Game::from_position(Settings::default(), board, Some(Seat::Red)).expect("valid");
        game.roll_with([4, 2]).expect("roll");
        game
    }

    #[test]
    fn searching_levels_take_a_hanging_king() {
        for level in [Level::Greedy, Level::Medium, Level::Strong] {
            let game = king_hangs();
            let mut rng = ChaCha8Rng::seed_from_u64(1);
            let action = choose_action(&game, level, &mut rng);
            let expected = Move { die: 0, from: sq("d4"), to: sq("d7") };
            assert_eq!(action, Some(Action::Move(expected)), "{level:?}");
        }
    }

    #[test]
    fn no_action_while_waiting_for_a_roll() {
        let game = Game::new(Settings::default()).expect("valid");
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        assert_eq!(choose_action(&game, Level::Strong, &mut rng), None);
    }

    #[test]
    fn every_level_is_deterministic_and_legal() {
        for level in [Level::Random, Level::Greedy, Level::Medium, Level::Strong] {
            let mut game = Game::new(Settings::default()).expect("valid");
            let mut dice = ChaCha8Rng::seed_from_u64(9);
            // A few turns of each level, checking the same seed gives the same choice.
            for _ in 0..12 {
                if game.is_over() {
                    break;
                }
                if game.dice().is_none() {
                    game.roll(&mut dice).expect("roll");
                    continue;
                }
                let a = choose_action(&game, level, &mut ChaCha8Rng::seed_from_u64(3));
                let b = choose_action(&game, level, &mut ChaCha8Rng::seed_from_u64(3));
                assert_eq!(a, b, "{level:?}");
                let action = a.expect("a move or end of turn");
                assert!(game.legal_actions().contains(&action), "{level:?} chose {action:?}");
                game.apply(action).expect("legal");
            }
        }
    }

    #[test]
    fn evaluation_prefers_a_safe_king() {
        let mut exposed = Board::empty();
        let mut safe = Board::empty();
        for (board, red_king) in [(&mut exposed, "c3"), (&mut safe, "a1")] {
            for (s, seat, role) in [
                (red_king, Seat::Red, Role::King),
                ("e5", Seat::Blue, Role::Boat),
                ("a8", Seat::Blue, Role::King),
                ("h8", Seat::Yellow, Role::King),
                ("h1", Seat::Green, Role::King),
            ] {
                board.set(sq(s), Some(Piece { seat, role }));
            }
        }
        // Blue moves next, so its boat on e5 threatens c3.
        let exposed =
            Game::from_position(Settings::default(), exposed, Some(Seat::Blue)).expect("valid");
        let safe = Game::from_position(Settings::default(), safe, Some(Seat::Blue)).expect("valid");
        assert!(evaluate(&safe, Seat::Red) > evaluate(&exposed, Seat::Red));
    }
}
