//! The army builder and the Learn board: what the builder screen shows for an army, whether a
//! placement is allowed (and why not), start validation for two armies, and the squares a piece
//! reaches. Every rule comes from the engine; this module only shapes its answers for the UI.

use maharajah_engine::attacks::{bishop_attacks, king_attacks, knight_attacks, rook_attacks};
use maharajah_engine::{
    start_position, Army, ArmyError, ArmyRule, Bitboard, Color, Position, Role, Square, StartError,
    Status,
};
use serde::Serialize;

use crate::chess::session::PieceView;
use crate::error::AppError;

/// Points each army spends.
pub const BUDGET: u32 = maharajah_engine::army::BUDGET;

/// A rule an army or a start position breaks, in a form the UI can translate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The side concerned.
    pub color: Color,
    /// `budget`, `king`, `own_half`, `fill_from_home`, `too_many_pieces`, `wrong_color`,
    /// `in_check` or `no_legal_move`.
    pub kind: &'static str,
    /// Points spent (`budget`).
    pub spent: Option<u32>,
    /// The nearer rank that is not full (`fill_from_home`), 1..8.
    pub rank: Option<u8>,
    /// Offending pieces (or checking pieces).
    pub squares: Vec<Square>,
    /// For `fill_from_home`: the empty squares of the nearer rank.
    pub empty: Vec<Square>,
    /// The engine's English sentence (the UI shows its own translation).
    pub message: String,
}

impl Problem {
    fn from_army_error(error: &ArmyError) -> Problem {
        let (kind, spent, rank) = match error.rule {
            ArmyRule::Budget { spent } => ("budget", Some(spent), None),
            ArmyRule::King => ("king", None, None),
            ArmyRule::OwnHalf => ("own_half", None, None),
            ArmyRule::FillFromHome { rank } => ("fill_from_home", None, Some(rank)),
            ArmyRule::TooManyPieces { .. } => ("too_many_pieces", None, None),
            ArmyRule::WrongColor => ("wrong_color", None, None),
        };
        Problem {
            color: error.color,
            kind,
            spent,
            rank,
            squares: error.squares.clone(),
            empty: error.empty.clone(),
            message: error.to_string(),
        }
    }

    fn from_start_error(error: &StartError) -> Vec<Problem> {
        match error {
            StartError::Army(errors) => errors.iter().map(Problem::from_army_error).collect(),
            StartError::InCheck { color, checkers } => vec![Problem {
                color: *color,
                kind: "in_check",
                spent: None,
                rank: None,
                squares: checkers.clone(),
                empty: Vec::new(),
                message: error.to_string(),
            }],
            StartError::NoLegalMove => vec![Problem {
                color: Color::White,
                kind: "no_legal_move",
                spent: None,
                rank: None,
                squares: Vec::new(),
                empty: Vec::new(),
                message: error.to_string(),
            }],
        }
    }
}

/// What the builder screen shows for one army.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArmyView {
    /// The side.
    pub color: Color,
    /// The army's text form (a one-sided FEN board), what the UI sends back.
    pub army: Army,
    /// Its pieces, the king included.
    pub pieces: Vec<PieceView>,
    /// Points spent.
    pub spent: u32,
    /// Points to spend (39).
    pub budget: u32,
    /// Classic or variant, from its material.
    pub status: Status,
    /// Empty squares where a piece may be placed now (fill from home).
    pub placeable: Vec<Square>,
    /// Every rule the army still breaks (empty when it may lock in).
    pub problems: Vec<Problem>,
    /// The last placement that was refused, with the reason (the army is then unchanged).
    pub refused: Option<Problem>,
}

impl ArmyView {
    /// The view of `army`.
    #[must_use]
    pub fn of(army: &Army) -> ArmyView {
        let color = army.color();
        ArmyView {
            color,
            army: army.clone(),
            pieces: army.pieces().map(|(square, role)| PieceView { square, color, role }).collect(),
            spent: army.points_spent(),
            budget: BUDGET,
            status: army.status(),
            placeable: army.placeable_squares().collect(),
            problems: army.errors().iter().map(Problem::from_army_error).collect(),
            refused: None,
        }
    }
}

/// Why a request to the builder is malformed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadArmy(pub String);

impl std::fmt::Display for BadArmy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadArmy {}

impl From<BadArmy> for AppError {
    fn from(error: BadArmy) -> AppError {
        AppError { code: "bad_army".into(), message: error.to_string() }
    }
}

/// The army `text` of `color`; no text (or only a king) is the empty army with its king.
///
/// # Errors
/// [`BadArmy`] when the text is not an army or its pieces are the other colour.
pub fn army_of(color: Color, text: Option<&Army>) -> Result<Army, BadArmy> {
    match text {
        None => Ok(Army::new(color)),
        Some(army) if army.color() == color => Ok(army.clone()),
        Some(_) => Err(BadArmy(format!("the army given is not {color}'s"))),
    }
}

/// Puts `role` on `square` (or clears it with `None`), unless the rules refuse: a refused change
/// leaves the army as it was and names the rule. Spending less than 39 is allowed while
/// building; spending more is not, nor a piece beyond a rank with gaps, nor touching the king.
#[must_use]
pub fn place(army: &Army, square: Square, role: Option<Role>) -> ArmyView {
    change(army, &[(square, role)])
}

/// Moves the piece on `from` to `to` (replacing what stood there), refused like [`place`].
#[must_use]
pub fn shift(army: &Army, from: Square, to: Square) -> ArmyView {
    match army.role_at(from) {
        Some(role) if from != to => change(army, &[(from, None), (to, Some(role))]),
        _ => ArmyView::of(army),
    }
}

/// Applies `changes` together, unless the rules refuse the result (see [`place`]).
fn change(army: &Army, changes: &[(Square, Option<Role>)]) -> ArmyView {
    let color = army.color();
    let king = Square::E1.relative(color);
    if changes.iter().any(|&(square, role)| square == king || role == Some(Role::King)) {
        let mut view = ArmyView::of(army);
        view.refused = Some(Problem::from_army_error(&ArmyError {
            color,
            rule: ArmyRule::King,
            squares: vec![king],
            empty: Vec::new(),
        }));
        return view;
    }
    let mut next = army.clone();
    for &(square, role) in changes {
        next.set(square, role);
    }
    let refusal = next
        .errors()
        .into_iter()
        .find(|e| !matches!(e.rule, ArmyRule::Budget { spent } if spent < BUDGET));
    match refusal {
        Some(error) => {
            let mut view = ArmyView::of(army);
            view.refused = Some(Problem::from_army_error(&error));
            view
        }
        None => ArmyView::of(&next),
    }
}

/// The start position of two armies, or every rule it breaks (rules/maharajah.md §3).
///
/// # Errors
/// The problems, each naming the rule and the squares.
pub fn start(white: &Army, black: &Army) -> Result<Position, Vec<Problem>> {
    start_position(white, black).map_err(|e| Problem::from_start_error(&e))
}

/// Every square a piece reaches from a square, the slides apart from the leaps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reach {
    /// Squares reached by sliding (a blocker's square is reached, nothing beyond it).
    pub slide: Vec<Square>,
    /// Squares reached by leaping (knight or king steps; blockers do not stop them).
    pub leap: Vec<Square>,
}

/// The squares `role` on `from` reaches with pieces on `blockers`, from the engine's attack
/// tables (a blocker is treated as a piece it could capture).
#[must_use]
pub fn reach(role: Role, from: Square, blockers: &[Square]) -> Reach {
    let occupied: Bitboard = blockers.iter().copied().filter(|&s| s != from).collect();
    let atoms = role.atoms();
    let mut slide = Bitboard::EMPTY;
    if atoms.diagonal {
        slide |= bishop_attacks(from, occupied);
    }
    if atoms.orthogonal {
        slide |= rook_attacks(from, occupied);
    }
    let mut leap = Bitboard::EMPTY;
    if atoms.knight {
        leap |= knight_attacks(from);
    }
    if atoms.king {
        leap |= king_attacks(from);
    }
    Reach { slide: slide.collect(), leap: leap.collect() }
}

/// The builder's view of `army` (none: the empty army of `color`, its king alone).
///
/// # Errors
/// `bad_army` when the army is the other colour's.
pub fn army_view(color: Color, army: Option<Army>) -> Result<ArmyView, AppError> {
    Ok(ArmyView::of(&army_of(color, army.as_ref())?))
}

/// Puts `role` on `square` of `army` (or clears it), as [`place`].
///
/// # Errors
/// `bad_army` when the army is the other colour's.
pub fn army_place(
    color: Color,
    army: Option<Army>,
    square: Square,
    role: Option<Role>,
) -> Result<ArmyView, AppError> {
    Ok(place(&army_of(color, army.as_ref())?, square, role))
}

/// Moves the piece on `from` to `to` within `army`, as [`shift`].
///
/// # Errors
/// `bad_army` when the army is the other colour's.
pub fn army_move(
    color: Color,
    army: Option<Army>,
    from: Square,
    to: Square,
) -> Result<ArmyView, AppError> {
    Ok(shift(&army_of(color, army.as_ref())?, from, to))
}

/// A ready-made army for `color`: `orthodox`, `random` (a random legal army), `empty`, or
/// `mirror` (the given army of the other side, mirrored).
///
/// # Errors
/// `bad_army` for an unknown preset or a missing army to mirror.
pub fn army_preset(
    color: Color,
    preset: &str,
    army: Option<Army>,
    rng: &mut impl rand::Rng,
) -> Result<ArmyView, AppError> {
    let made = match preset {
        "orthodox" => Army::orthodox(color),
        "random" => Army::random(color, rng),
        "empty" => Army::new(color),
        "mirror" => match army {
            Some(a) if a.color() == color => a,
            Some(a) => a.mirrored(),
            None => return Err(BadArmy("no army to mirror".into()).into()),
        },
        other => return Err(BadArmy(format!("unknown preset {other:?}")).into()),
    };
    Ok(ArmyView::of(&made))
}

/// Start validation for two armies: every rule the position breaks (empty: it may start).
#[must_use]
pub fn start_check(white: &Army, black: &Army) -> Vec<Problem> {
    start(white, black).err().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(text: &str) -> Square {
        text.parse().expect("test square")
    }

    #[test]
    fn over_budget_is_refused_with_the_spent_points() {
        let army = Army::orthodox(Color::White);
        let view = place(&army, sq("d1"), Some(Role::Maharajah));
        let refused = view.refused.expect("13 instead of 9 is over budget");
        assert_eq!(refused.kind, "budget");
        assert_eq!(refused.spent, Some(43));
        assert_eq!(refused.message, "White spends 43 of 39 points");
        assert_eq!(view.army, army, "a refused placement leaves the army as it was");
    }

    #[test]
    fn rank_three_with_gaps_on_rank_two_is_refused() {
        let mut army = Army::new(Color::White);
        for file in ["a1", "b1", "c1", "d1", "f1", "g1", "h1"] {
            army = place(&army, sq(file), Some(Role::Pawn)).army;
        }
        let view = place(&army, sq("a2"), Some(Role::Knight));
        assert!(view.refused.is_none());
        assert_eq!(view.placeable.len(), 7);
        let view = place(&view.army, sq("c3"), Some(Role::Knight));
        let refused = view.refused.expect("rank 2 has gaps");
        assert_eq!(refused.kind, "fill_from_home");
        assert_eq!(refused.rank, Some(2));
        assert_eq!(refused.squares, vec![sq("c3")]);
        assert_eq!(refused.empty.len(), 7);
        assert!(refused.message.starts_with("White: piece on c3 while rank 2 has empty squares"));
    }

    #[test]
    fn a_piece_moves_within_the_rules() {
        let army = Army::orthodox(Color::White);
        let view = shift(&army, sq("a2"), sq("b1"));
        assert!(view.refused.is_none());
        assert_eq!(view.army.role_at(sq("b1")), Some(Role::Pawn));
        assert_eq!(view.spent, 36, "the knight it replaced is gone");
        let view = shift(&army, sq("b1"), sq("a2"));
        assert_eq!(view.refused.map(|p| (p.kind, p.rank)), Some(("fill_from_home", Some(1))));
        let view = shift(&army, sq("a2"), sq("a3"));
        assert_eq!(view.refused.map(|p| p.kind), Some("fill_from_home"));
        let view = shift(&army, sq("e1"), sq("e3"));
        assert_eq!(view.refused.map(|p| p.kind), Some("king"));
    }

    #[test]
    fn the_king_is_fixed() {
        let army = Army::new(Color::Black);
        let view = place(&army, sq("e8"), Some(Role::Queen));
        assert_eq!(view.refused.map(|p| p.kind), Some("king"));
        let view = place(&army, sq("e8"), None);
        assert_eq!(view.refused.map(|p| p.kind), Some("king"));
        assert_eq!(ArmyView::of(&army).pieces.len(), 1);
    }

    #[test]
    fn an_under_budget_army_may_grow_but_not_start() {
        let view = place(&Army::new(Color::White), sq("a1"), Some(Role::Maharajah));
        assert!(view.refused.is_none());
        assert_eq!(view.spent, 13);
        assert_eq!(view.status, Status::Variant);
        assert_eq!(view.problems.first().map(|p| p.kind), Some("budget"));
        let problems = start(&view.army, &Army::orthodox(Color::Black)).expect_err("26 short");
        assert_eq!(problems[0].message, "White spends 13 of 39 points");
    }

    #[test]
    fn variant_armies_start_a_maharajah_game() {
        let mut white = Army::orthodox(Color::White);
        white.set(sq("d1"), Some(Role::Chancellor));
        white.set(sq("a2"), None);
        white.set(sq("a1"), Some(Role::Archbishop));
        white.set(sq("a2"), Some(Role::Pawn));
        // 39 - 9 + 8 - 5 + 6 = 39.
        assert!(ArmyView::of(&white).problems.is_empty());
        let black = white.mirrored();
        let position = start(&white, &black).expect("legal start");
        assert_eq!(position.rules().variant, maharajah_engine::Variant::Maharajah);
    }

    #[test]
    fn a_king_in_check_at_the_start_is_refused_with_the_checker() {
        let white: Army = "8/8/8/8/PPP1M3/PPPPPPPP/PPPPPPPP/PPPPKPPP".parse().expect("white army");
        let black: Army = "rnbqkbnr/rb6/8/8/8/8/8/8".parse().expect("black army");
        assert!(
            ArmyView::of(&white).problems.is_empty() && ArmyView::of(&black).problems.is_empty()
        );
        let problems = start(&white, &black).expect_err("the Maharajah on e4 sees e8");
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].kind, "in_check");
        assert_eq!(problems[0].color, Color::Black);
        assert_eq!(problems[0].squares, vec![sq("e4")]);
    }

    #[test]
    fn the_maharajah_on_d4_reaches_35_squares() {
        let r = reach(Role::Maharajah, sq("d4"), &[]);
        assert_eq!((r.slide.len(), r.leap.len()), (27, 8));
        let r = reach(Role::Maharajah, sq("d4"), &[sq("d6")]);
        assert_eq!(r.slide.len(), 25, "d7 and d8 are cut off; d6 itself is reached");
        assert!(r.slide.contains(&sq("d6")) && !r.slide.contains(&sq("d7")));
        let r = reach(Role::Archbishop, sq("a1"), &[]);
        assert_eq!((r.slide.len(), r.leap.len()), (7, 2));
    }

    #[test]
    fn presets_and_start_checks() {
        let mut rng = rand::rng();
        let view =
            army_preset(Color::Black, "mirror", Some(Army::orthodox(Color::White)), &mut rng)
                .expect("mirrors");
        assert_eq!(view.army, Army::orthodox(Color::Black));
        let view = army_preset(Color::White, "random", None, &mut rng).expect("random");
        assert!(view.problems.is_empty(), "a random army is legal");
        assert_eq!(
            army_preset(Color::White, "odd", None, &mut rng).expect_err("odd").code,
            "bad_army"
        );
        let problems = start_check(&Army::new(Color::White), &Army::orthodox(Color::Black));
        assert_eq!(problems[0].kind, "budget");
    }
}
