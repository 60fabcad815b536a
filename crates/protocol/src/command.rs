//! The lines of the NBoard protocol, both ways: [`Command`] (GUI to engine) and [`Reply`]
//! (engine to GUI), parsed into values with typed errors.

use std::fmt;

use othello::{GgfError, GgfGame, GgfMove, GgfMoveError, Move};

/// A line the GUI (or a driver) sends to an engine.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// `nboard <version>`: the first command of a session.
    Nboard(u32),
    /// `set depth <n>`: the midgame search depth.
    SetDepth(u32),
    /// `set game <GGF>`: all further commands are about the end of this game.
    SetGame(Box<GgfGame>),
    /// `set contempt <n>`: how much a draw is worth to the engine, in centi-discs.
    SetContempt(f64),
    /// `set <name> <value>` for an option this implementation does not know.
    SetOther(String),
    /// `move <move>[/eval[/time]]` (or a bare move, as NBoard 1.1 sent): play a move.
    Move(GgfMove),
    /// `hint <n>`: evaluate up to `n` moves of the current position.
    Hint(u32),
    /// `go`: say which move to play (the engine does not play it; a `move` follows).
    Go,
    /// `ping <n>`: answer `pong <n>` once everything before has been handled.
    Ping(i64),
    /// `learn`: learn the current game (answered with `learned`).
    Learn,
    /// `analyze`: evaluate every position of the game, last first.
    Analyze,
    /// `quit`: end the session.
    Quit,
}

/// Error for a command line that is unknown or malformed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// The first word is no command of the protocol.
    #[error("unknown command {0:?}")]
    Unknown(String),
    /// A command without the argument it needs.
    #[error("{0} needs an argument")]
    MissingArgument(&'static str),
    /// A number that does not parse or is out of range.
    #[error("{command}: {text:?} is not {expected}")]
    BadNumber {
        /// The command.
        command: &'static str,
        /// The argument given.
        text: String,
        /// What was expected.
        expected: &'static str,
    },
    /// A whole number too large for its argument.
    #[error("{command}: {text} is out of range: {expected}")]
    OutOfRange {
        /// The command.
        command: &'static str,
        /// The argument given.
        text: String,
        /// What was expected.
        expected: &'static str,
    },
    /// `set game` with a GGF game that does not parse or breaks the rules.
    #[error("set game: {0}")]
    BadGame(#[from] GgfError),
    /// `move` with a move that does not parse.
    #[error("move: {0}")]
    BadMove(#[from] GgfMoveError),
    /// Words after a command's arguments (`ping 1 2`): nothing is acted on.
    #[error("{command}: unexpected {text:?} after the command")]
    Extra {
        /// The command.
        command: &'static str,
        /// The first word too many.
        text: String,
    },
}

fn number<T: std::str::FromStr>(
    command: &'static str,
    text: Option<&str>,
    expected: &'static str,
) -> Result<T, CommandError> {
    let text = text.ok_or(CommandError::MissingArgument(command))?;
    text.parse().map_err(|_| {
        if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
            // A whole number, just too large for the argument.
            CommandError::OutOfRange {
                command,
                text: text.chars().take(40).collect(),
                expected,
            }
        } else {
            CommandError::BadNumber {
                command,
                text: text.chars().take(40).collect(),
                expected,
            }
        }
    })
}

impl Command {
    /// Parses one line. Leading and trailing white space (a `\r` included) is ignored, and so is
    /// the case of command words and moves. `Ok(None)` for a blank line.
    ///
    /// # Errors
    /// A [`CommandError`] saying what is wrong; nothing in the line is acted on.
    pub fn parse(line: &str) -> Result<Option<Command>, CommandError> {
        let line = line.trim();
        let Some(word) = line.split_whitespace().next() else {
            return Ok(None);
        };
        let rest = line[word.len()..].trim_start();
        let arg = rest.split_whitespace().next();
        // How many argument words each command takes (beyond them is an error, except for
        // `quit`, which always quits).
        let takes = |name: &'static str, count: usize| match rest.split_whitespace().nth(count) {
            Some(extra) => Err(CommandError::Extra {
                command: name,
                text: extra.chars().take(40).collect(),
            }),
            None => Ok(()),
        };
        let command = match word.to_ascii_lowercase().as_str() {
            "nboard" => {
                takes("nboard", 1)?;
                Command::Nboard(number("nboard", arg, "a protocol version")?)
            }
            "set" => return Self::parse_set(rest).map(Some),
            "move" => {
                takes("move", 1)?;
                Command::Move(GgfMove::parse(
                    arg.ok_or(CommandError::MissingArgument("move"))?,
                )?)
            }
            "hint" => {
                takes("hint", 1)?;
                match arg {
                    None => Command::Hint(1),
                    Some(_) => Command::Hint(number("hint", arg, "a number of moves")?),
                }
            }
            "go" => {
                takes("go", 0)?;
                Command::Go
            }
            "ping" => {
                takes("ping", 1)?;
                Command::Ping(number("ping", arg, "a whole number")?)
            }
            "learn" => {
                takes("learn", 0)?;
                Command::Learn
            }
            "analyze" | "analyse" => {
                takes("analyze", 0)?;
                Command::Analyze
            }
            "quit" | "exit" => Command::Quit,
            // NBoard 1.1 sent a bare move ("F5") instead of "move F5".
            _ if rest.is_empty() && word.parse::<Move>().is_ok() => {
                Command::Move(GgfMove::parse(word)?)
            }
            _ => return Err(CommandError::Unknown(word.to_string())),
        };
        Ok(Some(command))
    }

    fn parse_set(rest: &str) -> Result<Command, CommandError> {
        let Some(name) = rest.split_whitespace().next() else {
            return Err(CommandError::MissingArgument("set"));
        };
        let value = rest[name.len()..].trim();
        let arg = value.split_whitespace().next();
        Ok(match name.to_ascii_lowercase().as_str() {
            "depth" => match number::<u32>("set depth", arg, "a depth from 1 to 60")? {
                d @ 1..=60 => Command::SetDepth(d),
                d => {
                    return Err(CommandError::BadNumber {
                        command: "set depth",
                        text: d.to_string(),
                        expected: "a depth from 1 to 60",
                    })
                }
            },
            "game" if value.is_empty() => return Err(CommandError::MissingArgument("set game")),
            "game" => Command::SetGame(Box::new(GgfGame::parse(value)?)),
            "contempt" => {
                let c: f64 = number("set contempt", arg, "a number")?;
                if !c.is_finite() {
                    return Err(CommandError::BadNumber {
                        command: "set contempt",
                        text: value.to_string(),
                        expected: "a number",
                    });
                }
                Command::SetContempt(c)
            }
            _ => Command::SetOther(name.to_string()),
        })
    }
}

impl fmt::Display for Command {
    /// The line as a GUI sends it (without the newline).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Nboard(v) => write!(f, "nboard {v}"),
            Command::SetDepth(d) => write!(f, "set depth {d}"),
            Command::SetGame(game) => write!(f, "set game {game}"),
            Command::SetContempt(c) => write!(f, "set contempt {c}"),
            Command::SetOther(name) => write!(f, "set {name}"),
            Command::Move(mv) => write!(f, "move {mv}"),
            Command::Hint(n) => write!(f, "hint {n}"),
            Command::Go => f.write_str("go"),
            Command::Ping(n) => write!(f, "ping {n}"),
            Command::Learn => f.write_str("learn"),
            Command::Analyze => f.write_str("analyze"),
            Command::Quit => f.write_str("quit"),
        }
    }
}

/// A line an engine sends back, as a driver reads it.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// `pong <n>`.
    Pong(i64),
    /// `=== <move>[/eval[/time]]` (Edax writes spaces instead of the slashes): the move the
    /// engine would play.
    Best(GgfMove),
    /// `=== ...` whose move does not parse.
    BadBest(String),
    /// `status <text>`.
    Status(String),
    /// `set myname <name>`.
    MyName(String),
    /// Anything else (`search`, `book`, `nodestats`, `learned`, `analysis`, banners, ...).
    Other(String),
}

impl Reply {
    /// Reads one line of engine output; never fails (unknown lines are [`Reply::Other`]).
    #[must_use]
    pub fn parse(line: &str) -> Reply {
        let line = line.trim();
        let word = line.split_whitespace().next().unwrap_or_default();
        let rest = line[word.len()..].trim();
        match word {
            "===" => {
                let joined = rest.split_whitespace().collect::<Vec<_>>().join("/");
                match GgfMove::parse(&joined) {
                    Ok(mv) => Reply::Best(mv),
                    Err(_) => Reply::BadBest(rest.to_string()),
                }
            }
            "pong" => match rest.split_whitespace().next().map(str::parse) {
                Some(Ok(n)) => Reply::Pong(n),
                _ => Reply::Other(line.to_string()),
            },
            "status" => Reply::Status(rest.to_string()),
            "set" => match rest.strip_prefix("myname") {
                Some(name) if name.is_empty() || name.starts_with(char::is_whitespace) => {
                    Reply::MyName(name.trim().to_string())
                }
                _ => Reply::Other(line.to_string()),
            },
            _ => Reply::Other(line.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(line: &str) -> Command {
        Command::parse(line).unwrap().unwrap()
    }

    #[test]
    fn commands_parse_in_any_case_with_odd_spacing() {
        assert_eq!(cmd("nboard 2"), Command::Nboard(2));
        assert_eq!(cmd("  NBOARD   1 \r"), Command::Nboard(1));
        assert_eq!(cmd("set depth 12"), Command::SetDepth(12));
        assert_eq!(cmd("Set Depth 3 "), Command::SetDepth(3));
        assert_eq!(cmd("set depth 60"), Command::SetDepth(60));
        for (bad, extra) in [
            ("ping 1 2 3", "\"2\""),
            ("move f5 garbage words", "\"garbage\""),
            ("nboard 2 x", "\"x\""),
            ("go now", "\"now\""),
            ("hint 3 4", "\"4\""),
        ] {
            let err = Command::parse(bad).unwrap_err().to_string();
            assert!(
                err.contains(&format!("unexpected {extra} after")),
                "{bad}: {err}"
            );
        }
        assert_eq!(cmd("quit now"), Command::Quit);
        for bad in ["set depth 0", "set depth 61", "set depth 4294967295"] {
            let err = Command::parse(bad).unwrap_err().to_string();
            assert!(err.contains("a depth from 1 to 60"), "{bad}: {err}");
        }
        assert_eq!(cmd("set contempt -50"), Command::SetContempt(-50.0));
        assert_eq!(cmd("set time 5"), Command::SetOther("time".into()));
        assert_eq!(cmd("hint"), Command::Hint(1));
        assert_eq!(cmd("hint 4"), Command::Hint(4));
        assert_eq!(cmd("GO"), Command::Go);
        assert_eq!(cmd("ping 7"), Command::Ping(7));
        assert_eq!(cmd("learn"), Command::Learn);
        assert_eq!(cmd("analyze"), Command::Analyze);
        assert_eq!(cmd("quit"), Command::Quit);
        let Command::Move(m) = cmd("move F5/-1.25/3") else {
            panic!("a move")
        };
        assert_eq!(m.to_string(), "f5/-1.25/3");
        assert_eq!(cmd("move PA"), Command::Move(GgfMove::new(Move::Pass)));
        assert_eq!(
            cmd("d3"),
            Command::Move(GgfMove::new("d3".parse().unwrap()))
        );
        assert_eq!(Command::parse("   \r"), Ok(None));
        let game = cmd("set game (;GM[Othello]DT[2014-02-21 20:52:27 GMT]B[f5];)");
        let Command::SetGame(game) = game else {
            panic!("a game")
        };
        assert_eq!(game.moves().len(), 1);
    }

    #[test]
    fn bad_commands_say_what_is_wrong() {
        let err = |line: &str| Command::parse(line).unwrap_err();
        assert_eq!(err("fly"), CommandError::Unknown("fly".into()));
        assert_eq!(err("d3 d4"), CommandError::Unknown("d3".into()));
        assert_eq!(err("set"), CommandError::MissingArgument("set"));
        assert_eq!(err("set game"), CommandError::MissingArgument("set game"));
        assert_eq!(err("move"), CommandError::MissingArgument("move"));
        assert!(matches!(err("set depth 0"), CommandError::BadNumber { .. }));
        assert!(matches!(
            err("set depth -3"),
            CommandError::BadNumber { .. }
        ));
        assert!(matches!(
            err("set contempt x"),
            CommandError::BadNumber { .. }
        ));
        assert!(matches!(
            err("set contempt inf"),
            CommandError::BadNumber { .. }
        ));
        assert!(matches!(err("ping"), CommandError::MissingArgument("ping")));
        assert!(matches!(err("ping x"), CommandError::BadNumber { .. }));
        assert!(matches!(err("hint many"), CommandError::BadNumber { .. }));
        assert!(matches!(err("nboard two"), CommandError::BadNumber { .. }));
        assert!(matches!(err("move z9"), CommandError::BadMove(_)));
        assert!(matches!(
            err("set game (;GM[Go];)"),
            CommandError::BadGame(_)
        ));
        assert_eq!(
            err("set depth 99999999999").to_string(),
            "set depth: 99999999999 is out of range: a depth from 1 to 60"
        );
        assert_eq!(
            err("set depth 0").to_string(),
            "set depth: \"0\" is not a depth from 1 to 60"
        );
    }

    #[test]
    fn commands_print_as_sent() {
        for line in [
            "nboard 2",
            "set depth 6",
            "set contempt 10",
            "move d3/0.5/1",
            "move PA",
            "hint 3",
            "go",
            "ping 4",
            "learn",
            "analyze",
            "quit",
        ] {
            assert_eq!(cmd(line).to_string(), line);
        }
    }

    #[test]
    fn replies() {
        let best = |m: &str| Reply::Best(GgfMove::parse(m).unwrap());
        assert_eq!(Reply::parse("=== d6"), best("d6"));
        assert_eq!(Reply::parse("=== D6/-1.00/0.5"), best("d6/-1/0.5"));
        assert_eq!(Reply::parse("=== d6 -1.00 0.0"), best("d6/-1/0"));
        assert_eq!(Reply::parse("=== PA"), best("PA"));
        assert_eq!(Reply::parse("=== ??"), Reply::BadBest("??".into()));
        assert_eq!(Reply::parse("===").clone(), Reply::BadBest(String::new()));
        assert_eq!(Reply::parse("pong 3 "), Reply::Pong(3));
        assert_eq!(Reply::parse("pong x"), Reply::Other("pong x".into()));
        assert_eq!(
            Reply::parse("status Edax is thinking"),
            Reply::Status("Edax is thinking".into())
        );
        assert_eq!(
            Reply::parse("set myname Edax6"),
            Reply::MyName("Edax6".into())
        );
        assert_eq!(
            Reply::parse("set mynameX"),
            Reply::Other("set mynameX".into())
        );
        assert_eq!(
            Reply::parse("nodestats 100 0.1"),
            Reply::Other("nodestats 100 0.1".into())
        );
        assert_eq!(Reply::parse(""), Reply::Other(String::new()));
    }
}
