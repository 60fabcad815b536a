//! The engine side: [`NboardEngine`] answers an NBoard GUI (or driver) with any
//! [`search::Agent`] for 8x8 Othello.

use std::io::{self, BufRead, Write};
use std::time::Instant;

use game::Game;
use othello::{GgfGame, GgfMove, Move, Othello8};
use search::analysis::{multi_pv, Line};
use search::{Agent, AgentError, Budget, Decision, Score};

use crate::command::{Command, CommandError};
use crate::lines::{LineReader, MAX_LINE};

/// Whether the session goes on after a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Read the next line.
    Continue,
    /// The session is over: `quit` (NBoard) or `END` (Gomocup) was received.
    Quit,
}

/// An NBoard engine over an agent: the game so far, the depth and the protocol state.
///
/// What each command does:
///
/// | command | answer |
/// |---|---|
/// | `nboard 1` / `nboard 2` | `set myname <name>` |
/// | `set depth N` | none; `N` becomes the depth of every later search budget |
/// | `set game <GGF>` | none; the game is replaced and the agent starts a new game |
/// | `set contempt N` | none (kept, not used: the agents have no draw bias) |
/// | `move m[/eval/time]` | none; the move is played (an implicit pass before it is added) |
/// | `hint N` | `status thinking`, up to `N` lines `search <pv> <eval> 0 <depth>`, best first, then `status` |
/// | `go` | `status thinking`, `nodestats <nodes> <s>`, `=== <move>/<eval>/<time>` (`=== <move>` when the agent gives no score; `=== PA` at once for a forced pass), then `status` |
/// | `ping N` | `pong N` |
/// | `learn` | `learned` |
/// | `analyze` | `status thinking`, `analysis <plies> <eval>` for each position from the last to the start, then `status` |
/// | `quit` | the session ends |
///
/// `hint N` with `N > 1` and `analyze` cost one search per legal move or per position.
/// Evaluations are in discs from the side to move's point of view; a proven result is its exact
/// final margin. Every problem — an unknown or malformed line, an illegal move, a `go` after the
/// end of the game — is answered with one line `status error: <what is wrong>` and changes
/// nothing. The engine reads no input while it searches (the protocol allows that): a `ping` sent
/// meanwhile is answered when the search is over.
pub struct NboardEngine {
    agent: Box<dyn Agent<Othello8>>,
    name: String,
    game: GgfGame,
    depth: Option<u32>,
    contempt: f64,
    version: Option<u32>,
}

/// The evaluation in discs (side to move's view) of an agent's score, where it has one: a
/// proven result is its margin, a heuristic in the game's unit its value; engine units and
/// expected results (learned agents) stand for no disc count, so NBoard is sent none.
#[must_use]
pub fn score_to_discs(score: Score) -> Option<f64> {
    score.units()
}

/// A principal variation as NBoard reads it: moves joined by `-`, a pass as `PA`, no spaces.
fn pv_text(mv: Move, pv: &[Move]) -> String {
    let mut line: Vec<Move> = vec![mv];
    line.extend(pv.iter().skip(usize::from(pv.first() == Some(&mv))));
    line.iter()
        .map(|m| match m {
            Move::Place(sq) => sq.to_string(),
            Move::Pass => "PA".into(),
        })
        .collect::<Vec<_>>()
        .join("-")
}

fn move_text(mv: Move) -> String {
    GgfMove::new(mv).to_string()
}

/// One line to the GUI, flushed at once (the GUI waits for whole lines).
fn send(out: &mut dyn Write, line: &str) -> io::Result<()> {
    out.write_all(line.as_bytes())?;
    out.write_all(b"\n")?;
    out.flush()
}

impl NboardEngine {
    /// An engine playing `agent`'s moves, named `stonelab`, at the standard start.
    #[must_use]
    pub fn new(agent: Box<dyn Agent<Othello8>>) -> Self {
        NboardEngine {
            agent,
            name: "stonelab".into(),
            game: GgfGame::default(),
            depth: None,
            contempt: 0.0,
            version: None,
        }
    }

    /// Sets the name sent with `set myname` (white space becomes `_`: NBoard reads one word).
    #[must_use]
    pub fn with_name(mut self, name: &str) -> Self {
        let name: String = name
            .trim()
            .chars()
            .map(|c| if c.is_whitespace() { '_' } else { c })
            .collect();
        if !name.is_empty() {
            self.name = name;
        }
        self
    }

    /// The game as the engine knows it.
    #[must_use]
    pub fn game(&self) -> &GgfGame {
        &self.game
    }

    /// The depth set by `set depth`, if any.
    #[must_use]
    pub fn depth(&self) -> Option<u32> {
        self.depth
    }

    /// The contempt set by `set contempt` (centi-discs; accepted but not used).
    #[must_use]
    pub fn contempt(&self) -> f64 {
        self.contempt
    }

    /// The protocol version the GUI announced, if it did.
    #[must_use]
    pub fn version(&self) -> Option<u32> {
        self.version
    }

    /// Serves a whole session: reads lines from `input` until `quit` or its end, answering on
    /// `output`. Lines longer than [`MAX_LINE`](crate::MAX_LINE) are refused.
    ///
    /// # Errors
    /// I/O errors of `input` or `output` (for example a GUI that closed the pipe).
    pub fn run<R: BufRead, W: Write>(&mut self, input: R, mut output: W) -> io::Result<()> {
        let mut input = LineReader::new(input);
        while let Some((line, cut)) = input.read_line()? {
            if cut {
                send(
                    &mut output,
                    &format!("status error: line longer than {MAX_LINE} bytes ignored"),
                )?;
                continue;
            }
            if self.handle(&line, &mut output)? == Flow::Quit {
                break;
            }
        }
        Ok(())
    }

    /// Handles one line of input, writing the answer (if any) to `out`.
    ///
    /// # Errors
    /// Only I/O errors of `out`; protocol problems are answered with a `status error:` line.
    pub fn handle(&mut self, line: &str, out: &mut dyn Write) -> io::Result<Flow> {
        match Command::parse(line) {
            Ok(None) => Ok(Flow::Continue),
            Ok(Some(command)) => self.execute(command, out),
            Err(CommandError::Unknown(word)) => {
                let word: String = word.chars().take(40).collect();
                send(out, &format!("status error: unknown command {word:?}"))?;
                Ok(Flow::Continue)
            }
            Err(e) => {
                send(out, &format!("status error: {e}"))?;
                Ok(Flow::Continue)
            }
        }
    }

    fn budget(&self) -> Budget {
        Budget {
            depth: self.depth,
            ..Budget::default()
        }
    }

    fn execute(&mut self, command: Command, out: &mut dyn Write) -> io::Result<Flow> {
        match command {
            Command::Nboard(v @ (1 | 2)) => {
                self.version = Some(v);
                send(out, &format!("set myname {}", self.name))?;
            }
            Command::Nboard(v) => send(
                out,
                &format!(
                    "status error: NBoard protocol version {v} is not supported (1 and 2 are)"
                ),
            )?,
            Command::SetDepth(d) => self.depth = Some(d.min(60)),
            Command::SetContempt(c) => self.contempt = c,
            Command::SetOther(name) => {
                let name: String = name.chars().take(40).collect();
                send(
                    out,
                    &format!("status error: unknown option {name:?} ignored"),
                )?;
            }
            Command::SetGame(game) => {
                self.game = *game;
                self.agent.new_game();
            }
            Command::Move(mv) => self.play(mv, out)?,
            Command::Go => self.go(out)?,
            Command::Hint(n) => self.hint(n, out)?,
            Command::Ping(n) => send(out, &format!("pong {n}"))?,
            Command::Learn => send(out, "learned")?,
            Command::Analyze => self.analyze(out)?,
            Command::Quit => return Ok(Flow::Quit),
        }
        Ok(Flow::Continue)
    }

    /// Plays a move from the GUI; a pass the GUI left out (the move is legal only after it) is
    /// played first.
    fn play(&mut self, mv: GgfMove, out: &mut dyn Write) -> io::Result<()> {
        let pos = *self.game.last();
        if pos.check(mv.mv).is_err() && pos.must_pass() && pos.passed().is_legal(mv.mv) {
            // Both succeed: the pass is forced and the move legal after it.
            if self.game.play(Move::Pass).is_ok() {
                self.agent.observe(Move::Pass, self.game.last());
            }
        }
        match self.game.push(mv) {
            Ok(()) => {
                self.agent.observe(mv.mv, self.game.last());
                Ok(())
            }
            Err(e) => send(out, &format!("status error: {e}")),
        }
    }

    fn search(&mut self, pos: &Othello8, budget: &Budget) -> Result<Decision<Move>, AgentError> {
        let decision = self.agent.select(pos, budget)?;
        pos.check(decision.mv).map_err(|reason| {
            AgentError::Failed(format!(
                "the agent chose an illegal move {}: {reason}",
                decision.mv
            ))
        })?;
        Ok(decision)
    }

    fn go(&mut self, out: &mut dyn Write) -> io::Result<()> {
        let pos = *self.game.last();
        if pos.is_over() {
            return send(
                out,
                "status error: the game is over: there is no move to choose",
            );
        }
        if pos.must_pass() {
            return send(out, "=== PA");
        }
        send(out, "status thinking")?;
        let start = Instant::now();
        let budget = self.budget();
        match self.search(&pos, &budget) {
            Ok(decision) => {
                let secs = start.elapsed().as_secs_f64();
                send(out, &format!("nodestats {} {secs:.2}", decision.nodes))?;
                let mv = move_text(decision.mv);
                match decision.value().and_then(score_to_discs) {
                    Some(eval) => send(out, &format!("=== {mv}/{eval:.2}/{secs:.2}"))?,
                    // No evaluation in discs: the protocol lets the move stand alone.
                    None => send(out, &format!("=== {mv}"))?,
                }
            }
            Err(e) => send(out, &format!("status error: {e}"))?,
        }
        send(out, "status")
    }

    /// `hint n`: up to `n` lines, best first ([`multi_pv`]): the agent's own analysis where it
    /// has one (the `othello` engine: every move at the set depth), else its choice first, then
    /// the other moves each searched one ply less deep. Moves the agent cannot score are left out;
    /// a line whose score is not in discs (an agent without scores, a learned agent's expected
    /// result) reports eval 0.
    fn hint(&mut self, n: u32, out: &mut dyn Write) -> io::Result<()> {
        let pos = *self.game.last();
        if pos.is_over() {
            return send(
                out,
                "status error: the game is over: there is nothing to hint",
            );
        }
        send(out, "status thinking")?;
        let budget = self.budget();
        let child_budget = Budget {
            depth: budget.depth.map(|d| d.saturating_sub(1).max(1)),
            ..budget
        };
        let lines = usize::try_from(n.max(1)).unwrap_or(usize::MAX);
        match multi_pv(self.agent.as_mut(), &pos, &budget, &child_budget, lines) {
            Ok(found) => match found.first().map(|l| pos.check(l.mv)) {
                Some(Err(reason)) => send(
                    out,
                    &format!(
                        "status error: the agent chose an illegal move {}: {reason}",
                        found[0].mv
                    ),
                )?,
                _ => {
                    for line in &found {
                        send(out, &search_line(line))?;
                    }
                }
            },
            Err(e) => send(out, &format!("status error: {e}"))?,
        }
        send(out, "status")
    }

    /// `analyze`: every position of the game, the last first, as `analysis <plies> <eval>`.
    fn analyze(&mut self, out: &mut dyn Write) -> io::Result<()> {
        send(out, "status thinking")?;
        let budget = self.budget();
        let positions = self.game.positions().to_vec();
        for (plies, pos) in positions.iter().enumerate().rev() {
            let score = match search::terminal_score(pos) {
                Some(raw) => Some(Score::from_raw(raw, search::ScoreScale::Centi)),
                None => match self.search(pos, &budget) {
                    Ok(decision) => decision.value(),
                    Err(e) => {
                        send(out, &format!("status error: {e}"))?;
                        break;
                    }
                },
            };
            if let Some(eval) = score.and_then(score_to_discs) {
                send(out, &format!("analysis {plies} {eval:.2}"))?;
            }
        }
        send(out, "status")
    }
}

/// `search <pv> <eval> 0 <depth>`; the depth of a proven result is `100%`, an eval not in
/// discs is 0.
fn search_line(line: &Line<Move>) -> String {
    let score = line.score();
    let eval = score.and_then(score_to_discs).unwrap_or(0.0);
    let depth = match score {
        Some(s) if s.is_proven() => "100%".to_string(),
        _ => line.depth.unwrap_or(0).to_string(),
    };
    format!("search {} {eval:.2} 0 {depth}", pv_text(line.mv, &line.pv))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_become_discs() {
        use search::{ScoreScale, WIN};
        let discs = |raw, scale| score_to_discs(Score::from_raw(raw, scale));
        assert_eq!(discs(150, ScoreScale::Centi), Some(1.5));
        assert_eq!(discs(-250, ScoreScale::Centi), Some(-2.5));
        assert_eq!(discs(WIN + 6, ScoreScale::Centi), Some(6.0));
        assert_eq!(discs(-WIN - 64, ScoreScale::Expectation), Some(-64.0));
        assert_eq!(discs(0, ScoreScale::Centi), Some(0.0));
        // A learned agent's expected result and engine units are no disc counts.
        assert_eq!(discs(42, ScoreScale::Expectation), None);
        assert_eq!(discs(350, ScoreScale::Engine), None);
    }

    #[test]
    fn pvs_have_no_spaces() {
        let d3: Move = "d3".parse().unwrap();
        let c5: Move = "c5".parse().unwrap();
        assert_eq!(pv_text(d3, &[d3, c5, Move::Pass]), "d3-c5-PA");
        assert_eq!(pv_text(d3, &[]), "d3");
        assert_eq!(pv_text(Move::Pass, &[c5]), "PA-c5");
    }

    #[test]
    fn names_are_one_word() {
        let agent: Box<dyn Agent<Othello8>> = Box::new(search::RandomAgent::new(1));
        let engine = NboardEngine::new(agent).with_name(" my engine ");
        assert_eq!(engine.name, "my_engine");
    }
}
