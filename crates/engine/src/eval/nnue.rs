//! The evaluation networks: small, efficiently evaluated networks ("NNUE") that correct the
//! hand-written evaluation, one each for chess, Horde and Maharajah.
//!
//! Shape: `FEATURES → hidden` per perspective (the side to move's and the other side's, the
//! same weights), squared clipped ReLU, then one output from both halves (the side to move's
//! first). An input is a piece on a square seen from one side: own or enemy, its role (all
//! nine, so the shape holds for Maharajah's pieces), and its square, flipped vertically for
//! Black. Each network has its own hidden size, one of [`HIDDEN_SIZES`] (the embedded chess
//! and Maharajah networks 64, Horde's [`HIDDEN`]); a file is 74 KB with 32 neurons, 148 KB
//! with 64. [`Network::evaluate`] sums the weight rows of the pieces on the board; the search
//! keeps an [`Accumulator`] per ply and has each node's from an earlier ply's by the pieces
//! that moved ([`Network::update`]: a move costs two to four rows per view), which gives
//! exactly the same sums.
//!
//! The networks in use are `net.bin` (chess), `net-horde.bin` (Horde) and `net-maharajah.bin`
//! (Maharajah) beside this file, embedded with `include_bytes!` ([`network`]). A network's
//! output is added to [`crate::eval::evaluate`] (a *residual* network, magic `MHR1`) as
//! [`crate::eval::network_for`] picks it: chess's under chess's rules (also a Maharajah game
//! begun from the orthodox array), Horde's in Horde, Maharajah's in every other Maharajah
//! game. Each was trained by `crates/engine/examples/nnue.rs` on positions of its variant from
//! this engine's self-play: chess's and Horde's scored by Fairy-Stockfish's search,
//! Maharajah's by this engine's own deeper search (Fairy-Stockfish's labels taught a Maharajah
//! network nothing that won games). The data, the commands and the matches that admitted them
//! are in `crates/engine/README.md` ("The evaluation networks") and BENCHMARKS.md.
//!
//! A network trained on positions scored within some range knows little of lopsided ones: its
//! correction fades beyond its *reach* ([`reach`], [`Network::fade`]), so a queen up stays a
//! queen up.
//!
//! The output layer may come in *buckets* by the number of pieces on the board (four pieces
//! a bucket, [`bucket`]), so that the same hidden layer is read one way with a full board and
//! another in an endgame.
//!
//! File format (little-endian): the magic `MHR1` (the output is added to the hand-written
//! evaluation; one output bucket) or `MHR2` (the same, with a `u32` count of output buckets
//! after the hidden size), `u32` hidden size, then the input weights as `i16`
//! (feature-major, `FEATURES × hidden`, scaled by [`QA`]), the hidden biases (`i16`, by [`QA`]),
//! the output weights (`i16`, `2 × hidden` a bucket, by [`QB`]) and the output biases (`i32`
//! a bucket, by `QA · QB`). The float output is in units of [`SCALE`] centipawns.

use std::sync::OnceLock;

use crate::{Bitboard, ByColor, ByRole, Color, Piece, Position, Role, Square, Variant};

/// Inputs: one per (own or enemy, role, square from the viewer's side).
pub const FEATURES: usize = 2 * 9 * 64;
/// Neurons of the hidden layer, per perspective, of Horde's network and of the trainer unless
/// told otherwise (`nnue train --hidden`); chess's and Maharajah's networks have 64.
pub const HIDDEN: usize = 32;
/// The hidden sizes a network file may have (each network has its own); `with_hidden!` has an
/// arm for each.
pub const HIDDEN_SIZES: [usize; 4] = [32, 64, 128, 256];
/// The largest of [`HIDDEN_SIZES`]: an [`Accumulator`] has room for it.
pub const MAX_HIDDEN: usize = 256;
/// Scale of the input weights and hidden biases.
pub const QA: i32 = 255;
/// Scale of the output weights.
pub const QB: i32 = 1024;
/// Centipawns per unit of the float output.
pub const SCALE: i32 = 400;

/// The magic of a network file: its output corrects the hand-written evaluation.
const MAGIC: &[u8; 4] = b"MHR1";
/// The magic of a network file with output buckets ([`bucket`]).
const MAGIC_BUCKETS: &[u8; 4] = b"MHR2";
/// Most output buckets a file may have (four pieces a bucket up to a full chess board).
pub const MAX_BUCKETS: usize = 8;

/// The output bucket of a board with `pieces` pieces on it, of `buckets`: four pieces a bucket,
/// the last one taking all boards fuller than that.
#[must_use]
pub fn bucket(pieces: u32, buckets: usize) -> usize {
    (pieces.saturating_sub(1) as usize / 4).min(buckets - 1)
}

/// The input index of `piece` on `sq`, seen by `view` (squares flipped for Black, so both sides
/// see their own pieces from their first rank).
#[must_use]
pub fn feature(view: Color, piece: Piece, sq: Square) -> usize {
    let side = usize::from(piece.color != view);
    (side * 9 + piece.role.index()) * 64 + sq.relative(view).index()
}

/// A quantised network.
pub struct Network {
    /// `FEATURES × hidden`, feature-major.
    w1: Box<[i16]>,
    /// One a hidden neuron: its length is the hidden size, one of [`HIDDEN_SIZES`].
    b1: Box<[i16]>,
    /// `2 × hidden` a bucket.
    w2: Box<[i16]>,
    /// One a bucket.
    b2: Box<[i32]>,
    /// The hand-written scores the network was trained to correct: its correction is whole
    /// within this many centipawns, fades beyond, and is none past twice as many
    /// ([`Network::fade`]). `None`: whole everywhere.
    reach: Option<i32>,
}

/// Why a network file cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetError {
    /// It does not start with `MHR1` or `MHR2`.
    Magic,
    /// Its count of output buckets is 0 or beyond [`MAX_BUCKETS`].
    Buckets(u32),
    /// Its hidden size is not one of [`HIDDEN_SIZES`].
    Hidden(u32),
    /// It is not as long as its shape needs.
    Length(usize),
}

impl std::fmt::Display for NetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NetError::Magic => write!(f, "not a network file (no MHR1 or MHR2 magic)"),
            NetError::Buckets(b) => {
                write!(f, "{b} output buckets (1 to {MAX_BUCKETS} can be read)")
            }
            NetError::Hidden(h) => {
                write!(f, "hidden size {h}, this build reads {HIDDEN_SIZES:?}")
            }
            NetError::Length(n) => write!(f, "{n} bytes, not the length of a network"),
        }
    }
}

impl std::error::Error for NetError {}

/// The length of the header of a file: the magic, the hidden size and, for `MHR2`
/// (`with_buckets`), the count of output buckets.
const fn header_len(with_buckets: bool) -> usize {
    if with_buckets {
        12
    } else {
        8
    }
}

/// Evaluates `$body` with `$h` a constant equal to `$size` (one of [`HIDDEN_SIZES`]), so the
/// loops of the functions generic over it vectorise in full: the one place a hidden size
/// becomes a type-level constant.
macro_rules! with_hidden {
    ($size:expr, $h:ident => $body:expr) => {
        match $size {
            32 => {
                const $h: usize = 32;
                $body
            }
            64 => {
                const $h: usize = 64;
                $body
            }
            128 => {
                const $h: usize = 128;
                $body
            }
            _ => {
                const $h: usize = MAX_HIDDEN;
                $body
            }
        }
    };
}

/// The length of a file of `hidden` neurons and `buckets` output buckets.
const fn file_len(with_buckets: bool, hidden: usize, buckets: usize) -> usize {
    header_len(with_buckets) + 2 * (FEATURES * hidden + hidden) + buckets * (2 * 2 * hidden + 4)
}

/// Adds (`add`) or takes away the rows `a` (White's view) and `b` (Black's) of `H` weights
/// each in `views`. `H` is a constant so each loop vectorises in full.
#[inline(always)]
fn apply_rows<const H: usize>(views: &mut [[i16; MAX_HIDDEN]; 2], a: &[i16], b: &[i16], add: bool) {
    let [white, black] = views;
    let (white, black) = (&mut white[..H], &mut black[..H]);
    let (a, b) = (&a[..H], &b[..H]);
    // Two loops rather than one chosen operation: each vectorises.
    if add {
        for i in 0..H {
            white[i] = white[i].wrapping_add(a[i]);
            black[i] = black[i].wrapping_add(b[i]);
        }
    } else {
        for i in 0..H {
            white[i] = white[i].wrapping_sub(a[i]);
            black[i] = black[i].wrapping_sub(b[i]);
        }
    }
}

/// Σ clamp(a)² · w over `H` neurons, exactly, in 32-bit sums (which vectorise): c² ≤ 255² is
/// split into its high and low bytes, so each product stays below 255 · 32,767 and each sum of
/// up to [`MAX_HIDDEN`] below 2³¹. Returns the sums of the high and the low parts.
#[inline(always)]
fn squared_dot<const H: usize>(a: &[i16], w: &[i16]) -> (i32, i32) {
    let (a, w) = (&a[..H], &w[..H]);
    let (mut high, mut low) = (0i32, 0i32);
    for i in 0..H {
        let c = i32::from(a[i]).clamp(0, QA);
        let (sq, w) = (c * c, i32::from(w[i]));
        high += (sq >> 8) * w;
        low += (sq & 255) * w;
    }
    (high, low)
}

impl Network {
    /// Reads a network file.
    ///
    /// # Errors
    /// [`NetError`] when the bytes are not a network of this shape.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetError> {
        let word =
            |at: usize| bytes.get(at..at + 4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
        let with_buckets = match bytes.get(..4) {
            Some(m) if m == MAGIC.as_slice() => false,
            Some(m) if m == MAGIC_BUCKETS.as_slice() => true,
            _ => return Err(NetError::Magic),
        };
        let hidden = word(4).ok_or(NetError::Length(bytes.len()))?;
        if !HIDDEN_SIZES.contains(&(hidden as usize)) {
            return Err(NetError::Hidden(hidden));
        }
        let hidden = hidden as usize;
        let buckets = if with_buckets { word(8).ok_or(NetError::Length(bytes.len()))? } else { 1 };
        if buckets == 0 || buckets as usize > MAX_BUCKETS {
            return Err(NetError::Buckets(buckets));
        }
        let buckets = buckets as usize;
        if bytes.len() != file_len(with_buckets, hidden, buckets) {
            return Err(NetError::Length(bytes.len()));
        }
        let end = bytes.len() - 4 * buckets;
        let mut words = bytes[header_len(with_buckets)..end]
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]));
        let w1: Box<[i16]> = words.by_ref().take(FEATURES * hidden).collect();
        let b1: Box<[i16]> = words.by_ref().take(hidden).collect();
        let w2: Box<[i16]> = words.collect();
        let b2: Box<[i32]> = bytes[end..]
            .chunks_exact(4)
            .map(|t| i32::from_le_bytes([t[0], t[1], t[2], t[3]]))
            .collect();
        Ok(Network { w1, b1, w2, b2, reach: None })
    }

    /// Neurons of the hidden layer, per perspective.
    #[must_use]
    pub fn hidden(&self) -> usize {
        self.b1.len()
    }

    /// The quantised weights as the file holds them: input weights (feature-major), hidden
    /// biases, output weights (`2 ×` [`Network::hidden`] a bucket) and output biases (one a bucket), scaled
    /// as the module docs say.
    #[must_use]
    pub fn weights(&self) -> (&[i16], &[i16], &[i16], &[i32]) {
        (&self.w1, &self.b1, &self.w2, &self.b2)
    }

    /// Which network an [`Accumulator`] was summed by: its address (never 0).
    fn id(&self) -> usize {
        std::ptr::from_ref(self) as usize
    }

    /// Adds (`add`) or takes away `piece` on `sq` in both views of `views`, `H` being this
    /// network's hidden size.
    #[inline(always)]
    fn apply<const H: usize>(
        &self,
        views: &mut [[i16; MAX_HIDDEN]; 2],
        piece: Piece,
        sq: Square,
        add: bool,
    ) {
        let a = feature(Color::White, piece, sq) * H;
        let b = feature(Color::Black, piece, sq) * H;
        apply_rows::<H>(views, &self.w1[a..a + H], &self.w1[b..b + H], add);
    }

    /// Sums `acc`'s hidden layer for `pos` from scratch.
    pub fn refresh(&self, pos: &Position, acc: &mut Accumulator) {
        with_hidden!(self.hidden(), H => self.refresh_h::<H>(pos, acc));
    }

    fn refresh_h<const H: usize>(&self, pos: &Position, acc: &mut Accumulator) {
        acc.net = self.id();
        acc.by_role = pos.by_role;
        acc.by_color = pos.by_color;
        for view in &mut acc.views {
            view[..H].copy_from_slice(&self.b1[..H]);
        }
        for color in Color::ALL {
            for role in Role::ALL {
                let piece = Piece { color, role };
                for sq in pos.by_piece(piece) {
                    self.apply::<H>(&mut acc.views, piece, sq, true);
                }
            }
        }
    }

    /// Sets `to` to `pos`'s hidden layer from `from`'s (summed for another board by this
    /// network) by the pieces that differ, when at most [`MAX_CHANGES`] squares changed hands;
    /// otherwise from scratch. The sums wrap, so either way `to` holds exactly what
    /// [`Network::refresh`] gives.
    pub fn update(&self, from: &Accumulator, pos: &Position, to: &mut Accumulator) {
        with_hidden!(self.hidden(), H => self.update_h::<H>(from, pos, to));
    }

    fn update_h<const H: usize>(&self, from: &Accumulator, pos: &Position, to: &mut Accumulator) {
        let moved = (from.occupied() ^ pos.occupied).count();
        if from.net != self.id() || moved > MAX_CHANGES {
            self.refresh_h::<H>(pos, to);
            return;
        }
        to.net = self.id();
        to.by_role = pos.by_role;
        to.by_color = pos.by_color;
        for (t, f) in to.views.iter_mut().zip(&from.views) {
            t[..H].copy_from_slice(&f[..H]);
        }
        for role in Role::ALL {
            for color in Color::ALL {
                let old = from.by_role[role] & from.by_color[color];
                let new = pos.by_role[role] & pos.by_color[color];
                if old == new {
                    continue;
                }
                let piece = Piece { color, role };
                for sq in old & !new {
                    self.apply::<H>(&mut to.views, piece, sq, false);
                }
                for sq in new & !old {
                    self.apply::<H>(&mut to.views, piece, sq, true);
                }
            }
        }
    }

    /// The network's score in centipawns from `acc`, summed for a position with `turn` to
    /// move, from that side's view.
    #[must_use]
    pub fn output(&self, acc: &Accumulator, turn: Color) -> i32 {
        with_hidden!(self.hidden(), H => self.output_h::<H>(acc, turn))
    }

    fn output_h<const H: usize>(&self, acc: &Accumulator, turn: Color) -> i32 {
        let index = |c: Color| usize::from(c != Color::White);
        let halves = [&acc.views[index(turn)], &acc.views[index(turn.other())]];
        let b = bucket(acc.occupied().count(), self.b2.len());
        let w2 = &self.w2[b * 2 * H..(b + 1) * 2 * H];
        let (mut high, mut low) = (0i64, 0i64);
        for (k, a) in halves.into_iter().enumerate() {
            let (hi, lo) = squared_dot::<H>(a, &w2[k * H..(k + 1) * H]);
            high += i64::from(hi);
            low += i64::from(lo);
        }
        let sum = high * 256 + low;
        let out = sum / i64::from(QA) + i64::from(self.b2[b]);
        (out * i64::from(SCALE) / i64::from(QA * QB)) as i32
    }

    /// This network with its correction faded beyond `reach` centipawns of the hand-written
    /// evaluation ([`Network::fade`]), or whole everywhere (`None`).
    #[must_use]
    pub fn with_reach(self, reach: Option<i32>) -> Network {
        Network { reach: reach.map(|r| r.max(1)), ..self }
    }

    /// The part of `correction` (this network's output) that applies where the hand-written
    /// evaluation says `hand`: all of it within the network's reach `r`, none beyond `2r`, in
    /// proportion between. A network trained on positions scored within some range has seen
    /// few lopsided ones and tends to shrink them (a queen up read as three pawns up): beyond
    /// its range the hand-written material count is the better judge.
    #[inline]
    #[must_use]
    pub fn fade(&self, hand: i32, correction: i32) -> i32 {
        match self.reach {
            Some(r) if hand.abs() > r => {
                let left = (2 * r - hand.abs()).max(0);
                correction * left / r
            }
            _ => correction,
        }
    }

    /// The network's score of `pos` in centipawns, from the side to move's view.
    #[must_use]
    pub fn evaluate(&self, pos: &Position) -> i32 {
        let mut acc = Accumulator::new();
        self.refresh(pos, &mut acc);
        self.output(&acc, pos.turn())
    }
}

/// Squares emptied or filled beyond which [`Network::update`] sums from scratch instead (a full sum
/// costs one row per piece on the board).
pub const MAX_CHANGES: u32 = 12;

/// A network's hidden layer for one board, seen by White and by Black, with the board it was
/// summed for, so the next position's can be had from the pieces that moved
/// ([`Network::update`]).
#[derive(Clone)]
pub struct Accumulator {
    /// The network's address ([`Network::id`]), 0 for none.
    net: usize,
    by_role: ByRole<Bitboard>,
    by_color: ByColor<Bitboard>,
    /// The first [`Network::hidden`] of each view are the network's.
    views: [[i16; MAX_HIDDEN]; 2],
}

impl Accumulator {
    fn occupied(&self) -> Bitboard {
        self.by_color.white | self.by_color.black
    }

    /// An accumulator of no network yet (the first [`Network::update`] sums from scratch).
    #[must_use]
    pub fn new() -> Accumulator {
        Accumulator {
            net: 0,
            by_role: ByRole([Bitboard::EMPTY; 9]),
            by_color: ByColor { white: Bitboard::EMPTY, black: Bitboard::EMPTY },
            views: [[0; MAX_HIDDEN]; 2],
        }
    }
}

impl Default for Accumulator {
    fn default() -> Accumulator {
        Accumulator::new()
    }
}

/// Quantises float weights (the trainer's) into the file format: `b1` holds one bias a hidden
/// neuron (its length is the hidden size), `w1` `FEATURES ×` that, `w2` twice that a bucket
/// and `b2` one bias a bucket (`MHR1` for one bucket, `MHR2` for more).
///
/// # Panics
/// When the hidden size is not one of [`HIDDEN_SIZES`], `b2` is empty or longer than
/// [`MAX_BUCKETS`], or `w1` or `w2` is not as long as that shape needs.
#[must_use]
pub fn quantise(w1: &[f32], b1: &[f32], w2: &[f32], b2: &[f32]) -> Vec<u8> {
    let (hidden, buckets) = (b1.len(), b2.len());
    assert!(HIDDEN_SIZES.contains(&hidden), "hidden size {hidden}");
    assert!((1..=MAX_BUCKETS).contains(&buckets), "{buckets} output buckets");
    assert_eq!(w1.len(), FEATURES * hidden, "input weights for {hidden} neurons");
    assert_eq!(w2.len(), buckets * 2 * hidden, "output weights for {buckets} buckets");
    let with_buckets = buckets > 1;
    let mut out = Vec::with_capacity(file_len(with_buckets, hidden, buckets));
    out.extend_from_slice(if with_buckets { MAGIC_BUCKETS } else { MAGIC });
    out.extend_from_slice(&(hidden as u32).to_le_bytes());
    if with_buckets {
        out.extend_from_slice(&(buckets as u32).to_le_bytes());
    }
    let q = |x: f32, s: i32| (x * s as f32).round().clamp(-32_767.0, 32_767.0) as i16;
    for &w in w1.iter().chain(b1) {
        out.extend_from_slice(&q(w, QA).to_le_bytes());
    }
    for &w in w2 {
        out.extend_from_slice(&q(w, QB).to_le_bytes());
    }
    for &b in b2 {
        out.extend_from_slice(&((b * (QA * QB) as f32).round() as i32).to_le_bytes());
    }
    out
}

/// The reach of chess's network ([`Network::fade`]). It was trained on positions Fairy-Stockfish
/// scores within ±500 of its centipawns (about ±330 of this engine's). Of 400 and 600,
/// 400 measured the better against Fairy-Stockfish (BENCHMARKS.md, "Engine, session 25").
pub const CHESS_REACH: i32 = 400;

/// The reach ([`Network::fade`]) of `variant`'s embedded network: chess's [`CHESS_REACH`];
/// Horde's and Maharajah's were trained on every score and correct everywhere.
#[must_use]
pub const fn reach(variant: Variant) -> Option<i32> {
    match variant {
        Variant::Chess => Some(CHESS_REACH),
        Variant::Maharajah | Variant::Horde => None,
    }
}

static CHESS: OnceLock<Network> = OnceLock::new();
static HORDE: OnceLock<Network> = OnceLock::new();
static MAHARAJAH: OnceLock<Network> = OnceLock::new();

fn embedded(
    cell: &'static OnceLock<Network>,
    bytes: &[u8],
    name: &str,
    variant: Variant,
) -> &'static Network {
    cell.get_or_init(|| {
        Network::from_bytes(bytes)
            .unwrap_or_else(|e| {
                panic!(
                    "the embedded network {name} is broken ({e}); rebuild it with examples/nnue.rs"
                )
            })
            .with_reach(reach(variant))
    })
}

/// The embedded network of `variant`: `net.bin` for chess, `net-horde.bin` for Horde,
/// `net-maharajah.bin` for Maharajah (trained on every score: no reach, as Horde's).
#[must_use]
pub fn network(variant: Variant) -> Option<&'static Network> {
    match variant {
        Variant::Chess => Some(embedded(&CHESS, include_bytes!("net.bin"), "net.bin", variant)),
        Variant::Maharajah => Some(embedded(
            &MAHARAJAH,
            include_bytes!("net-maharajah.bin"),
            "net-maharajah.bin",
            variant,
        )),
        Variant::Horde => {
            Some(embedded(&HORDE, include_bytes!("net-horde.bin"), "net-horde.bin", variant))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::{evaluate, evaluate_search, network_for, PawnCache};
    use crate::{Position, Variant};

    fn pos(variant: Variant, fen: &str) -> Position {
        crate::attacks::init();
        Position::from_fen(variant, fen).expect("test FEN is valid")
    }

    fn same(a: Option<&'static Network>, b: Option<&'static Network>) -> bool {
        match (a, b) {
            (Some(a), Some(b)) => std::ptr::eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }

    #[test]
    fn each_variant_gets_its_own_embedded_network() {
        for bytes in [
            include_bytes!("net.bin").as_slice(),
            include_bytes!("net-horde.bin"),
            include_bytes!("net-maharajah.bin"),
        ] {
            assert!(
                [MAGIC, MAGIC_BUCKETS].iter().any(|m| bytes[..4] == m[..]),
                "an embedded network corrects the hand-written evaluation"
            );
        }
        let (chess_net, horde_net, maharajah_net) = (
            network(Variant::Chess).expect("chess has a network"),
            network(Variant::Horde).expect("Horde has a network"),
            network(Variant::Maharajah).expect("Maharajah has a network"),
        );
        assert!(!std::ptr::eq(chess_net, horde_net), "three networks");
        assert!(!std::ptr::eq(chess_net, maharajah_net), "three networks");
        assert!(!std::ptr::eq(horde_net, maharajah_net), "three networks");
        let mut cache = PawnCache::new();
        let chess = pos(
            Variant::Chess,
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
        );
        // Two classic armies on the orthodox array are a game of chess (the standard profile).
        let orthodox =
            pos(Variant::Maharajah, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        let maharajah = pos(Variant::Maharajah, "rnbqkbnr/pppppppp/8/8/8/8/8/CCCAKBA1 w kq - 0 1");
        // (Not one square off the orthodox array: the g1/h1 swap is near enough to symmetric
        // that session 37's network scores it exactly 0.)
        let classic =
            pos(Variant::Maharajah, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/NRBQKBRN w kq - 0 1");
        // Horde's White has no king; its network applies all the same.
        let horde = Position::new(Variant::Horde);
        // Every other Maharajah army (a classic one off the orthodox array too) gets
        // Maharajah's.
        for (p, net) in [
            (&chess, chess_net),
            (&orthodox, chess_net),
            (&horde, horde_net),
            (&maharajah, maharajah_net),
            (&classic, maharajah_net),
        ] {
            assert!(same(network_for(p), Some(net)), "{p}");
            let searched = evaluate_search(p, &mut cache, |n| n.evaluate(p));
            assert_eq!(searched, evaluate(p) + net.fade(evaluate(p), net.evaluate(p)), "{p}");
            assert_ne!(net.evaluate(p), 0, "{p}: the network has something to say");
        }
    }

    #[test]
    fn a_correction_fades_beyond_the_networks_reach() {
        let net = || Network::from_bytes(include_bytes!("net.bin")).expect("chess's network");
        let whole = net();
        let faded = net().with_reach(Some(400));
        for hand in [-3000, -800, -401, -400, 0, 399, 400, 401, 600, 799, 800, 5000] {
            assert_eq!(whole.fade(hand, 250), 250, "no reach: all of it at {hand}");
        }
        for (hand, part) in
            [(0, 250), (400, 250), (-400, 250), (500, 187), (-600, 125), (700, 62), (800, 0)]
        {
            assert_eq!(faded.fade(hand, 250), part, "at {hand}");
            assert_eq!(faded.fade(hand, -250), -part, "at {hand}");
        }
        assert_eq!(faded.fade(-5000, 250), 0);
        // The embedded chess network: a queen up is worth what the hand-written evaluation says
        // (the network was trained on balanced positions and would shrink it), while Horde's,
        // trained on every score, corrects everywhere.
        let chess = network(Variant::Chess).expect("chess has a network");
        let mut cache = PawnCache::new();
        for fen in ["4k3/8/8/8/8/8/PPPP4/3QK3 w - - 0 1", "4k3/8/8/8/8/8/8/R2QK3 b - - 0 1"] {
            let p = pos(Variant::Chess, fen);
            let hand = evaluate(&p);
            assert!(hand.abs() >= 2 * CHESS_REACH, "{p}: lopsided ({hand})");
            assert_eq!(evaluate_search(&p, &mut cache, |n| n.evaluate(&p)), hand, "{p}");
        }
        let horde = network(Variant::Horde).expect("Horde has a network");
        assert_eq!(horde.fade(5000, 250), 250);
        assert_eq!(chess.fade(2 * CHESS_REACH, 250), 0, "the embedded network has its reach");
    }

    #[test]
    fn a_position_and_its_colour_mirror_score_the_same() {
        for (variant, fen, mirrored) in [
            (
                Variant::Chess,
                "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
                "rnbqk2r/pppp1ppp/5n2/2b1p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R b KQkq - 4 4",
            ),
            (
                Variant::Chess,
                "8/5k2/8/3p4/8/2N5/5PPP/6K1 b - - 0 40",
                "6k1/5ppp/2n5/8/3P4/8/5K2/8 w - - 0 40",
            ),
            (
                Variant::Maharajah,
                "bccbkrqb/8/8/8/8/8/3C4/NBPQKPMP w - - 0 1",
                "nbpqkpmp/3c4/8/8/8/8/8/BCCBKRQB b - - 0 1",
            ),
        ] {
            // Chess's network: the Maharajah position checks the compound pieces' inputs.
            let net = network(Variant::Chess).expect("a network");
            let (a, b) = (pos(variant, fen), pos(variant, mirrored));
            assert_eq!(net.evaluate(&a), net.evaluate(&b), "{fen}");
        }
    }

    #[test]
    fn a_hidden_layer_carried_from_move_to_move_is_the_one_summed_from_scratch() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(21);
        let starts = [
            (
                Variant::Chess,
                "r3k2r/pPppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            ),
            (Variant::Chess, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
            (
                Variant::Horde,
                "rnbqkbnr/pppppppp/8/1PP2PP1/PPPPPPPP/PPPPPPPP/PPPPPPPP/PPPPPPPP w kq - 0 1",
            ),
            (Variant::Maharajah, "bccbkrqb/8/8/8/8/8/3C4/NBPQKPMP w - - 0 1"),
        ];
        let mut checked = 0;
        for (variant, fen) in starts {
            let net = network(Variant::Chess).expect("a network");
            for _ in 0..20 {
                let mut p = pos(variant, fen);
                let mut line = vec![Accumulator::new()];
                net.refresh(&p, &mut line[0]);
                for _ in 0..80 {
                    let moves = p.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    p.play_unchecked(moves[rng.random_range(0..moves.len())]);
                    // From the parent (one move), or from further up the line (a parent that
                    // was never evaluated), or from a fresh accumulator (sums from scratch).
                    let back = rng.random_range(1..=line.len().min(6));
                    let mut next = Accumulator::new();
                    let from = if rng.random_range(0..10) == 0 {
                        Accumulator::new()
                    } else {
                        line[line.len() - back].clone()
                    };
                    net.update(&from, &p, &mut next);
                    let mut fresh = Accumulator::new();
                    net.refresh(&p, &mut fresh);
                    assert_eq!(next.views, fresh.views, "{p}");
                    assert_eq!(net.output(&next, p.turn()), net.evaluate(&p), "{p}");
                    line.push(next);
                    checked += 1;
                }
            }
        }
        assert!(checked > 4_000, "{checked} positions");
        // An accumulator of another network is never carried over.
        let horde = network(Variant::Horde).expect("Horde's network");
        let p = Position::new(Variant::Horde);
        let mut chess_acc = Accumulator::new();
        network(Variant::Chess).expect("a network").refresh(&p, &mut chess_acc);
        let mut next = Accumulator::new();
        horde.update(&chess_acc, &p, &mut next);
        assert_eq!(horde.output(&next, p.turn()), horde.evaluate(&p));
        assert_ne!(chess_acc.views, next.views);
    }

    #[test]
    fn a_broken_file_is_refused_with_its_reason() {
        assert_eq!(Network::from_bytes(b"MH").err(), Some(NetError::Magic));
        assert_eq!(Network::from_bytes(b"XXXX\x40\0\0\0").err(), Some(NetError::Magic));
        assert_eq!(Network::from_bytes(b"MHR1").err(), Some(NetError::Length(4)));
        assert_eq!(Network::from_bytes(b"MHR1\x07\0\0\0").err(), Some(NetError::Hidden(7)));
        assert_eq!(Network::from_bytes(b"MHR1\x30\0\0\0").err(), Some(NetError::Hidden(48)));
        assert_eq!(
            NetError::Hidden(48).to_string(),
            "hidden size 48, this build reads [32, 64, 128, 256]"
        );
        let mut short = b"MHR1".to_vec();
        short.extend_from_slice(&(HIDDEN as u32).to_le_bytes());
        short.extend_from_slice(&[0; 100]);
        assert_eq!(Network::from_bytes(&short).err(), Some(NetError::Length(108)));
        for (buckets, error) in [(0u32, NetError::Buckets(0)), (9, NetError::Buckets(9))] {
            let mut file = b"MHR2".to_vec();
            file.extend_from_slice(&(HIDDEN as u32).to_le_bytes());
            file.extend_from_slice(&buckets.to_le_bytes());
            assert_eq!(Network::from_bytes(&file).err(), Some(error));
        }
        let mut cut =
            quantise(&[0.0; FEATURES * HIDDEN], &[0.0; HIDDEN], &[0.0; 4 * HIDDEN], &[0.0, 0.0]);
        cut.pop();
        assert_eq!(Network::from_bytes(&cut).err(), Some(NetError::Length(cut.len())));
    }

    #[test]
    fn the_output_bucket_follows_the_pieces_on_the_board() {
        assert_eq!(bucket(32, 8), 7);
        assert_eq!(bucket(30, 8), 7);
        assert_eq!(bucket(5, 8), 1);
        assert_eq!(bucket(4, 8), 0);
        assert_eq!(bucket(2, 8), 0);
        assert_eq!(bucket(40, 8), 7, "Maharajah's fuller boards share the last bucket");
        assert_eq!(bucket(32, 1), 0);
        // Two buckets that differ only in their bias: boards of up to four pieces read the
        // first (0.25 · 400 = 100 cp), fuller ones the second (−50 cp).
        let w1 = vec![0.0f32; FEATURES * HIDDEN];
        let net = Network::from_bytes(&quantise(
            &w1,
            &[0.0; HIDDEN],
            &[0.0; 4 * HIDDEN],
            &[0.25, -0.125],
        ))
        .expect("a network with two buckets");
        assert_eq!(net.weights().3.len(), 2);
        let few = pos(Variant::Chess, "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
        let more = pos(Variant::Chess, "4k3/4p3/8/8/8/8/4PP2/4K3 w - - 0 1");
        assert_eq!(net.evaluate(&few), 100);
        assert_eq!(net.evaluate(&more), -50);
    }

    #[test]
    fn quantised_weights_give_the_float_network() {
        // At every hidden size, the last hidden neuron fed by a white pawn on e2 (seen by
        // White) with weight 0.5: the side to move's half gives 0.5² · 1.0, the other side's
        // half nothing (its e2 is Black's e7).
        for hidden in HIDDEN_SIZES {
            let mut w1 = vec![0.0f32; FEATURES * hidden];
            let f = feature(
                Color::White,
                Piece { color: Color::White, role: crate::Role::Pawn },
                Square::from_coords(4, 1).expect("e2"),
            );
            w1[f * hidden + hidden - 1] = 0.5;
            let b1 = vec![0.0f32; hidden];
            let mut w2 = vec![0.0f32; 2 * hidden];
            w2[hidden - 1] = 1.0;
            let net = Network::from_bytes(&quantise(&w1, &b1, &w2, &[0.25])).expect("a network");
            assert_eq!(net.hidden(), hidden);
            let p = pos(Variant::Chess, "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
            // (0.25 + 0.25) · 400 cp, within the rounding of 0.5 · 255.
            assert!((net.evaluate(&p) - 200).abs() <= 1, "{hidden}: {}", net.evaluate(&p));
            let black = pos(Variant::Chess, "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1");
            assert_eq!(net.evaluate(&black), 100, "{hidden}");
        }
    }

    /// A network of `hidden` neurons with weights from a fixed pseudo-random sequence.
    fn scrambled(hidden: usize, seed: u64) -> Network {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut draw =
            |n: usize, r: f32| -> Vec<f32> { (0..n).map(|_| rng.random_range(-r..r)).collect() };
        let (w1, b1, w2) = (draw(FEATURES * hidden, 0.3), draw(hidden, 0.5), draw(2 * hidden, 2.0));
        Network::from_bytes(&quantise(&w1, &b1, &w2, &[0.1])).expect("a network")
    }

    #[test]
    fn every_hidden_size_carries_its_layer_exactly() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut outputs = Vec::new();
        for hidden in HIDDEN_SIZES {
            let net = scrambled(hidden, hidden as u64);
            let mut p = pos(Variant::Maharajah, "bccbkrqb/8/8/8/8/8/3C4/NBPQKPMP w - - 0 1");
            let mut acc = Accumulator::new();
            net.refresh(&p, &mut acc);
            for _ in 0..60 {
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                p.play_unchecked(moves[rng.random_range(0..moves.len())]);
                let mut next = Accumulator::new();
                net.update(&acc, &p, &mut next);
                assert_eq!(net.output(&next, p.turn()), net.evaluate(&p), "{hidden}: {p}");
                acc = next;
            }
            outputs.push(net.evaluate(&Position::new(Variant::Chess)));
        }
        // Each size reads its own weights: four different networks, four different scores.
        outputs.sort_unstable();
        outputs.dedup();
        assert_eq!(outputs.len(), HIDDEN_SIZES.len(), "{outputs:?}");
    }
}
