//! GGF game records (the Generic Game Format of the GGS server, also what NBoard sends its
//! engines) for 8x8 Othello.
//!
//! A record is one line of properties `KEY[value]` between `(;` and `;)`:
//!
//! ```text
//! (;GM[Othello]PC[GGS/os]DT[2003.01.01]PB[alice]PW[bob]RB[2100]RW[1900]TI[15:00]TY[8]RE[+4]
//!   BO[8 ---------------------------O*------*O--------------------------- *]B[d3//0.01]W[c5]B[PA];)
//! ```
//!
//! `BO` is the start position (the size `8`, then 64 squares from `a1` along each rank, `*` black,
//! `O` white, `-` empty, then the side to move), `B` and `W` are the moves of each side
//! (`square[/eval[/time]]`, `PA` or `pass` for a pass), and every other property is kept as a
//! tag, in order. Only 8x8 Othello is read: `TY` must be absent, `8`, or `8r<n>` (a random start,
//! which `BO` describes); anything else is [`GgfError::UnsupportedType`].
//!
//! [`GgfGame`] checks every move against the rules as it reads it, so a parsed game is always a
//! legal game; a pass that a record leaves out (a move recorded for the side not to move while the
//! side to move must pass) is made explicit.
//!
//! ```
//! use othello::{GgfGame, Move};
//!
//! let game: GgfGame = "(;GM[Othello]PB[alice]TY[8]BO[8 ---------------------------O*------\
//!                       *O--------------------------- *]B[f5//1.5]W[D6];)".parse()?;
//! assert_eq!(game.tag("PB"), Some("alice"));
//! assert_eq!(game.moves()[0].mv, "f5".parse::<Move>()?);
//! assert_eq!(game.moves()[0].time, Some(1.5));
//! assert_eq!(game.to_string().parse::<GgfGame>()?, game);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt::{self, Write as _};
use std::str::FromStr;

use game::{Color, Game, IllegalMove, IllegalReason};

use crate::square::{Move, NotationError};
use crate::Othello8;

/// One move of a record: the move and, when the record has them, the mover's evaluation (in
/// discs, from the mover's point of view) and the time it took (in seconds).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GgfMove {
    /// The move (a pass is [`Move::Pass`]).
    pub mv: Move,
    /// The evaluation written after the first slash, if any.
    pub eval: Option<f64>,
    /// The time written after the second slash, if any.
    pub time: Option<f64>,
}

impl GgfMove {
    /// A move with no evaluation and no time.
    #[must_use]
    pub const fn new(mv: Move) -> Self {
        GgfMove {
            mv,
            eval: None,
            time: None,
        }
    }

    /// Parses `move[/eval[/time]]` as GGF `B[...]`/`W[...]` values and the NBoard `move` command
    /// write it: `d3`, `D3/-1.50`, `d3//0.01`, `PA/0.00/2`. Empty parts are absent.
    ///
    /// # Errors
    /// [`GgfMoveError`] saying which part is wrong.
    pub fn parse(text: &str) -> Result<Self, GgfMoveError> {
        let mut parts = text.trim().split('/');
        let square = parts.next().unwrap_or_default().trim();
        let mv = square
            .parse::<Move>()
            .map_err(|e| GgfMoveError::Move(e, text.to_string()))?;
        let eval = number(parts.next(), text)?;
        let time = number(parts.next(), text)?;
        if parts.next().is_some() {
            return Err(GgfMoveError::TooManyParts(text.to_string()));
        }
        Ok(GgfMove { mv, eval, time })
    }
}

fn number(part: Option<&str>, whole: &str) -> Result<Option<f64>, GgfMoveError> {
    match part.map(str::trim) {
        None | Some("") => Ok(None),
        Some(p) => match p.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(Some(x)),
            _ => Err(GgfMoveError::BadNumber {
                number: p.to_string(),
                text: whole.to_string(),
            }),
        },
    }
}

impl fmt::Display for GgfMove {
    /// `d3`, `PA`, `d3/-1.5`, `d3//0.01` or `d3/2/0.5`: squares in lower case, a pass as `PA`,
    /// numbers in the shortest form that reads back exactly.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.mv {
            Move::Place(sq) => write!(f, "{sq}")?,
            Move::Pass => f.write_str("PA")?,
        }
        match (self.eval, self.time) {
            (None, None) => Ok(()),
            (eval, None) => write!(f, "/{}", OptNum(eval)),
            (eval, time) => write!(f, "/{}/{}", OptNum(eval), OptNum(time)),
        }
    }
}

struct OptNum(Option<f64>);

impl fmt::Display for OptNum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(x) => write!(f, "{x}"),
            None => Ok(()),
        }
    }
}

impl FromStr for GgfMove {
    type Err = GgfMoveError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        GgfMove::parse(s)
    }
}

/// Error for a move value `move[/eval[/time]]` that does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GgfMoveError {
    /// The move part is not a square or a pass.
    #[error("{1:?}: {0}")]
    Move(#[source] NotationError, String),
    /// The evaluation or the time is not a finite number.
    #[error("{text:?}: {number:?} is not a number")]
    BadNumber {
        /// The part that is not a number.
        number: String,
        /// The whole move value.
        text: String,
    },
    /// More than `move/eval/time`.
    #[error("{0:?}: expected move, move/eval or move/eval/time")]
    TooManyParts(String),
}

/// Error for text that is not a GGF 8x8 Othello game, or whose moves break the rules.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GgfError {
    /// The text does not start with `(;`.
    #[error("not a GGF game: a game starts with \"(;\"")]
    MissingStart,
    /// The text ends before `;)`.
    #[error("the GGF game is not closed with \";)\"")]
    MissingEnd,
    /// A property is malformed.
    #[error("GGF syntax error at byte {offset}: {why}")]
    Syntax {
        /// Byte offset of the problem in the text.
        offset: usize,
        /// What is wrong.
        why: String,
    },
    /// Something other than white space follows `;)`.
    #[error("text after the end of the GGF game at byte {0}")]
    TrailingText(usize),
    /// `GM` names another game.
    #[error("GM[{0}] is not Othello")]
    NotOthello(String),
    /// A game type (`TY`) other than 8x8 Othello, or a board of another size.
    #[error("game type {0:?} is not supported: only 8x8 Othello (TY[8]) is")]
    UnsupportedType(String),
    /// `BO` does not describe an 8x8 position.
    #[error("bad board BO[{text}]: {why}")]
    BadBoard {
        /// The value of `BO`.
        text: String,
        /// What is wrong.
        why: String,
    },
    /// `BO` appears twice, or after the first move.
    #[error("BO must appear once, before the first move")]
    MisplacedBoard,
    /// A move value does not parse.
    #[error("move {number}: {error}")]
    BadMove {
        /// 1-based number of the move in the record.
        number: usize,
        /// What is wrong.
        #[source]
        error: GgfMoveError,
    },
    /// A move is recorded for the side that is not to move (and the side to move could move).
    #[error("move {number} is recorded for {recorded}, but {to_move} is to move")]
    WrongSide {
        /// 1-based number of the move in the record.
        number: usize,
        /// The side the record gives.
        recorded: Color,
        /// The side to move.
        to_move: Color,
    },
    /// A move breaks the rules where it stands.
    #[error("move {number} ({mv}) is illegal: {reason}")]
    Illegal {
        /// 1-based number of the move in the record.
        number: usize,
        /// The move.
        mv: Move,
        /// Why.
        reason: IllegalReason,
    },
    /// A tag key that is not one or more ASCII letters, or one of the reserved `BO`, `B`, `W`.
    #[error("bad tag key {0:?}: a key is ASCII letters, and not BO, B or W")]
    BadTagKey(String),
}

/// A GGF record of an 8x8 Othello game: its tags, start position and moves, checked against the
/// rules (see the [module docs](self)).
#[derive(Clone, Debug, PartialEq)]
pub struct GgfGame {
    tags: Vec<(String, String)>,
    positions: Vec<Othello8>,
    moves: Vec<GgfMove>,
}

impl Default for GgfGame {
    fn default() -> Self {
        GgfGame::new(Othello8::new())
    }
}

impl GgfGame {
    /// An empty record from `start`, tagged `GM[Othello]` and `TY[8]`.
    #[must_use]
    pub fn new(start: Othello8) -> Self {
        GgfGame {
            tags: vec![("GM".into(), "Othello".into()), ("TY".into(), "8".into())],
            positions: vec![start],
            moves: Vec::new(),
        }
    }

    /// The start position (`BO`).
    #[must_use]
    pub fn start(&self) -> &Othello8 {
        &self.positions[0]
    }

    /// The position after the last move.
    #[must_use]
    pub fn last(&self) -> &Othello8 {
        // `positions` always holds the start position.
        &self.positions[self.positions.len() - 1]
    }

    /// The moves, passes included.
    #[must_use]
    pub fn moves(&self) -> &[GgfMove] {
        &self.moves
    }

    /// The position before each move, then the last one (`moves().len() + 1` entries).
    #[must_use]
    pub fn positions(&self) -> &[Othello8] {
        &self.positions
    }

    /// Every property other than `BO`, `B` and `W`, in order, keys in upper case.
    #[must_use]
    pub fn tags(&self) -> &[(String, String)] {
        &self.tags
    }

    /// The first value of a tag (key in any case), such as `PB` (black's name) or `RE` (result).
    #[must_use]
    pub fn tag(&self, key: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    }

    /// Sets a tag: replaces its first value, or appends it.
    ///
    /// # Errors
    /// [`GgfError::BadTagKey`] for a key that is not ASCII letters or is `BO`, `B` or `W`;
    /// [`GgfError::NotOthello`] or [`GgfError::UnsupportedType`] for a `GM` or `TY` this module
    /// could not read back.
    pub fn set_tag(&mut self, key: &str, value: &str) -> Result<(), GgfError> {
        let key = tag_key(key).ok_or_else(|| GgfError::BadTagKey(key.to_string()))?;
        check_tag(&key, value)?;
        match self.tags.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = value.to_string(),
            None => self.tags.push((key, value.to_string())),
        }
        Ok(())
    }

    /// Appends a move checked against the rules.
    ///
    /// # Errors
    /// [`IllegalMove`] when the move is not legal after the last move; the record is unchanged.
    pub fn push(&mut self, mv: GgfMove) -> Result<(), IllegalMove<Move>> {
        let next = self.last().play(mv.mv)?;
        self.positions.push(next);
        self.moves.push(mv);
        Ok(())
    }

    /// Appends a move with no evaluation or time; see [`push`](Self::push).
    ///
    /// # Errors
    /// As [`push`](Self::push).
    pub fn play(&mut self, mv: Move) -> Result<(), IllegalMove<Move>> {
        self.push(GgfMove::new(mv))
    }

    /// Parses one game; white space may surround it.
    ///
    /// # Errors
    /// A [`GgfError`] for malformed text, another game type, or an illegal move.
    pub fn parse(text: &str) -> Result<Self, GgfError> {
        let mut reader = Reader { text, pos: 0 };
        reader.skip_ws();
        let game = reader.game()?;
        reader.skip_ws();
        if reader.pos < text.len() {
            return Err(GgfError::TrailingText(reader.pos));
        }
        Ok(game)
    }

    /// Parses every game of a GGF file (games one after the other, white space between).
    /// Reading stops at the first error, which is returned with the games before it.
    #[must_use]
    pub fn parse_all(text: &str) -> (Vec<GgfGame>, Option<GgfError>) {
        let mut reader = Reader { text, pos: 0 };
        let mut games = Vec::new();
        loop {
            reader.skip_ws();
            if reader.pos >= text.len() {
                return (games, None);
            }
            match reader.game() {
                Ok(game) => games.push(game),
                Err(e) => return (games, Some(e)),
            }
        }
    }
}

fn tag_key(key: &str) -> Option<String> {
    let key = key.trim().to_ascii_uppercase();
    let ok = !key.is_empty()
        && key.bytes().all(|b| b.is_ascii_uppercase())
        && !matches!(key.as_str(), "BO" | "B" | "W");
    ok.then_some(key)
}

/// The `BO` value of a position: `8 `, 64 squares, a space, the side to move.
fn board_value(pos: &Othello8) -> String {
    let black = pos.discs(Color::Black);
    let white = pos.discs(Color::White);
    let mut s = String::with_capacity(68);
    s.push_str("8 ");
    for i in 0..64 {
        let bit = 1u64 << i;
        s.push(if black & bit != 0 {
            '*'
        } else if white & bit != 0 {
            'O'
        } else {
            '-'
        });
    }
    s.push(' ');
    s.push(side_char(pos.side_to_move()));
    s
}

const fn side_char(color: Color) -> char {
    match color {
        Color::Black => '*',
        Color::White => 'O',
    }
}

fn parse_board(text: &str) -> Result<Othello8, GgfError> {
    let bad = |why: &str| GgfError::BadBoard {
        text: text.to_string(),
        why: why.to_string(),
    };
    let mut tokens = text.split_whitespace();
    let size = tokens.next().ok_or_else(|| bad("empty"))?;
    if size != "8" {
        return Err(GgfError::UnsupportedType(format!("board size {size}")));
    }
    let chars: Vec<char> = tokens.flat_map(str::chars).collect();
    if chars.len() != 65 {
        return Err(bad(&format!(
            "expected 64 squares and the side to move, found {} characters",
            chars.len()
        )));
    }
    let (mut black, mut white) = (0u64, 0u64);
    for (i, &ch) in chars[..64].iter().enumerate() {
        match ch {
            '*' | 'X' | 'x' => black |= 1 << i,
            'O' | 'o' => white |= 1 << i,
            '-' | '.' => {}
            other => return Err(bad(&format!("square {i} is {other:?}: expected *, O or -"))),
        }
    }
    let side = match chars[64] {
        '*' | 'X' | 'x' | 'B' | 'b' => Color::Black,
        'O' | 'o' | 'W' | 'w' => Color::White,
        other => {
            return Err(bad(&format!(
                "side to move {other:?}: expected * (black) or O (white)"
            )))
        }
    };
    // A board no game can reach (an empty centre square) is refused as `solve` refuses it.
    let pos = Othello8::from_bitboards(black, white, side).map_err(|e| bad(&e.to_string()))?;
    pos.validate().map_err(|e| bad(&e.to_string()))?;
    Ok(pos)
}

/// Checks the tags that say which game a record is: `GM` must be Othello and `TY` 8x8.
fn check_tag(key: &str, value: &str) -> Result<(), GgfError> {
    match key {
        "GM" if !value.trim().eq_ignore_ascii_case("othello") => {
            Err(GgfError::NotOthello(value.to_string()))
        }
        "TY" if !supported_type(value) => Err(GgfError::UnsupportedType(value.to_string())),
        _ => Ok(()),
    }
}

/// Whether `TY` names plain 8x8 Othello: `8`, or `8r<n>` (a random start given by `BO`).
fn supported_type(ty: &str) -> bool {
    let ty = ty.trim();
    ty == "8"
        || ty
            .strip_prefix("8r")
            .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
}

/// A cursor over the text of a GGF file.
struct Reader<'a> {
    text: &'a str,
    pos: usize,
}

impl Reader<'_> {
    fn rest(&self) -> &str {
        self.text.get(self.pos..).unwrap_or_default()
    }

    fn skip_ws(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn syntax(&self, why: impl Into<String>) -> GgfError {
        GgfError::Syntax {
            offset: self.pos,
            why: why.into(),
        }
    }

    /// One game from `(;` to `;)`.
    fn game(&mut self) -> Result<GgfGame, GgfError> {
        if !self.rest().starts_with("(;") {
            return Err(GgfError::MissingStart);
        }
        self.pos += 2;
        let mut tags: Vec<(String, String)> = Vec::new();
        let mut board: Option<Othello8> = None;
        let mut record: Vec<(Color, GgfMove)> = Vec::new();
        loop {
            self.skip_ws();
            let rest = self.rest();
            if rest.is_empty() {
                return Err(GgfError::MissingEnd);
            }
            if rest.starts_with(";)") {
                self.pos += 2;
                break;
            }
            let (key, value) = self.property()?;
            match key.as_str() {
                "B" | "W" => {
                    let color = if key == "B" {
                        Color::Black
                    } else {
                        Color::White
                    };
                    let mv = GgfMove::parse(&value).map_err(|error| GgfError::BadMove {
                        number: record.len() + 1,
                        error,
                    })?;
                    record.push((color, mv));
                }
                "BO" => {
                    if board.is_some() || !record.is_empty() {
                        return Err(GgfError::MisplacedBoard);
                    }
                    board = Some(parse_board(&value)?);
                }
                _ => tags.push((key, value)),
            }
        }
        for (key, value) in &tags {
            check_tag(key, value)?;
        }
        let mut game = GgfGame {
            tags,
            positions: vec![board.unwrap_or_default()],
            moves: Vec::with_capacity(record.len()),
        };
        for (i, (color, mv)) in record.into_iter().enumerate() {
            let number = i + 1;
            let pos = *game.last();
            if color != pos.side_to_move() {
                if !pos.must_pass() {
                    return Err(GgfError::WrongSide {
                        number,
                        recorded: color,
                        to_move: pos.side_to_move(),
                    });
                }
                // A pass the record leaves implicit.
                game.play(Move::Pass).map_err(|e| GgfError::Illegal {
                    number,
                    mv: e.mv,
                    reason: e.reason,
                })?;
            }
            game.push(mv).map_err(|e| GgfError::Illegal {
                number,
                mv: e.mv,
                reason: e.reason,
            })?;
        }
        Ok(game)
    }

    /// One property `KEY[value]`, the value unescaped (`\x` stands for `x`).
    fn property(&mut self) -> Result<(String, String), GgfError> {
        let rest = self.rest();
        let key_len = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
        if key_len == 0 {
            return Err(self.syntax(match rest.chars().next() {
                Some(c) => format!("expected a property KEY[value] or \";)\", found {c:?}"),
                None => "unexpected end".to_string(),
            }));
        }
        let key = rest[..key_len].to_ascii_uppercase();
        self.pos += key_len;
        self.skip_ws();
        if !self.rest().starts_with('[') {
            return Err(self.syntax(format!("expected '[' after {key}")));
        }
        self.pos += 1;
        let mut value = String::new();
        let mut chars = self.rest().char_indices();
        loop {
            match chars.next() {
                None => {
                    self.pos = self.text.len();
                    return Err(self.syntax(format!("{key}[ is never closed with ']'")));
                }
                Some((i, ']')) => {
                    self.pos += i + 1;
                    return Ok((key, value));
                }
                Some((_, '\\')) => match chars.next() {
                    Some((_, c)) => value.push(c),
                    None => {
                        self.pos = self.text.len();
                        return Err(self.syntax(format!("{key}[ ends in a lone '\\'")));
                    }
                },
                Some((_, c)) => value.push(c),
            }
        }
    }
}

fn escape(value: &str) -> String {
    let mut s = String::with_capacity(value.len());
    for c in value.chars() {
        if c == ']' || c == '\\' {
            s.push('\\');
        }
        s.push(c);
    }
    s
}

impl fmt::Display for GgfGame {
    /// The record on one line: the tags in order, `BO`, then the moves.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(;")?;
        for (key, value) in &self.tags {
            write!(f, "{key}[{}]", escape(value))?;
        }
        write!(f, "BO[{}]", board_value(self.start()))?;
        for (pos, mv) in self.positions.iter().zip(&self.moves) {
            let key = match pos.side_to_move() {
                Color::Black => 'B',
                Color::White => 'W',
            };
            f.write_char(key)?;
            write!(f, "[{mv}]")?;
        }
        f.write_str(";)")
    }
}

impl FromStr for GgfGame {
    type Err = GgfError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        GgfGame::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NBOARD: &str = "(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[./mEdax]PW[chris]\
        RE[?]TI[15:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]\
        B[F5]W[F6]B[D3]W[C5]B[E6]W[F7]B[E7]W[F4];)";

    #[test]
    fn reads_an_nboard_game() {
        let game = GgfGame::parse(NBOARD).unwrap();
        assert_eq!(game.start(), &Othello8::new());
        assert_eq!(game.moves().len(), 8);
        assert_eq!(game.tag("pc"), Some("NBoard"));
        assert_eq!(game.tag("DT"), Some("2014-02-21 20:52:27 GMT"));
        assert_eq!(game.tag("RE"), Some("?"));
        let transcript = crate::transcript(&game.moves().iter().map(|m| m.mv).collect::<Vec<_>>());
        assert_eq!(transcript, "f5f6d3c5e6f7e7f4");
        let replayed = crate::replay_transcript::<8>(&transcript).unwrap();
        assert_eq!(game.last(), replayed.last());
        assert_eq!(game.positions(), replayed.positions());
        // Written back, then read again: the same game.
        let again = GgfGame::parse(&game.to_string()).unwrap();
        assert_eq!(again, game);
    }

    #[test]
    fn writes_the_documented_form() {
        let mut game = GgfGame::new(Othello8::new());
        game.set_tag("PB", "a]b\\c").unwrap();
        game.push(GgfMove {
            mv: "d3".parse().unwrap(),
            eval: None,
            time: Some(0.01),
        })
        .unwrap();
        game.push(GgfMove {
            mv: "c5".parse().unwrap(),
            eval: Some(-1.5),
            time: None,
        })
        .unwrap();
        assert_eq!(
            game.to_string(),
            "(;GM[Othello]TY[8]PB[a\\]b\\\\c]\
             BO[8 ---------------------------O*------*O--------------------------- *]\
             B[d3//0.01]W[c5/-1.5];)"
        );
        assert_eq!(GgfGame::parse(&game.to_string()).unwrap(), game);
        assert_eq!(game.tag("PB"), Some("a]b\\c"));
        assert!(game.set_tag("BO", "x").is_err());
        assert!(game.set_tag("P B", "x").is_err());
        assert!(game.set_tag("TY", "10").is_err());
        assert!(game.set_tag("gm", "go").is_err());
        game.set_tag("ty", "8r8").unwrap();
        game.set_tag("TY", "8").unwrap();
        assert!(game.play(Move::Pass).is_err());
        assert_eq!(game.moves().len(), 2);
    }

    #[test]
    fn passes_explicit_and_implicit() {
        // Black to move with no disc to place while white can move: black must pass. White
        // holds a1 and the four centre squares, black b1 alone; white's c1 ends the game.
        let mut squares = vec!['-'; 64];
        squares[0] = 'O';
        squares[1] = '*';
        for centre in [27, 28, 35, 36] {
            squares[centre] = 'O';
        }
        let bo = format!("8 {} *", squares.into_iter().collect::<String>());
        let explicit = format!("(;GM[Othello]BO[{bo}]B[PA]W[c1/0/1];)");
        let game = GgfGame::parse(&explicit).unwrap();
        assert_eq!(game.moves()[0].mv, Move::Pass);
        assert_eq!(game.moves()[1].eval, Some(0.0));
        assert!(game.last().is_over());
        let implicit = format!("(;GM[Othello]BO[{bo}]W[c1/0/1];)");
        assert_eq!(GgfGame::parse(&implicit).unwrap(), game);
        let pass_word = format!("(;BO[{bo}]B[pass]W[C1/0/1];)");
        assert_eq!(GgfGame::parse(&pass_word).unwrap().moves(), game.moves());
        // GGS also splits the board into rows.
        let rows =
            "(;BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *];)";
        assert_eq!(GgfGame::parse(rows).unwrap().start(), &Othello8::new());
    }

    #[test]
    fn errors_are_typed() {
        let start = "BO[8 ---------------------------O*------*O--------------------------- *]";
        let err = |text: &str| GgfGame::parse(text).unwrap_err();
        assert_eq!(err(""), GgfError::MissingStart);
        assert_eq!(err("GM[Othello]"), GgfError::MissingStart);
        assert_eq!(err("(;GM[Othello]"), GgfError::MissingEnd);
        assert!(matches!(err("(;GM[Othello"), GgfError::Syntax { .. }));
        assert!(matches!(err("(;GM Othello;)"), GgfError::Syntax { .. }));
        assert!(matches!(err("(;[x];)"), GgfError::Syntax { .. }));
        assert!(matches!(err("(;C[\\"), GgfError::Syntax { .. }));
        assert_eq!(err("(;;) x"), GgfError::TrailingText(5));
        assert_eq!(err("(;GM[Chess];)"), GgfError::NotOthello("Chess".into()));
        assert_eq!(err("(;TY[10];)"), GgfError::UnsupportedType("10".into()));
        assert_eq!(err("(;TY[s8];)"), GgfError::UnsupportedType("s8".into()));
        assert!(matches!(
            err("(;BO[10 ----];)"),
            GgfError::UnsupportedType(_)
        ));
        assert!(matches!(err("(;BO[8 ---- *];)"), GgfError::BadBoard { .. }));
        let bad_square = format!("(;{};)", start.replace("O*", "Q*"));
        assert!(matches!(err(&bad_square), GgfError::BadBoard { .. }));
        let bad_side = format!("(;{};)", start.replace(" *]", " ?]"));
        assert!(matches!(err(&bad_side), GgfError::BadBoard { .. }));
        // A board no game reaches: an empty centre square, or an empty board.
        let hollow = format!("(;{};)", start.replace("O*", "-*"));
        match err(&hollow) {
            GgfError::BadBoard { why, .. } => assert!(why.contains("centre square d4"), "{why}"),
            other => panic!("{other:?}"),
        }
        let empty = format!("(;BO[8 {} *];)", "-".repeat(64));
        assert!(matches!(err(&empty), GgfError::BadBoard { .. }));
        assert_eq!(
            err(&format!("(;{start}{start};)")),
            GgfError::MisplacedBoard
        );
        assert!(matches!(
            err(&format!("(;{start}B[z9];)")),
            GgfError::BadMove { number: 1, .. }
        ));
        assert!(matches!(
            err(&format!("(;{start}B[f5/abc];)")),
            GgfError::BadMove {
                error: GgfMoveError::BadNumber { .. },
                ..
            }
        ));
        assert!(matches!(
            err(&format!("(;{start}B[f5/1/2/3];)")),
            GgfError::BadMove {
                error: GgfMoveError::TooManyParts(_),
                ..
            }
        ));
        assert!(matches!(
            err(&format!("(;{start}B[f5/inf];)")),
            GgfError::BadMove { .. }
        ));
        assert_eq!(
            err(&format!("(;{start}W[f5];)")),
            GgfError::WrongSide {
                number: 1,
                recorded: Color::White,
                to_move: Color::Black
            }
        );
        assert_eq!(
            err(&format!("(;{start}B[f5]W[a1];)")),
            GgfError::Illegal {
                number: 2,
                mv: "a1".parse().unwrap(),
                reason: IllegalReason::NoCapture
            }
        );
        assert!(matches!(
            err(&format!("(;{start}B[PA];)")),
            GgfError::Illegal {
                reason: IllegalReason::PassNotForced,
                ..
            }
        ));
        // Every error says what is wrong.
        assert!(err(&format!("(;{start}B[f5]W[a1];)"))
            .to_string()
            .contains("move 2 (a1) is illegal"));
    }

    #[test]
    fn parse_all_reads_a_file() {
        let text = format!("{NBOARD}\n\n{NBOARD}\n");
        let (games, error) = GgfGame::parse_all(&text);
        assert_eq!(games.len(), 2);
        assert!(error.is_none());
        let (games, error) = GgfGame::parse_all(&format!("{NBOARD} (;GM[Go];)"));
        assert_eq!(games.len(), 1);
        assert_eq!(error, Some(GgfError::NotOthello("Go".into())));
    }

    #[test]
    fn move_values() {
        let m = GgfMove::parse(" D3/-2.25/1 ").unwrap();
        assert_eq!(m.mv, "d3".parse().unwrap());
        assert_eq!((m.eval, m.time), (Some(-2.25), Some(1.0)));
        assert_eq!(m.to_string(), "d3/-2.25/1");
        assert_eq!(GgfMove::parse("pa").unwrap().to_string(), "PA");
        assert_eq!(
            GgfMove::parse("e6/").unwrap(),
            GgfMove::new("e6".parse().unwrap())
        );
        assert!(GgfMove::parse("").is_err());
        assert!(GgfMove::parse("/1").is_err());
        assert!(GgfMove::parse("d3/NaN").is_err());
    }
}
