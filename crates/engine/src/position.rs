//! The position: bitboards, side to move, castling rights, unmoved pawns, en passant, clocks, an
//! incremental Zobrist hash and incremental material and piece-square sums for the evaluation;
//! legal move generation and copy-make.

use std::fmt;

use crate::attacks::{
    between, bishop_attacks, king_attacks, knight_attacks, line, pawn_attacks, rook_attacks,
};
use crate::eval::PsqSums;
use crate::moves::{Move, MoveList};
use crate::profile::{LossCondition, RuleProfile};
use crate::types::{Bitboard, ByColor, ByRole, Color, Piece, Role, RoleSet, Square};
use crate::zobrist;

/// Castling rights as four bits: White king side, White queen side, Black king side, Black queen
/// side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CastlingRights(pub u8);

impl CastlingRights {
    /// No rights.
    pub const NONE: CastlingRights = CastlingRights(0);
    /// All four rights.
    pub const ALL: CastlingRights = CastlingRights(15);

    /// The bit for `color` on the king side (`king_side`) or queen side.
    #[must_use]
    pub const fn bit(color: Color, king_side: bool) -> u8 {
        match (color, king_side) {
            (Color::White, true) => 1,
            (Color::White, false) => 2,
            (Color::Black, true) => 4,
            (Color::Black, false) => 8,
        }
    }

    /// `true` if `color` may still castle on that wing (rights only; not the other conditions).
    #[must_use]
    pub const fn has(self, color: Color, king_side: bool) -> bool {
        self.0 & CastlingRights::bit(color, king_side) != 0
    }
}

/// Rights kept when a move touches a square (from or to).
const fn castle_mask() -> [u8; 64] {
    let mut m = [15u8; 64];
    m[4] = 15 & !3;
    m[7] = 15 & !1;
    m[0] = 15 & !2;
    m[60] = 15 & !12;
    m[63] = 15 & !4;
    m[56] = 15 & !8;
    m
}
const CASTLE_MASK: [u8; 64] = castle_mask();

/// Which roles have a given movement atom, compiled from [`Role::atoms`]: adding a compound piece
/// means adding its atoms there, and move generation follows.
const fn roles_with_atom(atom: u8) -> [bool; 9] {
    let mut out = [false; 9];
    let mut i = 0;
    while i < 9 {
        let a = Role::ALL[i].atoms();
        out[i] = match atom {
            0 => a.diagonal,
            1 => a.orthogonal,
            _ => a.knight,
        };
        i += 1;
    }
    out
}
const DIAGONAL_ROLES: [bool; 9] = roles_with_atom(0);
const ORTHOGONAL_ROLES: [bool; 9] = roles_with_atom(1);
const KNIGHT_ROLES: [bool; 9] = roles_with_atom(2);

/// A legal position of standard chess, Maharajah or Horde, with the rules it is played by.
///
/// Construct with [`Position::new`] (a variant's start), [`Position::from_fen`], or from armies
/// ([`crate::army::start_position`]). Print a FEN with `Display`.
#[derive(Clone, PartialEq, Eq)]
pub struct Position {
    pub(crate) by_role: ByRole<Bitboard>,
    pub(crate) by_color: ByColor<Bitboard>,
    /// Each square's role index + 1, 0 when empty: the role boards by square, kept by every
    /// placement and removal, so [`Position::role_at`] is one load.
    board: [u8; 64],
    pub(crate) occupied: Bitboard,
    pub(crate) turn: Color,
    pub(crate) castling: CastlingRights,
    pub(crate) ep_square: Option<Square>,
    pub(crate) unmoved: Bitboard,
    pub(crate) halfmoves: u32,
    pub(crate) fullmoves: u32,
    pub(crate) hash: u64,
    /// Material and piece-square sums of the pieces on the board, kept by every placement and
    /// removal (a function of the board, like the hash).
    pub(crate) psq: PsqSums,
    pub(crate) rules: RuleProfile,
}

impl std::hash::Hash for Position {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

/// Kind of a group of moves handed to a generator sink.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    /// One move per target.
    Plain,
    /// Pawn moves to the last rank: one move per target and promotion role.
    Promotion,
}

/// Why a move could not be played: the move and the untouched position are handed back.
#[derive(Clone)]
pub struct PlayError {
    /// The refused move.
    pub mv: Move,
    /// The position, unchanged (boxed to keep `Result` small).
    pub position: Box<Position>,
}

impl fmt::Debug for PlayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PlayError")
            .field("mv", &self.mv)
            .field("position", &self.position.to_string())
            .finish()
    }
}

impl fmt::Display for PlayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "illegal move {} in {}", self.mv, self.position)
    }
}

impl std::error::Error for PlayError {}

/// How a finished game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// One side won.
    Decisive {
        /// The winner.
        winner: Color,
        /// Why.
        reason: WinReason,
    },
    /// Drawn.
    Draw {
        /// Why.
        reason: DrawReason,
    },
}

/// Why a game was won (by the rules of the board; time and resignation belong to other layers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WinReason {
    /// The loser is checkmated.
    Checkmate,
    /// The loser has no pieces left (Horde's White).
    AllPiecesCaptured,
}

/// Why a game was drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DrawReason {
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// Neither side can ever checkmate.
    InsufficientMaterial,
    /// 75 moves by each side without capture or pawn move (automatic).
    SeventyFiveMoves,
    /// The same position for the fifth time (automatic).
    FivefoldRepetition,
    /// 50 moves by each side without capture or pawn move (claimed).
    FiftyMoves,
    /// The same position for the third time (claimed).
    ThreefoldRepetition,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Decisive { winner, reason } => write!(f, "{winner} wins by {reason:?}"),
            Outcome::Draw { reason } => write!(f, "draw by {reason:?}"),
        }
    }
}

impl Outcome {
    /// The PGN result string: `1-0`, `0-1` or `1/2-1/2`.
    #[must_use]
    pub const fn result_str(self) -> &'static str {
        match self {
            Outcome::Decisive { winner: Color::White, .. } => "1-0",
            Outcome::Decisive { winner: Color::Black, .. } => "0-1",
            Outcome::Draw { .. } => "1/2-1/2",
        }
    }
}

impl Default for Position {
    fn default() -> Position {
        Position::new(crate::Variant::Chess)
    }
}

impl Position {
    /// An empty board with White to move, for building positions square by square.
    pub(crate) fn empty(rules: RuleProfile) -> Position {
        Position {
            by_role: ByRole::default(),
            by_color: ByColor::default(),
            board: [0; 64],
            occupied: Bitboard::EMPTY,
            turn: Color::White,
            castling: CastlingRights::NONE,
            ep_square: None,
            unmoved: Bitboard::EMPTY,
            halfmoves: 0,
            fullmoves: 1,
            hash: 0,
            psq: PsqSums::default(),
            rules,
        }
    }

    /// The start position of a variant: the orthodox array for chess and Maharajah (orthodox
    /// armies are classic, so a Maharajah game from it uses the standard profile), the Horde array
    /// for Horde. Custom Maharajah starts come from [`crate::army::start_position`] or a FEN.
    #[must_use]
    pub fn new(variant: crate::Variant) -> Position {
        match Position::from_fen(variant, variant.profile().start_fen) {
            Ok(p) => p,
            Err(e) => unreachable!("built-in start FEN is valid: {e}"),
        }
    }

    /// `true` if this position is played exactly by the rules of chess: a chess position, or a
    /// Maharajah one whose two sides are classic, with no pawn on its home rank and every pawn on
    /// its second rank still unmoved. Then the per-pawn double-step right is chess's rank rule
    /// (a pawn can only reach its second rank by starting there), and the plain FEN with the
    /// standard profile loses nothing: PGN export writes such a game as chess from a position.
    #[must_use]
    pub fn is_plain_chess(&self) -> bool {
        self.rules.insufficient_material_draw
            && Color::ALL.into_iter().all(|color| {
                let side = *self.rules.side(color);
                let as_chess = crate::profile::SideRules {
                    status: None,
                    double_step: crate::profile::DoubleStep {
                        requires_unmoved: false,
                        ..side.double_step
                    },
                    ..side
                };
                let pawns = self.by_piece(Piece { color, role: Role::Pawn });
                let second = pawns & Bitboard::relative_rank(color, 1);
                as_chess == crate::profile::SideRules::standard(color)
                    && (pawns & Bitboard::relative_rank(color, 0)).is_empty()
                    && (!side.double_step.requires_unmoved || (second & !self.unmoved).is_empty())
            })
    }

    /// The rules this position is played by.
    #[must_use]
    pub const fn rules(&self) -> &RuleProfile {
        &self.rules
    }

    /// Side to move.
    #[must_use]
    pub const fn turn(&self) -> Color {
        self.turn
    }

    /// Castling rights (those not yet lost; see [`Position::legal_moves`] for what is possible now).
    #[must_use]
    pub const fn castling_rights(&self) -> CastlingRights {
        self.castling
    }

    /// The en-passant target square, set only when the side to move can legally capture there.
    #[must_use]
    pub const fn ep_square(&self) -> Option<Square> {
        self.ep_square
    }

    /// Pawns that have not moved yet and may still double-step under a per-pawn rule.
    #[must_use]
    pub const fn unmoved_pawns(&self) -> Bitboard {
        self.unmoved
    }

    /// Half-moves since the last capture or pawn move.
    #[must_use]
    pub const fn halfmove_clock(&self) -> u32 {
        self.halfmoves
    }

    /// Full-move number, starting at 1, incremented after Black moves.
    #[must_use]
    pub const fn fullmove_number(&self) -> u32 {
        self.fullmoves
    }

    /// Incremental Zobrist hash of everything that makes positions the same for repetition:
    /// pieces, side to move, castling rights, en-passant square and unmoved pawns.
    #[must_use]
    pub const fn hash(&self) -> u64 {
        self.hash
    }

    /// The [`hash`](Position::hash) after the legal move `mv`, without making it: exact for
    /// every move but en passant, castling and a double step that opens an en-passant capture
    /// (the search uses it only to prefetch the child's table entry, where a miss costs nothing
    /// but the hint).
    #[must_use]
    #[inline]
    pub fn hash_after(&self, mv: Move) -> u64 {
        let us = self.turn;
        let Some(role) = self.role_at(mv.from) else { return self.hash };
        let mut hash = self.hash ^ zobrist::black_to_move();
        if let Some(ep) = self.ep_square {
            hash ^= zobrist::en_passant(ep.file());
        }
        let old_rights = self.castling.0;
        let new_rights = old_rights & CASTLE_MASK[mv.from.index()] & CASTLE_MASK[mv.to.index()];
        if new_rights != old_rights {
            hash ^= zobrist::castling(old_rights) ^ zobrist::castling(new_rights);
        }
        for sq in [mv.from, mv.to] {
            if self.unmoved.contains(sq) {
                hash ^= zobrist::unmoved(sq.index());
            }
        }
        if self.by_color[us.other()].contains(mv.to) {
            if let Some(c) = self.role_at(mv.to) {
                hash ^= zobrist::piece(us.other() as usize, c.index(), mv.to.index());
            }
        }
        let placed = mv.promotion.unwrap_or(role);
        hash ^ zobrist::piece(us as usize, role.index(), mv.from.index())
            ^ zobrist::piece(us as usize, placed.index(), mv.to.index())
    }

    /// All occupied squares.
    #[must_use]
    pub const fn occupied(&self) -> Bitboard {
        self.occupied
    }

    /// Squares occupied by `color`.
    #[must_use]
    pub fn by_color(&self, color: Color) -> Bitboard {
        self.by_color[color]
    }

    /// Squares occupied by `role` of either colour.
    #[must_use]
    pub fn by_role(&self, role: Role) -> Bitboard {
        self.by_role[role]
    }

    /// Squares occupied by `piece`.
    #[must_use]
    pub fn by_piece(&self, piece: Piece) -> Bitboard {
        self.by_role[piece.role] & self.by_color[piece.color]
    }

    /// The role on `sq`, if any.
    #[inline]
    #[must_use]
    pub fn role_at(&self, sq: Square) -> Option<Role> {
        let i = self.board[sq.index()];
        (i != 0).then(|| Role::ALL[usize::from(i - 1)])
    }

    /// The piece on `sq`, if any.
    #[must_use]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let role = self.role_at(sq)?;
        let color = if self.by_color.white.contains(sq) { Color::White } else { Color::Black };
        Some(Piece { color, role })
    }

    /// Every piece on the board with its square, from a1 upwards.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        self.occupied.filter_map(|sq| self.piece_at(sq).map(|p| (sq, p)))
    }

    /// The king of `color`, if it has one (Horde's White has none).
    #[inline]
    #[must_use]
    pub fn king_of(&self, color: Color) -> Option<Square> {
        (self.by_role[Role::King] & self.by_color[color]).first()
    }

    /// Union of the bitboards of the roles flagged in `roles` (a compile-time table).
    #[inline(always)]
    fn union_of(&self, roles: &[bool; 9]) -> Bitboard {
        let mut bb = Bitboard::EMPTY;
        for (i, flagged) in roles.iter().enumerate() {
            if *flagged {
                bb |= self.by_role.0[i];
            }
        }
        bb
    }

    /// Pieces that slide diagonally (their atoms include the bishop's ride).
    #[inline]
    fn diagonal_sliders(&self) -> Bitboard {
        self.union_of(&DIAGONAL_ROLES)
    }

    /// Pieces that slide along ranks and files (the rook's ride).
    #[inline]
    fn orthogonal_sliders(&self) -> Bitboard {
        self.union_of(&ORTHOGONAL_ROLES)
    }

    /// Pieces that leap like a knight.
    #[inline]
    fn knight_leapers(&self) -> Bitboard {
        self.union_of(&KNIGHT_ROLES)
    }

    /// Squares attacked by a `role` standing on `sq`, given the occupancy (pawns: captures of
    /// `color`). The compound pieces are unions of their atoms.
    #[must_use]
    pub fn attacks_of(color: Color, role: Role, sq: Square, occupied: Bitboard) -> Bitboard {
        if role == Role::Pawn {
            return pawn_attacks(color, sq);
        }
        let a = role.atoms();
        let mut att = Bitboard::EMPTY;
        if a.knight {
            att |= knight_attacks(sq);
        }
        if a.king {
            att |= king_attacks(sq);
        }
        if a.diagonal {
            att |= bishop_attacks(sq, occupied);
        }
        if a.orthogonal {
            att |= rook_attacks(sq, occupied);
        }
        att
    }

    /// Pieces of `attacker` that attack `sq` with the given occupancy.
    #[inline]
    #[must_use]
    pub fn attackers_to(&self, sq: Square, attacker: Color, occupied: Bitboard) -> Bitboard {
        let theirs = self.by_color[attacker];
        ((knight_attacks(sq) & self.knight_leapers())
            | (king_attacks(sq) & self.by_role[Role::King])
            | (pawn_attacks(attacker.other(), sq) & self.by_role[Role::Pawn])
            | (bishop_attacks(sq, occupied) & self.diagonal_sliders())
            | (rook_attacks(sq, occupied) & self.orthogonal_sliders()))
            & theirs
    }

    /// Pieces of either colour that attack `sq` by a leap or a step (knights and the knight's
    /// atom, kings, pawns), whatever the occupancy: with [`Position::slider_attackers`] they are
    /// `attackers_to(sq, White, occ) | attackers_to(sq, Black, occ)`.
    #[inline]
    #[must_use]
    pub(crate) fn leaper_attackers(&self, sq: Square) -> Bitboard {
        let pawns = self.by_role[Role::Pawn];
        (knight_attacks(sq) & self.knight_leapers())
            | (king_attacks(sq) & self.by_role[Role::King])
            | (pawn_attacks(Color::Black, sq) & pawns & self.by_color[Color::White])
            | (pawn_attacks(Color::White, sq) & pawns & self.by_color[Color::Black])
    }

    /// Pieces of either colour that slide onto `sq` with the given occupancy.
    #[inline]
    #[must_use]
    pub(crate) fn slider_attackers(&self, sq: Square, occupied: Bitboard) -> Bitboard {
        (bishop_attacks(sq, occupied) & self.diagonal_sliders())
            | (rook_attacks(sq, occupied) & self.orthogonal_sliders())
    }

    /// Whether taking the piece of `attacker` on `from` off `occupied`'s board (with a move to a
    /// square already in `occupied`) uncovers one of `attacker`'s sliders on `sq`. Only the line
    /// through `sq` and `from` can open, so it alone is looked at; equal to
    /// `attackers_to(sq, attacker, occupied).without(from).any()` wherever `sq` was not already
    /// attacked by `attacker` (the king of the side not to move, in a legal position).
    #[inline]
    #[must_use]
    pub(crate) fn uncovers(
        &self,
        sq: Square,
        from: Square,
        attacker: Color,
        occupied: Bitboard,
    ) -> bool {
        let ray = line(sq, from);
        if ray.is_empty() {
            return false;
        }
        let (slides, sliders) = if rook_attacks(sq, Bitboard::EMPTY).contains(from) {
            (rook_attacks(sq, occupied), self.orthogonal_sliders())
        } else {
            (bishop_attacks(sq, occupied), self.diagonal_sliders())
        };
        (slides & ray & sliders & self.by_color[attacker]).without(from).any()
    }

    /// Pieces giving check to the side to move.
    #[must_use]
    pub fn checkers(&self) -> Bitboard {
        match self.king_of(self.turn) {
            Some(k) => self.attackers_to(k, self.turn.other(), self.occupied),
            None => Bitboard::EMPTY,
        }
    }

    /// `true` if the side to move is in check.
    #[must_use]
    pub fn is_check(&self) -> bool {
        self.checkers().any()
    }

    /// Squares of pieces of the side to move pinned to their king.
    fn pinned(&self, king: Square) -> Bitboard {
        let us = self.by_color[self.turn];
        let them = self.by_color[self.turn.other()];
        let snipers = ((rook_attacks(king, Bitboard::EMPTY) & self.orthogonal_sliders())
            | (bishop_attacks(king, Bitboard::EMPTY) & self.diagonal_sliders()))
            & them;
        let mut pinned = Bitboard::EMPTY;
        for s in snipers {
            let b = between(king, s) & self.occupied;
            if !b.has_more_than_one() {
                pinned |= b & us;
            }
        }
        pinned
    }

    /// Promotion roles for the side to move.
    #[inline]
    pub(crate) fn promotions(&self) -> RoleSet {
        self.rules.side(self.turn).promotions
    }

    /// Core legal move generator: calls `sink(from, targets, class)` per origin square.
    /// En-passant captures and castling are reported as single-target groups.
    #[inline]
    pub(crate) fn generate(&self, mut sink: impl FnMut(Square, Bitboard, Class)) {
        let us = self.turn;
        let them = us.other();
        let ours = self.by_color[us];
        let theirs = self.by_color[them];
        let occ = self.occupied;
        let king = self.king_of(us);

        let (target, pinned) = match king {
            None => (!ours, Bitboard::EMPTY),
            Some(k) => {
                let checkers = self.attackers_to(k, them, occ);
                // King steps.
                let occ_wo_king = occ.without(k);
                let mut dests = Bitboard::EMPTY;
                for to in king_attacks(k) & !ours {
                    if self.attackers_to(to, them, occ_wo_king).is_empty() {
                        dests.add(to);
                    }
                }
                if dests.any() {
                    sink(k, dests, Class::Plain);
                }
                if checkers.has_more_than_one() {
                    return;
                }
                if checkers.is_empty() {
                    self.gen_castling(k, &mut sink);
                }
                let target = match checkers.first() {
                    Some(c) => between(k, c).with(c),
                    None => !ours,
                };
                (target, self.pinned(k))
            }
        };

        // Pieces other than pawns and the king.
        let pieces = ours & !self.by_role[Role::Pawn] & !self.by_role[Role::King];
        let diag = self.diagonal_sliders();
        let orth = self.orthogonal_sliders();
        let leap = self.knight_leapers();
        for from in pieces {
            let mut att = Bitboard::EMPTY;
            if diag.contains(from) {
                att |= bishop_attacks(from, occ);
            }
            if orth.contains(from) {
                att |= rook_attacks(from, occ);
            }
            if leap.contains(from) {
                att |= knight_attacks(from);
            }
            att &= target;
            if pinned.contains(from) {
                if let Some(k) = king {
                    att &= line(k, from);
                }
            }
            if att.any() {
                sink(from, att, Class::Plain);
            }
        }

        // Pawns.
        let ds = self.rules.side(us).double_step;
        let double_from = if ds.requires_unmoved { ds.from & self.unmoved } else { ds.from };
        let last_rank = Bitboard::relative_rank(us, 7);
        let seventh = Bitboard::relative_rank(us, 6);
        for from in ours & self.by_role[Role::Pawn] {
            let one = from.bb().forward(us) & !occ;
            let mut t = one;
            if one.any() && double_from.contains(from) {
                t |= one.forward(us) & !occ & !last_rank;
            }
            t |= pawn_attacks(us, from) & theirs;
            t &= target;
            if pinned.contains(from) {
                if let Some(k) = king {
                    t &= line(k, from);
                }
            }
            if t.any() {
                let class = if seventh.contains(from) || (t & last_rank).any() {
                    Class::Promotion
                } else {
                    Class::Plain
                };
                sink(from, t, class);
            }
        }

        // En passant.
        if let Some(ep) = self.ep_square {
            for from in self.ep_capturers(ep) {
                sink(from, ep.bb(), Class::Plain);
            }
        }
    }

    /// Pawns of the side to move that may legally capture en passant onto `ep`.
    fn ep_capturers(&self, ep: Square) -> Bitboard {
        let us = self.turn;
        let them = us.other();
        let theirs = self.by_color[them];
        let captured_sq = ep.bb().forward(them);
        let candidates = pawn_attacks(them, ep) & self.by_color[us] & self.by_role[Role::Pawn];
        let Some(k) = self.king_of(us) else { return candidates };
        let mut legal = Bitboard::EMPTY;
        for from in candidates {
            // Play the capture on the occupancy and look for any attack on the king.
            let new_occ = (self.occupied ^ from.bb() ^ captured_sq) | ep.bb();
            let attackers = ((knight_attacks(k) & self.knight_leapers())
                | (king_attacks(k) & self.by_role[Role::King])
                | (pawn_attacks(us, k) & self.by_role[Role::Pawn])
                | (bishop_attacks(k, new_occ) & self.diagonal_sliders())
                | (rook_attacks(k, new_occ) & self.orthogonal_sliders()))
                & theirs
                & !captured_sq;
            if attackers.is_empty() {
                legal.add(from);
            }
        }
        legal
    }

    /// Keeps the en-passant square only if a legal en-passant capture exists, so that positions
    /// with the same legal moves compare and hash equal (FIDE repetition).
    pub(crate) fn prune_ep_square(&mut self) {
        if let Some(ep) = self.ep_square {
            if self.ep_capturers(ep).is_empty() {
                self.ep_square = None;
                self.hash ^= zobrist::en_passant(ep.file());
            }
        }
    }

    fn gen_castling(&self, k: Square, sink: &mut impl FnMut(Square, Bitboard, Class)) {
        let us = self.turn;
        if !self.rules.side(us).castling || self.castling.0 == 0 {
            return;
        }
        let home = Square::E1.relative(us);
        if k != home {
            return;
        }
        let them = us.other();
        let rooks = self.by_role[Role::Rook] & self.by_color[us];
        for king_side in [true, false] {
            if !self.castling.has(us, king_side) {
                continue;
            }
            let (rook_sq, king_to, pass) = if king_side {
                (Square::H1.relative(us), Square::G1.relative(us), Square::F1.relative(us))
            } else {
                (Square::A1.relative(us), Square::C1.relative(us), Square::D1.relative(us))
            };
            if !rooks.contains(rook_sq) || (between(k, rook_sq) & self.occupied).any() {
                continue;
            }
            if self.attackers_to(pass, them, self.occupied).any()
                || self.attackers_to(king_to, them, self.occupied).any()
            {
                continue;
            }
            sink(k, king_to.bb(), Class::Plain);
        }
    }

    /// All legal moves, in a fixed-capacity list (no allocation).
    #[must_use]
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        let promos = self.promotions();
        self.generate(|from, targets, class| match class {
            Class::Plain => {
                for to in targets {
                    list.push(Move::new(from, to));
                }
            }
            Class::Promotion => {
                for to in targets {
                    for role in promos.iter() {
                        list.push(Move::with_promotion(from, to, role));
                    }
                }
            }
        });
        list
    }

    /// Calls `f` for every legal move without building a list.
    pub fn for_each_legal_move(&self, mut f: impl FnMut(Move)) {
        let promos = self.promotions();
        self.generate(|from, targets, class| match class {
            Class::Plain => {
                for to in targets {
                    f(Move::new(from, to));
                }
            }
            Class::Promotion => {
                for to in targets {
                    for role in promos.iter() {
                        f(Move::with_promotion(from, to, role));
                    }
                }
            }
        });
    }

    /// Calls `f` for every legal capture (en passant included) and every legal promotion, and
    /// returns whether the side to move has any legal move at all: quiescence sees mate and
    /// stalemate without listing the quiet moves. The moves come in [`Position::legal_moves`]'s
    /// order, with a few quiet moves onto the en-passant square among them.
    pub(crate) fn for_each_noisy_move(&self, mut f: impl FnMut(Move)) -> bool {
        let promos = self.promotions();
        let noisy =
            self.by_color[self.turn.other()] | self.ep_square.map_or(Bitboard::EMPTY, Square::bb);
        let mut any = false;
        // Every group the generator reports has at least one target.
        self.generate(|from, targets, class| {
            any = true;
            match class {
                Class::Plain => {
                    for to in targets & noisy {
                        f(Move::new(from, to));
                    }
                }
                Class::Promotion => {
                    for to in targets {
                        for role in promos.iter() {
                            f(Move::with_promotion(from, to, role));
                        }
                    }
                }
            }
        });
        any
    }

    /// Number of legal moves, counted without generating them one by one.
    #[must_use]
    pub fn count_legal_moves(&self) -> u64 {
        let promos = u64::from(self.promotions().len());
        let mut n = 0u64;
        self.generate(|_, targets, class| {
            let c = u64::from(targets.count());
            n += match class {
                Class::Plain => c,
                Class::Promotion => c * promos,
            };
        });
        n
    }

    /// `true` if the side to move has at least one legal move.
    #[must_use]
    pub fn has_legal_moves(&self) -> bool {
        let mut any = false;
        self.generate(|_, _, _| any = true);
        any
    }

    /// Legal moves starting from `from` (what the UI highlights after a tap).
    #[must_use]
    pub fn legal_moves_from(&self, from: Square) -> MoveList {
        let mut list = self.legal_moves();
        list.retain(|m| m.from == from);
        list
    }

    /// `true` if `mv` is legal here.
    #[must_use]
    pub fn is_legal(&self, mv: Move) -> bool {
        if !self.by_color[self.turn].contains(mv.from) {
            return false;
        }
        let promos = self.promotions();
        let mut legal = false;
        self.generate(|from, targets, class| {
            if from == mv.from && targets.contains(mv.to) {
                legal |= match class {
                    Class::Plain => mv.promotion.is_none(),
                    Class::Promotion => mv.promotion.is_some_and(|r| promos.contains(r)),
                };
            }
        });
        legal
    }

    /// `true` if `mv` (assumed legal) captures something, en passant included.
    #[must_use]
    pub fn is_capture(&self, mv: Move) -> bool {
        self.by_color[self.turn.other()].contains(mv.to) || self.is_en_passant(mv)
    }

    /// `true` if `mv` (assumed legal) is an en-passant capture.
    #[must_use]
    pub fn is_en_passant(&self, mv: Move) -> bool {
        Some(mv.to) == self.ep_square
            && self.by_role[Role::Pawn].contains(mv.from)
            && mv.from.file() != mv.to.file()
    }

    /// `true` if `mv` (assumed legal) is castling.
    #[must_use]
    pub fn is_castling(&self, mv: Move) -> bool {
        self.by_role[Role::King].contains(mv.from) && mv.from.file().abs_diff(mv.to.file()) == 2
    }

    /// Plays `mv` if it is legal; otherwise returns it with the untouched position.
    ///
    /// # Errors
    /// [`PlayError`] if `mv` is not legal here.
    ///
    /// # Examples
    /// ```
    /// use maharajah_engine::{Move, Position, Variant};
    /// let pos = Position::new(Variant::Chess);
    /// let err = pos.play("e2e5".parse::<Move>()?).unwrap_err();
    /// assert_eq!(err.mv.to_string(), "e2e5");
    /// let pos = err.position.play("e2e4".parse()?)?; // the position came back untouched
    /// assert_eq!(pos.to_string(), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn play(mut self, mv: Move) -> Result<Position, PlayError> {
        if self.is_legal(mv) {
            self.play_unchecked(mv);
            Ok(self)
        } else {
            Err(PlayError { mv, position: Box::new(self) })
        }
    }

    /// Plays a move known to be legal (e.g. from [`Position::legal_moves`]). An illegal move
    /// leaves the position in an unspecified but memory-safe state.
    pub fn play_unchecked(&mut self, mv: Move) {
        let us = self.turn;
        let them = us.other();
        let Some(role) = self.role_at(mv.from) else { return };
        let (from, to) = (mv.from, mv.to);
        let captured = if self.by_color[them].contains(to) { self.role_at(to) } else { None };

        let mut hash = self.hash ^ zobrist::black_to_move();
        if let Some(ep) = self.ep_square.take() {
            hash ^= zobrist::en_passant(ep.file());
        }
        let old_rights = self.castling.0;
        let new_rights = old_rights & CASTLE_MASK[from.index()] & CASTLE_MASK[to.index()];
        if new_rights != old_rights {
            hash ^= zobrist::castling(old_rights) ^ zobrist::castling(new_rights);
            self.castling = CastlingRights(new_rights);
        }
        for sq in [from, to] {
            if self.unmoved.contains(sq) {
                self.unmoved.remove(sq);
                hash ^= zobrist::unmoved(sq.index());
            }
        }
        if let Some(c) = captured {
            self.remove_piece(them, c, to, &mut hash);
        }
        self.halfmoves = if role == Role::Pawn || captured.is_some() {
            0
        } else {
            self.halfmoves.saturating_add(1)
        };

        self.remove_piece(us, role, from, &mut hash);
        let mut placed = role;
        if role == Role::Pawn {
            if captured.is_none() && from.file() != to.file() {
                // En passant: the captured pawn stands behind the target square.
                let behind = to.bb().forward(them);
                if let Some(sq) = behind.first() {
                    if self.by_color[them].contains(sq) {
                        self.remove_piece(them, Role::Pawn, sq, &mut hash);
                    }
                }
            } else if from.rank().abs_diff(to.rank()) == 2 {
                let mid = Square::new_wrapping(
                    (u32::from(from.rank() + to.rank()) / 2) * 8 + u32::from(from.file()),
                );
                let ds = self.rules.side(us).double_step;
                if ds.en_passant_from.contains(from)
                    && (pawn_attacks(us, mid) & self.by_role[Role::Pawn] & self.by_color[them])
                        .any()
                {
                    self.ep_square = Some(mid);
                    hash ^= zobrist::en_passant(mid.file());
                }
            }
            if let Some(p) = mv.promotion {
                placed = p;
            }
        } else if role == Role::King && from.file().abs_diff(to.file()) == 2 {
            let (rook_from, rook_to) = if to.file() > from.file() {
                (Square::H1.relative(us), Square::F1.relative(us))
            } else {
                (Square::A1.relative(us), Square::D1.relative(us))
            };
            if self.by_role[Role::Rook].contains(rook_from) {
                self.remove_piece(us, Role::Rook, rook_from, &mut hash);
                self.place_piece(us, Role::Rook, rook_to, &mut hash);
            }
        }
        self.place_piece(us, placed, to, &mut hash);

        if us == Color::Black {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        self.turn = them;
        self.hash = hash;
        self.prune_ep_square();
    }

    /// Takes `color`'s `role` off `sq`, where it stands.
    #[inline]
    fn remove_piece(&mut self, color: Color, role: Role, sq: Square, hash: &mut u64) {
        self.toggle(color, role, sq, hash);
        self.board[sq.index()] = 0;
        self.psq.remove(color, role, sq);
    }

    /// Puts `color`'s `role` on the empty square `sq`.
    #[inline]
    fn place_piece(&mut self, color: Color, role: Role, sq: Square, hash: &mut u64) {
        self.toggle(color, role, sq, hash);
        self.board[sq.index()] = role as u8 + 1;
        self.psq.add(color, role, sq);
    }

    #[inline]
    fn toggle(&mut self, color: Color, role: Role, sq: Square, hash: &mut u64) {
        let b = sq.bb();
        self.by_role[role] ^= b;
        self.by_color[color] ^= b;
        self.occupied ^= b;
        *hash ^= zobrist::piece(color as usize, role.index(), sq.index());
    }

    /// Puts a piece on an empty square (setup only; the hash is recomputed by `refresh_hash`).
    pub(crate) fn put(&mut self, piece: Piece, sq: Square) {
        let b = sq.bb();
        self.by_role[piece.role] |= b;
        self.by_color[piece.color] |= b;
        self.occupied |= b;
        self.board[sq.index()] = piece.role as u8 + 1;
        self.psq.add(piece.color, piece.role, sq);
    }

    /// Recomputes the hash from scratch.
    #[must_use]
    pub fn compute_hash(&self) -> u64 {
        let mut h = 0;
        for color in Color::ALL {
            for role in Role::ALL {
                for sq in self.by_role[role] & self.by_color[color] {
                    h ^= zobrist::piece(color as usize, role.index(), sq.index());
                }
            }
        }
        for sq in self.unmoved {
            h ^= zobrist::unmoved(sq.index());
        }
        h ^= zobrist::castling(self.castling.0);
        if let Some(ep) = self.ep_square {
            h ^= zobrist::en_passant(ep.file());
        }
        if self.turn == Color::Black {
            h ^= zobrist::black_to_move();
        }
        h
    }

    pub(crate) fn refresh_hash(&mut self) {
        self.hash = self.compute_hash();
    }

    /// The outcome decided by this position alone: checkmate, stalemate, a side with every
    /// piece captured, the 75-move rule, or insufficient material. Repetition needs the history:
    /// see [`crate::Game::outcome`].
    #[must_use]
    pub fn outcome(&self) -> Option<Outcome> {
        for color in Color::ALL {
            if self.rules.side(color).loses_when == LossCondition::AllPiecesCaptured
                && self.by_color[color].is_empty()
            {
                return Some(Outcome::Decisive {
                    winner: color.other(),
                    reason: WinReason::AllPiecesCaptured,
                });
            }
        }
        if !self.has_legal_moves() {
            return Some(if self.is_check() {
                Outcome::Decisive { winner: self.turn.other(), reason: WinReason::Checkmate }
            } else {
                Outcome::Draw { reason: DrawReason::Stalemate }
            });
        }
        if self.halfmoves >= 150 {
            return Some(Outcome::Draw { reason: DrawReason::SeventyFiveMoves });
        }
        if self.is_insufficient_material() {
            return Some(Outcome::Draw { reason: DrawReason::InsufficientMaterial });
        }
        None
    }

    /// `true` if the side to move is checkmated.
    #[must_use]
    pub fn is_checkmate(&self) -> bool {
        self.is_check() && !self.has_legal_moves()
    }

    /// `true` if the side to move is stalemated.
    #[must_use]
    pub fn is_stalemate(&self) -> bool {
        !self.is_check() && !self.has_legal_moves()
    }

    /// Dead position by material: no pawns, rooks, queens or compound pieces (a compound piece is
    /// never insufficient), and either at most one minor piece in all or only bishops, all on
    /// squares of one colour. Always `false` when the profile disables the rule (Horde).
    #[must_use]
    pub fn is_insufficient_material(&self) -> bool {
        if !self.rules.insufficient_material_draw {
            return false;
        }
        let heavy = self.by_role[Role::Pawn]
            | self.by_role[Role::Rook]
            | self.by_role[Role::Queen]
            | self.by_role[Role::Archbishop]
            | self.by_role[Role::Chancellor]
            | self.by_role[Role::Maharajah];
        if heavy.any() {
            return false;
        }
        let knights = self.by_role[Role::Knight];
        let bishops = self.by_role[Role::Bishop];
        if (knights | bishops).count() <= 1 {
            return true;
        }
        knights.is_empty()
            && ((bishops & Bitboard::LIGHT).is_empty() || (bishops & Bitboard::DARK).is_empty())
    }

    /// Whether `color` has mating material for the loss-on-time rule: anything more than a lone
    /// king, or a king with a single knight or bishop (rules/maharajah.md §6). A side without a
    /// king (Horde's White) has mating material while it has any piece.
    #[must_use]
    pub fn has_mating_material(&self, color: Color) -> bool {
        let mine = self.by_color[color] & !self.by_role[Role::King];
        if mine.is_empty() {
            return false;
        }
        if mine.has_more_than_one() {
            return true;
        }
        !(mine & (self.by_role[Role::Knight] | self.by_role[Role::Bishop])).any()
    }

    /// Perft: the number of leaf nodes of the legal move tree at `depth` (leaves at the last ply
    /// are counted without being played).
    #[must_use]
    pub fn perft(&self, depth: u32) -> u64 {
        match depth {
            0 => 1,
            1 => self.count_legal_moves(),
            _ => {
                let mut n = 0;
                self.for_each_legal_move(|mv| {
                    let mut child = self.clone();
                    child.play_unchecked(mv);
                    n += child.perft(depth - 1);
                });
                n
            }
        }
    }

    /// Perft per root move ("divide"), in generation order.
    #[must_use]
    pub fn divide(&self, depth: u32) -> Vec<(Move, u64)> {
        let mut out = Vec::new();
        self.for_each_legal_move(|mv| {
            let mut child = self.clone();
            child.play_unchecked(mv);
            out.push((mv, if depth <= 1 { 1 } else { child.perft(depth - 1) }));
        });
        out
    }

    /// A multi-line ASCII diagram of the board, White at the bottom.
    #[must_use]
    pub fn board_string(&self) -> String {
        let mut s = String::new();
        for rank in (0..8).rev() {
            s.push_str(" +---+---+---+---+---+---+---+---+\n");
            for file in 0..8 {
                let sq = Square::from_coords(file, rank).unwrap_or(Square::A1);
                let c = self.piece_at(sq).map_or(' ', Piece::char);
                s.push_str(" | ");
                s.push(c);
            }
            s.push_str(&format!(" | {}\n", rank + 1));
        }
        s.push_str(" +---+---+---+---+---+---+---+---+\n   a   b   c   d   e   f   g   h\n");
        s
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Variant;

    /// Every position two plies deep from `pos` (and `pos` itself).
    fn tree(pos: &Position) -> Vec<Position> {
        let mut out = vec![pos.clone()];
        for &mv in pos.legal_moves().iter() {
            let child = pos.clone().play(mv).expect("generated moves are legal");
            out.extend(
                child
                    .legal_moves()
                    .iter()
                    .map(|&m| child.clone().play(m).expect("generated moves are legal")),
            );
            out.push(child);
        }
        out
    }

    /// Every position two plies from five roots (castling, en passant, promotions, a lone
    /// king, compound pieces) and from Horde's start.
    fn test_positions() -> Vec<Position> {
        let roots = [
            (
                Variant::Chess,
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            ),
            (Variant::Chess, "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"),
            (Variant::Chess, "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1"),
            (Variant::Chess, "7k/8/8/8/8/8/6q1/K7 w - - 0 1"),
            (Variant::Maharajah, "mcnbkbnr/4p3/8/8/8/8/3PPPP1/CANAKBNA w - - 0 1"),
        ];
        let mut out: Vec<Position> = roots
            .iter()
            .flat_map(|&(v, fen)| tree(&Position::from_fen(v, fen).expect("test FEN is valid")))
            .collect();
        out.extend(tree(&Position::new(Variant::Horde)));
        out
    }

    #[test]
    fn the_mailbox_follows_the_role_boards() {
        for pos in &test_positions() {
            for sq in (0..64).filter_map(Square::new) {
                let scan = Role::ALL.into_iter().find(|&r| pos.by_role[r].contains(sq));
                assert_eq!(pos.role_at(sq), scan, "{pos} {sq}");
            }
        }
    }

    #[test]
    fn hash_after_is_the_childs_hash_but_for_en_passant_and_castling() {
        let (mut exact, mut other) = (0, 0);
        let mut check = |pos: &Position| {
            for &mv in pos.legal_moves().iter() {
                let child = pos.clone().play(mv).expect("generated moves are legal");
                let role = pos.role_at(mv.from);
                let special = child.ep_square.is_some()
                    || (role == Some(Role::Pawn)
                        && pos.role_at(mv.to).is_none()
                        && mv.from.file() != mv.to.file())
                    || (role == Some(Role::King) && mv.from.file().abs_diff(mv.to.file()) == 2);
                if special {
                    other += 1;
                } else {
                    assert_eq!(pos.hash_after(mv), child.hash(), "{pos} {mv}");
                    exact += 1;
                }
            }
        };
        test_positions().iter().for_each(&mut check);
        assert!(exact > 10_000 && other > 0, "{exact} exact, {other} special");
    }

    #[test]
    fn noisy_moves_are_the_legal_captures_and_promotions() {
        for pos in test_positions() {
            let mut noisy = Vec::new();
            let any = pos.for_each_noisy_move(|m| noisy.push(m));
            // Quiet moves onto the en-passant square may come too; quiescence drops them.
            noisy.retain(|&m| pos.is_capture(m) || m.promotion.is_some());
            let legal = pos.legal_moves();
            let expected: Vec<Move> = legal
                .iter()
                .copied()
                .filter(|&m| pos.is_capture(m) || m.promotion.is_some())
                .collect();
            assert_eq!(noisy, expected, "{pos}");
            assert_eq!(any, !legal.is_empty(), "{pos}");
        }
    }
}
