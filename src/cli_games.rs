//! [`CliGame`] for Othello and Gomoku: terminal boards, status lines and results.

use anstyle::{AnsiColor, Color as Paint, Style};
use game::{Color, Game};
use gomoku::{Gomoku, Point, Variant};
use othello::{Move, Othello, Square};

use crate::games::CliGame;

fn paint(color: bool, style: Style, text: &str) -> String {
    if color {
        format!("{style}{text}{style:#}")
    } else {
        text.to_string()
    }
}

fn frame() -> Style {
    Style::new().fg_color(Some(Paint::Ansi(AnsiColor::BrightBlack)))
}

impl<const N: usize> CliGame for Othello<N> {
    fn render(&self, _last: Option<Move>, color: bool) -> String {
        let frame = frame();
        let cell = Style::new().bg_color(Some(Paint::Ansi(AnsiColor::Green)));
        let black = cell.fg_color(Some(Paint::Ansi(AnsiColor::Black))).bold();
        let white = cell
            .fg_color(Some(Paint::Ansi(AnsiColor::BrightWhite)))
            .bold();
        let hint = cell.fg_color(Some(Paint::Ansi(AnsiColor::BrightYellow)));
        let files: String = (0..N)
            .map(|c| format!(" {}", (b'a' + c as u8) as char))
            .collect();
        let mut text = format!("   {}\n", paint(color, frame, &files));
        let moves = self.moves();
        for r in 0..N {
            text.push_str(&paint(color, frame, &format!("{:>2} ", r + 1)));
            for c in 0..N {
                let Some(sq) = Square::new(r, c) else {
                    continue;
                };
                let glyph = if self.discs(Color::Black) & sq.bit() != 0 {
                    if color {
                        paint(color, black, " ●")
                    } else {
                        " X".into()
                    }
                } else if self.discs(Color::White) & sq.bit() != 0 {
                    if color {
                        paint(color, white, " ●")
                    } else {
                        " O".into()
                    }
                } else if moves & sq.bit() != 0 {
                    if color {
                        paint(color, hint, " ·")
                    } else {
                        " *".into()
                    }
                } else if color {
                    paint(color, cell, "  ")
                } else {
                    " .".into()
                };
                text.push_str(&glyph);
            }
            if color {
                text.push_str(&paint(color, cell, " "));
            }
            text.push_str(&paint(color, frame, &format!(" {}\n", r + 1)));
        }
        text.push_str(&format!("   {}", paint(color, frame, &files)));
        text
    }

    fn status_line(&self) -> String {
        format!(
            "black (X) {}  white (O) {}",
            self.count(Color::Black),
            self.count(Color::White)
        )
    }

    fn result_text(&self) -> String {
        let Some(outcome) = self.outcome() else {
            return "The game is not over.".into();
        };
        let (b, w) = (self.count(Color::Black), self.count(Color::White));
        let empty = self.empty().count_ones();
        match outcome.winner() {
            Some(winner) => {
                let margin = outcome.score_for(winner);
                let (bs, ws) = if winner == Color::Black {
                    (b + empty, w)
                } else {
                    (b, w + empty)
                };
                format!(
                    "Final score: black {bs}, white {ws} (discs {b}-{w}, {empty} empty \
                     square{} to the winner).\nWinner: {winner} by {margin}.",
                    if empty == 1 { "" } else { "s" }
                )
            }
            None => {
                // A draw splits the empty squares.
                let (bs, ws) = (b + empty / 2, w + empty / 2);
                format!("Final score: black {bs}, white {ws} (discs {b}-{w}). Draw.")
            }
        }
    }

    fn transcript(moves: &[Move]) -> String {
        othello::transcript(moves)
    }

    fn example_move() -> &'static str {
        "d3"
    }
}

impl<V: Variant> CliGame for Gomoku<V> {
    fn render(&self, last: Option<Point>, color: bool) -> String {
        let n = V::SIZE;
        let frame = frame();
        let board_style = Style::new().bg_color(Some(Paint::Ansi(AnsiColor::Yellow)));
        let black = board_style
            .fg_color(Some(Paint::Ansi(AnsiColor::Black)))
            .bold();
        let white = board_style
            .fg_color(Some(Paint::Ansi(AnsiColor::BrightWhite)))
            .bold();
        let grid = board_style.fg_color(Some(Paint::Ansi(AnsiColor::BrightBlack)));
        let marked = Style::new()
            .bg_color(Some(Paint::Ansi(AnsiColor::Red)))
            .fg_color(Some(Paint::Ansi(AnsiColor::BrightWhite)))
            .bold();
        let last = last.or_else(|| self.last_move());
        if !color {
            return self.board().diagram(last).trim_end().to_string();
        }
        let files: String = (0..n)
            .map(|c| format!(" {}", (b'a' + c as u8) as char))
            .collect();
        let mut text = format!("   {}\n", paint(true, frame, &files));
        for r in (0..n).rev() {
            text.push_str(&paint(true, frame, &format!("{:>2} ", r + 1)));
            for c in 0..n {
                let p = Point::new(r, c);
                let stone = p.and_then(|p| self.board().stone(p));
                let is_last = p.is_some() && p == last;
                let glyph = match stone {
                    Some(Color::Black) if is_last => paint(true, marked.bold(), " X"),
                    Some(Color::White) if is_last => paint(true, marked, " O"),
                    Some(Color::Black) => paint(true, black, " ●"),
                    Some(Color::White) => paint(true, white, " ●"),
                    None => paint(true, grid, " ·"),
                };
                text.push_str(&glyph);
            }
            text.push_str(&paint(true, board_style, " "));
            text.push_str(&paint(true, frame, &format!(" {}\n", r + 1)));
        }
        text.push_str(&format!("   {}", paint(true, frame, &files)));
        text
    }

    fn status_line(&self) -> String {
        let board = self.board();
        format!(
            "{} {}x{}, {} stones{}",
            board.rule(),
            V::SIZE,
            V::SIZE,
            board.stone_count(),
            self.last_move()
                .map(|p| format!(", last move {p}"))
                .unwrap_or_default()
        )
    }

    fn result_text(&self) -> String {
        match self.outcome().map(|o| o.winner()) {
            None => "The game is not over.".into(),
            Some(Some(winner)) => format!("Winner: {winner}, with five in a row."),
            Some(None) => "Draw: no side can move any more.".into(),
        }
    }

    fn list_moves_in_prompt() -> bool {
        false
    }

    fn example_move() -> &'static str {
        "h8"
    }
}
