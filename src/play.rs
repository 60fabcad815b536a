//! `stonelab play`: a game in the terminal between humans and agents built from spec strings.

use std::io::{self, BufRead, Write};

use anstyle::{AnsiColor, Color as Paint, Style};
use anyhow::Result;
use clap::{Args, ValueEnum};
use game::{Color, Game};
use othello::{transcript, Move, Othello, Square};
use rand::RngExt;
use search::{Agent, Budget};

use crate::agents::othello_registry;
use crate::games::GameId;

/// When to colour the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum ColorWhen {
    /// When the output is a terminal (and NO_COLOR is unset).
    #[default]
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Arguments of `stonelab play`.
#[derive(Args, Debug, Clone)]
pub struct PlayArgs {
    /// The game.
    #[arg(long, default_value_t = GameId::Othello8)]
    pub game: GameId,
    /// Who plays black (moves first): `human` or an agent spec such as `greedy`,
    /// `alphabeta:depth=6` or `mcts:playouts=2000` (`stonelab agents` lists them).
    #[arg(long, default_value = "human")]
    pub black: String,
    /// Who plays white: `human` or an agent spec.
    #[arg(long, default_value = "greedy")]
    pub white: String,
    /// Seed of the random choices (random and greedy players); printed when not given.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Colour the board.
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto)]
    pub color: ColorWhen,
}

impl Default for PlayArgs {
    fn default() -> Self {
        PlayArgs {
            game: GameId::Othello8,
            black: "human".into(),
            white: "greedy".into(),
            seed: None,
            color: ColorWhen::Auto,
        }
    }
}

pub fn run(args: &PlayArgs) -> Result<()> {
    let stdout = io::stdout();
    let color = match args.color {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => anstream::AutoStream::choice(&stdout) != anstream::ColorChoice::Never,
    };
    let seed = args
        .seed
        .unwrap_or_else(|| rand::rng().random::<u32>().into());
    match args.game {
        GameId::Othello4 => play_sized::<4>(args, seed, color),
        GameId::Othello6 => play_sized::<6>(args, seed, color),
        GameId::Othello8 => play_sized::<8>(args, seed, color),
    }
}

fn play_sized<const N: usize>(args: &PlayArgs, seed: u64, color: bool) -> Result<()> {
    let registry = othello_registry::<N>();
    let player = |spec: &str, seed: u64| -> Result<Player<N>> {
        if spec.trim().eq_ignore_ascii_case("human") {
            return Ok(Player::Human);
        }
        let agent = registry.build(spec, seed).map_err(|e| {
            anyhow::anyhow!("{e}\n(`human` is also accepted; `stonelab agents` lists the agents)")
        })?;
        Ok(Player::Agent {
            name: spec.trim().to_string(),
            agent,
        })
    };
    let players = [
        player(&args.black, seed)?,
        player(&args.white, seed.wrapping_add(1))?,
    ];
    let stdout = io::stdout();
    let stdin = io::stdin();
    let mut session = Session {
        players,
        input: stdin.lock(),
        out: stdout.lock(),
        color,
    };
    writeln!(
        session.out,
        "stonelab play {}: black {} vs white {}, seed {seed}",
        args.game,
        session.players[0].name(),
        session.players[1].name()
    )?;
    session.play(Othello::<N>::new())
}

/// Who plays a side.
enum Player<const N: usize> {
    /// A person typing moves.
    Human,
    /// An agent built from a spec string.
    Agent {
        name: String,
        agent: Box<dyn Agent<Othello<N>>>,
    },
}

impl<const N: usize> Player<N> {
    fn name(&self) -> &str {
        match self {
            Player::Human => "human",
            Player::Agent { name, .. } => name,
        }
    }

    fn is_human(&self) -> bool {
        matches!(self, Player::Human)
    }
}

/// One game: the players, and where text comes from and goes.
struct Session<const N: usize, R, W> {
    players: [Player<N>; 2],
    input: R,
    out: W,
    color: bool,
}

/// What a human typed.
enum Command {
    Play(Move),
    Undo,
    Hint,
    Quit,
}

fn parse_command(line: &str) -> Option<Command> {
    match line.trim().to_ascii_lowercase().as_str() {
        "undo" | "u" => Some(Command::Undo),
        "hint" | "h" | "help" | "?" => Some(Command::Hint),
        "quit" | "q" | "exit" => Some(Command::Quit),
        other => other.parse::<Move>().ok().map(Command::Play),
    }
}

fn list(moves: &[Move]) -> String {
    moves
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

impl<const N: usize, R: BufRead, W: Write> Session<N, R, W> {
    fn is_human(&self, side: Color) -> bool {
        self.players[side.index()].is_human()
    }

    fn play(&mut self, start: Othello<N>) -> Result<()> {
        // positions[i] is the position before moves[i]; the last one is the current position.
        let mut positions = vec![start];
        let mut moves: Vec<Move> = Vec::new();
        let mut show = true;
        loop {
            let pos = *positions.last().unwrap_or(&start);
            if show {
                self.board(&pos)?;
            }
            show = true;
            if let Some(outcome) = pos.outcome() {
                let (b, w) = (pos.count(Color::Black), pos.count(Color::White));
                let empty = pos.empty().count_ones();
                writeln!(self.out, "Game over.")?;
                match outcome.winner() {
                    Some(winner) => {
                        let margin = outcome.score_for(winner);
                        let (bs, ws) = if winner == Color::Black {
                            (b + empty, w)
                        } else {
                            (b, w + empty)
                        };
                        writeln!(
                            self.out,
                            "Final score: black {bs}, white {ws} (discs {b}-{w}, {empty} empty \
                             square{} to the winner).",
                            if empty == 1 { "" } else { "s" }
                        )?;
                        writeln!(self.out, "Winner: {winner} by {margin}.")?;
                    }
                    None => {
                        // A draw splits the empty squares.
                        let (bs, ws) = (b + empty / 2, w + empty / 2);
                        writeln!(
                            self.out,
                            "Final score: black {bs}, white {ws} (discs {b}-{w}). Draw."
                        )?;
                    }
                }
                writeln!(self.out, "Transcript: {}", transcript(&moves))?;
                return Ok(());
            }
            let side = pos.side_to_move();
            let legal = pos.legal_moves();
            if let Player::Agent { name, agent } = &mut self.players[side.index()] {
                let decision = agent
                    .select(&pos, &Budget::default())
                    .map_err(|e| anyhow::anyhow!("{side} ({name}): {e}"))?;
                let mv = decision.mv;
                let next = pos
                    .play(mv)
                    .map_err(|e| anyhow::anyhow!("{side} ({name}) chose an illegal move: {e}"))?;
                let text = match mv {
                    Move::Pass => format!("{side} ({name}) has no legal move and passes."),
                    Move::Place(sq) => format!("{side} ({name}) plays {sq}."),
                };
                writeln!(self.out, "{text}")?;
                self.record(&mut positions, &mut moves, mv, next);
                continue;
            }
            if pos.must_pass() {
                writeln!(self.out, "{side} has no legal move: type pass.")?;
            }
            write!(
                self.out,
                "{side} ({}) to move [{}]: ",
                side.symbol(),
                list(&legal)
            )?;
            self.out.flush()?;
            let mut raw = Vec::new();
            if self.input.read_until(b'\n', &mut raw)? == 0 {
                writeln!(
                    self.out,
                    "\nInput closed; stopping. Transcript so far: {}",
                    transcript(&moves)
                )?;
                return Ok(());
            }
            // Bytes that are not UTF-8 are read as replacement characters: an unreadable entry.
            let line = String::from_utf8_lossy(&raw).into_owned();
            if line.trim().is_empty() {
                show = false;
                continue;
            }
            match parse_command(&line) {
                Some(Command::Quit) => {
                    writeln!(self.out, "Quit. Transcript so far: {}", transcript(&moves))?;
                    return Ok(());
                }
                Some(Command::Hint) => {
                    writeln!(
                        self.out,
                        "Legal moves: {}. Commands: a square (d3), pass (only when forced), \
                         undo, hint, quit.",
                        list(&legal)
                    )?;
                    show = false;
                }
                Some(Command::Undo) => {
                    if !self.undo(&mut positions, &mut moves) {
                        writeln!(self.out, "Nothing to undo.")?;
                        show = false;
                    }
                }
                Some(Command::Play(Move::Pass)) if !pos.must_pass() => {
                    writeln!(
                        self.out,
                        "You cannot pass: a pass is only allowed with no other move. Legal \
                         moves: {}.",
                        list(&legal)
                    )?;
                    show = false;
                }
                Some(Command::Play(mv)) => match pos.play(mv) {
                    Ok(next) => {
                        if mv == Move::Pass {
                            writeln!(self.out, "{side} passes.")?;
                        }
                        self.record(&mut positions, &mut moves, mv, next);
                    }
                    Err(e) => {
                        writeln!(self.out, "Illegal: {e}. Legal moves: {}.", list(&legal))?;
                        show = false;
                    }
                },
                None => {
                    writeln!(
                        self.out,
                        "Cannot read {:?}: type a square such as {}, or pass, undo, hint, quit. \
                         Legal moves: {}.",
                        line.trim(),
                        legal.first().map_or("d3".to_string(), ToString::to_string),
                        list(&legal)
                    )?;
                    show = false;
                }
            }
        }
    }

    /// Plays `mv` (leading to `next`) into the history and tells the agents.
    fn record(
        &mut self,
        positions: &mut Vec<Othello<N>>,
        moves: &mut Vec<Move>,
        mv: Move,
        next: Othello<N>,
    ) {
        positions.push(next);
        moves.push(mv);
        for player in &mut self.players {
            if let Player::Agent { agent, .. } = player {
                agent.observe(mv, &next);
            }
        }
    }

    /// Takes back moves until a human is to move again, at an earlier position. Returns false
    /// when there is no such position.
    fn undo(&mut self, positions: &mut Vec<Othello<N>>, moves: &mut Vec<Move>) -> bool {
        let target = (0..positions.len() - 1)
            .rev()
            .find(|&i| self.is_human(positions[i].side_to_move()));
        match target {
            Some(i) => {
                positions.truncate(i + 1);
                moves.truncate(i);
                // The agents' trees and tables describe the abandoned line.
                for player in &mut self.players {
                    if let Player::Agent { agent, .. } = player {
                        agent.new_game();
                    }
                }
                true
            }
            None => false,
        }
    }

    fn board(&mut self, pos: &Othello<N>) -> io::Result<()> {
        let frame = Style::new().fg_color(Some(Paint::Ansi(AnsiColor::BrightBlack)));
        let cell = Style::new().bg_color(Some(Paint::Ansi(AnsiColor::Green)));
        let black = cell.fg_color(Some(Paint::Ansi(AnsiColor::Black))).bold();
        let white = cell
            .fg_color(Some(Paint::Ansi(AnsiColor::BrightWhite)))
            .bold();
        let hint = cell.fg_color(Some(Paint::Ansi(AnsiColor::BrightYellow)));
        let paint = |style: Style, text: &str| -> String {
            if self.color {
                format!("{style}{text}{style:#}")
            } else {
                text.to_string()
            }
        };
        let files: String = (0..N)
            .map(|c| format!(" {}", (b'a' + c as u8) as char))
            .collect();
        let mut text = format!("\n   {}\n", paint(frame, &files));
        let moves = pos.moves();
        for r in 0..N {
            text.push_str(&paint(frame, &format!("{:>2} ", r + 1)));
            let mut row = String::new();
            for c in 0..N {
                let Some(sq) = Square::new(r, c) else {
                    continue;
                };
                let glyph = if pos.discs(Color::Black) & sq.bit() != 0 {
                    if self.color {
                        paint(black, " ●")
                    } else {
                        " X".into()
                    }
                } else if pos.discs(Color::White) & sq.bit() != 0 {
                    if self.color {
                        paint(white, " ●")
                    } else {
                        " O".into()
                    }
                } else if moves & sq.bit() != 0 {
                    if self.color {
                        paint(hint, " ·")
                    } else {
                        " *".into()
                    }
                } else if self.color {
                    paint(cell, "  ")
                } else {
                    " .".into()
                };
                row.push_str(&glyph);
            }
            text.push_str(&row);
            if self.color {
                text.push_str(&paint(cell, " "));
            }
            text.push_str(&paint(frame, &format!(" {}\n", r + 1)));
        }
        text.push_str(&format!("   {}\n", paint(frame, &files)));
        let side = pos.side_to_move();
        let (b, w) = (pos.count(Color::Black), pos.count(Color::White));
        text.push_str(&format!("black (X) {b}  white (O) {w}"));
        if !pos.is_over() {
            text.push_str(&format!(
                "  {side} ({}) to move",
                self.players[side.index()].name()
            ));
        }
        writeln!(self.out, "{text}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undo_returns_to_the_humans_previous_turn() {
        let registry = othello_registry::<8>();
        let agent = registry.build("greedy", 1).unwrap();
        let mut s = Session {
            players: [
                Player::Human,
                Player::Agent {
                    name: "greedy".into(),
                    agent,
                },
            ],
            input: "".as_bytes(),
            out: Vec::new(),
            color: false,
        };
        let p0 = Othello::<8>::new();
        let p1 = p0.play("f5".parse().unwrap()).unwrap();
        let p2 = p1.play(p1.legal_moves()[0]).unwrap();
        let mut positions = vec![p0, p1, p2];
        let mut moves = vec!["f5".parse().unwrap(), p1.legal_moves()[0]];
        assert!(s.undo(&mut positions, &mut moves));
        assert_eq!(positions, vec![p0]);
        assert!(moves.is_empty());
        assert!(!s.undo(&mut positions, &mut moves));
    }
}
