//! Value iteration over every position reachable from the start: exact values for games small
//! enough to enumerate (4x4 Othello), and the `dp` agent that plays by them.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Arc;
use std::time::{Duration, Instant};

use game::{Color, Game};

use crate::{Agent, AgentError, Budget, Decision};

/// Settings of [`ValueTable::solve`].
#[derive(Clone, Debug, PartialEq)]
pub struct ValueIterationConfig {
    /// Reward for a black win (white's win is its negative, a draw 0).
    pub win_reward: f64,
    /// Discount per move (1 = none), in the student design's form: a position's value is the
    /// best over its moves of r + γ·V(next), where r is the result's reward on the move that ends
    /// the game and 0 on any other, and a finished game contributes no value of its own; so a
    /// win one move away is worth the full reward and each earlier move multiplies by γ.
    pub discount: f64,
    /// Stop when the largest change in a sweep is below this.
    pub tolerance: f64,
    /// Give up after this many sweeps.
    pub max_sweeps: usize,
    /// Refuse to enumerate more positions than this.
    pub max_states: usize,
}

impl Default for ValueIterationConfig {
    fn default() -> Self {
        ValueIterationConfig {
            win_reward: 100.0,
            discount: 1.0,
            tolerance: 0.01,
            max_sweeps: 10_000,
            max_states: 50_000_000,
        }
    }
}

/// What a run of value iteration did.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueIterationReport {
    /// Distinct positions reachable from the start (terminal ones included).
    pub states: usize,
    /// Of those, finished games.
    pub terminal: usize,
    /// Time to enumerate them.
    pub enumerate_time: Duration,
    /// Sweeps until the largest update fell below the tolerance.
    pub sweeps: usize,
    /// The largest update in the last sweep.
    pub last_delta: f64,
    /// Time of the sweeps.
    pub iterate_time: Duration,
    /// The value of the start position (black's point of view).
    pub start_value: f64,
}

/// One sweep of value iteration, as [`ValueTable::solve_with`] reports it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sweep {
    /// The sweep's number, from 1.
    pub number: usize,
    /// The largest update in the sweep: the most any position's value changed (max |ΔV|).
    pub max_update: f64,
    /// How many positions' values changed in the sweep.
    pub changed_states: usize,
}

/// Error for a game too large to enumerate or a run that does not converge.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ValueIterationError {
    /// More reachable positions than `max_states`.
    #[error("more than {0} reachable positions: value iteration is for small boards (othello4)")]
    TooManyStates(usize),
    /// The tolerance was not reached.
    #[error("no convergence after {0} sweeps")]
    NoConvergence(usize),
}

/// Exact values, from black's point of view, of every position reachable from the start.
pub struct ValueTable<G: Game, K> {
    key: fn(&G) -> K,
    index: HashMap<K, usize>,
    states: Vec<G>,
    values: Vec<f64>,
    discount: f64,
}

/// What a move into a position with value `value` is worth to the mover's side: the reward
/// itself when the move ends the game, the discounted value otherwise.
fn backup(value: f64, finished: bool, discount: f64) -> f64 {
    if finished {
        value
    } else {
        discount * value
    }
}

impl<G: Game, K: Hash + Eq + Clone> ValueTable<G, K> {
    /// Enumerates every reachable position (identified by `key`, which must be exact: equal keys
    /// for equal positions only) and runs synchronous value iteration: each sweep sets every
    /// non-terminal position to the best over its moves of r + γ·V(next) for its side to move
    /// (max for black, min for white; see [`ValueIterationConfig::discount`]), from all zeros,
    /// until the largest change is below the tolerance. A finished position's value is its
    /// result's reward.
    ///
    /// # Errors
    /// [`ValueIterationError`] when the game is too large or does not converge.
    pub fn solve(
        key: fn(&G) -> K,
        config: &ValueIterationConfig,
    ) -> Result<(Self, ValueIterationReport), ValueIterationError> {
        Self::solve_with(key, config, &mut |_| {})
    }

    /// [`ValueTable::solve`], calling `on_sweep` after every sweep with its number, its largest
    /// update and how many values it changed. The last sweep reported is the one whose largest
    /// update fell below the tolerance; the table and the report are those of `solve`.
    ///
    /// # Errors
    /// [`ValueIterationError`] when the game is too large or does not converge (the sweeps done
    /// until then have been reported).
    pub fn solve_with(
        key: fn(&G) -> K,
        config: &ValueIterationConfig,
        on_sweep: &mut dyn FnMut(Sweep),
    ) -> Result<(Self, ValueIterationReport), ValueIterationError> {
        let t = Instant::now();
        let start = G::start();
        let mut index: HashMap<K, usize> = HashMap::new();
        let mut states = vec![start.clone()];
        index.insert(key(&start), 0);
        // Children in one flat list (compressed rows): children[offsets[i]..offsets[i + 1]].
        let mut offsets = vec![0usize];
        let mut children: Vec<u32> = Vec::new();
        let mut i = 0;
        while i < states.len() {
            let pos = states[i].clone();
            for mv in pos.legal_moves() {
                let child = pos.play_unchecked(mv);
                let k = key(&child);
                let j = match index.get(&k) {
                    Some(&j) => j,
                    None => {
                        if states.len() >= config.max_states {
                            return Err(ValueIterationError::TooManyStates(config.max_states));
                        }
                        states.push(child);
                        index.insert(k, states.len() - 1);
                        states.len() - 1
                    }
                };
                children.push(j as u32);
            }
            offsets.push(children.len());
            i += 1;
        }
        let enumerate_time = t.elapsed();
        let t = Instant::now();
        let reward: Vec<Option<f64>> = states
            .iter()
            .map(|p| {
                p.outcome()
                    .map(|o| config.win_reward * f64::from(o.value_for(Color::Black)))
            })
            .collect();
        let black: Vec<bool> = states
            .iter()
            .map(|p| p.side_to_move() == Color::Black)
            .collect();
        let mut values: Vec<f64> = reward.iter().map(|r| r.unwrap_or(0.0)).collect();
        let mut sweeps = 0;
        let mut delta = f64::INFINITY;
        while delta >= config.tolerance {
            if sweeps >= config.max_sweeps {
                return Err(ValueIterationError::NoConvergence(sweeps));
            }
            let mut next = values.clone();
            delta = 0.0;
            let mut changed_states = 0;
            for s in 0..states.len() {
                if reward[s].is_some() {
                    continue;
                }
                let kids = children[offsets[s]..offsets[s + 1]].iter().map(|&c| {
                    let c = c as usize;
                    backup(values[c], reward[c].is_some(), config.discount)
                });
                let v = if black[s] {
                    kids.fold(f64::NEG_INFINITY, f64::max)
                } else {
                    kids.fold(f64::INFINITY, f64::min)
                };
                delta = delta.max((v - values[s]).abs());
                if v != values[s] {
                    changed_states += 1;
                }
                next[s] = v;
            }
            values = next;
            sweeps += 1;
            on_sweep(Sweep {
                number: sweeps,
                max_update: delta,
                changed_states,
            });
        }
        let report = ValueIterationReport {
            states: states.len(),
            terminal: reward.iter().filter(|r| r.is_some()).count(),
            enumerate_time,
            sweeps,
            last_delta: delta,
            iterate_time: t.elapsed(),
            start_value: values[0],
        };
        Ok((
            ValueTable {
                key,
                index,
                states,
                values,
                discount: config.discount,
            },
            report,
        ))
    }

    /// Black's value of a position, or `None` if it is not reachable from the start.
    #[must_use]
    pub fn value(&self, pos: &G) -> Option<f64> {
        self.index.get(&(self.key)(pos)).map(|&i| self.values[i])
    }

    /// Every reachable position.
    #[must_use]
    pub fn positions(&self) -> &[G] {
        &self.states
    }

    /// The moves of `pos` whose backed-up value (r + γ·V(next), as the sweeps count it) is best
    /// for its side to move (all tied ones).
    #[must_use]
    pub fn best_moves(&self, pos: &G) -> Vec<G::Move> {
        let scored: Vec<(f64, G::Move)> = pos
            .legal_moves()
            .into_iter()
            .filter_map(|mv| {
                let next = pos.play_unchecked(mv);
                self.value(&next)
                    .map(|v| (backup(v, next.is_over(), self.discount), mv))
            })
            .collect();
        let sign = if pos.side_to_move() == Color::Black {
            1.0
        } else {
            -1.0
        };
        let best = scored
            .iter()
            .map(|(v, _)| sign * v)
            .fold(f64::NEG_INFINITY, f64::max);
        scored
            .into_iter()
            .filter(|(v, _)| sign * v >= best - 1e-9)
            .map(|(_, mv)| mv)
            .collect()
    }
}

/// Plays the move of best value from a [`ValueTable`] (the first of tied moves, in action
/// order), so it plays perfectly in win/draw/loss terms.
pub struct DpAgent<G: Game, K> {
    table: Arc<ValueTable<G, K>>,
}

impl<G: Game, K> DpAgent<G, K> {
    /// An agent over a solved table.
    #[must_use]
    pub fn new(table: Arc<ValueTable<G, K>>) -> Self {
        DpAgent { table }
    }
}

impl<G: Game, K: Hash + Eq + Clone + Send + Sync> Agent<G> for DpAgent<G, K> {
    fn name(&self) -> String {
        "dp".into()
    }

    fn select(&mut self, pos: &G, _budget: &Budget) -> Result<Decision<G::Move>, AgentError> {
        if pos.is_over() {
            return Err(AgentError::GameOver);
        }
        let value = self.table.value(pos).ok_or_else(|| {
            AgentError::Failed(format!("position {pos} is not reachable from the start"))
        })?;
        let mv = *self
            .table
            .best_moves(pos)
            .first()
            .ok_or(AgentError::GameOver)?;
        let sign = if pos.side_to_move() == Color::Black {
            1.0
        } else {
            -1.0
        };
        Ok(Decision {
            mv,
            score: Some((sign * value).round() as i32),
            pv: vec![mv],
            depth: None,
            nodes: 0,
            // The table's values are the expected result ×100 (`win_reward`).
            scale: crate::ScoreScale::Expectation,
        })
    }
}
