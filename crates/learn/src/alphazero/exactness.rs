//! An AlphaZero network against exact answers: on 4x4 Othello, every reachable position's
//! value (value iteration) beside the value head and beside the search's choice; on larger
//! Othello boards, the moves of the agent's own games that keep the solver's game value.

use std::sync::Arc;

use game::{Color, Game};
use othello::{Othello, Othello4};
use othello_engine::Solver;
use rayon::prelude::*;
use search::{search_together, Budget, PolicyValue, Puct, PuctConfig, ValueTable};

/// How a network and its search fare against the exact values of 4x4 Othello.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Exactness4 {
    /// Reachable unfinished positions with more than one legal move (the choices).
    pub choices: usize,
    /// Of those, the search chose a move of best exact value.
    pub search_optimal: usize,
    /// Of those, the policy head's favourite move is of best exact value.
    pub policy_optimal: usize,
    /// Reachable unfinished positions (forced passes included).
    pub positions: usize,
    /// Of those, the value head's sign matches the exact result (a draw: |v| < 1/3).
    pub value_sign: usize,
    /// The value head's mean squared error against the exact result (−1, 0, 1).
    pub value_mse: f64,
}

/// The exact result of `pos` for its side to move from black's value in `table`.
fn exact_for_mover(table: &ValueTable<Othello4, u128>, pos: &Othello4) -> Option<f32> {
    let black = table.value(pos)?.signum() as f32;
    Some(if pos.side_to_move() == Color::Black {
        black
    } else {
        -black
    })
}

/// Checks `net` and a search of it with `config` at every position reachable from the start,
/// `batch` searches at a time in one network batch.
#[must_use]
pub fn othello4(
    net: &dyn PolicyValue<Othello4>,
    table: &ValueTable<Othello4, u128>,
    config: &PuctConfig,
    batch: usize,
) -> Exactness4 {
    let live: Vec<Othello4> = table
        .positions()
        .iter()
        .filter(|p| !p.is_over())
        .copied()
        .collect();
    let mut r = Exactness4 {
        positions: live.len(),
        ..Exactness4::default()
    };
    let mut sq = 0.0f64;
    for chunk in live.chunks(batch.max(1)) {
        let evals = net.policy_value(chunk);
        for (pos, pv) in chunk.iter().zip(&evals) {
            let Some(exact) = exact_for_mover(table, pos) else {
                continue;
            };
            let v = pv.value;
            sq += f64::from((v - exact) * (v - exact));
            let sign_ok = if exact == 0.0 {
                v.abs() < 1.0 / 3.0
            } else {
                v.signum() == exact && v.abs() >= 1.0 / 3.0
            };
            r.value_sign += usize::from(sign_ok);
        }
        let choices: Vec<(usize, &Othello4)> = chunk
            .iter()
            .enumerate()
            .filter(|(_, p)| p.legal_moves().len() > 1)
            .collect();
        let mut trees: Vec<Puct<Othello4>> = choices
            .iter()
            .map(|&(k, pos)| {
                let mut t = Puct::new(config.clone(), k as u64);
                t.start(pos, &Budget::default());
                t
            })
            .collect();
        let mut refs: Vec<&mut Puct<Othello4>> = trees.iter_mut().collect();
        if search_together(&mut refs, net).is_err() {
            continue;
        }
        for ((k, pos), tree) in choices.iter().zip(&trees) {
            let best = table.best_moves(pos);
            r.choices += 1;
            if tree.result().is_some_and(|s| best.contains(&s.best)) {
                r.search_optimal += 1;
            }
            let priors = &evals[*k].priors;
            let favourite = pos.legal_moves().into_iter().max_by(|&a, &b| {
                priors[Othello4::action_index(a)].total_cmp(&priors[Othello4::action_index(b)])
            });
            if favourite.is_some_and(|m| best.contains(&m)) {
                r.policy_optimal += 1;
            }
        }
    }
    r.value_mse = sq / r.positions.max(1) as f64;
    r
}

/// Moves that keep the exact game value, of those checked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeptValue {
    /// Moves checked.
    pub moves: usize,
    /// Of those, the moves after which the mover's exact result (win, draw or loss) is what it
    /// was before.
    pub kept: usize,
}

/// Of the moves `mover` played in `games` (each a start and its moves) with a choice and at
/// most `max_empties` empty squares, those that keep the exact win-draw-loss value, decided
/// by the solver. The games are shared out over rayon's threads, one solver (of
/// `table_bits`) per thread, so each game's later positions reuse its table.
#[must_use]
pub fn kept_value<const N: usize>(
    games: &[(Othello<N>, Vec<othello::Move>)],
    mover: Option<Color>,
    max_empties: u32,
    table_bits: u32,
) -> KeptValue
where
    Othello<N>: Game<Move = othello::Move>,
{
    games
        .par_iter()
        .map_init(
            || Solver::<N>::new(table_bits),
            |solver, (start, moves)| {
                let mut out = KeptValue::default();
                let mut pos = *start;
                for &mv in moves {
                    let choice = pos.legal_moves().len() > 1;
                    let (b, w) = pos.counts();
                    let empties = (N * N) as u32 - b - w;
                    if choice
                        && empties <= max_empties
                        && mover.is_none_or(|c| c == pos.side_to_move())
                    {
                        let before = solver.solve_wld(&pos).score.signum();
                        let after = pos.play_unchecked(mv);
                        let after_value = -solver.solve_wld(&after).score.signum();
                        out.moves += 1;
                        out.kept += usize::from(before == after_value);
                    }
                    pos = pos.play_unchecked(mv);
                }
                out
            },
        )
        .reduce(KeptValue::default, |a, b| KeptValue {
            moves: a.moves + b.moves,
            kept: a.kept + b.kept,
        })
}

/// The exact table of 4x4 Othello (value iteration over every reachable position).
///
/// # Errors
/// Value iteration's error (it does not happen on 4x4).
pub fn othello4_table() -> Result<Arc<ValueTable<Othello4, u128>>, search::ValueIterationError> {
    ValueTable::solve(
        Othello4::base3_key,
        &search::ValueIterationConfig::default(),
    )
    .map(|(t, _)| Arc::new(t))
}
