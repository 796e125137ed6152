//! Zobrist keys, generated at compile time from a fixed seed.

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

/// Number of keys: 2 colours × 9 roles × 64 squares, 64 unmoved-pawn keys, 16 castling
/// combinations, 8 en-passant files, 1 side to move.
const N: usize = 2 * 9 * 64 + 64 + 16 + 8 + 1;

const fn keys() -> [u64; N] {
    let mut out = [0u64; N];
    let mut state = 0x4D41_4841_5241_4A41; // "MAHARAJA"
    let mut i = 0;
    while i < N {
        let (s, k) = splitmix(state);
        state = s;
        out[i] = k;
        i += 1;
    }
    // No castling rights hash to zero, so a plain position needs no castling term.
    out[2 * 9 * 64 + 64] = 0;
    out
}

static KEYS: [u64; N] = keys();

/// Key of a piece (`color` 0/1, `role` 0..9) on `sq`.
#[inline]
pub(crate) fn piece(color: usize, role: usize, sq: usize) -> u64 {
    KEYS[(color * 9 + role) * 64 + sq]
}

/// Key of an unmoved pawn on `sq`.
#[inline]
pub(crate) fn unmoved(sq: usize) -> u64 {
    KEYS[2 * 9 * 64 + sq]
}

/// Key of a castling-rights combination (4 bits).
#[inline]
pub(crate) fn castling(rights: u8) -> u64 {
    KEYS[2 * 9 * 64 + 64 + (rights as usize & 15)]
}

/// Key of an en-passant file.
#[inline]
pub(crate) fn en_passant(file: u8) -> u64 {
    KEYS[2 * 9 * 64 + 64 + 16 + (file as usize & 7)]
}

/// Key XORed in when Black is to move.
#[inline]
pub(crate) fn black_to_move() -> u64 {
    KEYS[N - 1]
}
