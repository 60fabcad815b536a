//! Labelled positions: the sample format, the record labeller (exact solves, perfect-play
//! results), the relabelling search, deviations and the self-play games.

use std::sync::atomic::{AtomicUsize, Ordering};

use game::{Color, Game};
use othello::wthor::WthorGame;
use othello::Othello8;
use rayon::prelude::*;

use crate::Solver;

/// One labelled position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// The side to move's discs.
    pub player: u64,
    /// The other side's discs.
    pub opponent: u64,
    /// The final disc difference for the side to move (empties to the winner).
    pub score: i8,
    /// Whether the label is an exact solve of this position.
    pub exact: bool,
    /// Whether the label is a midgame search's score (see [`search_labels`]).
    pub search: bool,
    /// Whether the position is held out (its game is in the test part).
    pub test: bool,
}

/// Bytes per sample on disk.
pub const SAMPLE_LEN: usize = 18;

impl Sample {
    /// Empty squares.
    #[must_use]
    pub fn empties(&self) -> u32 {
        (!(self.player | self.opponent)).count_ones()
    }

    /// The on-disk form: player, opponent (u64 LE), score, flags (1 = exact, 2 = test,
    /// 4 = search).
    #[must_use]
    pub fn to_bytes(&self) -> [u8; SAMPLE_LEN] {
        let mut b = [0u8; SAMPLE_LEN];
        b[..8].copy_from_slice(&self.player.to_le_bytes());
        b[8..16].copy_from_slice(&self.opponent.to_le_bytes());
        b[16] = self.score as u8;
        b[17] = u8::from(self.exact) | u8::from(self.test) << 1 | u8::from(self.search) << 2;
        b
    }

    /// Reads the on-disk form.
    ///
    /// # Errors
    /// A message for overlapping boards, a score outside ±64 or unknown flags.
    pub fn from_bytes(b: &[u8; SAMPLE_LEN]) -> Result<Sample, String> {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[..8]);
        let player = u64::from_le_bytes(w);
        w.copy_from_slice(&b[8..16]);
        let opponent = u64::from_le_bytes(w);
        let score = b[16] as i8;
        if player & opponent != 0 {
            return Err("the two sides' discs overlap".into());
        }
        if !(-64..=64).contains(&score) {
            return Err(format!("a score of {score} discs (at most ±64)"));
        }
        if b[17] > 7 || b[17] & 5 == 5 {
            return Err(format!("unknown flags {:#04x}", b[17]));
        }
        Ok(Sample {
            player,
            opponent,
            score,
            exact: b[17] & 1 != 0,
            test: b[17] & 2 != 0,
            search: b[17] & 4 != 0,
        })
    }
}

/// Whether game `index` is held out under `seed` (a tenth of the games).
#[must_use]
pub fn held_out(seed: u64, index: u64) -> bool {
    // SplitMix64 of the pair: a fixed, seeded, order-free choice.
    game::hash::mix64(seed ^ index.wrapping_mul(game::hash::GOLDEN)).is_multiple_of(10)
}

/// Whether game `index` is among the seeded `fraction` of the games solved through the whole
/// exact zone (see [`ExactZone`]); independent of [`held_out`].
#[must_use]
pub fn fully_solved(seed: u64, index: u64, fraction: f64) -> bool {
    if fraction >= 1.0 {
        return true;
    }
    // SplitMix64 again, on another stream than the held-out split's.
    let z = game::hash::mix64(
        (seed ^ 0x5eed_e8ac_7f2a_c0de).wrapping_add(index.wrapping_mul(0xd6e8_feb8_6659_fd93)),
    );
    // The top 53 bits as a uniform draw in [0, 1).
    ((z >> 11) as f64) * (1.0 / (1u64 << 53) as f64) < fraction
}

/// Which record positions the labeller solves exactly. Every position kept with at most
/// `empties` empty squares carries an exact label: a seeded `fraction` of the games
/// ([`fully_solved`]) is solved through the whole zone, the others only up to `rest` empties,
/// and their positions with `rest + 1 ..= empties` empties are left out (an exact solve there
/// costs about twice as much per empty square; a search's label would break the promise).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExactZone {
    /// Positions with at most this many empties carry exact labels or are left out.
    pub empties: u32,
    /// The fraction of games solved through the whole zone (1: every game).
    pub fraction: f64,
    /// The other games are solved up to this many empties (at most `empties`).
    pub rest: u32,
}

impl ExactZone {
    /// Every game solved exactly up to `empties`.
    #[must_use]
    pub fn all(empties: u32) -> ExactZone {
        ExactZone {
            empties,
            fraction: 1.0,
            rest: empties,
        }
    }

    /// The exact zone of game `index` under `seed`, and whether its positions between that and
    /// [`empties`](Self::empties) are left out.
    #[must_use]
    pub fn for_game(&self, seed: u64, index: u64) -> (u32, bool) {
        if self.rest >= self.empties || fully_solved(seed, index, self.fraction) {
            (self.empties, false)
        } else {
            (self.rest, true)
        }
    }
}

/// The positions of one game where the side to move has a move, each labelled with `black`
/// (Black's final margin) from its mover's view; then those with at most `exact_empties`
/// empties solved exactly, from the last backwards: each solve starts from the score of the
/// position after it (the move played is often the best one) and finds that position's bounds
/// in the solver's table.
#[must_use]
pub fn label_game(
    positions: &[Othello8],
    black: i32,
    exact_empties: u32,
    test: bool,
    solver: &mut Solver<8>,
) -> Vec<Sample> {
    let mut out = Vec::with_capacity(positions.len());
    for pos in positions {
        if pos.is_over() || pos.moves() == 0 {
            continue;
        }
        let score = if pos.side_to_move() == Color::Black {
            black
        } else {
            -black
        };
        out.push((
            *pos,
            Sample {
                player: pos.player(),
                opponent: pos.opponent(),
                score: score.clamp(-64, 64) as i8,
                exact: false,
                test,
                search: false,
            },
        ));
    }
    let mut after: Option<(Color, i32)> = None;
    for (pos, sample) in out.iter_mut().rev() {
        if pos.empty().count_ones() > exact_empties {
            break;
        }
        let guess = match after {
            Some((color, score)) if color == pos.side_to_move() => score,
            Some((_, score)) => -score,
            None => i32::from(sample.score),
        };
        let score = solver.solve_near(pos, guess).score;
        after = Some((pos.side_to_move(), score));
        sample.score = score.clamp(-64, 64) as i8;
        sample.exact = true;
    }
    out.into_iter().map(|(_, s)| s).collect()
}

/// `samples` (whole games, in order, as the labellers write them) with every label above
/// `exact_empties` empties replaced by the score of a `depth`-ply search with `eval` (and
/// Multi-ProbCut `probcut` when given; rounded to discs; exact where the search reached every
/// end), on all cores. Each game's searches share
/// one table, cleared at the game's start, so the labels do not depend on the number of
/// threads. `done` is called after each game.
#[must_use]
pub fn search_labels(
    eval: &std::sync::Arc<crate::pattern::PatternEval>,
    samples: &[Sample],
    exact_empties: u32,
    depth: u32,
    probcut: Option<(std::sync::Arc<crate::midgame::ProbCut>, f64)>,
    done: &(dyn Fn() + Sync),
) -> Vec<Sample> {
    // A game's positions come in order of falling empties: a rise starts the next game.
    let mut games = Vec::new();
    let mut start = 0;
    for i in 1..=samples.len() {
        if i == samples.len() || samples[i].empties() >= samples[i - 1].empties() {
            games.push(&samples[start..i]);
            start = i;
        }
    }
    let parts: Vec<Vec<Sample>> = games
        .par_chunks(16)
        .map(|chunk| {
            let mut search =
                crate::midgame::Midgame::new(eval.clone(), 16).with_probcut(probcut.clone());
            let scale = f64::from(search.scale());
            let mut out = Vec::new();
            for game in chunk {
                search.clear();
                for s in *game {
                    if s.empties() <= exact_empties || s.exact {
                        out.push(*s);
                        continue;
                    }
                    let Ok(pos) = Othello8::from_bitboards(s.player, s.opponent, Color::Black)
                    else {
                        out.push(*s);
                        continue;
                    };
                    let found = search.search(&pos, depth, None, None);
                    let score = (f64::from(found.score) / scale).round().clamp(-64.0, 64.0);
                    out.push(Sample {
                        score: score as i8,
                        exact: found.exact,
                        search: !found.exact,
                        ..*s
                    });
                }
                done();
            }
            out
        })
        .collect();
    parts.concat()
}

/// Deviations from the records: for a seeded `fraction` of the record positions with more than
/// `exact_empties + 1` empties, the position after a uniformly drawn legal move (mostly not
/// the move played, often a poor one), from its mover's view, unlabelled (score 0) and held out
/// with its game. A search sees such positions at every node; the records alone rarely show
/// them. Position `k` of part `part` draws from `(seed, part, k)`, so the choice does not depend
/// on the number of threads. Children whose mover must pass are left out.
#[must_use]
pub fn deviations(
    samples: &[Sample],
    fraction: f64,
    exact_empties: u32,
    seed: u64,
    part: u64,
) -> Vec<Sample> {
    let mut out = Vec::new();
    for (k, s) in samples.iter().enumerate() {
        if s.empties() <= exact_empties + 1 {
            continue;
        }
        let mut rng = SplitMix(
            seed ^ part.wrapping_mul(0xa076_1d64_78bd_642f)
                ^ (k as u64).wrapping_mul(0xe703_7ed1_a0b4_28db),
        );
        if !rng.chance(fraction) {
            continue;
        }
        let Ok(pos) = Othello8::from_bitboards(s.player, s.opponent, Color::Black) else {
            continue;
        };
        let moves = pos.legal_moves();
        if moves.is_empty() {
            continue;
        }
        let child = pos.play_unchecked(moves[rng.below(moves.len())]);
        if child.is_over() || child.moves() == 0 {
            continue;
        }
        out.push(Sample {
            player: child.player(),
            opponent: child.opponent(),
            score: 0,
            exact: false,
            search: false,
            test: s.test,
        });
    }
    out
}

/// Black's perfect-play margin of a WTHOR game: its theoretical disc count, empties to the
/// winner (`2 t − 64`).
#[must_use]
pub fn wthor_margin(game: &WthorGame) -> i32 {
    2 * i32::from(game.black_theoretical) - 64
}

/// A WTHOR game's position with `empties` empty squares where the side to move has a move,
/// with the game's perfect-play margin ([`wthor_margin`]) from that side's view; `None` when
/// the game does not replay or never reaches such a position.
#[must_use]
pub fn wthor_position(game: &WthorGame, empties: u32) -> Option<(Othello8, i32)> {
    let replay = game.replay().ok()?;
    let pos = *replay
        .positions()
        .iter()
        .find(|p| p.empty().count_ones() == empties && p.moves() != 0)?;
    let black = wthor_margin(game);
    let margin = if pos.side_to_move() == Color::Black {
        black
    } else {
        -black
    };
    Some((pos, margin))
}

/// Labels every replayable WTHOR game on all cores, exact in `zone` (game `k` of `games` is
/// game `first_index + k` of the records, which decides whether it is held out and how far it
/// is solved); `done` is called after each game. Games that do not replay are skipped and
/// counted in the second value.
#[must_use]
pub fn label_wthor(
    games: &[WthorGame],
    first_index: u64,
    zone: ExactZone,
    seed: u64,
    done: &(dyn Fn() + Sync),
) -> (Vec<Sample>, usize) {
    let skipped = AtomicUsize::new(0);
    let chunks: Vec<Vec<Sample>> = games
        .par_chunks(64)
        .enumerate()
        .map(|(c, chunk)| {
            let mut solver = Solver::<8>::new(18).with_evaluation(crate::pattern::bundled());
            let mut out = Vec::new();
            for (k, game) in chunk.iter().enumerate() {
                let index = first_index + (c * 64 + k) as u64;
                match game.replay() {
                    Ok(replay) => {
                        let (exact, cut) = zone.for_game(seed, index);
                        let samples = label_game(
                            replay.positions(),
                            wthor_margin(game),
                            exact,
                            held_out(seed, index),
                            &mut solver,
                        );
                        out.extend(samples.into_iter().filter(|s| {
                            !cut || s.empties() <= exact || s.empties() > zone.empties
                        }));
                    }
                    Err(_) => {
                        skipped.fetch_add(1, Ordering::Relaxed);
                    }
                }
                done();
            }
            out
        })
        .collect();
    (chunks.concat(), skipped.into_inner())
}

/// Settings of the self-play games that add positions stonelab's own play reaches.
#[derive(Clone, Debug, PartialEq)]
pub struct SelfPlayConfig {
    /// Games to play.
    pub games: usize,
    /// Random moves from the start before the engine plays (varies the games).
    pub random_plies: u32,
    /// Midgame search depth of both sides.
    pub depth: u32,
    /// Chance that a side plays a random move instead of its search's, before `noise_until`
    /// discs are on the board.
    pub noise: f64,
    /// Discs on the board after which every move is the search's.
    pub noise_until: u32,
    /// From this many empties the game's result is solved exactly (and the positions there).
    pub exact_empties: u32,
    /// Seed of the games.
    pub seed: u64,
}

/// SplitMix64: the small seeded generator the engine's training, book and benchmark use (the
/// workspace's one, [`game::hash::SplitMix`]).
pub use game::hash::SplitMix;

/// Plays self-play games with `eval` on all cores and labels their positions like records:
/// each game's result is its exact score from `exact_empties` empties (the positions there
/// solved exactly). Game `k` is seeded by `(seed, k)`, so the games do not depend on the
/// number of threads. `done` is called after each game.
#[must_use]
pub fn self_play(
    eval: &std::sync::Arc<crate::pattern::PatternEval>,
    config: &SelfPlayConfig,
    first_game: u64,
    done: &(dyn Fn() + Sync),
) -> Vec<Sample> {
    let games: Vec<u64> = (first_game..first_game + config.games as u64).collect();
    let parts: Vec<Vec<Sample>> = games
        .par_chunks(8)
        .map(|chunk| {
            let mut search = crate::midgame::Midgame::new(eval.clone(), 16);
            let mut solver = Solver::<8>::new(16).with_evaluation(crate::pattern::bundled());
            let mut out = Vec::new();
            for &k in chunk {
                let mut rng = SplitMix(config.seed ^ k.wrapping_mul(0xd6e8_feb8_6659_fd93));
                let mut pos = Othello8::new();
                let mut line = vec![pos];
                let mut plies = 0;
                while !pos.is_over() && pos.empty().count_ones() > config.exact_empties {
                    let moves = pos.legal_moves();
                    let discs = 64 - pos.empty().count_ones();
                    let random = plies < config.random_plies
                        || (discs < config.noise_until && rng.chance(config.noise));
                    let mv = if random || moves.len() == 1 {
                        moves[rng.below(moves.len())]
                    } else {
                        search.clear();
                        search
                            .search(&pos, config.depth, None, None)
                            .best
                            .unwrap_or(moves[0])
                    };
                    pos = pos.play_unchecked(mv);
                    line.push(pos);
                    plies += 1;
                }
                let result = if pos.is_over() {
                    pos.final_margin()
                } else {
                    let s = solver.solve(&pos).score;
                    if pos.side_to_move() == Color::Black {
                        s
                    } else {
                        -s
                    }
                };
                out.extend(label_game(
                    &line,
                    result,
                    config.exact_empties,
                    held_out(config.seed, k),
                    &mut solver,
                ));
                done();
            }
            out
        })
        .collect();
    parts.concat()
}
