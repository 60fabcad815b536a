//! The `solver` agent: perfect play once few enough squares are empty, the heuristic alpha-beta
//! before that; with a clock, an exact solve tried wherever it may finish in time.

use std::sync::Arc;
use std::time::{Duration, Instant};

use game::Game;
use othello::Othello;
use search::{Agent, AgentError, AlphaBeta, AlphaBetaConfig, Budget, Decision, WIN};

use crate::{Heuristic, SolveLimit, Solver};

/// The share of a move's time an exact solve may take before the agent gives up on it and
/// searches with alpha-beta for the rest.
const SOLVE_SHARE: f64 = 0.75;

/// Plays exact endgame moves from `exact_empties` empty squares on, and alpha-beta over the
/// [`Heuristic`] before. With a time limit (the budget's, else its own) it also tries the exact
/// solve from up to `reach` empties within three quarters of that time; only when the solve
/// does not finish does alpha-beta choose, in the time left. So it never gives away an endgame
/// it could solve in the time it has, and a time limit holds in the exact zone too (a hard
/// solve there falls back to alpha-beta like any other). An exact decision's score is a proven margin
/// ([`search::Score::Proven`], a draw included) and its depth is the number of empties.
pub struct SolverAgent<const N: usize> {
    solver: Solver<N>,
    midgame: Box<dyn Agent<Othello<N>>>,
    exact_empties: u32,
    reach: u32,
    /// The midgame's own time per move: the clock when the budget names none.
    time: Option<Duration>,
    name: &'static str,
    /// Without a clock, the positions up to this many empties above `exact_empties` get a
    /// node-bounded exact solve, then a node-bounded win/loss/draw solve, before the midgame
    /// (`(extra empties, nodes of each solve)`; see [`with_bounded_handover`](Self::with_bounded_handover)).
    bounded: Option<(u32, u64)>,
}

impl<const N: usize> SolverAgent<N> {
    /// Exact from `exact_empties` empties; `midgame` searches before that; with a time limit an
    /// exact solve is tried from [`default_reach`](Self::default_reach) empties.
    #[must_use]
    pub fn new(exact_empties: u32, midgame: AlphaBetaConfig) -> Self {
        Self::with_evaluator(exact_empties, midgame, Arc::new(Heuristic::<N>::default()))
    }

    /// The same agent with another midgame evaluation (in centi-discs).
    #[must_use]
    pub fn with_evaluator(
        exact_empties: u32,
        midgame: AlphaBetaConfig,
        eval: Arc<dyn search::Evaluator<Othello<N>>>,
    ) -> Self {
        let time = midgame.time;
        Self::with_midgame(exact_empties, time, Box::new(AlphaBeta::new(eval, midgame)))
    }

    /// Exact from `exact_empties` empties, `midgame` before (with `time` per move as its own
    /// clock when the budget names none).
    #[must_use]
    pub fn with_midgame(
        exact_empties: u32,
        time: Option<Duration>,
        midgame: Box<dyn Agent<Othello<N>>>,
    ) -> Self {
        let solver = if N == 8 {
            Solver::new(22).with_evaluation(crate::pattern::bundled())
        } else {
            Solver::new(20)
        };
        SolverAgent {
            solver,
            time,
            midgame,
            exact_empties,
            reach: Self::default_reach(),
            name: "solver",
            bounded: None,
        }
    }

    /// This agent's exact solves on `threads` threads ([`Solver::with_threads`]).
    #[must_use]
    pub fn with_solver_threads(mut self, threads: usize) -> Self {
        self.solver = std::mem::take(&mut self.solver).with_threads(threads);
        self
    }

    /// The same agent under another name (its spec's).
    #[must_use]
    pub fn named(mut self, name: &'static str) -> Self {
        self.name = name;
        self
    }

    /// Without a clock, a position with up to `extra` empties more than the exact zone first
    /// gets an exact solve of at most `nodes` nodes; when that does not finish, a win/loss/draw
    /// solve of at most `nodes` more, whose move is played when it proves a win or a draw; only
    /// when neither settles it does the midgame search choose. Node counts, not time, bound
    /// them, so a game plays the same on any machine (on one solver thread).
    #[must_use]
    pub fn with_bounded_handover(mut self, extra: u32, nodes: u64) -> Self {
        self.bounded = (extra > 0 && nodes > 0).then_some((extra, nodes));
        self
    }

    /// This agent trying exact solves under a time limit from `reach` empties (not beyond what
    /// the board has).
    #[must_use]
    pub fn with_reach(mut self, reach: u32) -> Self {
        self.reach = reach;
        self
    }

    /// The default exact threshold for the board: every square on 4x4, 18 on 6x6 and 8x8.
    #[must_use]
    pub fn default_exact_empties() -> u32 {
        if N == 4 {
            16
        } else {
            18
        }
    }

    /// The default reach of a timed exact solve: every square on 4x4, 24 on 6x6 and 8x8 (an
    /// 8x8 solve from 24 empties takes from seconds to tens of seconds from a cold table, one
    /// from 20 well under a second; a solve that runs out of time is abandoned).
    #[must_use]
    pub fn default_reach() -> u32 {
        if N == 4 {
            16
        } else {
            24
        }
    }

    /// The exact decision of a solved position.
    fn exact(pos: &Othello<N>, s: crate::Solution) -> Result<Decision<othello::Move>, AgentError> {
        let mv = s.best.ok_or(AgentError::GameOver)?;
        Ok(Decision {
            mv,
            score: Some(proven(s.score)),
            pv: s.pv,
            depth: Some(pos.empty().count_ones()),
            nodes: s.nodes,
            scale: search::ScoreScale::Centi,
        })
    }
}

/// A proven margin in [`search`]'s score units: `WIN + margin` for a win, `-WIN + margin` for a
/// loss, and `WIN` for a draw (a proven draw, not a heuristic 0).
pub fn proven(margin: i32) -> i32 {
    match margin.signum() {
        -1 => -WIN + margin,
        _ => WIN + margin,
    }
}

impl<const N: usize> Agent<Othello<N>> for SolverAgent<N> {
    fn name(&self) -> String {
        self.name.into()
    }

    fn new_game(&mut self) {
        self.midgame.new_game();
    }

    fn table_bytes(&self) -> usize {
        self.solver.table_bytes() + self.midgame.table_bytes()
    }

    /// Within the exact zone none (every move's position is solved exactly, one by one);
    /// before it the midgame search's analysis.
    fn analyse(
        &mut self,
        pos: &Othello<N>,
        budget: &Budget,
        lines: usize,
    ) -> Option<Result<Vec<search::analysis::Line<othello::Move>>, AgentError>> {
        if pos.empty().count_ones() <= self.exact_empties {
            return None;
        }
        let budget = Budget {
            time: budget.time.or(self.time),
            ..*budget
        };
        self.midgame.analyse(pos, &budget, lines)
    }

    fn select(
        &mut self,
        pos: &Othello<N>,
        budget: &Budget,
    ) -> Result<Decision<othello::Move>, AgentError> {
        if pos.is_over() {
            return Err(AgentError::GameOver);
        }
        let empties = pos.empty().count_ones();
        let time = budget.time.or(self.time);
        if empties <= self.exact_empties {
            // Without a time limit the exact zone is always solved; with one, as beyond it,
            // the solve gets three quarters of the time and alpha-beta the rest.
            if time.is_none() {
                let s = self.solver.solve(pos);
                return Self::exact(pos, s);
            }
        } else if let Some((_, nodes)) = self.bounded.filter(|&(extra, _)| {
            time.is_none()
                && empties <= self.exact_empties.saturating_add(extra)
                && pos.legal_moves().len() >= 2
        }) {
            if let Some(s) = self.solver.solve_limited(pos, &SolveLimit::nodes(nodes)) {
                return Self::exact(pos, s);
            }
            if let Some(s) = self
                .solver
                .solve_window_limited(pos, -1, 1, &SolveLimit::nodes(nodes))
            {
                // A win's margin is then a bound (at least `s.score`), a draw's exact.
                if s.score >= 0 && s.best.is_some() {
                    return Self::exact(pos, s);
                }
            }
            return self.midgame.select(pos, budget);
        } else if empties > self.reach || pos.legal_moves().len() < 2 {
            return self.midgame.select(pos, budget);
        }
        let Some(time) = time else {
            return self.midgame.select(pos, budget);
        };
        // A cold table is sized to the move's time, then written before the clock starts (a
        // fresh agent, as the web app builds for every move, would otherwise spend its share
        // on it).
        self.solver.fit_table_to(time);
        self.solver.allocate();
        let start = Instant::now();
        let limit = SolveLimit {
            deadline: Some(start + time.mul_f64(SOLVE_SHARE)),
            nodes: None,
        };
        if let Some(s) = self.solver.solve_limited(pos, &limit) {
            return Self::exact(pos, s);
        }
        let left = time.saturating_sub(start.elapsed());
        self.midgame.select(
            pos,
            &Budget {
                time: Some(left),
                ..*budget
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use search::Score;

    #[test]
    fn proven_scores_read_as_proven_results_draws_included() {
        for margin in [-64, -2, 0, 2, 38] {
            assert_eq!(
                Score::from_raw(proven(margin), search::ScoreScale::Centi),
                Score::Proven { margin }
            );
        }
    }
}
