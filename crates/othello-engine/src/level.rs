//! The `othello` engine's levels: per level the midgame depth, the Multi-ProbCut selectivity and
//! the number of empties from which the endgame is solved exactly.

/// What one level searches.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Level {
    /// The level (1..=20).
    pub level: u32,
    /// Midgame search depth in plies.
    pub depth: u32,
    /// Exact solve from this many empties.
    pub exact_empties: u32,
    /// Multi-ProbCut at this many standard deviations (`None`: full width).
    pub probcut: Option<f64>,
}

/// The highest level.
pub const MAX_LEVEL: u32 = 20;

/// Without a clock, positions up to this many empties above a level's exact zone get
/// node-bounded solves before the midgame (exact, then win/loss/draw; see
/// [`SolverAgent::with_bounded_handover`](crate::SolverAgent::with_bounded_handover)).
pub const HANDOVER_EXTRA: u32 = 2;
/// The most nodes of each of those solves: 2^21, about a twentieth of a second on one thread.
pub const HANDOVER_NODES: u64 = 1 << 21;

/// The level the app and `othello` without options play.
pub const DEFAULT_LEVEL: u32 = 10;

/// (depth, exact empties, Multi-ProbCut t) of levels 1..=20.
const TABLE: [(u32, u32, f64); 20] = [
    (1, 6, 0.0),
    (2, 8, 0.0),
    (3, 10, 0.0),
    (4, 12, 0.0),
    (5, 14, 0.0),
    (6, 16, 2.0),
    (7, 16, 2.0),
    (8, 17, 1.8),
    (9, 18, 1.8),
    (10, 18, 1.5),
    (11, 19, 1.5),
    (12, 20, 1.5),
    (13, 20, 1.5),
    (14, 21, 1.2),
    (15, 22, 1.2),
    (16, 22, 1.2),
    (18, 23, 1.1),
    (20, 24, 1.1),
    (22, 25, 1.0),
    (24, 26, 1.0),
];

impl Level {
    /// Level `n`, or `None` outside 1..=20.
    #[must_use]
    pub fn of(n: u32) -> Option<Level> {
        let row = TABLE.get(n.checked_sub(1)? as usize)?;
        Some(Level::from_row(n, *row))
    }

    /// The lowest level searching at least `depth` plies (level 20 beyond its depth): what a
    /// `depth=` budget takes its selectivity from, so that shallow searches stay full width.
    #[must_use]
    pub fn for_depth(depth: u32) -> Level {
        let i = TABLE
            .iter()
            .position(|&(d, _, _)| d >= depth)
            .unwrap_or(TABLE.len() - 1);
        Level::from_row(i as u32 + 1, TABLE[i])
    }

    fn from_row(level: u32, (depth, exact_empties, t): (u32, u32, f64)) -> Level {
        Level {
            level,
            depth,
            exact_empties,
            probcut: (t > 0.0).then_some(t),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_grow_in_depth_and_endgame_reach() {
        assert_eq!(Level::of(0), None);
        assert_eq!(Level::of(MAX_LEVEL + 1), None);
        assert!(Level::of(DEFAULT_LEVEL).is_some());
        for n in 2..=MAX_LEVEL {
            let (a, b) = (Level::of(n - 1).unwrap(), Level::of(n).unwrap());
            assert!(
                b.depth > a.depth && b.exact_empties >= a.exact_empties,
                "level {n}"
            );
        }
    }

    #[test]
    fn a_depth_takes_the_selectivity_of_the_level_searching_it() {
        for d in 1..=5 {
            assert_eq!(Level::for_depth(d).probcut, None, "depth {d}");
            assert_eq!(Level::for_depth(d).level, d);
        }
        assert_eq!(Level::for_depth(6).probcut, Some(2.0));
        assert_eq!(Level::for_depth(10).probcut, Level::of(10).unwrap().probcut);
        assert_eq!(Level::for_depth(17).level, 17);
        assert_eq!(Level::for_depth(60).level, MAX_LEVEL);
        assert_eq!(Level::for_depth(60), Level::of(MAX_LEVEL).unwrap());
    }
}
