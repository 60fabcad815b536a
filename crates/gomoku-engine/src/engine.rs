//! The strong Gomoku agent: threat-space search (VCF, then VCT) at the root, then principal
//! variation search with iterative deepening over threat-restricted, pattern-ordered moves, a
//! transposition table and time management.

use std::time::{Duration, Instant};

use game::Game;
use gomoku::{Gomoku, Point, Variant};
use search::{Agent, AgentError, Budget, Decision, Spec, SpecError, WIN};

use crate::patterns::Pattern;
use crate::state::{color_index, index_of, point_of, State, Threat};
use crate::vcf::{five_points, vcf, vct, ThreatSearch};

/// The spec keys of the `gomoku` agent.
pub const KEYS: &[(&str, &str)] = &[
    (
        "time",
        "thinking time per move, e.g. 500ms or 2s (default 1s)",
    ),
    (
        "depth",
        "deepest alpha-beta iteration (default 64: time decides)",
    ),
    (
        "nodes",
        "stop after about this many nodes (default: no limit)",
    ),
    (
        "width",
        "moves searched per node, best first by pattern score (default 16)",
    ),
    (
        "vcf",
        "search for a win by continuous fours first: on/off (default on)",
    ),
    (
        "vct",
        "search for a win by fours and threes first: on/off (default on)",
    ),
];

/// A win by continuous fours for the side to move: the whole line, attacker and defender
/// moves alternating and ending with the five (or with a defender's forced point that renju
/// forbids), or `None` when none is found within `node_limit` nodes.
#[must_use]
pub fn find_vcf(board: &gomoku::Board, node_limit: u64) -> Option<Vec<Point>> {
    if board.is_over() {
        return None;
    }
    let mut state = State::new(board);
    let mut search = ThreatSearch::new(node_limit, None);
    let line = vcf(&mut state, &mut search, 60)?;
    Some(line.into_iter().filter_map(point_of).collect())
}

/// Settings of [`GomokuEngine`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineConfig {
    /// Time per move ([`DEFAULT_TIME`] by default); `None` searches without a clock, to the
    /// depth or node limit. A caller's budget overrides it.
    pub time: Option<Duration>,
    /// Deepest iteration.
    pub depth: u32,
    /// Node limit per move.
    pub nodes: Option<u64>,
    /// Moves per node.
    pub width: usize,
    /// Run VCF at the root.
    pub vcf: bool,
    /// Run VCT at the root.
    pub vct: bool,
}

/// Thinking time per move when nothing else limits the search.
pub const DEFAULT_TIME: Duration = Duration::from_secs(1);

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            time: Some(DEFAULT_TIME),
            depth: 64,
            nodes: None,
            width: 16,
            vcf: true,
            vct: true,
        }
    }
}

fn switch(spec: &Spec, key: &str, default: bool) -> Result<bool, SpecError> {
    match spec.text(key) {
        None => Ok(default),
        Some(v) => match v.to_ascii_lowercase().as_str() {
            "on" | "true" | "yes" | "1" => Ok(true),
            "off" | "false" | "no" | "0" => Ok(false),
            _ => Err(SpecError::BadValue {
                agent: spec.name.clone(),
                key: key.into(),
                value: v.into(),
                why: "expected on or off".into(),
            }),
        },
    }
}

impl EngineConfig {
    /// Reads the `gomoku` agent's spec keys: [`DEFAULT_TIME`] a move unless `time=` says
    /// otherwise; a depth or node limit without a time means no time limit.
    ///
    /// # Errors
    /// Unknown keys or bad values.
    pub fn from_spec(spec: &Spec) -> Result<Self, SpecError> {
        let mut keys: Vec<(&str, &str)> = KEYS.to_vec();
        keys.push(("seed", "unused: the engine is deterministic"));
        spec.check_keys(&keys)?;
        let mut config = EngineConfig::default();
        let depth = spec.positive("depth")?;
        let nodes = spec.positive("nodes")?;
        config.time = match spec.duration("time")? {
            Some(t) => Some(t),
            None if depth.is_some() || nodes.is_some() => None,
            None => Some(DEFAULT_TIME),
        };
        if let Some(d) = depth {
            config.depth = d.min(64) as u32;
        }
        config.nodes = nodes;
        if let Some(w) = spec.positive("width")? {
            config.width = (w as usize).clamp(1, 400);
        }
        config.vcf = switch(spec, "vcf", true)?;
        config.vct = switch(spec, "vct", true)?;
        Ok(config)
    }
}

#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    depth: i8,
    bound: u8,
    score: i32,
    mv: u16,
}

const EXACT: u8 = 0;
const LOWER: u8 = 1;
const UPPER: u8 = 2;
const TABLE_BITS: u32 = 20;
const MAX_PLY: usize = 80;

/// The strong engine (spec `gomoku`).
pub struct GomokuEngine {
    config: EngineConfig,
    table: Vec<Entry>,
    nodes: u64,
    node_limit: u64,
    deadline: Option<Instant>,
    stopped: bool,
    name: String,
}

impl GomokuEngine {
    /// An engine with these settings.
    #[must_use]
    pub fn new(config: EngineConfig) -> Self {
        GomokuEngine {
            config,
            // Allocated by the first search (see `Agent::table_bytes`).
            table: Vec::new(),
            nodes: 0,
            node_limit: u64::MAX,
            deadline: None,
            stopped: false,
            name: "gomoku".into(),
        }
    }

    /// Names the agent (the spec string it was built from).
    #[must_use]
    pub fn with_name(mut self, name: &str) -> Self {
        self.name = name.into();
        self
    }

    fn out_of_time(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.nodes >= self.node_limit
            || (self.nodes.is_multiple_of(256)
                && self.deadline.is_some_and(|d| Instant::now() >= d))
        {
            self.stopped = true;
        }
        self.stopped
    }

    /// Searches the board for the side to move: the best move, its score, depth reached, the
    /// principal variation, nodes. `None` when the game is over.
    pub fn think(&mut self, board: &gomoku::Board, budget: &Budget) -> Option<Decision<Point>> {
        if board.is_over() {
            return None;
        }
        if self.table.is_empty() {
            self.table = vec![Entry::default(); 1 << TABLE_BITS];
        }
        let started = Instant::now();
        let time = budget
            .time
            .or(if budget.depth.is_some() || budget.nodes.is_some() {
                None
            } else {
                self.config.time
            });
        self.deadline = time.map(|t| started + search::Budget::stop_within(t));
        self.node_limit = budget.nodes.or(self.config.nodes).unwrap_or(u64::MAX);
        let max_depth = budget.depth.unwrap_or(self.config.depth).clamp(1, 64);
        self.nodes = 0;
        self.stopped = false;
        let mut state = State::new(board);
        let me = color_index(state.side());
        let legal: Vec<usize> = state
            .on_board
            .iter()
            .copied()
            .filter(|&i| state.legal(i))
            .collect();
        let first = *legal.first()?;
        let decision = |i: usize, score: i32, depth: u32, pv: Vec<usize>, nodes: u64| {
            let mv = point_of(i).unwrap_or(Point::new(0, 0).unwrap_or_else(|| unreachable!()));
            Decision {
                mv,
                score: Some(score),
                pv: pv.into_iter().filter_map(point_of).collect(),
                depth: Some(depth),
                nodes,
                // Pattern scores; a forced win is `WIN - plies` (read as proven).
                scale: search::ScoreScale::Engine,
            }
        };
        if state.stones() == 0 {
            let n = state.size();
            let centre = Point::new(n / 2, n / 2).map(index_of).unwrap_or(first);
            return Some(decision(centre, 0, 0, vec![centre], 0));
        }
        // Immediate win, or the one block against a five.
        if let Some(&win) = five_points(&state, me).iter().find(|&&i| state.legal(i)) {
            return Some(decision(win, WIN - 1, 1, vec![win], 1));
        }
        let threats = five_points(&state, 1 - me);
        if let Some(&block) = threats.iter().find(|&&i| state.legal(i)) {
            if threats.len() == 1 || !self.config.vcf {
                return Some(decision(block, 0, 1, vec![block], 1));
            }
        }
        // Threat-space search: a quarter of the time for VCF and VCT together.
        let threat_deadline = time.map(|t| started + t / 4);
        let threat_nodes = if self.node_limit == u64::MAX {
            100_000
        } else {
            (self.node_limit / 4).max(1)
        };
        if self.config.vcf {
            let mut ts = ThreatSearch::new(threat_nodes, threat_deadline);
            let found = vcf(&mut state, &mut ts, 30);
            self.nodes += ts.nodes;
            if let Some(line) = found {
                if let Some(&m) = line.first() {
                    return Some(decision(
                        m,
                        WIN - line.len() as i32,
                        line.len() as u32,
                        line,
                        self.nodes,
                    ));
                }
            }
        }
        if self.config.vct {
            let mut ts = ThreatSearch::new(threat_nodes, threat_deadline);
            let found = vct(&mut state, &mut ts, 4, 16);
            self.nodes += ts.nodes;
            if let Some(m) = found {
                return Some(decision(m, WIN - 50, 0, vec![m], self.nodes));
            }
        }
        // Principal variation search, deepening until time runs out.
        let mut best = (first, 0, 0u32);
        for depth in 1..=max_depth {
            let (score, mv) = self.root(&mut state, depth as i32);
            if self.stopped {
                // A partial iteration still counts (the classic engines' rule): it searched the
                // previous best first (the table's move), so the best of the moves it finished
                // is at least as good; the completed depth is kept.
                if let Some(mv) = mv {
                    best = (mv, score, best.2);
                }
                break;
            }
            if let Some(mv) = mv {
                best = (mv, score, depth);
            }
            if score.abs() >= WIN - MAX_PLY as i32 {
                break;
            }
            // Under a clock the next iteration starts whatever time is left: what it finishes
            // before the deadline counts.
            if self.deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
        }
        let pv = self.principal_variation(&mut state, best.0);
        Some(decision(best.0, best.1, best.2, pv, self.nodes))
    }

    fn principal_variation(&self, state: &mut State, first: usize) -> Vec<usize> {
        let mut pv = vec![first];
        state.play(first);
        let mut played = 1;
        while played < 12 && !state.board.is_over() {
            let e = self.table[(state.hash() as usize) & ((1 << TABLE_BITS) - 1)];
            if e.key != state.hash() || e.mv == 0 || !state.legal(usize::from(e.mv)) {
                break;
            }
            let mv = usize::from(e.mv);
            pv.push(mv);
            state.play(mv);
            played += 1;
        }
        for _ in 0..played {
            state.undo();
        }
        pv
    }

    fn root(&mut self, state: &mut State, depth: i32) -> (i32, Option<usize>) {
        let mut scan = Self::scan(state);
        let moves = self.moves(state, &mut scan, 0, true);
        let mut alpha = -WIN - 1;
        let beta = WIN + 1;
        let mut best = None;
        for (k, &m) in moves.iter().enumerate() {
            state.play(m);
            let score = if k == 0 {
                -self.negamax(state, depth - 1, 1, -beta, -alpha)
            } else {
                let s = -self.negamax(state, depth - 1, 1, -alpha - 1, -alpha);
                if s > alpha && !self.stopped {
                    -self.negamax(state, depth - 1, 1, -beta, -alpha)
                } else {
                    s
                }
            };
            state.undo();
            // A search the clock cut gives no score: only finished moves count.
            if self.stopped {
                break;
            }
            if score > alpha {
                alpha = score;
                best = Some(m);
            }
        }
        if let Some(m) = best.filter(|_| !self.stopped) {
            self.store(state.hash(), depth, 0, alpha, EXACT, m);
        }
        (alpha, best)
    }

    fn store(&mut self, key: u64, depth: i32, ply: usize, score: i32, bound: u8, mv: usize) {
        // Wins and losses are stored as distances from this node, not from the root.
        let score = to_table(score, ply);
        let slot = &mut self.table[(key as usize) & ((1 << TABLE_BITS) - 1)];
        if slot.key != key || depth as i8 >= slot.depth {
            *slot = Entry {
                key,
                depth: depth.clamp(-1, 100) as i8,
                bound,
                score,
                mv: mv as u16,
            };
        }
    }

    /// One pass over the cells near stones: wins, threats and move-ordering scores.
    fn scan(state: &State) -> Scan {
        let me = color_index(state.side());
        let opp = 1 - me;
        let mut scan = Scan::default();
        for &i in &state.on_board {
            if !state.is_empty(i) || !state.near(i) {
                continue;
            }
            let mine = state.threat(me, i);
            let theirs = state.threat(opp, i);
            if mine == Threat::Five && state.makes_five(me, i) {
                scan.own_five.push(i);
            }
            if theirs == Threat::Five && state.makes_five(opp, i) {
                scan.opp_five.push(i);
            }
            if mine == Threat::OpenFour && state.double_five_threat(me, i) {
                scan.own_open_four.push(i);
            }
            if theirs >= Threat::OpenFour && state.double_five_threat(opp, i) {
                scan.opp_open_four = true;
            }
            let blocks_four = (0..4).any(|d| state.pattern(opp, i, d) >= Pattern::Four);
            scan.cells.push(Candidate {
                score: state.cell_score(i, me),
                cell: i,
                attack: mine >= Threat::Four,
                blocks_four,
            });
        }
        scan
    }

    /// Candidate moves: the answers to an open-four threat, or the best `width` cells by
    /// pattern score (the table move first).
    fn moves(&self, state: &State, scan: &mut Scan, ply: usize, root: bool) -> Vec<usize> {
        let cells = &mut scan.cells;
        if scan.opp_open_four {
            // The opponent threatens an open four: block its points or make a four.
            cells.retain(|c| c.attack || c.blocks_four);
        }
        cells.sort_unstable_by(|a, b| b.score.cmp(&a.score).then(a.cell.cmp(&b.cell)));
        let width = if root {
            self.config.width * 2
        } else {
            self.config.width.saturating_sub(ply / 2).max(6)
        };
        let mut out: Vec<usize> = Vec::with_capacity(width + 1);
        let tt = self.table[(state.hash() as usize) & ((1 << TABLE_BITS) - 1)];
        if tt.key == state.hash() && tt.mv != 0 {
            let m = usize::from(tt.mv);
            if state.is_empty(m) && state.legal(m) {
                out.push(m);
            }
        }
        for c in cells.iter() {
            if out.len() >= width {
                break;
            }
            if !out.contains(&c.cell) && state.legal(c.cell) {
                out.push(c.cell);
            }
        }
        out
    }

    fn negamax(
        &mut self,
        state: &mut State,
        depth: i32,
        ply: usize,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        self.nodes += 1;
        if state.board.winner().is_some() {
            // The previous move won.
            return -(WIN - ply as i32);
        }
        if state.board.is_over() {
            return 0;
        }
        if self.out_of_time() {
            return 0;
        }
        let mut scan = Self::scan(state);
        if scan.own_five.iter().any(|&i| state.legal(i)) {
            return WIN - ply as i32 - 1;
        }
        let forced: Option<usize> = match scan.opp_five.as_slice() {
            [] => None,
            [block] => {
                if !state.legal(*block) {
                    return -(WIN - ply as i32 - 2);
                }
                Some(*block)
            }
            _ => return -(WIN - ply as i32 - 2),
        };
        if forced.is_none() {
            // An open four (or double four) of ours wins: the opponent has no five to make.
            if scan.own_open_four.iter().any(|&i| state.legal(i)) {
                return WIN - ply as i32 - 3;
            }
            if depth <= 0 || ply >= MAX_PLY {
                return state.evaluate();
            }
        }
        let key = state.hash();
        let slot = self.table[(key as usize) & ((1 << TABLE_BITS) - 1)];
        if slot.key == key && i32::from(slot.depth) >= depth {
            let score = from_table(slot.score, ply);
            match slot.bound {
                EXACT => return score,
                LOWER if score >= beta => return score,
                UPPER if score <= alpha => return score,
                _ => {}
            }
        }
        let moves = match forced {
            Some(block) => vec![block],
            None => self.moves(state, &mut scan, ply, false),
        };
        if moves.is_empty() {
            return state.evaluate();
        }
        // A forced reply does not use up depth.
        let next_depth = if forced.is_some() { depth } else { depth - 1 };
        let original_alpha = alpha;
        let mut best = -WIN - 1;
        let mut best_move = moves[0];
        for (k, &m) in moves.iter().enumerate() {
            state.play(m);
            let score = if k == 0 {
                -self.negamax(state, next_depth, ply + 1, -beta, -alpha)
            } else {
                let s = -self.negamax(state, next_depth, ply + 1, -alpha - 1, -alpha);
                if s > alpha && s < beta && !self.stopped {
                    -self.negamax(state, next_depth, ply + 1, -beta, -alpha)
                } else {
                    s
                }
            };
            state.undo();
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                best_move = m;
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                break;
            }
        }
        let bound = if best <= original_alpha {
            UPPER
        } else if best >= beta {
            LOWER
        } else {
            EXACT
        };
        self.store(key, depth, ply, best, bound, best_move);
        best
    }
}

/// Scores this close to `WIN` are wins or losses at a known distance.
const MATE_BAND: i32 = WIN - 1_000;

fn to_table(score: i32, ply: usize) -> i32 {
    if score >= MATE_BAND {
        score + ply as i32
    } else if score <= -MATE_BAND {
        score - ply as i32
    } else {
        score
    }
}

fn from_table(score: i32, ply: usize) -> i32 {
    if score >= MATE_BAND {
        score - ply as i32
    } else if score <= -MATE_BAND {
        score + ply as i32
    } else {
        score
    }
}

/// A cell worth searching, with what it does.
struct Candidate {
    score: i32,
    cell: usize,
    /// The side to move makes a four (or better) here.
    attack: bool,
    /// The opponent would make a four (or better) here along some line.
    blocks_four: bool,
}

/// What one pass over the cells found.
#[derive(Default)]
struct Scan {
    own_five: Vec<usize>,
    opp_five: Vec<usize>,
    own_open_four: Vec<usize>,
    opp_open_four: bool,
    cells: Vec<Candidate>,
}

impl<V: Variant> Agent<Gomoku<V>> for GomokuEngine {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self) {
        self.table.fill(Entry::default());
    }

    fn table_bytes(&self) -> usize {
        (1usize << TABLE_BITS) * std::mem::size_of::<Entry>()
    }

    fn select(&mut self, pos: &Gomoku<V>, budget: &Budget) -> Result<Decision<Point>, AgentError> {
        if pos.is_over() {
            return Err(AgentError::GameOver);
        }
        let decision = self
            .think(pos.board(), budget)
            .ok_or(AgentError::GameOver)?;
        if pos.is_legal(decision.mv) {
            Ok(decision)
        } else {
            // Never hand back an illegal move: fall back to the first legal one.
            pos.legal_moves()
                .first()
                .map(|&mv| Decision::just(mv))
                .ok_or(AgentError::GameOver)
        }
    }
}
