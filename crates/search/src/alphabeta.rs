//! Negamax alpha-beta with iterative deepening, a transposition table and move ordering (the
//! table's move first, then by the evaluator's opinion of each child), for any game. Children
//! to order, and the leaves of nodes one ply above the horizon, reach the evaluator as batches.

use std::sync::Arc;
use std::time::{Duration, Instant};

use game::Game;

use crate::{terminal_score, Agent, AgentError, Budget, Decision, Evaluator};

/// Settings of [`AlphaBeta`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AlphaBetaConfig {
    /// Deepest iteration; with only a time or node limit the search deepens until that runs out.
    pub depth: Option<u32>,
    /// Time per move.
    pub time: Option<Duration>,
    /// Nodes per move.
    pub nodes: Option<u64>,
    /// The transposition table holds `2^tt_bits` entries.
    pub tt_bits: u32,
    /// Evaluate all leaves of a node one ply above the horizon in one batch (`None`: when the
    /// evaluator [prefers batches](crate::Evaluator::prefers_batches)). The search, its score,
    /// move and node count are the same either way; only the evaluator's calls differ.
    pub batch_leaves: Option<bool>,
}

impl Default for AlphaBetaConfig {
    fn default() -> Self {
        AlphaBetaConfig {
            depth: None,
            time: None,
            nodes: None,
            tt_bits: 18,
            batch_leaves: None,
        }
    }
}

/// Depth used when neither the config nor the budget sets any limit.
const DEFAULT_DEPTH: u32 = 4;
/// Depth cap when only time or nodes limit the search.
const MAX_DEPTH: u32 = 64;
const INF: i32 = i32::MAX - 1;
const NO_MOVE: u16 = u16::MAX;

#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    key: u64,
    score: i32,
    depth: u8,
    bound: Bound,
    mv: u16,
    /// No leaf below was cut by the depth limit: the score holds at any depth.
    complete: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Bound {
    #[default]
    Empty,
    Exact,
    Lower,
    Upper,
}

/// The alpha-beta agent.
pub struct AlphaBeta<G: Game> {
    config: AlphaBetaConfig,
    eval: Arc<dyn Evaluator<G>>,
    table: Vec<Entry>,
    nodes: u64,
    deadline: Option<Instant>,
    node_limit: Option<u64>,
    aborted: bool,
    /// Set when the current subtree used a depth-limited evaluation.
    horizon: bool,
    /// Whether leaves go to the evaluator in batches.
    batch_leaves: bool,
}

impl<G: Game> AlphaBeta<G> {
    /// An agent over `eval` with these settings.
    #[must_use]
    pub fn new(eval: Arc<dyn Evaluator<G>>, config: AlphaBetaConfig) -> Self {
        let batch_leaves = config
            .batch_leaves
            .unwrap_or_else(|| eval.prefers_batches());
        AlphaBeta {
            batch_leaves,
            config,
            eval,
            // Allocated by the first search (see `Agent::table_bytes`).
            table: Vec::new(),
            nodes: 0,
            deadline: None,
            node_limit: None,
            aborted: false,
            horizon: false,
        }
    }

    /// Entries of the transposition table.
    fn table_len(&self) -> usize {
        1usize << self.config.tt_bits.min(28)
    }

    fn slot(&self, key: u64) -> usize {
        (key as usize) & (self.table.len() - 1)
    }

    fn out_of_budget(&self) -> bool {
        self.node_limit.is_some_and(|n| self.nodes >= n)
            || (self.nodes & 255 == 0 && self.deadline.is_some_and(|d| Instant::now() >= d))
    }

    /// Static scores of `children` from their side to move's point of view: finished games
    /// by their result, the rest in one evaluator batch.
    fn child_scores(&self, children: &[G]) -> Vec<i32> {
        let terminal: Vec<Option<i32>> = children.iter().map(terminal_score).collect();
        if terminal.iter().all(Option::is_none) {
            // The common case: no copies of the children.
            return self.eval.evaluate_batch(children);
        }
        let open: Vec<G> = children
            .iter()
            .zip(&terminal)
            .filter(|(_, t)| t.is_none())
            .map(|(c, _)| c.clone())
            .collect();
        let mut values = self.eval.evaluate_batch(&open).into_iter();
        terminal
            .into_iter()
            .map(|t| t.unwrap_or_else(|| values.next().unwrap_or(0)))
            .collect()
    }

    /// One ply above the horizon with batched leaves: the children of `moves` and their static
    /// scores from one batch (the same values one-by-one evaluation gives, in fewer calls);
    /// otherwise nothing.
    fn leaf_batch(&self, pos: &G, moves: &[G::Move], depth: u32) -> (Vec<G>, Vec<i32>) {
        if depth != 1 || !self.batch_leaves {
            return (Vec::new(), Vec::new());
        }
        let leaves: Vec<G> = moves.iter().map(|&mv| pos.play_unchecked(mv)).collect();
        let scores = self.child_scores(&leaves);
        (leaves, scores)
    }

    /// Moves ordered best first: the table's move, then by the evaluator.
    fn ordered(&self, pos: &G, depth: u32, tt_move: u16) -> Vec<G::Move> {
        let mut moves = pos.legal_moves();
        if depth >= 2 && moves.len() > 1 {
            let children: Vec<G> = moves.iter().map(|&mv| pos.play_unchecked(mv)).collect();
            let mut keyed: Vec<(i32, G::Move)> = self
                .child_scores(&children)
                .into_iter()
                .zip(moves)
                .collect();
            keyed.sort_by_key(|&(score, _)| score);
            moves = keyed.into_iter().map(|(_, mv)| mv).collect();
        }
        if tt_move != NO_MOVE {
            if let Some(i) = moves
                .iter()
                .position(|&m| G::action_index(m) == usize::from(tt_move))
            {
                let mv = moves.remove(i);
                moves.insert(0, mv);
            }
        }
        moves
    }

    fn negamax(&mut self, pos: &G, depth: u32, alpha: i32, beta: i32) -> i32 {
        self.search(pos, depth, alpha, beta, None)
    }

    /// Negamax of `pos`; `leaf` is its static value when the caller evaluated it in a batch
    /// (depth 0 only).
    fn search(
        &mut self,
        pos: &G,
        depth: u32,
        mut alpha: i32,
        mut beta: i32,
        leaf: Option<i32>,
    ) -> i32 {
        self.nodes += 1;
        if self.out_of_budget() {
            self.aborted = true;
        }
        if self.aborted {
            return 0;
        }
        if let Some(score) = terminal_score(pos) {
            return score;
        }
        if depth == 0 {
            self.horizon = true;
            return leaf.unwrap_or_else(|| self.eval.evaluate(pos));
        }
        let key = pos.hash_key();
        let slot = self.slot(key);
        let entry = self.table[slot];
        let mut tt_move = NO_MOVE;
        if entry.bound != Bound::Empty && entry.key == key {
            tt_move = entry.mv;
            if entry.complete || u32::from(entry.depth) >= depth {
                let (a, b) = (alpha, beta);
                match entry.bound {
                    Bound::Exact => {}
                    Bound::Lower => alpha = alpha.max(entry.score),
                    Bound::Upper => beta = beta.min(entry.score),
                    Bound::Empty => {}
                }
                if alpha >= beta || entry.bound == Bound::Exact {
                    self.horizon |= !entry.complete;
                    return entry.score;
                }
                (alpha, beta) = (a, b);
            }
        }
        let saved_horizon = std::mem::replace(&mut self.horizon, false);
        let original_alpha = alpha;
        let mut best = -INF;
        let mut best_move = NO_MOVE;
        let moves = self.ordered(pos, depth, tt_move);
        let (leaves, leaf_scores) = self.leaf_batch(pos, &moves, depth);
        for (k, mv) in moves.into_iter().enumerate() {
            let score = match leaves.get(k) {
                Some(child) => -self.search(child, 0, -beta, -alpha, leaf_scores.get(k).copied()),
                None => -self.negamax(&pos.play_unchecked(mv), depth - 1, -beta, -alpha),
            };
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
                best_move = u16::try_from(G::action_index(mv)).unwrap_or(NO_MOVE);
            }
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        let bound = if best <= original_alpha {
            Bound::Upper
        } else if best >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        let complete = !self.horizon;
        self.horizon |= saved_horizon;
        self.table[slot] = Entry {
            key,
            score: best,
            depth: depth.min(255) as u8,
            bound,
            mv: best_move,
            complete,
        };
        best
    }

    /// The principal variation from the table, starting with `first`.
    fn pv(&self, pos: &G, first: G::Move, max: usize) -> Vec<G::Move> {
        let mut line = vec![first];
        let mut pos = pos.play_unchecked(first);
        while line.len() < max {
            let key = pos.hash_key();
            let entry = self.table[self.slot(key)];
            if entry.bound != Bound::Exact || entry.key != key {
                break;
            }
            let Some(mv) = G::action_move(usize::from(entry.mv)) else {
                break;
            };
            if !pos.is_legal(mv) {
                break;
            }
            line.push(mv);
            pos = pos.play_unchecked(mv);
        }
        line
    }
}

impl<G: Game> Agent<G> for AlphaBeta<G> {
    fn name(&self) -> String {
        "alphabeta".into()
    }

    fn new_game(&mut self) {
        self.table.iter_mut().for_each(|e| *e = Entry::default());
    }

    fn table_bytes(&self) -> usize {
        self.table_len() * std::mem::size_of::<Entry>()
    }

    fn select(&mut self, pos: &G, budget: &Budget) -> Result<Decision<G::Move>, AgentError> {
        let moves = pos.legal_moves();
        let Some(&first) = moves.first() else {
            return Err(AgentError::GameOver);
        };
        if self.table.is_empty() {
            self.table = vec![Entry::default(); self.table_len()];
        }
        let own = Budget {
            depth: self.config.depth,
            nodes: self.config.nodes,
            time: self.config.time,
        };
        let budget = budget.or(own);
        let max_depth = match budget {
            Budget { depth: Some(d), .. } => d.max(1),
            Budget {
                time: None,
                nodes: None,
                ..
            } => DEFAULT_DEPTH,
            _ => MAX_DEPTH,
        };
        let start = Instant::now();
        self.deadline = budget.time.map(|t| start + Budget::stop_within(t));
        self.node_limit = budget.nodes;
        self.nodes = 0;
        self.aborted = false;
        let mut decision = Decision {
            mv: first,
            score: None,
            pv: vec![first],
            depth: None,
            nodes: 0,
            scale: self.eval.scale(),
        };
        if moves.len() == 1 {
            return Ok(decision);
        }
        for depth in 1..=max_depth {
            let (mut alpha, beta) = (-INF, INF);
            let mut best: Option<(i32, G::Move)> = None;
            self.horizon = false;
            let tt_move = {
                let key = pos.hash_key();
                let e = self.table[self.slot(key)];
                if e.key == key {
                    e.mv
                } else {
                    NO_MOVE
                }
            };
            // Search the previous iteration's best move first.
            let mut ordered = self.ordered(pos, depth, tt_move);
            if let Some(i) = ordered.iter().position(|&m| m == decision.mv) {
                let mv = ordered.remove(i);
                ordered.insert(0, mv);
            }
            let (leaves, leaf_scores) = self.leaf_batch(pos, &ordered, depth);
            for (k, mv) in ordered.into_iter().enumerate() {
                let score = match leaves.get(k) {
                    Some(child) => {
                        -self.search(child, 0, -beta, -alpha, leaf_scores.get(k).copied())
                    }
                    None => -self.negamax(&pos.play_unchecked(mv), depth - 1, -beta, -alpha),
                };
                if self.aborted {
                    break;
                }
                if best.is_none_or(|(b, _)| score > b) {
                    best = Some((score, mv));
                }
                alpha = alpha.max(score);
            }
            if self.aborted {
                // A partial iteration still counts: its first move was the previous best, so
                // whatever it found best among the moves it finished is at least as good.
                if let Some((score, mv)) = best {
                    decision.mv = mv;
                    decision.score = Some(score);
                    if decision.pv.first() != Some(&mv) {
                        decision.pv = vec![mv];
                    }
                }
                break;
            }
            let Some((score, mv)) = best else { break };
            let key = pos.hash_key();
            let slot = self.slot(key);
            self.table[slot] = Entry {
                key,
                score,
                depth: depth.min(255) as u8,
                bound: Bound::Exact,
                mv: u16::try_from(G::action_index(mv)).unwrap_or(NO_MOVE),
                complete: !self.horizon,
            };
            decision.mv = mv;
            decision.score = Some(score);
            decision.depth = Some(depth);
            decision.pv = self.pv(pos, mv, depth as usize);
            // Every line reached the end of the game: more depth changes nothing.
            if !self.horizon {
                break;
            }
        }
        decision.nodes = self.nodes;
        Ok(decision)
    }
}
