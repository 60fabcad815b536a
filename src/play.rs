//! `stonelab play`: a game in the terminal between humans, random and greedy players.

use std::io::{self, BufRead, Write};

use anstyle::{AnsiColor, Color as Paint, Style};
use anyhow::Result;
use clap::{Args, ValueEnum};
use game::{Color, Game};
use othello::{transcript, Move, Othello, Square};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

use crate::games::GameId;

/// Who plays a side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PlayerKind {
    /// You, typing moves.
    Human,
    /// A uniformly random legal move.
    Random,
    /// The move that flips the most discs (ties broken by the seeded random generator).
    Greedy,
}

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
    /// Who plays black (moves first).
    #[arg(long, value_enum, default_value_t = PlayerKind::Human)]
    pub black: PlayerKind,
    /// Who plays white.
    #[arg(long, value_enum, default_value_t = PlayerKind::Greedy)]
    pub white: PlayerKind,
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
            black: PlayerKind::Human,
            white: PlayerKind::Greedy,
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
    let stdin = io::stdin();
    let mut session = Session {
        players: [args.black, args.white],
        rng: ChaCha8Rng::seed_from_u64(seed),
        input: stdin.lock(),
        out: stdout.lock(),
        color,
    };
    writeln!(
        session.out,
        "stonelab play {}: black {} vs white {}, seed {seed}",
        args.game,
        describe(args.black),
        describe(args.white)
    )?;
    match args.game {
        GameId::Othello4 => session.play(Othello::<4>::new()),
        GameId::Othello6 => session.play(Othello::<6>::new()),
        GameId::Othello8 => session.play(Othello::<8>::new()),
    }
}

/// One game: the players, their random source, and where text comes from and goes.
struct Session<R, W> {
    players: [PlayerKind; 2],
    rng: ChaCha8Rng,
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

fn describe(kind: PlayerKind) -> &'static str {
    match kind {
        PlayerKind::Human => "human",
        PlayerKind::Random => "random",
        PlayerKind::Greedy => "greedy",
    }
}

fn list(moves: &[Move]) -> String {
    moves
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

impl<R: BufRead, W: Write> Session<R, W> {
    fn kind(&self, side: Color) -> PlayerKind {
        self.players[side.index()]
    }

    fn play<const N: usize>(&mut self, start: Othello<N>) -> Result<()> {
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
                    None => writeln!(self.out, "Final score: black {b}, white {w}. Draw.")?,
                }
                writeln!(self.out, "Transcript: {}", transcript(&moves))?;
                return Ok(());
            }
            let side = pos.side_to_move();
            let legal = pos.legal_moves();
            let kind = self.kind(side);
            if kind != PlayerKind::Human {
                let mv = self.choose(&pos, &legal, kind);
                match mv {
                    Move::Pass => writeln!(
                        self.out,
                        "{side} ({}) has no legal move and passes.",
                        describe(kind)
                    )?,
                    Move::Place(sq) => {
                        writeln!(self.out, "{side} ({}) plays {sq}.", describe(kind))?;
                    }
                }
                positions.push(pos.play_unchecked(mv));
                moves.push(mv);
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
            let mut line = String::new();
            if self.input.read_line(&mut line)? == 0 {
                writeln!(
                    self.out,
                    "\nInput closed; stopping. Transcript so far: {}",
                    transcript(&moves)
                )?;
                return Ok(());
            }
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
                        positions.push(next);
                        moves.push(mv);
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

    /// Takes back moves until a human is to move again, at an earlier position. Returns false
    /// when there is no such position.
    fn undo<const N: usize>(
        &mut self,
        positions: &mut Vec<Othello<N>>,
        moves: &mut Vec<Move>,
    ) -> bool {
        let target = (0..positions.len() - 1)
            .rev()
            .find(|&i| self.kind(positions[i].side_to_move()) == PlayerKind::Human);
        match target {
            Some(i) => {
                positions.truncate(i + 1);
                moves.truncate(i);
                true
            }
            None => false,
        }
    }

    fn choose<const N: usize>(
        &mut self,
        pos: &Othello<N>,
        legal: &[Move],
        kind: PlayerKind,
    ) -> Move {
        let pick =
            |rng: &mut ChaCha8Rng, options: &[Move]| options[rng.random_range(0..options.len())];
        match kind {
            PlayerKind::Greedy => {
                let flips = |m: &Move| match m {
                    Move::Place(sq) => pos.flips(*sq).count_ones(),
                    Move::Pass => 0,
                };
                let best = legal.iter().map(flips).max().unwrap_or(0);
                let top: Vec<Move> = legal.iter().copied().filter(|m| flips(m) == best).collect();
                pick(&mut self.rng, &top)
            }
            _ => pick(&mut self.rng, legal),
        }
    }

    fn board<const N: usize>(&mut self, pos: &Othello<N>) -> io::Result<()> {
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
            text.push_str(&format!("  {side} ({}) to move", describe(self.kind(side))));
        }
        writeln!(self.out, "{text}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(players: [PlayerKind; 2], input: &str) -> Session<&[u8], Vec<u8>> {
        Session {
            players,
            rng: ChaCha8Rng::seed_from_u64(3),
            input: input.as_bytes(),
            out: Vec::new(),
            color: false,
        }
    }

    #[test]
    fn greedy_picks_a_move_that_flips_most() {
        let mut s = session([PlayerKind::Greedy; 2], "");
        let pos = othello::replay_transcript::<8>("f5d6c3d3c4f4")
            .unwrap()
            .last()
            .to_owned();
        let legal = pos.legal_moves();
        let best = legal
            .iter()
            .map(|m| match m {
                Move::Place(sq) => pos.flips(*sq).count_ones(),
                Move::Pass => 0,
            })
            .max()
            .unwrap();
        for _ in 0..20 {
            let Move::Place(sq) = s.choose(&pos, &legal, PlayerKind::Greedy) else {
                panic!()
            };
            assert_eq!(pos.flips(sq).count_ones(), best);
        }
    }

    #[test]
    fn undo_returns_to_the_humans_previous_turn() {
        let mut s = session([PlayerKind::Human, PlayerKind::Greedy], "");
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
