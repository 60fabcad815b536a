//! The Gomocup (Piskvork "brain") protocol for Gomoku, from both ends: the engine side
//! ([`GomocupEngine`] with a [`GomocupBrain`]) and the driver side ([`GomocupEngineAgent`]).
//!
//! On the wire a point is `x,y`, both zero-based: `x` is the column from the left and `y` the
//! row from the *top*, so a [`Point`] (row 0 at the bottom) maps to `x = col`,
//! `y = size - 1 - row`.

mod brain;
mod driver;
mod engine;

pub use brain::{AgentBrain, BrainFactory, GomocupBrain};
pub use driver::{GomocupEngineAgent, GomocupEngineConfig, DEFAULT_GRACE, GOMOCUP_SPEC_KEYS};
pub use engine::{GomocupEngine, GomocupTime, DEFAULT_TURN_TIME, MIN_THINK, MOVES_TO_GO};

use gomoku::{Point, Rule};

/// The point at wire coordinates `x,y` (column from the left, row from the top) of a
/// `size x size` board, or `None` off it.
#[must_use]
pub fn xy_to_point(x: usize, y: usize, size: usize) -> Option<Point> {
    if x < size && y < size {
        Point::new(size - 1 - y, x)
    } else {
        None
    }
}

/// The wire coordinates `(x, y)` of a point of a `size x size` board (see [`xy_to_point`]);
/// meaningless for a point off the board (`y` stops at 0).
#[must_use]
pub fn point_to_xy(p: Point, size: usize) -> (usize, usize) {
    (p.col(), size.saturating_sub(1).saturating_sub(p.row()))
}

/// A point as the protocol writes it: `x,y`.
pub(crate) fn format_point(p: Point, size: usize) -> String {
    let (x, y) = point_to_xy(p, size);
    format!("{x},{y}")
}

/// The longest text of a bad input quoted back in an error message.
const QUOTE: usize = 40;

/// `text` cut to a length fit to quote in a message.
pub(crate) fn quote(text: &str) -> String {
    // Control characters (an escape sequence, a NUL) are written escaped, never raw.
    text.chars()
        .take(QUOTE)
        .flat_map(|c| {
            if c.is_control() {
                c.escape_default().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect()
}

/// Parses `text` as comma-separated whole numbers (white space around each is allowed), exactly
/// `N` of them.
pub(crate) fn parse_numbers<const N: usize>(text: &str) -> Option<[usize; N]> {
    let mut out = [0; N];
    let mut parts = text.split(',');
    for slot in &mut out {
        let part = parts.next()?.trim();
        // Digits only: no sign, and at most 9 of them, so the value fits any usize.
        if part.is_empty() || part.len() > 9 || !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        *slot = part.parse().ok()?;
    }
    parts.next().is_none().then_some(out)
}

/// The Gomocup `rule` bitmask for a rule set: 0 freestyle, 1 exactly five, 4 renju.
pub(crate) fn rule_bits(rule: Rule) -> u32 {
    match rule {
        Rule::Freestyle => 0,
        Rule::Standard => 1,
        Rule::Renju => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_coordinates_count_rows_from_the_top() {
        let a1 = Point::new(0, 0).unwrap();
        assert_eq!(point_to_xy(a1, 15), (0, 14));
        assert_eq!(xy_to_point(0, 14, 15), Some(a1));
        assert_eq!(format_point(a1, 15), "0,14");
        let top_right = Point::new(19, 19).unwrap();
        assert_eq!(point_to_xy(top_right, 20), (19, 0));
        assert_eq!(xy_to_point(19, 0, 20), Some(top_right));
        assert_eq!(xy_to_point(15, 0, 15), None);
        assert_eq!(xy_to_point(0, 15, 15), None);
        for size in [5, 15, 25] {
            for x in 0..size {
                for y in 0..size {
                    let p = xy_to_point(x, y, size).unwrap();
                    assert_eq!(point_to_xy(p, size), (x, y));
                }
            }
        }
    }

    #[test]
    fn numbers_parse_strictly() {
        assert_eq!(parse_numbers::<2>("7,8"), Some([7, 8]));
        assert_eq!(parse_numbers::<2>(" 7 , 8 "), Some([7, 8]));
        assert_eq!(parse_numbers::<3>("0,0,1"), Some([0, 0, 1]));
        for bad in [
            "",
            "7",
            "7,",
            ",8",
            "7,8,9",
            "-1,2",
            "+1,2",
            "a,b",
            "1.5,2",
            "9999999999,1",
        ] {
            assert_eq!(parse_numbers::<2>(bad), None, "{bad}");
        }
    }
}
