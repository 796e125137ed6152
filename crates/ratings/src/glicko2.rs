//! Glicko-2: Mark Glickman, "Example of the Glicko-2 system" (2013), steps 1–8, plus the
//! fractional rating periods lichess uses for instant updates (the deviation grows by the
//! periods elapsed since the player's last rated game, not by exactly one).

use serde::{Deserialize, Serialize};

/// Glicko-2's scale factor between the Glicko scale (1500 ± RD) and its internal one (0 ± φ).
const SCALE: f64 = 173.7178;

/// The convergence tolerance of the volatility iteration (step 5 of the paper).
const EPSILON: f64 = 0.000_001;

/// The system constant τ (how much the volatility may change): Glickman suggests 0.3–1.2; his
/// worked example uses 0.5.
pub const DEFAULT_TAU: f64 = 0.5;

/// The deviation of a new player, and the most that inactivity can grow a deviation to
/// (Glickman's 350: a long-idle player is as uncertain as a new one, not more).
pub const MAX_DEVIATION: f64 = 350.0;

/// Smallest deviation a rating keeps (lichess's floor of 45: certainty is never total, so a
/// regular player's rating still moves).
pub const MIN_DEVIATION: f64 = 45.0;

/// Above this deviation a rating is provisional (lichess's threshold, 110: shown with a `?`,
/// and left out of leaderboards).
pub const PROVISIONAL_DEVIATION: f64 = 110.0;

/// One player's Glicko-2 rating on the Glicko scale.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    /// The rating, 1500 for a new player.
    pub rating: f64,
    /// The rating deviation (RD): the uncertainty, 350 for a new player.
    pub deviation: f64,
    /// The volatility σ: how erratic the player's results are, 0.06 for a new player.
    pub volatility: f64,
}

impl Default for Rating {
    /// A new player: 1500, RD 350, volatility 0.06 (Glickman's defaults).
    fn default() -> Rating {
        Rating { rating: 1500.0, deviation: MAX_DEVIATION, volatility: 0.06 }
    }
}

/// One game's result against one opponent, for [`Rating::update`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Game {
    /// The opponent's rating before the period.
    pub opponent: Rating,
    /// The player's score: 1 for a win, 0.5 for a draw, 0 for a loss.
    pub score: f64,
}

/// Glicko-2's g(φ).
fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (std::f64::consts::PI * std::f64::consts::PI)).sqrt()
}

/// Glicko-2's E(μ, μj, φj): the expected score against the opponent.
fn expected(mu: f64, mu_j: f64, phi_j: f64) -> f64 {
    1.0 / (1.0 + (-g(phi_j) * (mu - mu_j)).exp())
}

impl Rating {
    /// Whether the deviation is above [`PROVISIONAL_DEVIATION`].
    #[must_use]
    pub fn is_provisional(&self) -> bool {
        self.deviation > PROVISIONAL_DEVIATION
    }

    /// The rating after `periods` rating periods without a game (step 6 of the paper for a
    /// player who did not compete, applied `periods` times, fractions allowed): the deviation
    /// grows to `sqrt(RD² + periods × (σ × 173.7178)²)`, at most [`MAX_DEVIATION`]; the rating
    /// and the volatility stay.
    ///
    /// # Examples
    ///
    /// ```
    /// use maharajah_ratings::Rating;
    /// let r = Rating { rating: 1700.0, deviation: 60.0, volatility: 0.06 };
    /// let idle = r.after_inactivity(10.0);
    /// assert_eq!(idle.rating, 1700.0);
    /// assert!(idle.deviation > 60.0 && idle.deviation < 70.0);
    /// assert_eq!(r.after_inactivity(1e9).deviation, 350.0);
    /// ```
    #[must_use]
    pub fn after_inactivity(&self, periods: f64) -> Rating {
        let phi = self.deviation / SCALE;
        let grown = (phi * phi + periods.max(0.0) * self.volatility * self.volatility).sqrt();
        Rating { deviation: (grown * SCALE).min(MAX_DEVIATION), ..*self }
    }

    /// The rating after one rating period with `games` (steps 2–8 of the paper), `periods`
    /// rating periods after the player's last update (1 in the paper; an instant update after
    /// each game passes the fraction of a period since the last one). Without games only the
    /// deviation grows ([`Rating::after_inactivity`]). The deviation stays within
    /// [`MIN_DEVIATION`]..=[`MAX_DEVIATION`].
    ///
    /// `tau` is the system constant ([`DEFAULT_TAU`]).
    ///
    /// # Examples
    ///
    /// Glickman's worked example:
    ///
    /// ```
    /// use maharajah_ratings::{Game, Rating, DEFAULT_TAU};
    /// let player = Rating { rating: 1500.0, deviation: 200.0, volatility: 0.06 };
    /// let vs = |rating, deviation, score| Game {
    ///     opponent: Rating { rating, deviation, volatility: 0.06 },
    ///     score,
    /// };
    /// let games = [vs(1400.0, 30.0, 1.0), vs(1550.0, 100.0, 0.0), vs(1700.0, 300.0, 0.0)];
    /// let after = player.update(&games, 1.0, DEFAULT_TAU);
    /// assert!((after.rating - 1464.06).abs() < 0.01);
    /// assert!((after.deviation - 151.52).abs() < 0.01);
    /// ```
    #[must_use]
    pub fn update(&self, games: &[Game], periods: f64, tau: f64) -> Rating {
        if games.is_empty() {
            return self.after_inactivity(periods);
        }
        // Step 2: to the Glicko-2 scale.
        let mu = (self.rating - 1500.0) / SCALE;
        let phi = self.deviation / SCALE;
        let sigma = self.volatility;
        // Steps 3 and 4: the estimated variance v and the improvement Δ.
        let mut inv_v = 0.0;
        let mut sum = 0.0;
        for game in games {
            let mu_j = (game.opponent.rating - 1500.0) / SCALE;
            let phi_j = game.opponent.deviation / SCALE;
            let e = expected(mu, mu_j, phi_j);
            let g_j = g(phi_j);
            inv_v += g_j * g_j * e * (1.0 - e);
            sum += g_j * (game.score - e);
        }
        let v = 1.0 / inv_v;
        let delta = v * sum;
        // Step 5: the new volatility (the Illinois algorithm).
        let sigma_new = new_volatility(phi, sigma, v, delta, tau);
        // Step 6: the pre-period deviation, grown by the periods elapsed.
        let phi_star = (phi * phi + periods.max(0.0) * sigma_new * sigma_new).sqrt();
        // Step 7: the new deviation and rating.
        let phi_new = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
        let mu_new = mu + phi_new * phi_new * sum;
        // Step 8: back to the Glicko scale.
        Rating {
            rating: mu_new * SCALE + 1500.0,
            deviation: (phi_new * SCALE).clamp(MIN_DEVIATION, MAX_DEVIATION),
            volatility: sigma_new,
        }
    }
}

/// Step 5 of the paper: σ' by the Illinois algorithm on f(x).
fn new_volatility(phi: f64, sigma: f64, v: f64, delta: f64, tau: f64) -> f64 {
    let a = (sigma * sigma).ln();
    let phi2 = phi * phi;
    let f = |x: f64| {
        let ex = x.exp();
        let d = phi2 + v + ex;
        ex * (delta * delta - phi2 - v - ex) / (2.0 * d * d) - (x - a) / (tau * tau)
    };
    let mut big_a = a;
    let mut big_b = if delta * delta > phi2 + v {
        (delta * delta - phi2 - v).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * tau) < 0.0 && k < 1000.0 {
            k += 1.0;
        }
        a - k * tau
    };
    let mut f_a = f(big_a);
    let mut f_b = f(big_b);
    // The iteration converges in a handful of steps; the bound only guards against NaN input.
    for _ in 0..200 {
        if (big_b - big_a).abs() <= EPSILON {
            break;
        }
        let c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
        let f_c = f(c);
        if f_c * f_b <= 0.0 {
            big_a = big_b;
            f_a = f_b;
        } else {
            f_a /= 2.0;
        }
        big_b = c;
        f_b = f_c;
    }
    (big_a / 2.0).exp()
}

/// The score of a place against another in a multi-player game: 1 for the better place, 0 for
/// the worse, 0.5 for a shared place (half way between a win and a loss). Places count from 1.
#[must_use]
pub fn place_score(place: u8, other: u8) -> f64 {
    match place.cmp(&other) {
        std::cmp::Ordering::Less => 1.0,
        std::cmp::Ordering::Equal => 0.5,
        std::cmp::Ordering::Greater => 0.0,
    }
}

/// A multi-player game (Chaturaji's four places) as one rating period for each player: player
/// `i` has one pairwise result against every other player `j`, scored by [`place_score`], each
/// against `j`'s rating before the game. `periods[i]` is as for [`Rating::update`].
///
/// # Panics
///
/// If the three slices differ in length.
///
/// # Examples
///
/// ```
/// use maharajah_ratings::{places_update, Rating, DEFAULT_TAU};
/// let four = [Rating::default(); 4];
/// let after = places_update(&four, &[1, 2, 2, 4], &[1.0; 4], DEFAULT_TAU);
/// assert!(after[0].rating > 1500.0 && after[3].rating < 1500.0);
/// assert_eq!(after[1], after[2]); // a shared place, equal ratings before: equal after
/// ```
#[must_use]
pub fn places_update(players: &[Rating], places: &[u8], periods: &[f64], tau: f64) -> Vec<Rating> {
    assert!(
        players.len() == places.len() && players.len() == periods.len(),
        "one place and one elapsed time per player"
    );
    players
        .iter()
        .enumerate()
        .map(|(i, player)| {
            let games: Vec<Game> = players
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(j, opponent)| Game {
                    opponent: *opponent,
                    score: place_score(places[i], places[j]),
                })
                .collect();
            player.update(&games, periods[i], tau)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(rating: f64, deviation: f64) -> Rating {
        Rating { rating, deviation, volatility: 0.06 }
    }

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    /// Glickman, "Example of the Glicko-2 system": 1500/200/0.06 beats 1400/30, loses to
    /// 1550/100 and 1700/300, τ = 0.5 → 1464.06, RD 151.52, σ' 0.05999.
    #[test]
    fn the_papers_worked_example() {
        let games = [
            Game { opponent: r(1400.0, 30.0), score: 1.0 },
            Game { opponent: r(1550.0, 100.0), score: 0.0 },
            Game { opponent: r(1700.0, 300.0), score: 0.0 },
        ];
        let after = r(1500.0, 200.0).update(&games, 1.0, 0.5);
        // The paper rounds its intermediate values; unrounded, the figures are 1464.0507,
        // 151.5165 and 0.0599960 (crates/ratings/tests/glicko2_reference.py).
        assert!(close(after.rating, 1464.06, 0.01), "{after:?}");
        assert!(close(after.deviation, 151.52, 0.01), "{after:?}");
        assert!(close(after.volatility, 0.05999, 0.00001), "{after:?}");
        assert!(close(after.rating, 1464.0507, 0.0005), "{after:?}");
        assert!(close(after.deviation, 151.5165, 0.0005), "{after:?}");
    }

    #[test]
    fn the_papers_intermediate_values() {
        // Steps 3 and 4 of the paper: v = 1.7785, Σ g(φj)(sj − Ej) = −0.2717, and so
        // Δ = −0.4834 from the rounded factors (−0.4839 unrounded).
        let mu = 0.0;
        let opponents = [(-0.5756, 0.1727, 1.0), (0.2878, 0.5756, 0.0), (1.1513, 1.7269, 0.0)];
        let mut inv_v = 0.0;
        let mut sum = 0.0;
        for (mu_j, phi_j, s) in opponents {
            let e = expected(mu, mu_j, phi_j);
            inv_v += g(phi_j) * g(phi_j) * e * (1.0 - e);
            sum += g(phi_j) * (s - e);
        }
        let v = 1.0 / inv_v;
        assert!(close(v, 1.7785, 0.0005), "{v}");
        assert!(close(sum, -0.2717, 0.0005), "{sum}");
        assert!(close(v * sum, -0.4834, 0.001), "{}", v * sum);
    }

    #[test]
    fn inactivity_grows_the_deviation_only_and_is_capped() {
        let p = Rating { rating: 1800.0, deviation: 50.0, volatility: 0.06 };
        let one = p.after_inactivity(1.0);
        // sqrt(50² + (0.06 × 173.7178)²) = 51.08
        assert!(close(one.deviation, 51.08, 0.01), "{one:?}");
        assert_eq!((one.rating, one.volatility), (1800.0, 0.06));
        let many = p.after_inactivity(100.0);
        assert!(many.deviation > one.deviation);
        assert!(!p.is_provisional());
        assert!(p.after_inactivity(300.0).is_provisional());
        assert_eq!(p.after_inactivity(1e12).deviation, MAX_DEVIATION);
        assert_eq!(p.after_inactivity(-5.0), p);
        assert_eq!(p.update(&[], 1.0, DEFAULT_TAU), one);
    }

    #[test]
    fn more_elapsed_periods_mean_a_larger_swing() {
        let p = r(1500.0, 80.0);
        let win = [Game { opponent: r(1500.0, 80.0), score: 1.0 }];
        let soon = p.update(&win, 0.01, DEFAULT_TAU);
        let later = p.update(&win, 20.0, DEFAULT_TAU);
        assert!(later.rating - 1500.0 > soon.rating - 1500.0, "{soon:?} {later:?}");
    }

    #[test]
    fn new_players_are_provisional_and_settle_with_games() {
        let mut p = Rating::default();
        assert!(p.is_provisional());
        for _ in 0..30 {
            let draw = [Game { opponent: r(1500.0, 60.0), score: 0.5 }];
            p = p.update(&draw, 0.05, DEFAULT_TAU);
        }
        assert!(!p.is_provisional(), "{p:?}");
        assert!(close(p.rating, 1500.0, 0.001), "{p:?}");
        assert!(p.deviation >= MIN_DEVIATION);
    }

    #[test]
    fn place_scores_are_wins_half_way_ties_and_losses() {
        assert_eq!(place_score(1, 2), 1.0);
        assert_eq!(place_score(3, 3), 0.5);
        assert_eq!(place_score(4, 1), 0.0);
    }

    /// Four players, places 1, 2, 2, 4 (a shared second place): each player's update equals the
    /// two-player update with the three pairwise results, the tied pair scores 0.5 against
    /// each other, and the reference figures come from an independent implementation (the
    /// paper's formulas in Python).
    #[test]
    fn a_four_place_update() {
        let players = [r(1600.0, 120.0), r(1500.0, 200.0), r(1450.0, 80.0), r(1700.0, 300.0)];
        let places = [1, 2, 2, 4];
        let after = places_update(&players, &places, &[1.0; 4], DEFAULT_TAU);
        let second = players[1].update(
            &[
                Game { opponent: players[0], score: 0.0 },
                Game { opponent: players[2], score: 0.5 },
                Game { opponent: players[3], score: 1.0 },
            ],
            1.0,
            DEFAULT_TAU,
        );
        assert_eq!(after[1], second);
        assert!(after[0].rating > players[0].rating);
        assert!(after[3].rating < players[3].rating);
        for (a, want) in after.iter().zip(REFERENCE) {
            assert!(close(a.rating, want.0, 0.01), "{a:?} vs {want:?}");
            assert!(close(a.deviation, want.1, 0.01), "{a:?} vs {want:?}");
        }
    }

    /// `a_four_place_update`'s players after the game (rating, deviation), from
    /// `crates/ratings/tests/glicko2_reference.py`.
    const REFERENCE: [(f64, f64); 4] =
        [(1670.9898, 108.3250), (1512.4880, 152.5507), (1460.1553, 76.9264), (1285.5739, 190.7190)];

    proptest::proptest! {
        #[test]
        fn an_update_stays_finite_and_in_bounds(
            rating in 500.0..3000.0f64,
            deviation in 45.0..350.0f64,
            opponent in 500.0..3000.0f64,
            opponent_rd in 45.0..350.0f64,
            score in proptest::sample::select(vec![0.0, 0.5, 1.0]),
            periods in 0.0..50.0f64,
        ) {
            let p = Rating { rating, deviation, volatility: 0.06 };
            let after = p.update(&[Game { opponent: r(opponent, opponent_rd), score }], periods, DEFAULT_TAU);
            proptest::prop_assert!(after.rating.is_finite() && after.volatility.is_finite());
            proptest::prop_assert!((MIN_DEVIATION..=MAX_DEVIATION).contains(&after.deviation));
            // A win never lowers a rating, a loss never raises it.
            if score == 1.0 { proptest::prop_assert!(after.rating >= rating); }
            if score == 0.0 { proptest::prop_assert!(after.rating <= rating); }
        }
    }
}
