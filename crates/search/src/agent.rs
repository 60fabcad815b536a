//! The [`Agent`] trait: anything that picks moves, from a random mover to an external engine.

use std::time::Duration;

use game::Game;

/// How much an agent may think for one move. Unset fields fall back to the agent's own
/// configuration (its spec string); set fields override it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Budget {
    /// Search depth in plies.
    pub depth: Option<u32>,
    /// Nodes (alpha-beta) or playouts (MCTS).
    pub nodes: Option<u64>,
    /// Wall-clock time for this move.
    pub time: Option<Duration>,
}

impl Budget {
    /// When a search under a clock of `time` stops, counted from its start: a little before
    /// the clock runs out (a fortieth of it plus a millisecond, at most 20 ms), so that stopping,
    /// reading the line and returning fit inside it and no move passes its time.
    #[must_use]
    pub fn stop_within(time: std::time::Duration) -> std::time::Duration {
        let reserve = (time / 40 + std::time::Duration::from_millis(1))
            .min(std::time::Duration::from_millis(20));
        time.saturating_sub(reserve)
    }

    /// A fixed-depth budget.
    #[must_use]
    pub fn depth(depth: u32) -> Self {
        Budget {
            depth: Some(depth),
            ..Budget::default()
        }
    }

    /// A node or playout budget.
    #[must_use]
    pub fn nodes(nodes: u64) -> Self {
        Budget {
            nodes: Some(nodes),
            ..Budget::default()
        }
    }

    /// A time budget.
    #[must_use]
    pub fn time(time: Duration) -> Self {
        Budget {
            time: Some(time),
            ..Budget::default()
        }
    }

    /// This budget with `fallback`'s fields where this one has none.
    #[must_use]
    pub fn or(self, fallback: Budget) -> Budget {
        Budget {
            depth: self.depth.or(fallback.depth),
            nodes: self.nodes.or(fallback.nodes),
            time: self.time.or(fallback.time),
        }
    }
}

/// An agent's choice and what it knows about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision<M> {
    /// The move to play.
    pub mv: M,
    /// The score from the mover's point of view, in the evaluator's units. `|score| >=`
    /// [`WIN`](crate::WIN) is a proven win or loss; its margin `|score| - WIN` is exact only when
    /// the search reached the end of every line (a solver, or enough depth), else a bound.
    pub score: Option<i32>,
    /// The expected line, starting with `mv` (may be just `mv` or empty when unknown).
    pub pv: Vec<M>,
    /// Depth completed, where the agent searches by depth.
    pub depth: Option<u32>,
    /// Nodes searched or playouts run.
    pub nodes: u64,
    /// How to read `score`: hundredths of the game's unit, the agent's own units, or an
    /// expected result (see [`Score`](crate::Score)).
    pub scale: crate::ScoreScale,
}

impl<M> Decision<M> {
    /// A decision with nothing known but the move.
    #[must_use]
    pub fn just(mv: M) -> Self {
        Decision {
            mv,
            score: None,
            pv: Vec::new(),
            depth: None,
            nodes: 0,
            scale: crate::ScoreScale::default(),
        }
    }

    /// The score with its unit, where there is one.
    #[must_use]
    pub fn value(&self) -> Option<crate::Score> {
        self.score.map(|s| crate::Score::from_raw(s, self.scale))
    }
}

/// Why an agent could not give a move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AgentError {
    /// The game is already over.
    #[error("the game is over: there is no move to choose")]
    GameOver,
    /// The agent (for example an external engine) failed.
    #[error("agent failed: {0}")]
    Failed(String),
}

/// A player. Agents are stateful (random generators, search trees, engine processes), so every
/// game gets its own `&mut` agent; [`new_game`](Agent::new_game) resets per-game state and
/// [`observe`](Agent::observe) reports every move played (both sides'), which lets an agent reuse
/// its tree.
pub trait Agent<G: Game>: Send {
    /// The spec string this agent was built from (or a description).
    fn name(&self) -> String;

    /// Forget the previous game.
    fn new_game(&mut self) {}

    /// Picks a move for the side to move in `pos`.
    ///
    /// # Errors
    /// [`AgentError::GameOver`] when `pos` is finished; [`AgentError::Failed`] when the agent
    /// cannot answer.
    fn select(&mut self, pos: &G, budget: &Budget) -> Result<Decision<G::Move>, AgentError>;

    /// A move was played in the current game (by either side), after which `pos` is the new
    /// position.
    fn observe(&mut self, _mv: G::Move, _pos: &G) {}

    /// The most memory, in bytes, that this agent's search tables (transposition tables, trees)
    /// take once it searches. Agents allocate their tables on their first search, not when they
    /// are built, so a server can reserve this much before it lets the agent think.
    fn table_bytes(&self) -> usize {
        0
    }

    /// Every legal move of `pos` scored by one search of the agent's own, all at the same depth
    /// so that the scores compare like for like, best first, up to `lines` (within `budget` for
    /// the whole analysis). `None` (the default) where the agent has no such search:
    /// [`multi_pv`](crate::analysis::multi_pv) then scores the moves one by one.
    ///
    /// # Errors
    /// As [`select`](Agent::select).
    fn analyse(
        &mut self,
        _pos: &G,
        _budget: &Budget,
        _lines: usize,
    ) -> Option<Result<Vec<crate::analysis::Line<G::Move>>, AgentError>> {
        None
    }
}
