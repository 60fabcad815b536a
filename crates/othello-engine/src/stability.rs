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
/// colour. Computed as the least fixpoint of that rule: seeded with the discs joined to one of
/// the player's corners along an edge (stable by the rule alone), then grown a layer a pass.
/// Inlined, so the solver's x86-64-v3 build gets its own copy.
#[must_use]
#[inline(always)]
pub fn stable_discs(player: u64, opponent: u64, board: u64) -> u64 {
    let player = player & board;
    // Lines with an empty square on them; the rest are full (off-board squares count as full).
    let empty = !(player | opponent) & board;
    let mut full = [0u64; 4];
    for (slot, &(shift, no_fwd, no_back)) in full.iter_mut().zip(AXES.iter()) {
        // The empty squares spread along the line both ways, three doubling steps each.
        let reach = spread(empty, !no_back, shift, true) | spread(empty, !no_fwd, shift, false);
        *slot = !reach;
    }
    // Edge squares: the board's outer rows and columns (for a smaller board in the 8x8 layout,
    // a square whose neighbour across the edge is off the board).
    let bottom = board & !(board << 8);
    let top = board & !(board >> 8);
    let left = board & (FILE_A | !(board << 1));
    let right = board & (FILE_H | !(board >> 1));
    let corners = (bottom | top) & (left | right);
    // A disc on an edge has off-board neighbours on the three lines across the edge, so it is
    // stable when joined to a corner of its colour through its colour's discs along the edge.
    let rows = player & (bottom | top);
    let columns = player & (left | right);
    let seed = player & corners;
    let mut stable = spread(seed, rows, 1, true)
        | spread(seed, rows, 1, false)
        | spread(seed, columns, 8, true)
        | spread(seed, columns, 8, false);
    // What does not hold a line: a full line, or a neighbour across the board's edge.
    let mut held = [0u64; 4];
    for (slot, (&line_full, &(_, no_fwd, no_back))) in
        held.iter_mut().zip(full.iter().zip(AXES.iter()))
    {
        *slot = line_full | no_fwd | no_back;
    }
    // Monotone from a seed inside the fixpoint: `stable` only grows, so at most 64 passes.
    for _ in 0..64 {
        let anchor = stable | !board;
        let mut next = player;
        for (&h, &(shift, _, _)) in held.iter().zip(AXES.iter()) {
            next &= h | (anchor >> shift) | (anchor << shift);
        }
        if next == stable {
            break;
        }
        stable = next;
    }
    stable
}

/// `from` spread along a line direction through the squares of `through` (and `from` itself):
/// towards higher squares by multiples of `shift` when `up`, else towards lower ones. `through`
/// must leave out the squares a step would wrap onto (the far file for a sideways shift).
#[inline(always)]
fn spread(from: u64, through: u64, shift: u32, up: bool) -> u64 {
    let step = |x: u64, k: u32| if up { x << k } else { x >> k };
    let (mut gen, mut pro) = (from, through);
    gen |= pro & step(gen, shift);
    pro &= step(pro, shift);
    gen |= pro & step(gen, 2 * shift);
    pro &= step(pro, 2 * shift);
    gen | (pro & step(gen, 4 * shift))
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
        // Filled squares at about a half, seven eighths and 31/32 of the board (long runs of
        // one colour along the edges at the densest).
        for (board, ors) in [u64::MAX, 0x0000_3f3f_3f3f_3f3f, 0x0f0f_0f0f]
            .into_iter()
            .flat_map(|b| [(b, 1), (b, 3), (b, 5)])
        {
            for _ in 0..20_000 {
                let density = (0..ors).fold(0, |d, _| d | next());
                let (a, b) = (next(), next());
                let a = if ors == 5 { a | next() | next() } else { a };
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
