//! Rule sets: what makes a win, and which moves renju forbids black.

use std::fmt;
use std::str::FromStr;

use game::Color;

/// A Gomoku rule set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Rule {
    /// Five or more in a row wins, for both sides.
    #[default]
    Freestyle,
    /// Exactly five wins; an overline (six or more) does not win, for both sides.
    Standard,
    /// Black (the first player) may not make a double three, a double four or an overline, and
    /// wins only with exactly five; a move that makes five wins even when it also makes a
    /// forbidden shape. White wins with five or more and has no forbidden moves.
    Renju,
}

impl Rule {
    /// Every rule set, in order.
    pub const ALL: [Rule; 3] = [Rule::Freestyle, Rule::Standard, Rule::Renju];

    /// The rule's name in commands (`freestyle`, `standard`, `renju`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Rule::Freestyle => "freestyle",
            Rule::Standard => "standard",
            Rule::Renju => "renju",
        }
    }

    /// Whether a line of `run` stones of `color` (counted through the last move) wins.
    #[must_use]
    pub const fn wins(self, color: Color, run: usize) -> bool {
        match self {
            Rule::Freestyle => run >= 5,
            Rule::Standard => run == 5,
            Rule::Renju => match color {
                Color::Black => run == 5,
                Color::White => run >= 5,
            },
        }
    }

    /// Whether `color` has forbidden moves under this rule.
    #[must_use]
    pub const fn has_fouls(self, color: Color) -> bool {
        matches!((self, color), (Rule::Renju, Color::Black))
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no rule set.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown rule `{0}` (expected freestyle, standard or renju)")]
pub struct ParseRuleError(pub String);

impl FromStr for Rule {
    type Err = ParseRuleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "freestyle" | "free" => Ok(Rule::Freestyle),
            "standard" | "exact" | "exact5" => Ok(Rule::Standard),
            "renju" => Ok(Rule::Renju),
            _ => Err(ParseRuleError(s.chars().take(40).collect())),
        }
    }
}

/// Why renju forbids black a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Foul {
    /// Six or more black stones in a row.
    Overline,
    /// Two or more fours at once (in different lines or in one line).
    DoubleFour,
    /// Two or more true threes at once.
    DoubleThree,
}

impl fmt::Display for Foul {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Foul::Overline => "overline",
            Foul::DoubleFour => "double four",
            Foul::DoubleThree => "double three",
        })
    }
}
