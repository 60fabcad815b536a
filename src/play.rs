//! `stonelab play`: a game in the terminal between humans and agents built from spec strings.

use std::io::{self, BufRead, Write};

use anyhow::Result;
use clap::{Args, ValueEnum};
use game::{Color, Game};
use rand::RngExt;
use search::{Agent, Budget};

use crate::games::{with_game, CliGame, GameId};
use catalog::CatalogGame;

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
    /// Who plays white: `human` or an agent spec (default: the game's strong default opponent,
    /// the app's — `othello` on 8x8).
    #[arg(long)]
    pub white: Option<String>,
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
            white: None,
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
    with_game!(args.game, G => play_game::<G>(args, seed, color))
}

fn play_game<G: CliGame + CatalogGame>(args: &PlayArgs, seed: u64, color: bool) -> Result<()> {
    let registry = G::registry();
    let player = |spec: &str, seed: u64| -> Result<Player<G>> {
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
        player(
            args.white.as_deref().unwrap_or(G::DEFAULT_OPPONENT),
            seed.wrapping_add(1),
        )?,
    ];
    let stdout = io::stdout();
    let stdin = io::stdin();
    let mut session = Session {
        players,
        // The game's default AI answers `hint`.
        hinter: registry
            .build(G::DEFAULT_OPPONENT, seed.wrapping_add(2))
            .ok(),
        input: protocol::LineReader::new(stdin.lock()),
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
    session.play(G::start())
}

/// Who plays a side.
enum Player<G: Game> {
    /// A person typing moves.
    Human,
    /// An agent built from a spec string.
    Agent {
        name: String,
        agent: Box<dyn Agent<G>>,
    },
}

impl<G: Game> Player<G> {
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
struct Session<G: Game, R, W> {
    players: [Player<G>; 2],
    /// What answers `hint`.
    hinter: Option<Box<dyn Agent<G>>>,
    input: protocol::LineReader<R>,
    out: W,
    color: bool,
}

/// What a human typed.
enum Command<M> {
    Play(M),
    Undo,
    Hint,
    Help,
    Quit,
}

/// How long a `hint` may think.
const HINT_TIME: std::time::Duration = std::time::Duration::from_secs(1);

fn parse_command<G: Game>(line: &str) -> Option<Command<G::Move>> {
    match line.trim().to_ascii_lowercase().as_str() {
        "undo" | "u" => Some(Command::Undo),
        "hint" | "h" => Some(Command::Hint),
        "help" | "?" => Some(Command::Help),
        "quit" | "q" | "exit" => Some(Command::Quit),
        other => G::parse_move(other).ok().map(Command::Play),
    }
}

/// At most 40 characters of what the user typed, for messages that quote it.
fn clip(text: &str) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(40).collect();
    if chars.next().is_some() {
        format!("{head}…")
    } else {
        head
    }
}

fn list<M: ToString>(moves: &[M]) -> String {
    moves
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The legal moves in words: every one for short lists, else how many and an example.
fn legal_text<G: CliGame + CatalogGame>(legal: &[G::Move]) -> String {
    if G::list_moves_in_prompt() {
        return list(legal);
    }
    let example = G::parse_move(G::example_move())
        .ok()
        .filter(|mv| legal.contains(mv))
        .or_else(|| legal.first().copied())
        .map(|mv| mv.to_string())
        .unwrap_or_default();
    format!("{} legal points, e.g. {example}", legal.len())
}

impl<G: CliGame + CatalogGame, R: BufRead, W: Write> Session<G, R, W> {
    fn is_human(&self, side: Color) -> bool {
        self.players[side.index()].is_human()
    }

    fn play(&mut self, start: G) -> Result<()> {
        // positions[i] is the position before moves[i]; the last one is the current position.
        let mut positions = vec![start.clone()];
        let mut moves: Vec<G::Move> = Vec::new();
        let mut show = true;
        loop {
            let pos = positions.last().cloned().unwrap_or_else(|| start.clone());
            if show {
                self.board(&pos, moves.last().copied())?;
            }
            show = true;
            if pos.is_over() {
                writeln!(self.out, "Game over.")?;
                writeln!(self.out, "{}", pos.result_text())?;
                writeln!(self.out, "Transcript: {}", G::transcript(&moves))?;
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
                // The agent's score with its unit (discs, its own units, an expected result).
                let eval = decision.value().map_or_else(String::new, |s| {
                    let exact = if s.is_proven() { ", exact" } else { "" };
                    format!(" (eval {s}{exact})")
                });
                let text = if G::is_pass(mv) {
                    format!("{side} ({name}) has no legal move and passes.")
                } else {
                    format!("{side} ({name}) plays {mv}{eval}.")
                };
                writeln!(self.out, "{text}")?;
                self.record(&mut positions, &mut moves, mv, next);
                continue;
            }
            if pos.forced_pass().is_some() {
                writeln!(self.out, "{side} has no legal move: type pass.")?;
            }
            write!(
                self.out,
                "{side} ({}) to move [{}]: ",
                side.symbol(),
                legal_text::<G>(&legal)
            )?;
            self.out.flush()?;
            // At most `protocol::MAX_LINE` bytes of a line are kept; bytes that are not UTF-8
            // are read as replacement characters: an unreadable entry.
            let Some((line, _cut)) = self.input.read_line()? else {
                writeln!(
                    self.out,
                    "\nInput closed; stopping. Transcript so far: {}",
                    G::transcript(&moves)
                )?;
                return Ok(());
            };
            if line.contains('\0') {
                // No one types a NUL: this is binary input (`< /dev/zero`), not moves.
                writeln!(
                    self.out,
                    "\nInput is not text (a NUL byte); stopping. Transcript so far: {}",
                    G::transcript(&moves)
                )?;
                return Ok(());
            }
            if line.trim().is_empty() {
                show = false;
                continue;
            }
            match parse_command::<G>(&line) {
                Some(Command::Quit) => {
                    writeln!(
                        self.out,
                        "Quit. Transcript so far: {}",
                        G::transcript(&moves)
                    )?;
                    return Ok(());
                }
                Some(Command::Hint) => {
                    let text = match self
                        .hinter
                        .as_mut()
                        .map(|a| a.select(&pos, &Budget::time(HINT_TIME)))
                    {
                        Some(Ok(d)) => {
                            let eval = d.value().map_or_else(String::new, |s| {
                                let exact = if s.is_proven() { ", exact" } else { "" };
                                format!(" (eval {s}{exact})")
                            });
                            format!("Hint ({}): {}{eval}.", G::DEFAULT_OPPONENT, d.mv)
                        }
                        Some(Err(e)) => format!("No hint here: {e}."),
                        None => "No hint: this game has no default AI to ask.".to_string(),
                    };
                    writeln!(self.out, "{text}")?;
                    show = false;
                }
                Some(Command::Help) => {
                    writeln!(
                        self.out,
                        "Legal moves: {}. Commands: a move ({}){}, undo, hint (the default AI's \
                         move), help, quit.",
                        legal_text::<G>(&legal),
                        G::example_move(),
                        if G::list_moves_in_prompt() {
                            ", pass (only when forced)"
                        } else {
                            ""
                        }
                    )?;
                    show = false;
                }
                Some(Command::Undo) => {
                    if !self.undo(&mut positions, &mut moves) {
                        writeln!(self.out, "Nothing to undo.")?;
                        show = false;
                    }
                }
                Some(Command::Play(mv)) if G::is_pass(mv) && pos.forced_pass().is_none() => {
                    writeln!(
                        self.out,
                        "You cannot pass: a pass is only allowed with no other move. Legal \
                         moves: {}.",
                        legal_text::<G>(&legal)
                    )?;
                    show = false;
                }
                Some(Command::Play(mv)) => match pos.play(mv) {
                    Ok(next) => {
                        if G::is_pass(mv) {
                            writeln!(self.out, "{side} passes.")?;
                        }
                        self.record(&mut positions, &mut moves, mv, next);
                    }
                    Err(e) => {
                        // "Illegal move a1: it would flip no disc."
                        let text = e.to_string();
                        let mut chars = text.chars();
                        let text: String = chars
                            .next()
                            .map(|c| c.to_uppercase().chain(chars).collect())
                            .unwrap_or_default();
                        writeln!(
                            self.out,
                            "{text}. Legal moves: {}.",
                            legal_text::<G>(&legal)
                        )?;
                        show = false;
                    }
                },
                None => {
                    writeln!(
                        self.out,
                        "Cannot read {:?}: type a move such as {}, or undo, hint, quit. \
                         Legal moves: {}.",
                        clip(line.trim()),
                        legal
                            .first()
                            .map_or(G::example_move().to_string(), ToString::to_string),
                        legal_text::<G>(&legal)
                    )?;
                    show = false;
                }
            }
        }
    }

    /// Plays `mv` (leading to `next`) into the history and tells the agents.
    fn record(&mut self, positions: &mut Vec<G>, moves: &mut Vec<G::Move>, mv: G::Move, next: G) {
        for player in &mut self.players {
            if let Player::Agent { agent, .. } = player {
                agent.observe(mv, &next);
            }
        }
        positions.push(next);
        moves.push(mv);
    }

    /// Takes back moves until a human is to move again, at an earlier position. Returns false
    /// when there is no such position.
    fn undo(&mut self, positions: &mut Vec<G>, moves: &mut Vec<G::Move>) -> bool {
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

    fn board(&mut self, pos: &G, last: Option<G::Move>) -> io::Result<()> {
        let mut text = format!("\n{}\n{}", pos.render(last, self.color), pos.status_line());
        if !pos.is_over() {
            let side = pos.side_to_move();
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
        let registry = othello::Othello8::registry();
        let agent = registry.build("greedy", 1).unwrap();
        let mut s = Session {
            players: [
                Player::Human,
                Player::Agent {
                    name: "greedy".into(),
                    agent,
                },
            ],
            hinter: None,
            input: protocol::LineReader::new("".as_bytes()),
            out: Vec::new(),
            color: false,
        };
        let p0 = othello::Othello8::new();
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
