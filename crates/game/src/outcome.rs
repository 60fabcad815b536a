//! How a finished game ended: the winner and the final score margin.

use crate::Color;

/// Win, draw or loss from one side's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// That side won.
    Win,
    /// Nobody won.
    Draw,
    /// That side lost.
    Loss,
}

/// The result of a finished game.
///
/// It stores black's final margin (black's score minus white's): the winner follows from its sign,
/// so the two can never disagree and the two sides' scores always sum to zero. Each game defines
/// its margin: Othello uses the final disc difference with empty squares given to the winner;
/// Gomoku uses +1/-1 for a win and 0 for a draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    black_margin: i32,
}

impl Outcome {
    /// An outcome from black's final margin (positive: black won; zero: draw).
    #[must_use]
    pub const fn from_black_margin(black_margin: i32) -> Self {
        Outcome { black_margin }
    }

    /// A win for `winner` by `margin` (its absolute value is used).
    #[must_use]
    pub const fn win(winner: Color, margin: i32) -> Self {
        let m = margin.abs();
        match winner {
            Color::Black => Outcome { black_margin: m },
            Color::White => Outcome { black_margin: -m },
        }
    }

    /// A draw.
    #[must_use]
    pub const fn draw() -> Self {
        Outcome { black_margin: 0 }
    }

    /// The winner, or `None` for a draw.
    #[must_use]
    pub const fn winner(self) -> Option<Color> {
        if self.black_margin > 0 {
            Some(Color::Black)
        } else if self.black_margin < 0 {
            Some(Color::White)
        } else {
            None
        }
    }

    /// The final margin from `color`'s point of view.
    #[must_use]
    pub const fn score_for(self, color: Color) -> i32 {
        match color {
            Color::Black => self.black_margin,
            Color::White => -self.black_margin,
        }
    }

    /// Win, draw or loss from `color`'s point of view.
    #[must_use]
    pub fn result_for(self, color: Color) -> GameResult {
        match self.score_for(color).signum() {
            1 => GameResult::Win,
            0 => GameResult::Draw,
            _ => GameResult::Loss,
        }
    }

    /// +1 for a win, 0 for a draw, -1 for a loss, from `color`'s point of view.
    #[must_use]
    pub fn value_for(self, color: Color) -> f32 {
        self.score_for(color).signum() as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn winner_follows_margin() {
        assert_eq!(Outcome::from_black_margin(3).winner(), Some(Color::Black));
        assert_eq!(Outcome::from_black_margin(-3).winner(), Some(Color::White));
        assert_eq!(Outcome::draw().winner(), None);
        assert_eq!(
            Outcome::win(Color::White, 5),
            Outcome::from_black_margin(-5)
        );
        assert_eq!(
            Outcome::win(Color::Black, -5),
            Outcome::from_black_margin(5)
        );
    }

    #[test]
    fn results_are_opposite() {
        let o = Outcome::from_black_margin(-12);
        assert_eq!(o.result_for(Color::White), GameResult::Win);
        assert_eq!(o.result_for(Color::Black), GameResult::Loss);
        assert_eq!(o.value_for(Color::Black) + o.value_for(Color::White), 0.0);
        assert_eq!(Outcome::draw().result_for(Color::Black), GameResult::Draw);
    }
}
