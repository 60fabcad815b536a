//! Openings: the move sequences arena games start from. A built-in list of balanced lines for
//! `othello8`, seeded random lines for other games, and a text format (one transcript per line)
//! for user lists.
//!
//! A transcript is the moves from the game's start, in the game's notation, either separated
//! by white space or commas (`f5 d6 c3`) or run together (`f5d6c3`); a run is split into moves
//! by the game's own move parser. In a file, `#` starts a comment and blank lines are skipped.

use std::collections::HashSet;

use game::{Game, Symmetry};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

use crate::{OpeningError, OpeningFileError};

/// The built-in `othello8` openings: balanced lines 8 plies deep (see the file's header for how
/// they were chosen).
pub const OTHELLO8_OPENINGS: &str = include_str!("../openings/othello8.txt");

/// The built-in `othello6` openings: 8-ply lines whose exact perfect-play score is within two
/// discs of even (see the file's header for how they were chosen).
pub const OTHELLO6_OPENINGS: &str = include_str!("../openings/othello6.txt");

/// The bundled XOT-style `othello8` openings: random 8-move lines that stonelab's engine scores
/// within a disc of even (see the file's header for the command that made them).
pub const OTHELLO8_XOT: &str = include_str!("../openings/othello8-xot.txt");

/// The longest move text tried when splitting a run of moves (moves are short).
const MAX_MOVE_CHARS: usize = 12;

/// A position to start games from, with the moves that lead there from the game's start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening<G: Game> {
    moves: Vec<G::Move>,
    /// `positions[i]` is the position after `moves[..i]`; the last one is the opening's position.
    positions: Vec<G>,
}

impl<G: Game> Opening<G> {
    /// The game's start position itself (no moves).
    #[must_use]
    pub fn start() -> Self {
        Opening {
            moves: Vec::new(),
            positions: vec![G::start()],
        }
    }

    /// An opening at `position` whose moves are not known (a record's position merged over
    /// its symmetries, say): the agents start there without being told how it was reached.
    ///
    /// # Errors
    /// [`OpeningError::Finished`] when the game is over there.
    pub fn at(position: G) -> Result<Self, OpeningError> {
        if position.is_over() {
            return Err(OpeningError::Finished);
        }
        Ok(Opening {
            moves: Vec::new(),
            positions: vec![position],
        })
    }

    /// The opening reached by `moves` from the start.
    ///
    /// # Errors
    /// [`OpeningError::Illegal`] for the first illegal move; [`OpeningError::Finished`] when the
    /// moves end the game.
    pub fn from_moves(moves: &[G::Move]) -> Result<Self, OpeningError> {
        let mut positions = Vec::with_capacity(moves.len() + 1);
        let mut pos = G::start();
        for (i, &mv) in moves.iter().enumerate() {
            let next = pos.play(mv).map_err(|e| OpeningError::Illegal {
                ply: i + 1,
                mv: e.mv.to_string(),
                reason: e.reason,
            })?;
            positions.push(pos);
            pos = next;
        }
        if pos.is_over() {
            return Err(OpeningError::Finished);
        }
        positions.push(pos);
        Ok(Opening {
            moves: moves.to_vec(),
            positions,
        })
    }

    /// Parses and checks a transcript: moves separated by white space, commas or semicolons, or
    /// run together (`f5d6c3`), each read by the game's move parser.
    ///
    /// # Errors
    /// [`OpeningError::Parse`] for text that is not moves, and as [`from_moves`](Self::from_moves).
    pub fn parse(text: &str) -> Result<Self, OpeningError> {
        Self::from_moves(&parse_moves::<G>(text)?)
    }

    /// The moves from the start.
    #[must_use]
    pub fn moves(&self) -> &[G::Move] {
        &self.moves
    }

    /// The position the moves lead to.
    #[must_use]
    pub fn position(&self) -> &G {
        // `positions` always holds at least the start position.
        &self.positions[self.positions.len() - 1]
    }

    /// Every position along the opening: the start, then the position after each move.
    #[must_use]
    pub fn positions(&self) -> &[G] {
        &self.positions
    }

    /// The moves, separated by spaces.
    #[must_use]
    pub fn transcript(&self) -> String {
        join_moves::<G>(&self.moves)
    }

    /// A key equal for two openings exactly when their positions are equal up to a board
    /// symmetry (so transpositions and mirrored lines share it).
    #[must_use]
    pub fn canonical_key(&self) -> String {
        canonical_form(self.position())
    }
}

/// Moves separated by spaces, as written by the game.
#[must_use]
pub fn join_moves<G: Game>(moves: &[G::Move]) -> String {
    moves
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The smallest text form of the position among its eight symmetric images: equal for two
/// positions exactly when one is a symmetric image of the other.
#[must_use]
pub fn canonical_form<G: Game>(pos: &G) -> String {
    Symmetry::ALL
        .iter()
        .map(|&sym| pos.transform(sym).to_string())
        .min()
        .unwrap_or_default()
}

/// Reads moves from a transcript: tokens split at white space, commas and semicolons, each
/// either one move or a run of moves.
///
/// # Errors
/// [`OpeningError::Parse`] naming the first token that is neither.
pub fn parse_moves<G: Game>(text: &str) -> Result<Vec<G::Move>, OpeningError> {
    let mut moves = Vec::new();
    // A run longer than every move of the longest game (passes included) cannot be one.
    let longest = MAX_MOVE_CHARS * 2 * G::BOARD_SIZE * G::BOARD_SIZE;
    for token in text
        .split(|c: char| c.is_whitespace() || c == ',' || c == ';')
        .filter(|t| !t.is_empty())
    {
        if token.len() > longest {
            return Err(OpeningError::Parse {
                game: G::ID,
                text: excerpt(token),
                why: format!(
                    "{} bytes without a space: longer than any game's moves",
                    token.len()
                ),
            });
        }
        match G::parse_move(token) {
            Ok(mv) => moves.push(mv),
            Err(err) => match split_run::<G>(token) {
                Some(run) => moves.extend(run),
                None => {
                    return Err(OpeningError::Parse {
                        game: G::ID,
                        text: excerpt(token),
                        why: excerpt(&err.to_string()),
                    })
                }
            },
        }
    }
    Ok(moves)
}

/// Splits a run of moves written together (`f5d6c3`), preferring the longest move at each
/// step that still lets the rest split; `None` when no split exists.
fn split_run<G: Game>(token: &str) -> Option<Vec<G::Move>> {
    let bounds: Vec<usize> = token
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(token.len()))
        .collect();
    let chars = bounds.len() - 1;
    // next[a] = the first move of a split of the text from char `a`, and where the rest starts.
    let mut next: Vec<Option<(usize, G::Move)>> = vec![None; chars + 1];
    for a in (0..chars).rev() {
        let longest = (a + MAX_MOVE_CHARS).min(chars);
        for b in (a + 1..=longest).rev() {
            if b != chars && next[b].is_none() {
                continue;
            }
            if let Ok(mv) = G::parse_move(&token[bounds[a]..bounds[b]]) {
                next[a] = Some((b, mv));
                break;
            }
        }
    }
    let mut moves = Vec::new();
    let mut at = 0;
    while at < chars {
        let (b, mv) = next[at]?;
        moves.push(mv);
        at = b;
    }
    Some(moves)
}

/// `text` as an error shows it: its first 60 characters, and `…` when there is more.
fn excerpt(text: &str) -> String {
    match text.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// Parses an openings file: one transcript per line, `#` comments, blank lines skipped.
///
/// # Errors
/// [`OpeningFileError`] with the 1-based line number of the first bad line.
pub fn parse_openings<G: Game>(text: &str) -> Result<Vec<Opening<G>>, OpeningFileError> {
    let mut out = Vec::new();
    // A byte-order mark some editors write is not part of the first line.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let opening = Opening::parse(line).map_err(|source| OpeningFileError {
            line: i + 1,
            text: excerpt(line),
            source,
        })?;
        out.push(opening);
    }
    Ok(out)
}

/// The score each opening of an openings file records for itself, in the order
/// [`parse_openings`] reads them: the number that starts the line's trailing comment (`f5d6c3 #
/// +0.25`: Black's view, in discs, as the bundled sets write it), `None` where there is none.
#[must_use]
pub fn recorded_scores(text: &str) -> Vec<Option<f64>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.lines()
        .filter_map(|raw| {
            let (line, comment) = raw.split_once('#').unwrap_or((raw, ""));
            if line.trim().is_empty() {
                return None;
            }
            let first = comment.split_whitespace().next();
            Some(
                first
                    .and_then(|f| f.parse::<f64>().ok())
                    .filter(|s| s.is_finite()),
            )
        })
        .collect()
}

/// How even a list of openings is by their recorded scores (Black's view, in discs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Balance {
    /// Openings with a score.
    pub count: usize,
    /// Their mean.
    pub mean: f64,
    /// Their standard deviation.
    pub sd: f64,
    /// The least.
    pub min: f64,
    /// The greatest.
    pub max: f64,
}

impl Balance {
    /// The balance of `scores`; `None` when there are none.
    #[must_use]
    pub fn of(scores: &[f64]) -> Option<Balance> {
        if scores.is_empty() {
            return None;
        }
        let n = scores.len() as f64;
        let mean = scores.iter().sum::<f64>() / n;
        let sd = (scores.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / n).sqrt();
        Some(Balance {
            count: scores.len(),
            mean,
            sd,
            min: scores.iter().copied().fold(f64::INFINITY, f64::min),
            max: scores.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        })
    }

    /// The balance of the first `used` openings of `text` when every one of them records a
    /// score; `None` otherwise.
    #[must_use]
    pub fn of_first(text: &str, used: usize) -> Option<Balance> {
        let scores: Option<Vec<f64>> = recorded_scores(text).into_iter().take(used).collect();
        Balance::of(&scores?)
    }
}

impl std::fmt::Display for Balance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "mean {:+.2}, standard deviation {:.2}, from {:+.2} to {:+.2} discs for Black",
            self.mean, self.sd, self.min, self.max
        )
    }
}

/// The built-in openings of the game, if it has a list (`othello6`, `othello8`).
///
/// # Errors
/// Only if the embedded list were broken (a test checks it is not).
pub fn builtin_openings<G: Game>() -> Result<Option<Vec<Opening<G>>>, OpeningFileError> {
    builtin_text::<G>().map(parse_openings).transpose()
}

/// The text of the game's built-in opening list, if it has one (`othello6`, `othello8`).
#[must_use]
pub fn builtin_text<G: Game>() -> Option<&'static str> {
    match G::ID {
        "othello6" => Some(OTHELLO6_OPENINGS),
        "othello8" => Some(OTHELLO8_OPENINGS),
        _ => None,
    }
}

/// The game's XOT-style openings, if it has them (`othello8`).
///
/// # Errors
/// Only if the embedded list were broken (a test checks it is not).
pub fn xot_openings<G: Game>() -> Result<Option<Vec<Opening<G>>>, OpeningFileError> {
    match G::ID {
        "othello8" => parse_openings(OTHELLO8_XOT).map(Some),
        _ => Ok(None),
    }
}

/// The default depth of random openings: an eighth of the board's squares, between 2 and 8
/// plies (othello4: 2, othello6: 4, othello8: 8).
#[must_use]
pub fn default_random_plies<G: Game>() -> usize {
    (G::BOARD_SIZE * G::BOARD_SIZE / 8).clamp(2, 8)
}

/// Up to `count` distinct random openings of `plies` uniformly random legal moves each, from a
/// generator seeded with `seed`. Lines that end the game are skipped, and so are lines whose
/// position equals (up to symmetry) one already taken, so fewer than `count` come back when the
/// game has fewer distinct positions at that depth.
#[must_use]
pub fn random_openings<G: Game>(plies: usize, count: usize, seed: u64) -> Vec<Opening<G>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let attempts = count.saturating_mul(50).saturating_add(1000);
    for _ in 0..attempts {
        if out.len() >= count {
            break;
        }
        let mut moves = Vec::with_capacity(plies.min(256));
        let mut pos = G::start();
        for _ in 0..plies {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            let mv = legal[rng.random_range(0..legal.len())];
            pos = pos.play_unchecked(mv);
            moves.push(mv);
        }
        if pos.is_over() || !seen.insert(canonical_form(&pos)) {
            continue;
        }
        if let Ok(opening) = Opening::from_moves(&moves) {
            out.push(opening);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello::{Move, Othello4, Othello8};

    fn mv(s: &str) -> Move {
        s.parse().unwrap()
    }

    #[test]
    fn transcripts_split_with_or_without_separators() {
        let spaced = Opening::<Othello8>::parse("f5 d6,c3;D3").unwrap();
        let compact = Opening::<Othello8>::parse("f5d6c3d3").unwrap();
        assert_eq!(spaced, compact);
        assert_eq!(spaced.moves(), &[mv("f5"), mv("d6"), mv("c3"), mv("d3")]);
        assert_eq!(spaced.transcript(), "f5 d6 c3 d3");
        assert_eq!(spaced.positions().len(), 5);
        assert_eq!(Opening::<Othello8>::parse("").unwrap(), Opening::start());
    }

    #[test]
    fn bad_transcripts_say_what_and_where() {
        let err = Opening::<Othello8>::parse("f5 z9").unwrap_err();
        assert!(
            matches!(err, OpeningError::Parse { ref text, .. } if text == "z9"),
            "{err}"
        );
        let err = Opening::<Othello8>::parse("f5f5").unwrap_err();
        assert_eq!(
            err.to_string(),
            "move 2 (f5) is illegal: the square is occupied"
        );
        let err = Opening::<Othello8>::parse("f5 a1").unwrap_err();
        assert_eq!(
            err.to_string(),
            "move 2 (a1) is illegal: it would flip no disc"
        );
        // e5 is off the 4x4 board.
        assert!(matches!(
            Opening::<Othello4>::parse("e5").unwrap_err(),
            OpeningError::Parse { .. }
        ));
        let file = "# comment\n\nf5d6 # trailing comment\nf5 d6 c3\nf5 a1\n";
        let err = parse_openings::<Othello8>(file).unwrap_err();
        assert_eq!(err.line, 5);
        assert_eq!(err.text, "f5 a1");
        assert!(err.to_string().starts_with("openings line 5"), "{err}");
        let ok = parse_openings::<Othello8>("# c\nf5d6\n\nf5 d6 c3\n").unwrap();
        assert_eq!(ok.len(), 2);
    }

    #[test]
    fn junk_never_panics() {
        let long = "f5".repeat(5000);
        let junk = [
            "ü",
            "f5é6",
            "\u{0}",
            "pass pass",
            "--f5",
            "a",
            "h9h9",
            &long,
        ];
        for text in junk {
            let _ = Opening::<Othello8>::parse(text);
            let _ = Opening::<Othello4>::parse(text);
            let _ = parse_openings::<Othello8>(text);
        }
        // Run together, too long to be a game; spaced, illegal at the second move.
        assert!(matches!(
            Opening::<Othello8>::parse(&long),
            Err(OpeningError::Parse { .. })
        ));
        assert!(matches!(
            Opening::<Othello8>::parse(&"f5 ".repeat(5000)),
            Err(OpeningError::Illegal { ply: 2, .. })
        ));
    }

    #[test]
    fn finished_openings_are_refused() {
        // The shortest 8x8 game: black wipes white out in nine moves.
        let err = Opening::<Othello8>::parse("f5d6c5f4e3f6g5e6e7").unwrap_err();
        assert_eq!(err, OpeningError::Finished);
    }

    #[test]
    fn canonical_keys_merge_symmetric_lines() {
        // The four first moves of Othello are images of one another.
        let keys: HashSet<String> = ["f5", "d3", "c4", "e6"]
            .iter()
            .map(|m| Opening::<Othello8>::parse(m).unwrap().canonical_key())
            .collect();
        assert_eq!(keys.len(), 1);
        let a = Opening::<Othello8>::parse("f5 d6").unwrap();
        let b = Opening::<Othello8>::parse("f5 f6").unwrap();
        assert_ne!(a.canonical_key(), b.canonical_key());
    }

    #[test]
    fn random_openings_are_seeded_distinct_and_unfinished() {
        let a = random_openings::<Othello8>(6, 20, 7);
        let b = random_openings::<Othello8>(6, 20, 7);
        assert_eq!(a, b);
        assert_eq!(a.len(), 20);
        assert_ne!(a, random_openings::<Othello8>(6, 20, 8));
        let keys: HashSet<String> = a.iter().map(Opening::canonical_key).collect();
        assert_eq!(keys.len(), a.len());
        assert!(a
            .iter()
            .all(|o| o.moves().len() == 6 && !o.position().is_over()));
        // 4x4 has only a handful of distinct positions two plies in.
        let small = random_openings::<Othello4>(2, 100, 1);
        assert!(!small.is_empty() && small.len() < 100);
        assert_eq!(default_random_plies::<Othello4>(), 2);
        assert_eq!(default_random_plies::<Othello8>(), 8);
    }

    #[test]
    fn a_huge_line_is_refused_at_once_and_shown_short() {
        let line = "f5".repeat(1_000_000);
        let err = parse_openings::<Othello8>(&line).expect_err("no game is that long");
        let text = err.to_string();
        assert!(text.len() < 400, "{text}");
        assert!(text.contains("2000000 bytes without a space"), "{text}");
        // The longest real run still splits, and a byte-order mark is not a move.
        let whole = "\u{feff}f5d6c3d3c4f4c5b3c2e6c6b4b5d2e3a6c1b1";
        let openings = parse_openings::<Othello8>(whole).expect("a run with a BOM");
        assert_eq!(openings[0].moves().len(), 18);
    }
}
