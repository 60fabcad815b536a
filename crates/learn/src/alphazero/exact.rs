//! Exact results at the search's leaves for Othello: the endgame solver within a few empties
//! (win, draw or loss only), as a [`search::ExactLeaf`].

use std::sync::{Arc, Mutex};

use game::Game;
use othello::Othello;
use othello_engine::Solver;
use search::ExactLeaf;

/// The solver's win-draw-loss answer for positions with at most `empties` empty squares.
pub struct OthelloExact<const N: usize> {
    empties: u32,
    solver: Mutex<Solver<N>>,
}

impl<const N: usize> OthelloExact<N> {
    /// Exact leaves within `empties` empties.
    #[must_use]
    pub fn new(empties: u32) -> Self {
        OthelloExact {
            empties,
            solver: Mutex::new(Solver::new(16)),
        }
    }
}

impl<const N: usize> ExactLeaf<Othello<N>> for OthelloExact<N>
where
    Othello<N>: Game,
{
    fn exact(&self, pos: &Othello<N>) -> Option<i8> {
        let (b, w) = pos.counts();
        let empty = (N * N) as u32 - b - w;
        if empty > self.empties {
            return None;
        }
        let mut solver = self.solver.lock().ok()?;
        Some(solver.solve_wld(pos).score.signum() as i8)
    }
}

/// Exact leaves within `empties` empties for `G` when it is an Othello board (`None` for
/// other games, or `empties` 0).
#[must_use]
pub fn exact_leaf<G: Game>(empties: u32) -> Option<Arc<dyn ExactLeaf<G>>> {
    if empties == 0 {
        return None;
    }
    fn cast<G: Game, T: Game>(e: Arc<dyn ExactLeaf<T>>) -> Option<Arc<dyn ExactLeaf<G>>> {
        let any: Box<dyn std::any::Any> = Box::new(e);
        any.downcast::<Arc<dyn ExactLeaf<G>>>().ok().map(|b| *b)
    }
    match G::ID {
        "othello4" => cast::<G, Othello<4>>(Arc::new(OthelloExact::<4>::new(empties))),
        "othello6" => cast::<G, Othello<6>>(Arc::new(OthelloExact::<6>::new(empties))),
        "othello8" => cast::<G, Othello<8>>(Arc::new(OthelloExact::<8>::new(empties))),
        _ => None,
    }
}
