//! Line patterns: what a stone on an empty point would make along one line (five, open four,
//! four, open three, ...), looked up from a table keyed by the eight neighbouring points.
//!
//! The table is built once by brute force over every 9-point line: a shape is a *four* when one
//! more stone makes five through the centre, an *open four* when two points do, a *three* when
//! one more stone makes a four and an *open three* when one makes an open four, and so on down.
//! Beyond four points from the centre the line is unknown, so under the exact-five rule a run
//! reaching the window's edge may be an overline; search verifies fives on the real board.

use std::sync::OnceLock;

/// A line pattern, in increasing strength.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Pattern {
    /// Nothing: five cannot be made through this point along this line, or nothing near.
    None = 0,
    /// Two stones that can become a (closed) three.
    Two = 1,
    /// Two stones that can become an open three.
    OpenTwo = 2,
    /// A closed three: one more stone makes a four.
    Three = 3,
    /// An open three: one more stone makes an open four.
    OpenThree = 4,
    /// A four: one point makes five.
    Four = 5,
    /// An open four (or two fours in the line): two points make five.
    OpenFour = 6,
    /// Five in a row (exactly five under the exact rule).
    Five = 7,
}

impl Pattern {
    /// From the table byte.
    #[must_use]
    pub const fn from_u8(v: u8) -> Pattern {
        match v {
            1 => Pattern::Two,
            2 => Pattern::OpenTwo,
            3 => Pattern::Three,
            4 => Pattern::OpenThree,
            5 => Pattern::Four,
            6 => Pattern::OpenFour,
            7 => Pattern::Five,
            _ => Pattern::None,
        }
    }
}

/// A point seen along a line from one colour's side.
pub const EMPTY: u8 = 0;
/// The colour's own stone.
pub const OWN: u8 = 1;
/// The other colour's stone.
pub const OPP: u8 = 2;
/// Off the board.
pub const EDGE: u8 = 3;

/// The key of a line: 2 bits per neighbour, offsets -4..-1 then 1..4 (the centre is the empty
/// point itself).
#[must_use]
pub fn key(neighbours: [u8; 8]) -> usize {
    neighbours
        .iter()
        .enumerate()
        .fold(0, |k, (i, &c)| k | (usize::from(c & 3) << (2 * i)))
}

/// Pattern tables: one for "five or more wins", one for "exactly five wins".
pub struct Tables {
    free: Vec<u8>,
    exact: Vec<u8>,
}

impl Tables {
    /// The pattern of `key` under the freestyle (`exact == false`) or exact-five rule.
    #[inline]
    #[must_use]
    pub fn get(&self, exact: bool, key: usize) -> Pattern {
        let table = if exact { &self.exact } else { &self.free };
        Pattern::from_u8(table.get(key).copied().unwrap_or(0))
    }
}

/// The shared tables, built on first use (a few milliseconds).
pub fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| Tables {
        free: build(false),
        exact: build(true),
    })
}

const LEN: usize = 9;
const MID: usize = 4;

fn build(exact: bool) -> Vec<u8> {
    let mut memo = vec![u8::MAX; 1 << (2 * LEN)];
    let mut table = vec![0u8; 1 << 16];
    for (k, slot) in table.iter_mut().enumerate() {
        let mut line = [EMPTY; LEN];
        for i in 0..8 {
            let cell = ((k >> (2 * i)) & 3) as u8;
            line[if i < 4 { i } else { i + 1 }] = cell;
        }
        line[MID] = OWN;
        *slot = level(&line, exact, &mut memo);
    }
    table
}

fn encode(line: &[u8; LEN]) -> usize {
    line.iter()
        .enumerate()
        .fold(0, |k, (i, &c)| k | (usize::from(c) << (2 * i)))
}

/// Whether the run of own stones through `i` makes five (exactly five when `exact`).
fn five_at(line: &[u8; LEN], i: usize, exact: bool) -> bool {
    let mut s = i;
    while s > 0 && line[s - 1] == OWN {
        s -= 1;
    }
    let mut e = i;
    while e + 1 < LEN && line[e + 1] == OWN {
        e += 1;
    }
    let run = e - s + 1;
    let covers = s <= MID && MID <= e;
    covers && if exact { run == 5 } else { run >= 5 }
}

/// The pattern of the own stones through the centre (which holds an own stone).
fn level(line: &[u8; LEN], exact: bool, memo: &mut [u8]) -> u8 {
    let code = encode(line);
    if memo[code] != u8::MAX {
        return memo[code];
    }
    let result = if five_at(line, MID, exact) {
        Pattern::Five as u8
    } else {
        let mut five_points = 0;
        let mut best_next = 0u8;
        for e in 0..LEN {
            if line[e] != EMPTY {
                continue;
            }
            let mut next = *line;
            next[e] = OWN;
            if five_at(&next, e, exact) {
                five_points += 1;
            } else {
                best_next = best_next.max(level(&next, exact, memo));
            }
        }
        match five_points {
            0 => match Pattern::from_u8(best_next) {
                Pattern::OpenFour => Pattern::OpenThree as u8,
                Pattern::Four => Pattern::Three as u8,
                Pattern::OpenThree => Pattern::OpenTwo as u8,
                Pattern::Three => Pattern::Two as u8,
                _ => Pattern::None as u8,
            },
            1 => Pattern::Four as u8,
            _ => Pattern::OpenFour as u8,
        }
    };
    memo[code] = result;
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pattern of the centre of a picture like `"..XX.X..."` (`X` own, `O` opponent, `#`
    /// edge, `.` empty; the centre must be `.`, it is the point played).
    fn pattern(picture: &str, exact: bool) -> Pattern {
        let cells: Vec<u8> = picture
            .chars()
            .map(|c| match c {
                'X' => OWN,
                'O' => OPP,
                '#' => EDGE,
                _ => EMPTY,
            })
            .collect();
        assert_eq!(cells.len(), 9);
        assert_eq!(cells[4], EMPTY);
        let mut n = [0u8; 8];
        for i in 0..8 {
            n[i] = cells[if i < 4 { i } else { i + 1 }];
        }
        tables().get(exact, key(n))
    }

    #[test]
    fn shapes() {
        assert_eq!(pattern("..XX.XX..", false), Pattern::Five);
        assert_eq!(pattern("XXXX.X...", false), Pattern::Five);
        assert_eq!(
            pattern("XXXX.X...", true),
            Pattern::None,
            "an overline is no five"
        );
        assert_eq!(pattern(".XXX.....", false), Pattern::OpenFour);
        assert_eq!(pattern("OXXX.....", false), Pattern::Four);
        assert_eq!(pattern("..XX..X..", false), Pattern::Four);
        assert_eq!(pattern(".X.X.X...", false), Pattern::Four);
        assert_eq!(pattern(".X.X.X.X.", false), Pattern::OpenFour);
        assert_eq!(pattern("...X.X...", false), Pattern::OpenThree);
        assert_eq!(pattern("..X..X...", false), Pattern::OpenThree);
        assert_eq!(pattern("..OX.X...", false), Pattern::Three);
        assert_eq!(pattern("...X.....", false), Pattern::OpenTwo);
        assert_eq!(pattern("OXX..O...", false), Pattern::None);
        assert_eq!(pattern("XXX..XXX.", false), Pattern::OpenFour);
        assert_eq!(
            pattern("XXX..XXX.", true),
            Pattern::Four,
            "d would make eight"
        );
    }
}
