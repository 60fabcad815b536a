//! Threat-space search: VCF (victory by continuous fours) and VCT (by fours and threes).
//!
//! In VCF the attacker only plays fours, so every defence is forced (the one point that stops
//! the five); a defender's counter-four must be answered by a four that also blocks it. VCT also
//! lets the attacker make open threes, trying every defence (blocking the three's points, or a
//! counter-four) and winning only if each is refuted. Fives are checked on the real rules.

use std::collections::HashMap;
use std::time::Instant;

use crate::patterns::Pattern;
use crate::state::{color_index, State, Threat, CELLS, DIRS};

/// Search limits and bookkeeping for one threat search.
pub(crate) struct ThreatSearch {
    pub(crate) nodes: u64,
    pub(crate) node_limit: u64,
    pub(crate) deadline: Option<Instant>,
    pub(crate) aborted: bool,
    /// Positions (hash, depth) known not to hold a VCF for the side to move.
    failed: HashMap<u64, u32>,
}

impl ThreatSearch {
    pub(crate) fn new(node_limit: u64, deadline: Option<Instant>) -> ThreatSearch {
        ThreatSearch {
            nodes: 0,
            node_limit,
            deadline,
            aborted: false,
            failed: HashMap::new(),
        }
    }

    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes >= self.node_limit {
            self.aborted = true;
        }
        if self.nodes.is_multiple_of(512) && self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.aborted = true;
        }
        self.aborted
    }
}

/// Empty cells where `color` would make five, verified on the real rules.
pub(crate) fn five_points(state: &State, color: usize) -> Vec<usize> {
    state
        .on_board
        .iter()
        .copied()
        .filter(|&i| {
            state.is_empty(i)
                && (0..4).any(|d| state.pattern(color, i, d) == Pattern::Five)
                && state.makes_five(color, i)
        })
        .collect()
}

/// Five points of `color` on the lines through cell `m` (within four points).
fn five_points_near(state: &State, color: usize, m: usize) -> Vec<usize> {
    let mut out = Vec::new();
    for &step in &DIRS {
        for sign in [1isize, -1] {
            for k in 1..=4isize {
                let j = (m as isize + sign * k * step) as usize;
                if j < CELLS && state.is_empty(j) && state.makes_five(color, j) && !out.contains(&j)
                {
                    out.push(j);
                }
            }
        }
    }
    out
}

/// Cells where the side to move makes a four (or better) and may legally play.
fn four_moves(state: &State, color: usize) -> Vec<usize> {
    let mut moves: Vec<(i32, usize)> = state
        .on_board
        .iter()
        .copied()
        .filter(|&i| {
            state.is_empty(i)
                && state.near(i)
                && (0..4).any(|d| state.pattern(color, i, d) >= Pattern::Four)
        })
        .filter(|&i| state.legal(i))
        .map(|i| (-state.cell_score(i, color), i))
        .collect();
    moves.sort_unstable();
    moves.into_iter().map(|(_, i)| i).collect()
}

/// A VCF for the side to move: the line (attacker and defender moves alternating) or `None`.
pub(crate) fn vcf(state: &mut State, search: &mut ThreatSearch, depth: u32) -> Option<Vec<usize>> {
    let me = color_index(state.side());
    if let Some(&win) = five_points(state, me).first() {
        return Some(vec![win]);
    }
    if depth == 0 || search.tick() {
        return None;
    }
    if search
        .failed
        .get(&state.hash())
        .is_some_and(|&d| d >= depth)
    {
        return None;
    }
    let threats = five_points(state, 1 - me);
    let candidates: Vec<usize> = match threats.as_slice() {
        [] => four_moves(state, me),
        // The opponent threatens five: only a four on that very point keeps the initiative.
        [block] => four_moves(state, me)
            .into_iter()
            .filter(|i| i == block)
            .collect(),
        _ => Vec::new(),
    };
    for m in candidates {
        state.play(m);
        let result = answer_four(state, search, m, me, depth);
        state.undo();
        if let Some(mut line) = result {
            line.insert(0, m);
            return Some(line);
        }
        if search.aborted {
            return None;
        }
    }
    if !search.aborted {
        search.failed.insert(state.hash(), depth);
    }
    None
}

/// After the attacker's four at `m`: the defender's forced block, then the attacker again.
fn answer_four(
    state: &mut State,
    search: &mut ThreatSearch,
    m: usize,
    me: usize,
    depth: u32,
) -> Option<Vec<usize>> {
    if state.board.winner().is_some() {
        return Some(Vec::new());
    }
    let defender = 1 - me;
    if !five_points(state, defender).is_empty() {
        return None; // the defender wins first
    }
    let blocks = five_points_near(state, me, m);
    match blocks.as_slice() {
        [] => None,
        [block] => {
            if !state.legal(*block) {
                // A renju foul: black cannot stop the five.
                return Some(vec![*block]);
            }
            state.play(*block);
            let rest = vcf(state, search, depth - 1);
            state.undo();
            rest.map(|mut line| {
                line.insert(0, *block);
                line
            })
        }
        // Two points make five: whatever the defender blocks, the other wins.
        [first, second, ..] => {
            let (first, second) = (*first, *second);
            if state.legal(first) {
                Some(vec![first, second])
            } else {
                Some(vec![second, first])
            }
        }
    }
}

/// Defences against the attacker's open three (or better) made at `m`: points on its lines
/// that would give the attacker a four or better, and the defender's own fours.
fn defences(state: &State, m: usize, attacker: usize) -> Vec<usize> {
    let mut out = Vec::new();
    for (d, &step) in DIRS.iter().enumerate() {
        for sign in [1isize, -1] {
            for k in 1..=5isize {
                let j = m as isize + sign * k * step;
                if j < 0 || j as usize >= CELLS {
                    break;
                }
                let j = j as usize;
                if state.is_empty(j)
                    && state.pattern(attacker, j, d) >= Pattern::Four
                    && !out.contains(&j)
                {
                    out.push(j);
                }
            }
        }
    }
    for i in four_moves(state, 1 - attacker) {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out.retain(|&i| state.legal(i));
    out
}

/// A VCT for the side to move (fours and open threes): the first move, or `None`.
pub(crate) fn vct(
    state: &mut State,
    search: &mut ThreatSearch,
    depth: u32,
    vcf_depth: u32,
) -> Option<usize> {
    if let Some(line) = vcf(state, search, vcf_depth) {
        return line.first().copied();
    }
    if depth == 0 || search.aborted {
        return None;
    }
    let me = color_index(state.side());
    if !five_points(state, 1 - me).is_empty() {
        return None; // VCF above already tried the fours that block
    }
    // The defender's own VCF would outrun a three.
    let mut moves: Vec<(i32, usize)> = state
        .on_board
        .iter()
        .copied()
        .filter(|&i| state.is_empty(i) && state.near(i))
        .filter(|&i| state.threat(me, i) >= Threat::OpenThree)
        .filter(|&i| state.legal(i))
        .map(|i| (-state.cell_score(i, me), i))
        .collect();
    moves.sort_unstable();
    for (_, m) in moves {
        if search.tick() {
            return None;
        }
        state.play(m);
        let wins = vct_defended(state, search, m, me, depth, vcf_depth);
        state.undo();
        if wins {
            return Some(m);
        }
        if search.aborted {
            return None;
        }
    }
    None
}

/// Whether every defence against the attacker's threat at `m` still loses (defender to move).
fn vct_defended(
    state: &mut State,
    search: &mut ThreatSearch,
    m: usize,
    me: usize,
    depth: u32,
    vcf_depth: u32,
) -> bool {
    if state.board.winner().is_some() {
        return true;
    }
    if !five_points(state, 1 - me).is_empty() {
        return false;
    }
    // The defender may hold a VCF of their own, which outruns a three.
    let mut quick = ThreatSearch::new(2_000, search.deadline);
    if vcf(state, &mut quick, 8).is_some() {
        search.nodes += quick.nodes;
        return false;
    }
    search.nodes += quick.nodes;
    let options = defences(state, m, me);
    if options.is_empty() {
        return false; // not a real threat after all
    }
    for d in options {
        state.play(d);
        let wins = vct(state, search, depth - 1, vcf_depth).is_some();
        state.undo();
        if !wins || search.aborted {
            return false;
        }
    }
    true
}
