//! The `solver` agent: perfect play once few enough squares are empty, the heuristic alpha-beta
//! before that.

use std::sync::Arc;

use game::Game;
use othello::Othello;
use search::{Agent, AgentError, AlphaBeta, AlphaBetaConfig, Budget, Decision, WIN};

use crate::{Heuristic, Solver};

/// Plays exact endgame moves from `exact_empties` empty squares on, and alpha-beta over the
/// [`Heuristic`] before.
pub struct SolverAgent<const N: usize> {
    solver: Solver<N>,
    midgame: AlphaBeta<Othello<N>>,
    exact_empties: u32,
}

impl<const N: usize> SolverAgent<N> {
    /// Exact from `exact_empties` empties; `midgame` searches before that.
    #[must_use]
    pub fn new(exact_empties: u32, midgame: AlphaBetaConfig) -> Self {
        SolverAgent {
            solver: Solver::new(if N == 8 { 22 } else { 20 }),
            midgame: AlphaBeta::new(Arc::new(Heuristic::<N>::default()), midgame),
            exact_empties,
        }
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
}

/// A proven margin in [`search`]'s score units.
fn proven(margin: i32) -> i32 {
    match margin.signum() {
        1 => WIN + margin,
        -1 => -WIN + margin,
        _ => 0,
    }
}

impl<const N: usize> Agent<Othello<N>> for SolverAgent<N> {
    fn name(&self) -> String {
        "solver".into()
    }

    fn new_game(&mut self) {
        self.midgame.new_game();
    }

    fn select(
        &mut self,
        pos: &Othello<N>,
        budget: &Budget,
    ) -> Result<Decision<othello::Move>, AgentError> {
        if pos.is_over() {
            return Err(AgentError::GameOver);
        }
        if pos.empty().count_ones() > self.exact_empties {
            return self.midgame.select(pos, budget);
        }
        let s = self.solver.solve(pos);
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
