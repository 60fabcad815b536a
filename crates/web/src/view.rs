//! What the app needs of a game beyond [`game::Game`]: display order of the points, labels,
//! counts, what the last move changed, results in words, position text, and move analysis.

use std::sync::Arc;
use std::time::Duration;

use game::{Color, Game};
use gomoku::{Gomoku, Point, Rule, Variant, DIRECTIONS};
use othello::{Move, Othello, Square};
use othello_engine::{Heuristic, SolverAgent};
use search::analysis::{multi_pv, Line};
use search::{AlphaBeta, AlphaBetaConfig, Budget, Score};

/// One analysed move: the mover's score with its unit, and whether it is exact.
#[derive(Clone, Debug, PartialEq)]
pub struct Scored<M> {
    /// The move.
    pub mv: M,
    /// Its score from the mover's point of view as a number (Othello: discs; Gomoku: engine
    /// units; a proven result: its margin).
    pub score: i32,
    /// Proven by an exact search.
    pub exact: bool,
    /// The score with its unit.
    pub eval: Option<Score>,
    /// Plies searched from the analysed position, where the agent says.
    pub depth: Option<u32>,
}

impl<M: Copy> Scored<M> {
    /// A line of [`search::analysis::multi_pv`] as the overlay shows it.
    pub(crate) fn of(line: &Line<M>) -> Option<Self> {
        let eval = line.score()?;
        let score = match eval {
            Score::Proven { margin } => margin,
            Score::Mate { plies } => plies,
            Score::Units(v) => v.round() as i32,
            Score::Engine(v) => v,
            Score::Expectation(v) => (v * 100.0).round() as i32,
        };
        Some(Scored {
            mv: line.mv,
            score,
            exact: eval.is_proven(),
            eval: Some(eval),
            depth: line.depth,
        })
    }
}

/// Sorts scored moves best first for the mover: a forced win before everything (sooner first),
/// a forced loss after everything (later first), proven margins counted as that many of the
/// game's units (a proven result before an estimate of the same value); ties keep their order.
pub(crate) fn best_first<M>(moves: &mut [Scored<M>]) {
    fn key<M>(s: &Scored<M>) -> (f64, bool) {
        match s.eval {
            Some(Score::Mate { plies }) if plies > 0 => (1e12 - f64::from(plies), true),
            Some(Score::Mate { plies }) => (-1e12 - f64::from(plies), true),
            Some(Score::Proven { margin }) => (f64::from(margin), true),
            Some(Score::Units(v) | Score::Expectation(v)) => (v, false),
            Some(Score::Engine(v)) => (f64::from(v), false),
            None => (f64::NEG_INFINITY, false),
        }
    }
    moves.sort_by(|a, b| {
        let (ka, kb) = (key(a), key(b));
        kb.0.total_cmp(&ka.0).then(kb.1.cmp(&ka.1))
    });
}

/// The presentation of one game family.
pub trait WebGame: Game {
    /// `othello` or `gomoku`.
    const FAMILY: &'static str;
    /// The rule name for Gomoku, `None` for Othello.
    fn rule() -> Option<&'static str>;
    /// The display index (top-left first, row by row) of a board move; `None` for a pass.
    fn display_index(mv: Self::Move) -> Option<usize>;
    /// Column labels left to right.
    fn files() -> Vec<String> {
        (0..Self::BOARD_SIZE)
            .map(|c| char::from(b'a' + c as u8).to_string())
            .collect()
    }
    /// Row labels top to bottom.
    fn ranks() -> Vec<String>;
    /// The stone on each point in display order: `X`, `O` or `-`.
    fn cells(&self) -> String;
    /// Display indices whose stones `mv` (played in `before`) turned over.
    fn flipped(_before: &Self, _mv: Self::Move) -> Vec<usize> {
        Vec::new()
    }
    /// Display indices of the winning line, once the game is won.
    fn winning_line(&self) -> Vec<usize> {
        Vec::new()
    }
    /// Display indices the side to move may not play although they are empty (renju fouls).
    fn forbidden(&self) -> Vec<usize> {
        Vec::new()
    }
    /// The result in words, once the game is over.
    fn result_text(&self) -> String;
    /// The moves as a transcript.
    fn transcript(moves: &[Self::Move]) -> String;
    /// Parses a transcript (replayed from the start) or a board string: the moves (empty for a
    /// board string) and the final position.
    ///
    /// # Errors
    /// A message saying why the text is neither.
    fn parse_position(text: &str) -> Result<(Vec<Self::Move>, Self), String>;
    /// The spec of the agent whose multi-PV analysis scores every move for the overlay, where
    /// the game has a strong engine for it; `None`: [`analyse`](Self::analyse) does it.
    fn analysis_agent() -> Option<&'static str> {
        None
    }
    /// Scores for the side to move's moves within about `time`. `reserve` is called with the
    /// bytes of the search's tables before the search allocates them; an error stops the
    /// analysis with that error.
    ///
    /// # Errors
    /// The error of `reserve`.
    fn analyse(
        &self,
        time: Duration,
        reserve: &mut dyn FnMut(usize) -> Result<(), crate::ApiError>,
    ) -> Result<Vec<Scored<Self::Move>>, crate::ApiError>;
    /// The board string of the position.
    fn board_string(&self) -> String {
        self.to_string()
    }
}

fn othello_square_index<const N: usize>(sq: Square) -> usize {
    sq.row() * N + sq.col()
}

impl<const N: usize> WebGame for Othello<N> {
    const FAMILY: &'static str = "othello";

    /// 8x8: the pattern engine at its default level (no book: every move gets a searched
    /// score), sharing the analysis time among the moves; smaller boards are solved exactly.
    fn analysis_agent() -> Option<&'static str> {
        (N == 8).then_some("othello:book=off")
    }

    fn rule() -> Option<&'static str> {
        None
    }

    fn display_index(mv: Move) -> Option<usize> {
        match mv {
            Move::Place(sq) if sq.on_board(N) => Some(othello_square_index::<N>(sq)),
            _ => None,
        }
    }

    fn ranks() -> Vec<String> {
        (1..=N).map(|r| r.to_string()).collect()
    }

    fn cells(&self) -> String {
        let mut out = String::with_capacity(N * N);
        for r in 0..N {
            for c in 0..N {
                let bit = Square::new(r, c).map_or(0, Square::bit);
                out.push(if self.discs(Color::Black) & bit != 0 {
                    'X'
                } else if self.discs(Color::White) & bit != 0 {
                    'O'
                } else {
                    '-'
                });
            }
        }
        out
    }

    fn flipped(before: &Self, mv: Move) -> Vec<usize> {
        let Move::Place(sq) = mv else {
            return Vec::new();
        };
        let flips = before.flips(sq);
        (0..64u32)
            .filter(|&i| flips >> i & 1 != 0)
            .filter_map(Square::from_index)
            .filter(|s| s.on_board(N))
            .map(othello_square_index::<N>)
            .collect()
    }

    fn result_text(&self) -> String {
        let Some(outcome) = self.outcome() else {
            return String::new();
        };
        let (b, w) = self.counts();
        let empty = self.empty().count_ones();
        match outcome.winner() {
            Some(winner) => {
                let (bs, ws) = if winner == Color::Black {
                    (b + empty, w)
                } else {
                    (b, w + empty)
                };
                let name = if winner == Color::Black {
                    "Black"
                } else {
                    "White"
                };
                format!("{name} wins {}-{}.", bs.max(ws), bs.min(ws))
            }
            None => format!("Draw, {}-{}.", b + empty / 2, w + empty / 2),
        }
    }

    fn transcript(moves: &[Move]) -> String {
        othello::transcript(moves)
    }

    fn parse_position(text: &str) -> Result<(Vec<Move>, Self), String> {
        let text = text.trim();
        if text.is_empty() {
            return Err("empty position: give a transcript like f5d6c3 or a board string".into());
        }
        // A board string is checked against the rules (no empty centre square).
        let board = text.parse::<Othello<N>>();
        match &board {
            Ok(pos) => return Ok((Vec::new(), *pos)),
            Err(e) if e.is_impossible() => return Err(e.to_string()),
            Err(_) => {}
        }
        // Text made of board characters (X, O, -) is meant as a board string: its own error says
        // what is wrong (a missing square, a bad side to move), not the transcript reader's.
        let squares = text
            .chars()
            .filter(|c| matches!(c, 'X' | 'O' | '-' | 'x' | 'o' | '*'))
            .count();
        if squares + 4 >= N * N {
            if let Err(e) = board {
                return Err(format!("not a board string: {e}"));
            }
        }
        match othello::replay_transcript::<N>(text) {
            Ok(replay) => Ok((replay.moves().to_vec(), *replay.last())),
            Err(e) => Err(format!(
                "not a board string ({} squares X/O/- and the side to move) nor a legal transcript: {e}",
                N * N
            )),
        }
    }

    fn analyse(
        &self,
        time: Duration,
        reserve: &mut dyn FnMut(usize) -> Result<(), crate::ApiError>,
    ) -> Result<Vec<Scored<Move>>, crate::ApiError> {
        let moves = self.legal_moves();
        if moves.is_empty() {
            return Ok(Vec::new());
        }
        // Every move scored: exact by the solver from 14 empties (a few milliseconds per move),
        // else by a heuristic alpha-beta search sharing the time.
        // The time decides the depth (no depth cap: a longer analysis searches deeper).
        let share = (time / moves.len() as u32).max(Duration::from_millis(5));
        let midgame = AlphaBetaConfig {
            depth: None,
            time: Some(share),
            ..AlphaBetaConfig::default()
        };
        let mut agent: Box<dyn search::Agent<Othello<N>>> = if self.empty().count_ones() <= 14 {
            Box::new(SolverAgent::<N>::new(14, midgame))
        } else {
            Box::new(AlphaBeta::new(Arc::new(Heuristic::<N>::default()), midgame))
        };
        reserve(agent.table_bytes())?;
        let budget = Budget::time(share);
        Ok(
            multi_pv(agent.as_mut(), self, &budget, &budget, moves.len())
                .unwrap_or_default()
                .iter()
                .filter_map(Scored::of)
                .collect(),
        )
    }
}

fn gomoku_index<V: Variant>(p: Point) -> usize {
    (V::SIZE - 1 - p.row()) * V::SIZE + p.col()
}

impl<V: Variant> WebGame for Gomoku<V> {
    const FAMILY: &'static str = "gomoku";

    fn rule() -> Option<&'static str> {
        Some(V::RULE.name())
    }

    fn display_index(mv: Point) -> Option<usize> {
        mv.on_board(V::SIZE).then(|| gomoku_index::<V>(mv))
    }

    fn ranks() -> Vec<String> {
        (1..=V::SIZE).rev().map(|r| r.to_string()).collect()
    }

    fn cells(&self) -> String {
        let n = V::SIZE;
        let mut out = String::with_capacity(n * n);
        for r in (0..n).rev() {
            for c in 0..n {
                out.push(match Point::new(r, c).and_then(|p| self.board().stone(p)) {
                    Some(Color::Black) => 'X',
                    Some(Color::White) => 'O',
                    None => '-',
                });
            }
        }
        out
    }

    fn winning_line(&self) -> Vec<usize> {
        let board = self.board();
        let Some(winner) = board.winner() else {
            return Vec::new();
        };
        let n = V::SIZE as i32;
        let mut line = Vec::new();
        for p in board.points().filter(|&p| board.stone(p) == Some(winner)) {
            for (dr, dc) in DIRECTIONS {
                if !board
                    .rule()
                    .wins(winner, board.run_through(p, (dr, dc), winner))
                {
                    continue;
                }
                let (mut r, mut c) = (p.row() as i32, p.col() as i32);
                while r >= 0 && c >= 0 && r < n && c < n {
                    let Some(q) = Point::new(r as usize, c as usize) else {
                        break;
                    };
                    if board.stone(q) != Some(winner) {
                        break;
                    }
                    let index = gomoku_index::<V>(q);
                    if !line.contains(&index) {
                        line.push(index);
                    }
                    r += dr;
                    c += dc;
                }
            }
        }
        line
    }

    fn forbidden(&self) -> Vec<usize> {
        let board = self.board();
        if board.rule() != Rule::Renju || board.side_to_move() != Color::Black || board.is_over() {
            return Vec::new();
        }
        board
            .points()
            .filter(|&p| board.foul(p).is_some())
            .map(gomoku_index::<V>)
            .collect()
    }

    fn result_text(&self) -> String {
        match self.outcome().map(|o| o.winner()) {
            None => String::new(),
            Some(Some(Color::Black)) => "Black wins with five in a row.".into(),
            Some(Some(Color::White)) => "White wins with five in a row.".into(),
            Some(None) => "Draw: the board is full.".into(),
        }
    }

    fn transcript(moves: &[Point]) -> String {
        moves
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn parse_position(text: &str) -> Result<(Vec<Point>, Self), String> {
        let text = text.trim();
        match text.parse::<Gomoku<V>>() {
            Ok(pos) => return Ok((Vec::new(), pos)),
            // Read as a board, but no game reaches it (stone counts, fives): say why.
            Err(
                e @ (gomoku::BoardStringError::Impossible(_) | gomoku::BoardStringError::Board(_)),
            ) => return Err(e.to_string()),
            // Board characters and no digits (moves have ranks) are meant as a board string:
            // its own error (the size, a bad side to move), not the move reader's.
            Err(e) => {
                let board_chars = text
                    .chars()
                    .filter(|c| matches!(c, 'X' | 'x' | 'O' | 'o' | '*' | '-' | '.'))
                    .count();
                if board_chars >= V::SIZE && !text.chars().any(|c| c.is_ascii_digit()) {
                    return Err(format!("bad board string: {e}"));
                }
            }
        }
        let mut pos = Gomoku::<V>::start();
        let mut moves = Vec::new();
        for (k, word) in text
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|w| !w.is_empty())
            .enumerate()
        {
            let mv = Self::parse_move(word).map_err(|e| {
                format!("not a board string nor a list of moves: move {} {e}", k + 1)
            })?;
            pos = pos
                .play(mv)
                .map_err(|e| format!("move {} ({word}): {e}", k + 1))?;
            moves.push(mv);
        }
        if moves.is_empty() {
            return Err("empty position: give moves like `h8 h9 i8` or a board string".into());
        }
        Ok((moves, pos))
    }

    fn analyse(
        &self,
        time: Duration,
        reserve: &mut dyn FnMut(usize) -> Result<(), crate::ApiError>,
    ) -> Result<Vec<Scored<Point>>, crate::ApiError> {
        // The engine's choice only: scoring every point of a Gomoku board is far too slow.
        let mut engine = gomoku_engine::GomokuEngine::new(gomoku_engine::EngineConfig::default());
        reserve(search::Agent::<Self>::table_bytes(&engine))?;
        let budget = Budget::time(time);
        Ok(multi_pv(&mut engine, self, &budget, &budget, 1)
            .unwrap_or_default()
            .iter()
            .filter_map(Scored::of)
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello::Othello8;

    /// A board string with a bad side to move or a missing square is reported as the board
    /// string it is meant to be, not as a bad transcript.
    #[test]
    fn othello_board_strings_report_their_own_errors() {
        let good = Othello8::start().board_string();
        assert!(Othello8::parse_position(&good).is_ok(), "{good}");
        let bad_side = format!("{} Z", &good[..64]);
        let short = format!("{} X", &good[1..64]);
        for text in [bad_side, short] {
            let e = Othello8::parse_position(&text).expect_err("bad board");
            assert!(e.starts_with("not a board string"), "{text}: {e}");
            assert!(!e.contains("transcript"), "{text}: {e}");
        }
        // A transcript still reads as one, and a bad one says so.
        assert!(Othello8::parse_position("f5d6c3").is_ok());
        let e = Othello8::parse_position("f5z9").expect_err("bad transcript");
        assert!(e.contains("transcript"), "{e}");
    }
}
