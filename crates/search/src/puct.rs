//! PUCT search (AlphaZero) over a [`PolicyValue`] network, with an optional Gumbel root
//! (Gumbel-top-k, sequential halving, the completed-Q policy), Dirichlet noise, first-play
//! urgency, tree reuse and proven results (MCTS-solver). It runs in steps — [`Puct::gather`]
//! the leaves it needs, [`Puct::feed`] their evaluations — so that many trees share one batch.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use game::{Color, Game};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, Gamma, Gumbel};

use crate::{Agent, AgentError, Budget, Decision, PolicyValue, PriorsValue, ScoreScale, WIN};

/// Dirichlet noise mixed into the root priors (self-play exploration, as AlphaZero).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RootNoise {
    /// The Dirichlet concentration `alpha` (AlphaZero: 0.3 for chess, 0.03 for Go; about
    /// 10 / the typical number of legal moves).
    pub alpha: f32,
    /// The weight of the noise: priors become `(1 - frac) * p + frac * noise`.
    pub frac: f32,
}

/// The Gumbel root of Danihelka et al. (2022): `considered` actions drawn by Gumbel-top-k,
/// narrowed by sequential halving on `g + logit + sigma(q)`, with
/// `sigma(q) = (c_visit + max N) * c_scale * q` on values rescaled to `[0, 1]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GumbelRoot {
    /// How many root actions sequential halving starts with (`m`; the paper uses 16).
    pub considered: usize,
    /// `c_visit` of `sigma` (the paper: 50).
    pub c_visit: f32,
    /// `c_scale` of `sigma` (the paper: 1).
    pub c_scale: f32,
    /// Draw the Gumbel noise `g` (self-play); off, `g = 0` and the search is deterministic.
    pub sample: bool,
}

impl Default for GumbelRoot {
    fn default() -> Self {
        GumbelRoot {
            considered: 16,
            c_visit: 50.0,
            c_scale: 1.0,
            sample: false,
        }
    }
}

/// Settings of a [`Puct`] search.
#[derive(Clone, Debug, PartialEq)]
pub struct PuctConfig {
    /// Simulations per move (new ones; reused visits come on top). With `time` set, a cap.
    pub sims: Option<u32>,
    /// Time per move.
    pub time: Option<Duration>,
    /// The exploration constant of `q + c * p * sqrt(N) / (1 + n)`.
    pub c_puct: f32,
    /// First-play urgency: an unvisited child is valued at its parent's value minus this.
    pub fpu: f32,
    /// Dirichlet noise at the root (`None`: none).
    pub noise: Option<RootNoise>,
    /// The Gumbel root instead of PUCT at the root (`None`: PUCT everywhere).
    pub gumbel: Option<GumbelRoot>,
    /// Keep the subtree of the moves played between searches.
    pub reuse: bool,
    /// Propagate proven wins, losses and draws up the tree (MCTS-solver).
    pub solver: bool,
    /// With `solver`: when the root is proven lost, search it again without proofs or exact
    /// leaves for the rest of the budget, so the move played is the network's most stubborn
    /// defence (an imperfect opponent may still go wrong), not the first loss proven.
    pub resist: bool,
    /// Leaves one tree sends per batch: 1 is plain sequential PUCT; more use virtual loss.
    pub leaves: usize,
    /// The most memory the tree may take; when it is full, leaves are evaluated but not
    /// expanded.
    pub max_tree_bytes: usize,
}

/// Simulations when neither [`PuctConfig::sims`] nor a time is set.
pub const DEFAULT_SIMS: u32 = 200;

impl Default for PuctConfig {
    fn default() -> Self {
        PuctConfig {
            sims: None,
            time: None,
            c_puct: 1.5,
            fpu: 0.25,
            noise: None,
            gumbel: None,
            reuse: true,
            solver: true,
            resist: true,
            leaves: 1,
            max_tree_bytes: crate::DEFAULT_TREE_BYTES,
        }
    }
}

/// Exact results the search may use at its leaves instead of the network (the Othello solver
/// within a few empties).
pub trait ExactLeaf<G: Game>: Send + Sync {
    /// The exact result for the side to move (+1 a win, 0 a draw, −1 a loss) where this oracle
    /// can give it cheaply, else `None`.
    fn exact(&self, pos: &G) -> Option<i8>;
}

/// A feed that does not match the gather before it (a bug in the caller).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the search asked for {asked} evaluations and was given {given}")]
pub struct FeedError {
    /// Leaves gathered.
    pub asked: usize,
    /// Evaluations fed.
    pub given: usize,
}

/// What a finished search found at its root.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult<M> {
    /// The move to play: most visited (PUCT; a proven win first, proven losses last) or the
    /// action sequential halving kept (Gumbel).
    pub best: M,
    /// Visits per root move, in legal-move order.
    pub visits: Vec<(M, u32)>,
    /// The policy target over the action space: visit counts (PUCT) or the completed-Q policy
    /// (Gumbel), summing to 1.
    pub policy: Vec<f32>,
    /// The root value for the side to move, in `[-1, 1]`.
    pub value: f32,
    /// The proven result for the side to move, where the solver found one.
    pub proven: Option<i8>,
    /// The proven result of each root move for the side to move, in `visits` order.
    pub move_proofs: Vec<Option<i8>>,
    /// Simulations run in this search.
    pub sims: u32,
}

impl<M: Copy> SearchResult<M> {
    /// A move drawn with probability proportional to `visits^(1/temperature)`, never a move
    /// proven lost; the best move at temperature 0, when the root is proven (a draw could throw
    /// the proven result away), and for a Gumbel search, whose choice is already a draw.
    pub fn sample(&self, temperature: f32, rng: &mut ChaCha8Rng) -> M {
        if temperature <= 0.0 || self.proven.is_some() || self.visits.iter().all(|&(_, n)| n == 0) {
            return self.best;
        }
        let weights: Vec<f64> = self
            .visits
            .iter()
            .zip(&self.move_proofs)
            .map(|(&(_, n), proof)| {
                if *proof == Some(-1) {
                    0.0
                } else {
                    f64::from(n).powf(1.0 / f64::from(temperature))
                }
            })
            .collect();
        let total: f64 = weights.iter().sum();
        if !total.is_finite() || total <= 0.0 {
            return self.best;
        }
        let mut x = rng.random::<f64>() * total;
        for (&(mv, _), w) in self.visits.iter().zip(&weights) {
            if x < *w {
                return mv;
            }
            x -= w;
        }
        self.best
    }
}

/// Not yet proven.
const OPEN: i8 = 2;

#[derive(Clone, Debug)]
struct Node<M> {
    mv: Option<M>,
    /// The side that played `mv` (the root: the opponent of its side to move).
    mover: Color,
    prior: f32,
    /// The network's value of this position for `mover` (after expansion).
    net_value: f32,
    visits: u32,
    /// Leaves in flight below (virtual losses for `mover`).
    pending: u32,
    /// Sum of results for `mover`, each in `[-1, 1]`.
    value: f64,
    first: u32,
    count: u32,
    /// The proven result for `mover` (−1, 0, 1) or [`OPEN`].
    proof: i8,
}

impl<M> Node<M> {
    fn new(mv: Option<M>, mover: Color, prior: f32) -> Self {
        Node {
            mv,
            mover,
            prior,
            net_value: 0.0,
            visits: 0,
            pending: 0,
            value: 0.0,
            first: 0,
            count: 0,
            proof: OPEN,
        }
    }

    fn expanded(&self) -> bool {
        self.count > 0
    }

    fn children(&self) -> std::ops::Range<usize> {
        self.first as usize..(self.first + self.count) as usize
    }

    /// The mean result for `color` (`None` unvisited).
    fn mean_for(&self, color: Color) -> Option<f64> {
        let n = self.visits + self.pending;
        (n > 0).then(|| {
            let q = (self.value - f64::from(self.pending)) / f64::from(n);
            if color == self.mover {
                q
            } else {
                -q
            }
        })
    }
}

/// Gumbel root state of one search.
#[derive(Clone, Debug, Default)]
struct GumbelState {
    /// `g + logit` per root child.
    base: Vec<f32>,
    logits: Vec<f32>,
    /// Root children (offsets) still considered.
    remaining: Vec<usize>,
    queue: VecDeque<usize>,
    phases: u32,
    budget: u32,
    ran_phase: bool,
}

struct Inflight<G: Game> {
    path: Vec<usize>,
    pos: G,
}

enum Step<G: Game> {
    /// The last node's value for its mover is known (terminal or proven).
    Known(Vec<usize>, f64),
    /// A leaf for the network.
    Leaf(Vec<usize>, G),
    /// The way leads to a leaf already in flight.
    Busy,
}

/// One PUCT tree. Use it through [`PuctAgent`], [`search_together`] or by hand: [`start`]
/// a search, then [`gather`] and [`feed`] until [`done`], then read [`result`].
///
/// [`start`]: Puct::start
/// [`gather`]: Puct::gather
/// [`feed`]: Puct::feed
/// [`done`]: Puct::done
/// [`result`]: Puct::result
pub struct Puct<G: Game> {
    config: PuctConfig,
    rng: ChaCha8Rng,
    exact: Option<Arc<dyn ExactLeaf<G>>>,
    nodes: Vec<Node<G::Move>>,
    root_pos: Option<G>,
    /// Root priors this search selects with (noise mixed in), per root child.
    root_priors: Vec<f32>,
    gumbel: Option<GumbelState>,
    target: u32,
    started: u32,
    deadline: Option<Instant>,
    inflight: Vec<Inflight<G>>,
    /// Whether the root's priors are ready for this search (noise and the Gumbel draw).
    prepared: bool,
    /// The root was proven lost and is being searched again without proofs
    /// ([`PuctConfig::resist`]).
    resisting: bool,
}

impl<G: Game> Puct<G> {
    /// An empty tree with these settings and its own random stream.
    #[must_use]
    pub fn new(config: PuctConfig, seed: u64) -> Self {
        Puct {
            config,
            rng: ChaCha8Rng::seed_from_u64(seed),
            exact: None,
            nodes: Vec::new(),
            root_pos: None,
            root_priors: Vec::new(),
            gumbel: None,
            target: 0,
            started: 0,
            deadline: None,
            inflight: Vec::new(),
            prepared: false,
            resisting: false,
        }
    }

    /// Exact results at leaves (never at the root, whose moves must be searched).
    #[must_use]
    pub fn with_exact(mut self, exact: Arc<dyn ExactLeaf<G>>) -> Self {
        self.exact = Some(exact);
        self
    }

    /// The settings.
    #[must_use]
    pub fn config(&self) -> &PuctConfig {
        &self.config
    }

    /// Changes the settings for the next search (the tree is kept).
    pub fn set_config(&mut self, config: PuctConfig) {
        self.config = config;
    }

    /// Forgets the tree.
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.root_pos = None;
        self.inflight.clear();
        self.gumbel = None;
        self.prepared = false;
    }

    /// Nodes in the tree.
    #[must_use]
    pub fn tree_size(&self) -> usize {
        self.nodes.len()
    }

    /// Visits of the root (including reused ones).
    #[must_use]
    pub fn root_visits(&self) -> u32 {
        self.nodes.first().map_or(0, |n| n.visits)
    }

    /// Starts a search from `pos` with `budget` over the configured limits. The tree is kept
    /// when `pos` is its root or one or two moves below it (with `reuse`); else it starts
    /// afresh.
    pub fn start(&mut self, pos: &G, budget: &Budget) {
        // Leaves still in flight (a search cut by an error) give back their virtual losses.
        for leaf in std::mem::take(&mut self.inflight) {
            for &n in &leaf.path {
                if let Some(node) = self.nodes.get_mut(n) {
                    node.pending = node.pending.saturating_sub(1);
                }
            }
        }
        self.gumbel = None;
        self.prepared = false;
        self.resisting = false;
        if !(self.config.reuse && self.reroot(pos)) {
            self.nodes.clear();
            self.nodes.push(Self::bare_root(pos));
            self.root_pos = Some(pos.clone());
        }
        let time = budget.time.or(self.config.time);
        let sims = budget
            .nodes
            .map(|n| u32::try_from(n).unwrap_or(u32::MAX))
            .or(self.config.sims);
        self.target = match (sims, time) {
            (Some(s), _) => s.max(1),
            (None, Some(_)) => u32::MAX,
            (None, None) => DEFAULT_SIMS,
        };
        self.deadline = time.map(|t| Instant::now() + Budget::stop_within(t));
        self.started = 0;
        if self.nodes[0].expanded() {
            self.prepare_root();
        } else {
            self.nodes[0].proof = OPEN;
        }
    }

    /// Moves the root to `pos` when it is the root or within two plies below it; false when
    /// it is not in the tree.
    fn reroot(&mut self, pos: &G) -> bool {
        let Some(root_pos) = self.root_pos.clone() else {
            return false;
        };
        if root_pos == *pos {
            return true;
        }
        let mut frontier = vec![(0usize, root_pos)];
        for _ in 0..2 {
            let mut next = Vec::new();
            for (node, at) in frontier {
                for c in self.nodes[node].children() {
                    let Some(mv) = self.nodes[c].mv else { continue };
                    let child = at.play_unchecked(mv);
                    if child == *pos {
                        self.compact(c);
                        self.root_pos = Some(child);
                        return true;
                    }
                    next.push((c, child));
                }
            }
            frontier = next;
        }
        false
    }

    /// Keeps only the subtree of `new_root`, which becomes node 0.
    fn compact(&mut self, new_root: usize) {
        let mut nodes = Vec::with_capacity(self.nodes.len() / 4 + 1);
        let mut root = self.nodes[new_root].clone();
        root.mv = None;
        root.prior = 1.0;
        root.pending = 0;
        nodes.push(root);
        let mut queue = VecDeque::from([(new_root, 0usize)]);
        while let Some((old, new)) = queue.pop_front() {
            let range = self.nodes[old].children();
            if range.is_empty() {
                continue;
            }
            let first = nodes.len();
            for c in range {
                let mut node = self.nodes[c].clone();
                node.pending = 0;
                queue.push_back((c, nodes.len()));
                nodes.push(node);
            }
            nodes[new].first = u32::try_from(first).unwrap_or(u32::MAX);
        }
        self.nodes = nodes;
    }

    /// The root priors of this search: noise mixed in, and the Gumbel draw.
    fn prepare_root(&mut self) {
        self.prepared = true;
        let range = self.nodes[0].children();
        let priors: Vec<f32> = range.clone().map(|c| self.nodes[c].prior).collect();
        self.root_priors.clone_from(&priors);
        if let Some(noise) = self.config.noise.filter(|_| self.config.gumbel.is_none()) {
            if let Ok(gamma) = Gamma::new(f64::from(noise.alpha.max(1e-3)), 1.0) {
                let draws: Vec<f64> = priors.iter().map(|_| gamma.sample(&mut self.rng)).collect();
                let total: f64 = draws.iter().sum();
                if total > 0.0 {
                    for (p, d) in self.root_priors.iter_mut().zip(&draws) {
                        *p = (1.0 - noise.frac) * *p + noise.frac * (*d / total) as f32;
                    }
                }
            }
        }
        if let Some(cfg) = self.config.gumbel {
            let logits: Vec<f32> = priors.iter().map(|p| p.max(1e-20).ln()).collect();
            let base: Vec<f32> = logits
                .iter()
                .map(|l| {
                    let g = if cfg.sample {
                        Gumbel::new(0.0f64, 1.0).map_or(0.0, |d| d.sample(&mut self.rng) as f32)
                    } else {
                        0.0
                    };
                    l + g
                })
                .collect();
            let budget_now = if self.target == u32::MAX {
                DEFAULT_SIMS
            } else {
                self.target.saturating_sub(self.started)
            };
            let m = cfg
                .considered
                .max(1)
                .min(priors.len())
                .min(budget_now.max(1) as usize);
            let mut order: Vec<usize> = (0..priors.len()).collect();
            order.sort_by(|&a, &b| base[b].total_cmp(&base[a]).then(a.cmp(&b)));
            order.truncate(m);
            let phases = (usize::BITS - (m.max(2) - 1).leading_zeros()).max(1);
            let budget = budget_now;
            self.gumbel = Some(GumbelState {
                base,
                logits,
                remaining: order,
                queue: VecDeque::new(),
                phases,
                budget,
                ran_phase: false,
            });
        }
    }

    /// Whether no more simulations start in this search (a root proven lost that will be
    /// searched again, [`PuctConfig::resist`], does not stop it).
    fn stop_starting(&self) -> bool {
        self.started >= self.target
            || self
                .nodes
                .first()
                .is_some_and(|n| n.proof != OPEN && !self.will_resist())
            || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Whether the root is proven lost for its side to move and will be searched again.
    fn will_resist(&self) -> bool {
        self.config.resist
            && self.config.solver
            && !self.resisting
            && self.nodes.first().is_some_and(|root| root.proof == 1)
    }

    /// Starts the search of a lost root again from a bare root, without proofs or exact
    /// leaves (the simulations already spent stay spent).
    fn begin_resisting(&mut self) {
        let Some(pos) = self.root_pos.as_ref() else {
            return;
        };
        let root = Self::bare_root(pos);
        self.resisting = true;
        self.nodes.clear();
        self.nodes.push(root);
        self.gumbel = None;
        self.prepared = false;
    }

    /// An unexpanded root for `pos`.
    fn bare_root(pos: &G) -> Node<G::Move> {
        Node::new(None, pos.side_to_move().opponent(), 1.0)
    }

    /// Whether proofs are kept and propagated now (the MCTS-solver, and not a lost root
    /// searched again).
    fn proving(&self) -> bool {
        self.config.solver && !self.resisting
    }

    /// Whether the search is over (nothing in flight and no more to start).
    #[must_use]
    pub fn done(&self) -> bool {
        self.inflight.is_empty() && self.stop_starting()
    }

    /// Appends the positions this tree needs evaluated next (up to [`PuctConfig::leaves`]) to
    /// `out` and returns how many; 0 when the search is done. Terminal and proven leaves are
    /// settled on the way without the network. Each gather must be answered by one
    /// [`feed`](Puct::feed) before the next.
    pub fn gather(&mut self, out: &mut Vec<G>) -> usize {
        if !self.inflight.is_empty() || self.root_pos.is_none() {
            return 0;
        }
        let limit = self.config.leaves.max(1);
        while self.inflight.len() < limit && !self.stop_starting() {
            if self.will_resist() {
                if !self.inflight.is_empty() {
                    break;
                }
                self.begin_resisting();
            }
            match self.descend() {
                Step::Known(path, v) => {
                    self.started += 1;
                    self.backup(&path, v);
                    self.propagate(&path);
                }
                Step::Leaf(path, pos) => {
                    self.started += 1;
                    if limit > 1 {
                        for &n in &path {
                            self.nodes[n].pending += 1;
                        }
                    }
                    out.push(pos.clone());
                    self.inflight.push(Inflight { path, pos });
                }
                Step::Busy => break,
            }
        }
        self.inflight.len()
    }

    /// Answers the last [`gather`](Puct::gather): one evaluation per position, in order.
    ///
    /// # Errors
    /// [`FeedError`] when the count differs (nothing is changed then).
    pub fn feed(&mut self, evals: &[PriorsValue]) -> Result<(), FeedError> {
        if evals.len() != self.inflight.len() {
            return Err(FeedError {
                asked: self.inflight.len(),
                given: evals.len(),
            });
        }
        let inflight = std::mem::take(&mut self.inflight);
        let virtual_loss = self.config.leaves > 1;
        for (leaf, eval) in inflight.into_iter().zip(evals) {
            if virtual_loss {
                for &n in &leaf.path {
                    self.nodes[n].pending = self.nodes[n].pending.saturating_sub(1);
                }
            }
            let node = leaf.path.last().copied().unwrap_or(0);
            let stm = leaf.pos.side_to_move();
            let v = if eval.value.is_finite() {
                eval.value.clamp(-1.0, 1.0)
            } else {
                0.0
            };
            let v_mover = if self.nodes[node].mover == stm { v } else { -v };
            if !self.nodes[node].expanded() {
                self.expand(node, &leaf.pos, &eval.priors);
                self.nodes[node].net_value = v_mover;
            }
            self.backup(&leaf.path, f64::from(v_mover));
            if node == 0 && !self.prepared {
                self.prepare_root();
            }
        }
        Ok(())
    }

    fn tree_bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<Node<G::Move>>()
    }

    fn expand(&mut self, node: usize, pos: &G, priors: &[f32]) {
        let moves = pos.legal_moves();
        let grow = moves.len() * std::mem::size_of::<Node<G::Move>>();
        let needs_more = self.nodes.len() + moves.len() > self.nodes.capacity();
        let after = if needs_more {
            (self.nodes.len() + moves.len()).max(self.nodes.capacity() * 2)
                * std::mem::size_of::<Node<G::Move>>()
        } else {
            self.tree_bytes()
        };
        if node != 0 && (after > self.config.max_tree_bytes || grow > self.config.max_tree_bytes) {
            return;
        }
        let raw: Vec<f32> = moves
            .iter()
            .map(|&mv| {
                priors
                    .get(G::action_index(mv))
                    .copied()
                    .filter(|p| p.is_finite() && *p > 0.0)
                    .unwrap_or(0.0)
            })
            .collect();
        let total: f32 = raw.iter().sum();
        let uniform = 1.0 / moves.len().max(1) as f32;
        let first = self.nodes.len();
        let mover = pos.side_to_move();
        for (&mv, &p) in moves.iter().zip(&raw) {
            let prior = if total > 0.0 { p / total } else { uniform };
            self.nodes.push(Node::new(Some(mv), mover, prior));
        }
        let n = &mut self.nodes[node];
        n.first = u32::try_from(first).unwrap_or(u32::MAX);
        n.count = u32::try_from(moves.len()).unwrap_or(0);
    }

    /// One selection from the root.
    fn descend(&mut self) -> Step<G> {
        let Some(mut pos) = self.root_pos.clone() else {
            return Step::Busy;
        };
        let mut path = vec![0usize];
        let mut node = 0usize;
        let mut forced: Option<usize> = None;
        loop {
            let n = &self.nodes[node];
            if n.proof != OPEN {
                return Step::Known(path, f64::from(n.proof));
            }
            if !n.expanded() {
                if n.pending > 0 {
                    if let Some(c) = forced {
                        if let Some(g) = self.gumbel.as_mut() {
                            g.queue.push_front(c);
                        }
                    }
                    return Step::Busy;
                }
                let mover = n.mover;
                if let Some(outcome) = pos.outcome() {
                    let r = outcome.value_for(mover) as i8;
                    self.nodes[node].proof = r;
                    return Step::Known(path, f64::from(r));
                }
                if node != 0 && !self.resisting {
                    if let Some(r) = self.exact.as_ref().and_then(|e| e.exact(&pos)) {
                        let r = r.clamp(-1, 1);
                        let r = if mover == pos.side_to_move() { r } else { -r };
                        self.nodes[node].proof = r;
                        return Step::Known(path, f64::from(r));
                    }
                }
                return Step::Leaf(path, pos);
            }
            let child = if node == 0 && self.gumbel.is_some() {
                match self.gumbel_next() {
                    Some(c) => {
                        forced = Some(c);
                        self.nodes[0].first as usize + c
                    }
                    None => self.select_child(node),
                }
            } else {
                self.select_child(node)
            };
            let Some(mv) = self.nodes[child].mv else {
                return Step::Busy;
            };
            pos = pos.play_unchecked(mv);
            path.push(child);
            node = child;
        }
    }

    /// The next root child (offset) of sequential halving.
    fn gumbel_next(&mut self) -> Option<usize> {
        let needs_phase = self.gumbel.as_ref()?.queue.is_empty();
        if needs_phase {
            let scores = self.gumbel_scores();
            let g = self.gumbel.as_mut()?;
            if g.ran_phase && g.remaining.len() > 1 {
                g.remaining.sort_by(|&a, &b| {
                    let sa = g.base[a] + scores[a];
                    let sb = g.base[b] + scores[b];
                    sb.total_cmp(&sa).then(a.cmp(&b))
                });
                let keep = g.remaining.len().div_ceil(2);
                g.remaining.truncate(keep);
            }
            let per = if g.remaining.len() == 1 {
                g.budget.max(1)
            } else {
                (g.budget / (g.phases * g.remaining.len() as u32)).max(1)
            };
            for _ in 0..per {
                g.queue.extend(g.remaining.iter().copied());
            }
            g.ran_phase = true;
        }
        self.gumbel.as_mut()?.queue.pop_front()
    }

    /// `sigma(completed q)` per root child, on values rescaled to `[0, 1]`.
    fn gumbel_scores(&self) -> Vec<f32> {
        let Some(cfg) = self.config.gumbel else {
            return Vec::new();
        };
        let q = self.completed_q();
        let lo = q.iter().copied().fold(f32::INFINITY, f32::min);
        let hi = q.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let span = (hi - lo).max(1e-6);
        let max_n = self.nodes[0]
            .children()
            .map(|c| self.nodes[c].visits)
            .max()
            .unwrap_or(0) as f32;
        q.iter()
            .map(|v| (cfg.c_visit + max_n) * cfg.c_scale * ((v - lo) / span))
            .collect()
    }

    /// Root children's values for the side to move: the mean for visited ones (the proven
    /// value where proven), the mixed value `v_mix` for the rest.
    fn completed_q(&self) -> Vec<f32> {
        let root = &self.nodes[0];
        let stm = root.mover.opponent();
        let mut sum_n = 0.0f64;
        let mut sum_pq = 0.0f64;
        let mut sum_p = 0.0f64;
        for c in root.children() {
            let n = &self.nodes[c];
            if let Some(q) = n.mean_for(stm) {
                sum_n += f64::from(n.visits);
                sum_pq += f64::from(n.prior) * q;
                sum_p += f64::from(n.prior);
            }
        }
        let v_net = f64::from(if root.mover == stm {
            root.net_value
        } else {
            -root.net_value
        });
        let v_mix = if sum_p > 0.0 {
            (v_net + sum_n * sum_pq / sum_p) / (1.0 + sum_n)
        } else {
            v_net
        };
        root.children()
            .map(|c| {
                let n = &self.nodes[c];
                if n.proof != OPEN {
                    f32::from(n.proof)
                } else {
                    n.mean_for(stm).unwrap_or(v_mix) as f32
                }
            })
            .collect()
    }

    fn select_child(&self, node: usize) -> usize {
        let n = &self.nodes[node];
        let range = n.children();
        let stm = self.nodes[range.start].mover;
        let parent_q = n.mean_for(stm).unwrap_or(0.0) as f32;
        let total: u32 = range
            .clone()
            .map(|c| self.nodes[c].visits + self.nodes[c].pending)
            .sum();
        let sqrt_n = (total.max(1) as f32).sqrt();
        let mut best = range.start;
        let mut best_score = f32::NEG_INFINITY;
        for (i, c) in range.enumerate() {
            let child = &self.nodes[c];
            if child.proof == -1 && self.proving() {
                continue;
            }
            let q = if child.proof != OPEN {
                f32::from(child.proof)
            } else {
                child
                    .mean_for(stm)
                    .map_or(parent_q - self.config.fpu, |q| q as f32)
            };
            let prior = if node == 0 {
                self.root_priors.get(i).copied().unwrap_or(child.prior)
            } else {
                child.prior
            };
            let u =
                self.config.c_puct * prior * sqrt_n / (1.0 + (child.visits + child.pending) as f32);
            let score = q + u;
            if score > best_score {
                best_score = score;
                best = c;
            }
        }
        best
    }

    /// Adds `v` (the last node's value for its mover) along `path`.
    fn backup(&mut self, path: &[usize], v: f64) {
        let Some(&last) = path.last() else { return };
        let color = self.nodes[last].mover;
        for &n in path {
            let node = &mut self.nodes[n];
            node.visits = node.visits.saturating_add(1);
            node.value += if node.mover == color { v } else { -v };
        }
    }

    /// Proves the nodes above the end of `path` that its proof decides.
    fn propagate(&mut self, path: &[usize]) {
        if !self.proving() {
            return;
        }
        for &n in path.iter().rev().skip(1) {
            let node = &self.nodes[n];
            let range = node.children();
            let Some(first) = range.clone().next() else {
                return;
            };
            let stm = self.nodes[first].mover;
            let mut best = -2i8;
            let mut all = true;
            for c in range {
                match self.nodes[c].proof {
                    OPEN => all = false,
                    r => best = best.max(r),
                }
            }
            let r = if best == 1 {
                1
            } else if all {
                best
            } else {
                return;
            };
            let mover = node.mover;
            self.nodes[n].proof = if mover == stm { r } else { -r };
        }
    }

    /// What the search found (call when [`done`](Puct::done)); `None` before the root has
    /// been expanded.
    #[must_use]
    pub fn result(&self) -> Option<SearchResult<G::Move>> {
        let root = self.nodes.first()?;
        if !root.expanded() {
            return None;
        }
        let stm = root.mover.opponent();
        let range = root.children();
        let visits: Vec<(G::Move, u32)> = range
            .clone()
            .filter_map(|c| self.nodes[c].mv.map(|m| (m, self.nodes[c].visits)))
            .collect();
        let proofs: Vec<i8> = range.clone().map(|c| self.nodes[c].proof).collect();
        let winning = proofs.contains(&1);
        let most_visited = |allowed: &dyn Fn(usize) -> bool| {
            let mut best: Option<usize> = None;
            for i in 0..visits.len() {
                if !allowed(i) {
                    continue;
                }
                let better = best.is_none_or(|b| {
                    let (vi, vb) = (visits[i].1, visits[b].1);
                    vi > vb
                        || (vi == vb
                            && self.nodes[range.start + i].prior
                                > self.nodes[range.start + b].prior)
                });
                if better {
                    best = Some(i);
                }
            }
            best
        };
        let mut policy = vec![0.0f32; G::NUM_ACTIONS];
        let best_i = if winning {
            most_visited(&|i| proofs[i] == 1)
        } else if let Some(g) = &self.gumbel {
            let scores = self.gumbel_scores();
            let live: Vec<usize> = g
                .remaining
                .iter()
                .copied()
                .filter(|&i| proofs[i] != -1)
                .collect();
            let pool = if live.is_empty() { &g.remaining } else { &live };
            // Among the most visited of them (a search cut inside a phase leaves some
            // unvisited, valued only by the mixed value).
            let top = pool.iter().map(|&i| visits[i].1).max().unwrap_or(0);
            pool.iter()
                .copied()
                .filter(|&i| visits[i].1 == top)
                .max_by(|&a, &b| {
                    (g.base[a] + scores[a])
                        .total_cmp(&(g.base[b] + scores[b]))
                        .then(b.cmp(&a))
                })
        } else {
            most_visited(&|i| proofs[i] != -1).or_else(|| most_visited(&|_| true))
        }
        .unwrap_or(0);
        if let (Some(g), false) = (&self.gumbel, winning) {
            let scores = self.gumbel_scores();
            let z: Vec<f32> = g.logits.iter().zip(&scores).map(|(l, s)| l + s).collect();
            let max = z.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let e: Vec<f32> = z.iter().map(|v| (v - max).exp()).collect();
            let sum: f32 = e.iter().sum();
            for ((mv, _), p) in visits.iter().zip(&e) {
                policy[G::action_index(*mv)] = p / sum.max(f32::MIN_POSITIVE);
            }
        } else {
            let counted = |i: usize| !winning || proofs[i] == 1;
            let sum: u32 = (0..visits.len())
                .filter(|&i| counted(i))
                .map(|i| visits[i].1)
                .sum();
            for (i, (mv, n)) in visits.iter().enumerate() {
                if counted(i) {
                    policy[G::action_index(*mv)] = if sum > 0 {
                        *n as f32 / sum as f32
                    } else if i == best_i {
                        1.0
                    } else {
                        0.0
                    };
                }
            }
        }
        // A root searched again after its loss was proven is still lost.
        let proven = if self.resisting {
            Some(-1)
        } else {
            (root.proof != OPEN).then(|| {
                if root.mover == stm {
                    root.proof
                } else {
                    -root.proof
                }
            })
        };
        let value = match proven {
            Some(r) => f32::from(r),
            None => root.mean_for(stm).unwrap_or(0.0) as f32,
        };
        Some(SearchResult {
            best: visits.get(best_i).map(|v| v.0)?,
            visits,
            policy,
            value,
            proven,
            move_proofs: proofs.iter().map(|&p| (p != OPEN).then_some(p)).collect(),
            sims: self.started,
        })
    }

    /// The line of most visited moves from the root.
    #[must_use]
    pub fn principal_variation(&self, max_len: usize) -> Vec<G::Move> {
        let mut line = Vec::new();
        let mut node = 0usize;
        while line.len() < max_len {
            let Some(n) = self.nodes.get(node) else { break };
            let Some(best) = n
                .children()
                .max_by_key(|&c| (self.nodes[c].visits, usize::MAX - c))
            else {
                break;
            };
            if self.nodes[best].visits == 0 {
                break;
            }
            let Some(mv) = self.nodes[best].mv else { break };
            line.push(mv);
            node = best;
        }
        line
    }
}

/// Runs the searches of all `trees` (each already [`start`](Puct::start)ed) to their ends,
/// sending the leaves every tree needs at each step to `net` in one batch.
///
/// # Errors
/// [`AgentError::Failed`] when the network answers a different number of positions.
pub fn search_together<G: Game>(
    trees: &mut [&mut Puct<G>],
    net: &dyn PolicyValue<G>,
) -> Result<(), AgentError> {
    let mut batch: Vec<G> = Vec::new();
    while step_together(trees, net, &mut batch)? {}
    Ok(())
}

/// One step of many searches: the leaves every tree needs now go to `net` in one batch
/// (`batch` is scratch space), and each tree gets its answers. False when no tree needed any
/// (every search is done).
///
/// # Errors
/// [`AgentError::Failed`] when the network answers a different number of positions.
pub fn step_together<G: Game>(
    trees: &mut [&mut Puct<G>],
    net: &dyn PolicyValue<G>,
    batch: &mut Vec<G>,
) -> Result<bool, AgentError> {
    batch.clear();
    let counts: Vec<usize> = trees.iter_mut().map(|t| t.gather(batch)).collect();
    if batch.is_empty() {
        return Ok(false);
    }
    let evals = net.policy_value(batch);
    if evals.len() != batch.len() {
        return Err(AgentError::Failed(format!(
            "the network gave {} evaluations for {} positions",
            evals.len(),
            batch.len()
        )));
    }
    let mut at = 0;
    for (tree, &n) in trees.iter_mut().zip(&counts) {
        tree.feed(&evals[at..at + n])
            .map_err(|e| AgentError::Failed(e.to_string()))?;
        at += n;
    }
    Ok(true)
}

/// The PUCT player: one tree over a shared network.
pub struct PuctAgent<G: Game> {
    name: String,
    net: Arc<dyn PolicyValue<G>>,
    tree: Puct<G>,
}

impl<G: Game> PuctAgent<G> {
    /// A player named `name` searching `net` with `config`.
    #[must_use]
    pub fn new(
        name: impl Into<String>,
        net: Arc<dyn PolicyValue<G>>,
        config: PuctConfig,
        seed: u64,
    ) -> Self {
        PuctAgent {
            name: name.into(),
            net,
            tree: Puct::new(config, seed),
        }
    }

    /// Exact results at leaves.
    #[must_use]
    pub fn with_exact(mut self, exact: Arc<dyn ExactLeaf<G>>) -> Self {
        self.tree = self.tree.with_exact(exact);
        self
    }

    /// Searches `pos` and returns what the search found.
    ///
    /// # Errors
    /// [`AgentError::GameOver`] on a finished position; [`AgentError::Failed`] when the network
    /// misbehaves.
    pub fn search(
        &mut self,
        pos: &G,
        budget: &Budget,
    ) -> Result<SearchResult<G::Move>, AgentError> {
        if pos.is_over() {
            return Err(AgentError::GameOver);
        }
        self.tree.start(pos, budget);
        search_together(&mut [&mut self.tree], self.net.as_ref())?;
        self.tree
            .result()
            .ok_or_else(|| AgentError::Failed("the search expanded no root".into()))
    }
}

impl<G: Game> Agent<G> for PuctAgent<G> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self) {
        self.tree.clear();
    }

    fn select(&mut self, pos: &G, budget: &Budget) -> Result<Decision<G::Move>, AgentError> {
        let result = self.search(pos, budget)?;
        let score = match result.proven {
            Some(1) => WIN + 1,
            Some(-1) => -WIN - 1,
            Some(_) => 0,
            None => (result.value * 100.0).round() as i32,
        };
        let mut pv = self.tree.principal_variation(16);
        if pv.first() != Some(&result.best) {
            pv = vec![result.best];
        }
        Ok(Decision {
            mv: result.best,
            score: Some(score),
            pv,
            depth: None,
            nodes: u64::from(result.sims),
            scale: ScoreScale::Expectation,
        })
    }

    fn table_bytes(&self) -> usize {
        self.tree.config().max_tree_bytes
    }
}

/// PUCT players for the multi-game [`driver`](crate::driver): batched player `p` searches with
/// its own network and settings, one tree per game, and all the searches of a step share one
/// network batch per simulation step.
pub struct PuctPlayers<G: Game> {
    players: Vec<(Arc<dyn PolicyValue<G>>, PuctConfig)>,
    trees: Vec<Vec<Option<Puct<G>>>>,
    seed: u64,
}

impl<G: Game> PuctPlayers<G> {
    /// Players `0..players.len()`, each a network and its search settings; game `g`'s tree of
    /// player `p` is seeded by [`crate::selfplay::game_seed`]`(seed, g, p)`.
    #[must_use]
    pub fn new(players: Vec<(Arc<dyn PolicyValue<G>>, PuctConfig)>, seed: u64) -> Self {
        let trees = players.iter().map(|_| Vec::new()).collect();
        PuctPlayers {
            players,
            trees,
            seed,
        }
    }
}

impl<G: Game> crate::driver::BatchedPlayers<G> for PuctPlayers<G> {
    fn choose(
        &mut self,
        player: usize,
        requests: &[(usize, &G)],
    ) -> Result<Vec<G::Move>, AgentError> {
        let (net, config) = self
            .players
            .get(player)
            .ok_or_else(|| AgentError::Failed(format!("no batched player {player}")))?;
        let trees = &mut self.trees[player];
        for &(game, pos) in requests {
            if trees.len() <= game {
                trees.resize_with(game + 1, || None);
            }
            let seed = crate::selfplay::game_seed(self.seed, game, player as u64);
            trees[game]
                .get_or_insert_with(|| Puct::new(config.clone(), seed))
                .start(pos, &Budget::default());
        }
        let wanted: std::collections::HashSet<usize> = requests.iter().map(|r| r.0).collect();
        let mut refs: Vec<&mut Puct<G>> = trees
            .iter_mut()
            .enumerate()
            .filter(|(g, _)| wanted.contains(g))
            .filter_map(|(_, t)| t.as_mut())
            .collect();
        search_together(&mut refs, net.as_ref())?;
        refs.iter()
            .map(|t| {
                t.result()
                    .map(|r| r.best)
                    .ok_or_else(|| AgentError::Failed("a search expanded no root".into()))
            })
            .collect()
    }

    fn finished(&mut self, game: usize, _end: &G) {
        for trees in &mut self.trees {
            if let Some(t) = trees.get_mut(game) {
                *t = None;
            }
        }
    }
}
