//! Stable discs: discs that can never be flipped again, a lower bound used by the evaluation and
//! by the solver's stability cutoff.

const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = 0x8080_8080_8080_8080;
const RANK_1: u64 = 0xff;
const RANK_8: u64 = 0xff00_0000_0000_0000;

/// The four lines through a square: the bit shift to the "forward" neighbour (`+shift`), and the
/// squares that have no forward / no backward neighbour on the 8x8 grid.
const AXES: [(u32, u64, u64); 4] = [
    (1, FILE_H, FILE_A),                   // along the rank
    (8, RANK_8, RANK_1),                   // along the file
    (9, FILE_H | RANK_8, FILE_A | RANK_1), // a1-h8 diagonal
    (7, FILE_A | RANK_8, FILE_H | RANK_1), // h1-a8 diagonal
];

/// A lower bound on the discs of `player` that can never be flipped, on a board whose squares are
/// `board` (the 8x8 layout's mask of the board size).
///
/// A disc is stable when, along each of the four lines through it, the line is completely filled
/// or one of its two neighbours on that line is off the board or a stable disc of the same
/// colour. Computed as a fixpoint from the board's edges.
#[must_use]
pub fn stable_discs(player: u64, opponent: u64, board: u64) -> u64 {
    // Squares that do not break a full line: filled ones, and off-board ones (a line that leaves
    // the board never comes back onto it).
    let ok = player | opponent | !board;
    let mut full = [0u64; 4];
    for (slot, &(shift, no_fwd, no_back)) in full.iter_mut().zip(AXES.iter()) {
        let (mut fwd, mut back) = (u64::MAX, u64::MAX);
        for _ in 0..7 {
            fwd = no_fwd | ((ok & fwd) >> shift);
            back = no_back | ((ok & back) << shift);
        }
        *slot = fwd & back;
    }
    let mut stable = 0u64;
    loop {
        let anchor = stable | !board;
        let mut next = player & board;
        for (&line_full, &(shift, no_fwd, no_back)) in full.iter().zip(AXES.iter()) {
            next &= line_full | no_fwd | (anchor >> shift) | no_back | (anchor << shift);
        }
        if next == stable {
            return stable;
        }
        stable = next;
    }
}

/// The plain twin of [`stable_discs`]: the same rule applied square by square.
#[must_use]
pub fn stable_discs_naive(player: u64, opponent: u64, board: u64) -> u64 {
    let on = |r: i32, c: i32| {
        (0..8).contains(&r) && (0..8).contains(&c) && board >> (r * 8 + c) & 1 == 1
    };
    let filled = |r: i32, c: i32| (player | opponent) >> (r * 8 + c) & 1 == 1;
    let axes = [(0, 1), (1, 0), (1, 1), (1, -1)];
    let line_full = |r: i32, c: i32, (dr, dc): (i32, i32)| {
        [1, -1].iter().all(|&s| {
            let (mut rr, mut cc) = (r + s * dr, c + s * dc);
            while on(rr, cc) {
                if !filled(rr, cc) {
                    return false;
                }
                rr += s * dr;
                cc += s * dc;
            }
            true
        })
    };
    let mut stable = 0u64;
    loop {
        let mut next = 0u64;
        for sq in 0..64 {
            let (r, c) = (sq / 8, sq % 8);
            if player >> sq & 1 == 0 || !on(r, c) {
                continue;
            }
            let ok = axes.iter().all(|&(dr, dc)| {
                line_full(r, c, (dr, dc))
                    || [1, -1].iter().any(|&s| {
                        let (rr, cc) = (r + s * dr, c + s * dc);
                        !on(rr, cc) || stable >> (rr * 8 + cc) & 1 == 1
                    })
            });
            if ok {
                next |= 1 << sq;
            }
        }
        if next == stable {
            return stable;
        }
        stable = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_naive_rule_on_random_boards() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for board in [u64::MAX, 0x0000_3f3f_3f3f_3f3f, 0x0f0f_0f0f] {
            for _ in 0..20_000 {
                let (a, b, density) = (next(), next(), next() | next() | next());
                let (p, o) = (a & density & board, !a & b & density & board);
                assert_eq!(
                    stable_discs(p, o, board),
                    stable_discs_naive(p, o, board),
                    "{p:#x} {o:#x} {board:#x}"
                );
            }
        }
    }

    #[test]
    fn corners_and_full_boards() {
        assert_eq!(stable_discs(1, 0, u64::MAX), 1);
        assert_eq!(stable_discs(1 << 9, 0, u64::MAX), 0);
        assert_eq!(
            stable_discs(0x5555_5555_5555_5555, 0xaaaa_aaaa_aaaa_aaaa, u64::MAX),
            0x5555_5555_5555_5555
        );
        // The a1 corner on a 6x6 board is h... f6 there: bit 45.
        assert_eq!(stable_discs(1 << 45, 0, 0x0000_3f3f_3f3f_3f3f), 1 << 45);
    }
}
