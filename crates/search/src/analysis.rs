//! Multi-PV analysis with any agent: the agent's own choice, then every other move searched from
//! the position after it, best first. One interface for every front end that shows scored moves
//! (the web app's analysis overlay, NBoard's `hint`).

use game::Game;

use crate::{terminal_score, Agent, AgentError, Budget, Decision, Score, ScoreScale};

/// One analysed move: its score from the mover's point of view, with its unit.
#[derive(Clone, Debug, PartialEq)]
pub struct Line<M> {
    /// The move.
    pub mv: M,
    /// Its raw score (mover's view; see [`ScoreScale`]); `None` where the agent gave none.
    pub raw: Option<i32>,
    /// How to read `raw`.
    pub scale: ScoreScale,
    /// The expected line, starting with `mv`.
    pub pv: Vec<M>,
    /// Depth of the search behind it (plies from the analysed position), where known.
    pub depth: Option<u32>,
    /// Nodes searched for it.
    pub nodes: u64,
}

impl<M> Line<M> {
    /// The score with its unit.
    #[must_use]
    pub fn score(&self) -> Option<Score> {
        self.raw.map(|raw| Score::from_raw(raw, self.scale))
    }
}

impl<M: Copy> Line<M> {
    /// The line of a decision taken in the analysed position.
    #[must_use]
    pub fn of(d: &Decision<M>) -> Self {
        let mut pv = d.pv.clone();
        if pv.is_empty() {
            pv.push(d.mv);
        }
        Line {
            mv: d.mv,
            raw: d.score,
            scale: d.scale,
            pv,
            depth: d.depth,
            nodes: d.nodes,
        }
    }
}

/// Up to `lines` scored moves of `pos`, best first. An agent with an analysis of its own
/// ([`Agent::analyse`]: every move scored at one depth) gives it, within the time and nodes the
/// scoring below would take in all (`first` plus `rest` for each other move; `first`'s depth).
/// Otherwise: `agent`'s choice under `first` (always the first line, even if a later search
/// would rate another move higher), then each other legal move, scored by the agent's search
/// from the position after it under `rest` and negated (finished games score their exact
/// result), sorted by score (a proven margin counts as that many of the game's units; ties keep
/// the move order). Moves the agent cannot score are left out. `lines == 1` asks only for the
/// choice.
///
/// # Errors
/// [`AgentError`] when the agent fails on `pos` itself (a failure on a reply leaves that move
/// out).
pub fn multi_pv<G: Game>(
    agent: &mut dyn Agent<G>,
    pos: &G,
    first: &Budget,
    rest: &Budget,
    lines: usize,
) -> Result<Vec<Line<G::Move>>, AgentError> {
    if pos.is_over() {
        return Err(AgentError::GameOver);
    }
    if lines > 1 {
        let others = u32::try_from(pos.legal_moves().len().saturating_sub(1)).unwrap_or(u32::MAX);
        let whole = Budget {
            depth: first.depth,
            nodes: first.nodes.map(|n| {
                n.saturating_add(rest.nodes.unwrap_or(0).saturating_mul(u64::from(others)))
            }),
            time: first
                .time
                .map(|t| t.saturating_add(rest.time.unwrap_or_default().saturating_mul(others))),
        };
        if let Some(found) = agent.analyse(pos, &whole, lines) {
            return found;
        }
    }
    let best = agent.select(pos, first)?;
    let mut out = vec![Line::of(&best)];
    if lines <= 1 {
        return Ok(out);
    }
    let mut others: Vec<Line<G::Move>> = Vec::new();
    for mv in pos.legal_moves().into_iter().filter(|&m| m != best.mv) {
        if let Some(r) = reply(agent, &pos.play_unchecked(mv), rest, best.scale, 0) {
            let mut pv = vec![mv];
            pv.extend(r.pv);
            others.push(Line {
                mv,
                raw: Some(-r.raw),
                scale: r.scale,
                pv,
                depth: r.depth.map(|d| d + 1),
                nodes: r.nodes,
            });
        }
    }
    others.sort_by_key(|l| std::cmp::Reverse(rank(l)));
    out.extend(others.into_iter().take(lines - 1));
    Ok(out)
}

/// What a line's score is worth when lines are sorted: in hundredths of the game's unit, a
/// proven margin is that many units (a proven loss by 4 discs ranks above an estimate of -34);
/// a proven result ranks before an estimate of the same value. Other scales keep their raw
/// order, where proven results lie beyond every estimate.
fn rank<M>(line: &Line<M>) -> (i64, bool) {
    let Some(raw) = line.raw else {
        return (i64::MIN, false);
    };
    match (line.scale, line.score()) {
        (ScoreScale::Centi, Some(Score::Proven { margin })) => (i64::from(margin) * 100, true),
        _ => (i64::from(raw), false),
    }
}

/// Forced moves followed through when a search gives no score (agents often answer a
/// position with one legal move, a pass included, without searching it).
const MAX_FORCED: usize = 4;

/// A position's score for its side to move, with the moves after it.
struct Reply<M> {
    raw: i32,
    scale: ScoreScale,
    pv: Vec<M>,
    depth: Option<u32>,
    nodes: u64,
}

/// The score of `pos` for its side to move: exact when the game is over, else by the agent's
/// search; a position with one legal move the agent did not score is scored through that move.
fn reply<G: Game>(
    agent: &mut dyn Agent<G>,
    pos: &G,
    budget: &Budget,
    scale: ScoreScale,
    forced: usize,
) -> Option<Reply<G::Move>> {
    if let Some(raw) = terminal_score(pos) {
        // `WIN + margin` from the side to move: proven and exact.
        return Some(Reply {
            raw,
            scale,
            pv: Vec::new(),
            depth: Some(0),
            nodes: 0,
        });
    }
    let decision = agent.select(pos, budget).ok()?;
    if let Some(raw) = decision.score {
        let mut pv = decision.pv.clone();
        if pv.is_empty() {
            pv.push(decision.mv);
        }
        return Some(Reply {
            raw,
            scale: decision.scale,
            pv,
            depth: decision.depth,
            nodes: decision.nodes,
        });
    }
    let moves = pos.legal_moves();
    if moves.len() != 1 || forced >= MAX_FORCED {
        return None;
    }
    let only = moves[0];
    let mut after = reply(agent, &pos.play_unchecked(only), budget, scale, forced + 1)?;
    after.raw = -after.raw;
    after.pv.insert(0, only);
    after.depth = after.depth.map(|d| d + 1);
    Some(after)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AlphaBeta, AlphaBetaConfig, Evaluator};
    use othello::Othello6;
    use std::sync::Arc;

    /// Disc difference, 100 per disc.
    struct Discs;

    impl Evaluator<Othello6> for Discs {
        fn evaluate(&self, pos: &Othello6) -> i32 {
            let (b, w) = pos.counts();
            let d = i32::try_from(b).unwrap_or(0) - i32::try_from(w).unwrap_or(0);
            if pos.side_to_move() == game::Color::Black {
                100 * d
            } else {
                -100 * d
            }
        }
        fn scale(&self) -> ScoreScale {
            ScoreScale::Centi
        }
    }

    /// The slow twin: every move scored by its own search from the position after it, by hand.
    #[test]
    fn lines_are_the_choice_then_every_move_by_its_reply() {
        let config = AlphaBetaConfig {
            depth: Some(3),
            ..AlphaBetaConfig::default()
        };
        let mut agent = AlphaBeta::new(Arc::new(Discs), config.clone());
        let pos = Othello6::start();
        let budget = Budget::default();
        let lines = multi_pv(&mut agent, &pos, &budget, &budget, 10).expect("lines");
        let moves = pos.legal_moves();
        assert_eq!(
            lines.len(),
            moves.len(),
            "every move of the start is scored"
        );
        let choice = agent.select(&pos, &budget).expect("choice");
        assert_eq!(lines[0].mv, choice.mv);
        assert_eq!(lines[0].raw, choice.score);
        assert_eq!(
            lines[0].score(),
            choice.score.map(|s| Score::Units(f64::from(s) / 100.0))
        );
        for line in &lines[1..] {
            let reply = agent
                .select(&pos.play_unchecked(line.mv), &budget)
                .expect("reply");
            assert_eq!(line.raw, reply.score.map(|s| -s), "{}", line.mv);
            assert_eq!(line.pv[0], line.mv);
        }
        for pair in lines[1..].windows(2) {
            assert!(pair[0].raw >= pair[1].raw, "best first");
        }
        let one = multi_pv(&mut agent, &pos, &budget, &budget, 1).expect("one");
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].mv, choice.mv);
    }

    /// An agent with an analysis of its own, recording the budget it was given.
    struct Analyst {
        given: Option<Budget>,
    }

    impl Agent<Othello6> for Analyst {
        fn name(&self) -> String {
            "analyst".into()
        }

        fn select(
            &mut self,
            pos: &Othello6,
            _budget: &Budget,
        ) -> Result<Decision<othello::Move>, AgentError> {
            Ok(Decision::just(pos.legal_moves()[0]))
        }

        fn analyse(
            &mut self,
            pos: &Othello6,
            budget: &Budget,
            lines: usize,
        ) -> Option<Result<Vec<Line<othello::Move>>, AgentError>> {
            self.given = Some(*budget);
            Some(Ok(pos
                .legal_moves()
                .into_iter()
                .take(lines)
                .enumerate()
                .map(|(i, mv)| Line {
                    mv,
                    raw: Some(-(i as i32)),
                    scale: ScoreScale::Centi,
                    pv: vec![mv],
                    depth: Some(3),
                    nodes: 1,
                })
                .collect()))
        }
    }

    #[test]
    fn an_agents_own_analysis_gets_the_whole_budget() {
        use std::time::Duration;
        let pos = Othello6::start();
        let moves = pos.legal_moves();
        let mut agent = Analyst { given: None };
        let first = Budget {
            depth: Some(5),
            nodes: Some(1_000),
            time: Some(Duration::from_millis(100)),
        };
        let rest = Budget {
            depth: Some(4),
            nodes: Some(10),
            time: Some(Duration::from_millis(10)),
        };
        let lines = multi_pv(&mut agent, &pos, &first, &rest, 10).expect("lines");
        assert_eq!(lines.iter().map(|l| l.mv).collect::<Vec<_>>(), moves);
        let others = moves.len() as u32 - 1;
        assert_eq!(
            agent.given,
            Some(Budget {
                depth: Some(5),
                nodes: Some(1_000 + 10 * u64::from(others)),
                time: Some(Duration::from_millis(100 + 10 * u64::from(others))),
            })
        );
        // One line is the agent's choice: no analysis.
        let mut agent = Analyst { given: None };
        let one = multi_pv(&mut agent, &pos, &first, &rest, 1).expect("one");
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].mv, moves[0]);
        assert_eq!(agent.given, None);
    }

    #[test]
    fn proven_margins_rank_as_units_of_the_game() {
        let line = |raw: i32| Line {
            mv: othello::Move::Pass,
            raw: Some(raw),
            scale: ScoreScale::Centi,
            pv: Vec::new(),
            depth: None,
            nodes: 0,
        };
        // A proven loss by 4 discs is better than an estimate of -34 discs, a proven draw than
        // an estimate of -0.01, and an estimate of +30 than a proven win by 2.
        assert!(rank(&line(-(crate::WIN + 4))) > rank(&line(-3_400)));
        assert!(rank(&line(crate::WIN)) > rank(&line(-1)));
        assert!(rank(&line(3_000)) > rank(&line(crate::WIN + 2)));
        // Equal values: the proven one first.
        assert!(rank(&line(crate::WIN + 2)) > rank(&line(200)));
        // Other scales keep their raw order.
        let mut engine = line(crate::WIN + 2);
        engine.scale = ScoreScale::Engine;
        let mut estimate = line(3_000);
        estimate.scale = ScoreScale::Engine;
        assert!(rank(&engine) > rank(&estimate));
    }
}
