//! Bitboard kernels: legal-move masks and flips for the side to move. The hot path of everything.
//!
//! Bit `8 * row + col` is the square in file `col` (a = 0) and rank `row + 1`, so bit 0 is `a1`,
//! bit 7 is `h1` and bit 63 is `h8`. Boards smaller than 8x8 sit in the low rows and files of the
//! same layout: squares off such a board simply never hold a disc, which stops every run of discs
//! at the board's edge, so one kernel serves every size (callers mask moves with the board mask).

/// All squares but the a- and h-files: stops horizontal and diagonal runs from wrapping around.
const NOT_EDGE_FILES: u64 = 0x7e7e_7e7e_7e7e_7e7e;

/// The eight directions as (row step, column step).
const DIRECTIONS: [(i32, i32); 8] = [
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
];

/// `RAYS[d][sq]`: the squares strictly beyond `sq` in direction `DIRECTIONS[d]`, up to the edge.
/// Directions 0..4 increase the bit index, 4..8 decrease it.
static RAYS: [[u64; 64]; 8] = build_rays();

const fn build_rays() -> [[u64; 64]; 8] {
    let mut rays = [[0u64; 64]; 8];
    let mut d = 0;
    while d < 8 {
        let (dr, dc) = DIRECTIONS[d];
        let mut sq = 0;
        while sq < 64 {
            let mut r = (sq / 8) as i32 + dr;
            let mut c = (sq % 8) as i32 + dc;
            let mut ray = 0u64;
            while r >= 0 && r < 8 && c >= 0 && c < 8 {
                ray |= 1u64 << (r * 8 + c);
                r += dr;
                c += dc;
            }
            rays[d][sq] = ray;
            sq += 1;
        }
        d += 1;
    }
    rays
}

/// Candidate moves along one direction pair (`shift` and its opposite), by parallel prefix:
/// runs of `mask` (the opponent's discs that may be crossed) that start next to a player disc,
/// doubled in length twice, then one step beyond the run.
#[inline(always)]
fn moves_along(player: u64, mask: u64, shift: u32) -> u64 {
    let mut fwd = mask & (player << shift);
    let mut back = mask & (player >> shift);
    fwd |= mask & (fwd << shift);
    back |= mask & (back >> shift);
    let pre_fwd = mask & (mask << shift);
    let pre_back = pre_fwd >> shift;
    let double = 2 * shift;
    fwd |= pre_fwd & (fwd << double);
    back |= pre_back & (back >> double);
    fwd |= pre_fwd & (fwd << double);
    back |= pre_back & (back >> double);
    (fwd << shift) | (back >> shift)
}

/// The squares where `player` may move: empty squares that outflank at least one `opponent` disc.
///
/// `player` and `opponent` must not overlap. Works for every board size embedded in the 8x8
/// layout; mask the result with the board's squares for sizes below 8.
#[inline(always)]
#[must_use]
pub fn legal_moves(player: u64, opponent: u64) -> u64 {
    let inner = opponent & NOT_EDGE_FILES;
    let moves = moves_along(player, inner, 1)
        | moves_along(player, opponent, 8)
        | moves_along(player, inner, 7)
        | moves_along(player, inner, 9);
    moves & !(player | opponent)
}

/// The opponent discs that flip when `player` moves to `sq` (empty in both boards, below 64).
///
/// Returns 0 when the move flips nothing (it is then illegal). For each direction the first
/// square along the ray that is not an opponent disc is found with one bit scan; the run before it
/// flips when that square holds a player disc.
#[inline(always)]
#[must_use]
pub fn flips(sq: u32, player: u64, opponent: u64) -> u64 {
    let sq = (sq & 63) as usize;
    let mut flipped = 0;
    // Directions that increase the bit index: the nearest blocker is the lowest set bit.
    for rays in &RAYS[..4] {
        let ray = rays[sq];
        let blockers = ray & !opponent;
        let first = blockers & blockers.wrapping_neg();
        let take = ((first & player) != 0) as u64;
        flipped |= first.wrapping_sub(1) & ray & take.wrapping_neg();
    }
    // Directions that decrease it: the nearest blocker is the highest set bit. `| 1` keeps the
    // scan defined when there is none; bit 0 then never counts, as it is not a player disc on
    // the ray (it is either off the ray or an opponent disc).
    for rays in &RAYS[4..] {
        let ray = rays[sq];
        let blockers = ray & !opponent;
        let top = 63 - (blockers | 1).leading_zeros();
        let first = 1u64 << top;
        let take = ((first & player & ray) != 0) as u64;
        flipped |= ray & ((!1u64) << top) & take.wrapping_neg();
    }
    flipped
}

/// The squares next to any of `discs` (8-neighbourhood) that are not in `discs` themselves.
#[inline(always)]
#[must_use]
pub fn neighbours(discs: u64) -> u64 {
    let row =
        ((discs << 1) & 0xfefe_fefe_fefe_fefe) | ((discs >> 1) & 0x7f7f_7f7f_7f7f_7f7f) | discs;
    (row | (row << 8) | (row >> 8)) & !discs
}

/// The four corners of an `n x n` board.
#[must_use]
pub const fn corners(n: usize) -> u64 {
    let m = n - 1;
    1 | 1 << m | 1 << (8 * m) | 1 << (8 * m + m)
}

/// Whether this CPU has the x86-64-v3 features (popcnt, lzcnt, BMI1/2, AVX2) that the fast
/// kernel instantiations are compiled for; those must only run when this is true.
#[cfg(target_arch = "x86_64")]
#[must_use]
pub fn has_x86_64_v3() -> bool {
    std::is_x86_feature_detected!("popcnt")
        && std::is_x86_feature_detected!("lzcnt")
        && std::is_x86_feature_detected!("bmi1")
        && std::is_x86_feature_detected!("bmi2")
        && std::is_x86_feature_detected!("avx2")
}

/// Counts legal moves, the way perft counts the last ply.
#[inline]
#[must_use]
pub fn count_moves(player: u64, opponent: u64) -> u32 {
    legal_moves(player, opponent).count_ones()
}

/// The plain twin of [`legal_moves`] and [`flips`]: walks each direction square by square.
/// Slow and obviously right; tests check the fast kernels against it.
#[must_use]
pub fn flips_naive(sq: u32, player: u64, opponent: u64) -> u64 {
    let (r0, c0) = ((sq / 8) as i32, (sq % 8) as i32);
    let mut flipped = 0;
    for (dr, dc) in DIRECTIONS {
        let (mut r, mut c) = (r0 + dr, c0 + dc);
        let mut run = 0u64;
        while (0..8).contains(&r) && (0..8).contains(&c) {
            let bit = 1u64 << (r * 8 + c);
            if opponent & bit != 0 {
                run |= bit;
            } else {
                if player & bit != 0 {
                    flipped |= run;
                }
                break;
            }
            r += dr;
            c += dc;
        }
    }
    flipped
}

/// The plain twin of [`legal_moves`]: every empty square whose naive flip set is non-empty.
#[must_use]
pub fn legal_moves_naive(player: u64, opponent: u64) -> u64 {
    let empty = !(player | opponent);
    (0..64)
        .filter(|&sq| empty >> sq & 1 == 1 && flips_naive(sq, player, opponent) != 0)
        .fold(0, |acc, sq| acc | 1u64 << sq)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::ChaCha8Rng;
    use rand::{RngExt, SeedableRng};

    #[test]
    fn kernels_match_naive_twin_on_random_boards() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for _ in 0..20_000 {
            let a: u64 = rng.random();
            let b: u64 = rng.random();
            let density: u64 = rng.random::<u64>() | rng.random::<u64>();
            let (player, opponent) = (a & density, !a & b & density);
            assert_eq!(
                legal_moves(player, opponent),
                legal_moves_naive(player, opponent)
            );
            let empty = !(player | opponent);
            for sq in 0..64 {
                if empty >> sq & 1 == 1 {
                    assert_eq!(
                        flips(sq, player, opponent),
                        flips_naive(sq, player, opponent),
                        "sq {sq} p {player:#x} o {opponent:#x}"
                    );
                }
            }
        }
    }

    #[test]
    fn start_position_moves() {
        // Black: d5 (35), e4 (28); white: d4 (27), e5 (36).
        let black = 1 << 35 | 1 << 28;
        let white = 1 << 27 | 1 << 36;
        let moves = legal_moves(black, white);
        // d3 (19), c4 (26), f5 (37), e6 (44)
        assert_eq!(moves, 1 << 19 | 1 << 26 | 1 << 37 | 1 << 44);
        assert_eq!(flips(37, black, white), 1 << 36);
    }
}
