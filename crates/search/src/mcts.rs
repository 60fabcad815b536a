//! Monte Carlo tree search with UCT selection, random or evaluator-guided playouts and tree
//! reuse between moves, for any game.

use std::sync::Arc;
use std::time::{Duration, Instant};

use game::{Color, Game};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

use crate::{terminal_score, Agent, AgentError, Budget, Decision, Evaluator};

/// How playouts choose their moves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rollout {
    /// Uniformly random moves.
    Random,
    /// The evaluator's favourite move, or a random one with probability `epsilon`.
    Greedy {
        /// Chance of a random move at each step.
        epsilon: f64,
    },
}

/// Settings of [`Mcts`].
#[derive(Clone, Debug, PartialEq)]
pub struct MctsConfig {
    /// Playouts per move (when no time is set, or as a cap with one).
    pub playouts: Option<u64>,
    /// Time per move.
    pub time: Option<Duration>,
    /// The UCT exploration constant `c` in `q + c * sqrt(ln N / n)`.
    pub c: f64,
    /// How playouts move.
    pub rollout: Rollout,
    /// Keep the subtree of the move played between moves.
    pub reuse: bool,
    /// The most memory the tree may take, in bytes; when it is full, playouts go on without
    /// adding nodes (so a long search cannot take unbounded memory).
    pub max_tree_bytes: usize,
}

/// The default [`MctsConfig::max_tree_bytes`]: 64 MiB.
pub const DEFAULT_TREE_BYTES: usize = 64 << 20;

impl Default for MctsConfig {
    fn default() -> Self {
        MctsConfig {
            playouts: None,
            time: None,
            c: 1.4,
            rollout: Rollout::Random,
            reuse: true,
            max_tree_bytes: DEFAULT_TREE_BYTES,
        }
    }
}

/// Playouts when neither the config nor the budget sets a limit.
const DEFAULT_PLAYOUTS: u64 = 1000;
const NONE: usize = usize::MAX;

struct Node<M> {
    mv: Option<M>,
    parent: usize,
    /// The side that played `mv` (whose wins `wins` counts).
    mover: Color,
    children: Vec<usize>,
    untried: Vec<M>,
    visits: u32,
    /// Sum of results for `mover`: 1 a win, 0.5 a draw, 0 a loss.
    wins: f64,
}

/// The MCTS agent.
pub struct Mcts<G: Game> {
    config: MctsConfig,
    eval: Arc<dyn Evaluator<G>>,
    rng: ChaCha8Rng,
    nodes: Vec<Node<G::Move>>,
    /// Heap bytes of the nodes' move lists (`untried` and `children`), for the memory bound.
    lists: usize,
    root: usize,
    root_pos: Option<G>,
}

impl<G: Game> Mcts<G> {
    /// An agent with these settings; `eval` guides greedy playouts.
    #[must_use]
    pub fn new(eval: Arc<dyn Evaluator<G>>, config: MctsConfig, seed: u64) -> Self {
        Mcts {
            config,
            eval,
            rng: ChaCha8Rng::seed_from_u64(seed),
            nodes: Vec::new(),
            lists: 0,
            root: NONE,
            root_pos: None,
        }
    }

    /// Bytes the tree takes now, counting the node array as it would be after one more push.
    fn tree_bytes(&self) -> usize {
        let capacity = if self.nodes.len() == self.nodes.capacity() {
            (self.nodes.capacity() * 2).max(4)
        } else {
            self.nodes.capacity()
        };
        capacity * std::mem::size_of::<Node<G::Move>>() + self.lists
    }

    fn list_bytes(node: &Node<G::Move>) -> usize {
        node.untried.capacity() * std::mem::size_of::<G::Move>()
            + node.children.capacity() * std::mem::size_of::<usize>()
    }

    /// Nodes in the current tree (for tests and statistics).
    #[must_use]
    pub fn tree_size(&self) -> usize {
        self.nodes.len()
    }

    /// Visits of the current root (playouts accumulated, including reused ones).
    #[must_use]
    pub fn root_visits(&self) -> u32 {
        self.nodes.get(self.root).map_or(0, |n| n.visits)
    }

    fn reset(&mut self, pos: &G) {
        self.nodes.clear();
        let root = Node {
            mv: None,
            parent: NONE,
            mover: pos.side_to_move().opponent(),
            children: Vec::new(),
            untried: pos.legal_moves(),
            visits: 0,
            wins: 0.0,
        };
        self.lists = Self::list_bytes(&root);
        self.nodes.push(root);
        self.root = 0;
        self.root_pos = Some(pos.clone());
    }

    fn uct_child(&self, node: usize) -> usize {
        let n = &self.nodes[node];
        let log_n = f64::from(n.visits.max(1)).ln();
        let mut best = (f64::NEG_INFINITY, n.children[0]);
        for &c in &n.children {
            let child = &self.nodes[c];
            let visits = f64::from(child.visits.max(1));
            let value = child.wins / visits + self.config.c * (log_n / visits).sqrt();
            if value > best.0 {
                best = (value, c);
            }
        }
        best.1
    }

    fn rollout(&mut self, mut pos: G) -> game::Outcome {
        loop {
            if let Some(outcome) = pos.outcome() {
                return outcome;
            }
            let moves = pos.legal_moves();
            let mv = match self.config.rollout {
                Rollout::Greedy { epsilon } if !self.rng.random_bool(epsilon.clamp(0.0, 1.0)) => {
                    let mut best = (i32::MIN, moves[0]);
                    for &mv in &moves {
                        let child = pos.play_unchecked(mv);
                        let score =
                            -terminal_score(&child).unwrap_or_else(|| self.eval.evaluate(&child));
                        if score > best.0 {
                            best = (score, mv);
                        }
                    }
                    best.1
                }
                _ => moves[self.rng.random_range(0..moves.len())],
            };
            pos = pos.play_unchecked(mv);
        }
    }

    fn playout(&mut self, root_pos: &G) {
        let mut node = self.root;
        let mut pos = root_pos.clone();
        // Selection.
        while self.nodes[node].untried.is_empty() && !self.nodes[node].children.is_empty() {
            node = self.uct_child(node);
            if let Some(mv) = self.nodes[node].mv {
                pos = pos.play_unchecked(mv);
            }
        }
        // Expansion, while the tree has room (else the playout starts from this leaf).
        if !self.nodes[node].untried.is_empty() && self.tree_bytes() < self.config.max_tree_bytes {
            let untried = &mut self.nodes[node].untried;
            let mv = untried.swap_remove(self.rng.random_range(0..untried.len()));
            let mover = pos.side_to_move();
            pos = pos.play_unchecked(mv);
            let child = self.nodes.len();
            let fresh = Node {
                mv: Some(mv),
                parent: node,
                mover,
                children: Vec::new(),
                untried: pos.legal_moves(),
                visits: 0,
                wins: 0.0,
            };
            self.lists += Self::list_bytes(&fresh);
            self.nodes.push(fresh);
            let before = self.nodes[node].children.capacity();
            self.nodes[node].children.push(child);
            self.lists +=
                (self.nodes[node].children.capacity() - before) * std::mem::size_of::<usize>();
            node = child;
        }
        // Simulation and backpropagation.
        let outcome = self.rollout(pos);
        while node != NONE {
            let n = &mut self.nodes[node];
            n.visits += 1;
            n.wins += (f64::from(outcome.value_for(n.mover)) + 1.0) / 2.0;
            node = n.parent;
        }
    }

    /// Makes the child reached by `mv` the root, keeping its subtree and dropping the rest.
    fn advance(&mut self, mv: G::Move, pos: &G) {
        let Some(root_pos) = &self.root_pos else {
            return;
        };
        let child = self.nodes.get(self.root).and_then(|root| {
            root.children
                .iter()
                .copied()
                .find(|&c| self.nodes[c].mv == Some(mv))
        });
        match child {
            Some(c) if self.config.reuse && root_pos.play_unchecked(mv) == *pos => {
                self.reroot(c, pos)
            }
            _ => {
                self.nodes.clear();
                self.lists = 0;
                self.root = NONE;
                self.root_pos = None;
            }
        }
    }

    fn reroot(&mut self, new_root: usize, pos: &G) {
        let mut old = std::mem::take(&mut self.nodes);
        let mut map = vec![(new_root, NONE)];
        let mut i = 0;
        while i < map.len() {
            let (from, parent) = map[i];
            let node = &mut old[from];
            let children = std::mem::take(&mut node.children);
            let index = self.nodes.len();
            self.nodes.push(Node {
                mv: node.mv,
                parent,
                mover: node.mover,
                children: Vec::with_capacity(children.len()),
                untried: std::mem::take(&mut node.untried),
                visits: node.visits,
                wins: node.wins,
            });
            if parent != NONE {
                self.nodes[parent].children.push(index);
            }
            map.extend(children.into_iter().map(|c| (c, index)));
            i += 1;
        }
        self.lists = self.nodes.iter().map(Self::list_bytes).sum();
        self.root = 0;
        self.root_pos = Some(pos.clone());
    }
}

impl<G: Game> Agent<G> for Mcts<G> {
    fn name(&self) -> String {
        "mcts".into()
    }

    fn new_game(&mut self) {
        self.nodes.clear();
        self.lists = 0;
        self.root = NONE;
        self.root_pos = None;
    }

    fn select(&mut self, pos: &G, budget: &Budget) -> Result<Decision<G::Move>, AgentError> {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return Err(AgentError::GameOver);
        }
        if moves.len() == 1 {
            return Ok(Decision::just(moves[0]));
        }
        if self.root_pos.as_ref() != Some(pos) || self.root == NONE || !self.config.reuse {
            self.reset(pos);
        }
        let own = Budget {
            depth: None,
            nodes: self.config.playouts,
            time: self.config.time,
        };
        let budget = budget.or(own);
        let playouts = match budget {
            Budget { nodes: Some(n), .. } => n,
            Budget { time: Some(_), .. } => u64::MAX,
            _ => DEFAULT_PLAYOUTS,
        };
        let deadline = budget.time.map(|t| Instant::now() + t);
        let root_pos = pos.clone();
        let mut run = 0;
        while run < playouts && deadline.is_none_or(|d| Instant::now() < d) {
            self.playout(&root_pos);
            run += 1;
        }
        let root = &self.nodes[self.root];
        let best = root
            .children
            .iter()
            .copied()
            .max_by_key(|&c| self.nodes[c].visits)
            .unwrap_or(NONE);
        let mv = self.nodes.get(best).and_then(|n| n.mv).unwrap_or(moves[0]);
        // The principal line: most visited children down the tree.
        let mut pv = Vec::new();
        let mut node = best;
        while let Some(n) = self.nodes.get(node) {
            let Some(m) = n.mv else { break };
            pv.push(m);
            node = n
                .children
                .iter()
                .copied()
                .max_by_key(|&c| self.nodes[c].visits)
                .unwrap_or(NONE);
        }
        Ok(Decision {
            mv,
            score: None,
            pv,
            depth: None,
            nodes: run,
            scale: crate::ScoreScale::default(),
        })
    }

    fn observe(&mut self, mv: G::Move, pos: &G) {
        if self.root != NONE {
            self.advance(mv, pos);
        }
    }

    fn table_bytes(&self) -> usize {
        // The bound plus one node array doubling past it.
        self.config.max_tree_bytes.saturating_mul(2)
    }
}
