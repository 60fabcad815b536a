//! Self-play for AlphaZero-style training: many games advanced together, every move a PUCT
//! (or Gumbel) search, the leaves of all games' searches sent to the network in one batch per
//! step; the games come back with their search targets and results.

use std::sync::Arc;

use game::{Game, Outcome};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

use crate::puct::{step_together, ExactLeaf, Puct, PuctConfig, SearchResult};
use crate::{AgentError, Budget, PolicyValue};

/// Playout-cap randomisation (KataGo): most moves get a cheap search without noise and are not
/// trained on; a share gets the full search and becomes a training sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlayoutCap {
    /// The chance that a move gets the full search.
    pub full_share: f32,
    /// Simulations of the cheap searches.
    pub fast_sims: u32,
}

/// Settings of [`self_play`].
#[derive(Clone, Debug, PartialEq)]
pub struct SelfPlayConfig {
    /// The full search (its noise and Gumbel sampling are the self-play exploration).
    pub search: PuctConfig,
    /// Cheap searches for most moves (`None`: every move gets the full search).
    pub cap: Option<PlayoutCap>,
    /// Plies from the start whose move is drawn in proportion to the visits (PUCT roots; a
    /// Gumbel root's choice is a draw already); later moves are the search's best.
    pub temperature_plies: u32,
    /// Games played at once.
    pub concurrent: usize,
    /// Cut a game after this many plies (`None`: play it out).
    pub max_plies: Option<usize>,
    /// Each game opens with a number of uniformly random moves drawn from this range (both
    /// ends included; `None`: none), played but not searched, so that the games cover more
    /// of the positions than the start's neighbourhood.
    pub random_opening: Option<(u32, u32)>,
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        SelfPlayConfig {
            search: PuctConfig::default(),
            cap: None,
            temperature_plies: 0,
            concurrent: 64,
            max_plies: None,
            random_opening: None,
        }
    }
}

/// One searched position of a self-play game.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample<G: Game> {
    /// The position.
    pub pos: G,
    /// The search's policy target over the action space.
    pub policy: Vec<f32>,
    /// The search's root value for the side to move.
    pub value: f32,
    /// Whether it got the full search (a training sample) or a cheap one.
    pub full: bool,
}

/// A finished self-play game.
#[derive(Clone, Debug, PartialEq)]
pub struct SelfPlayGame<G: Game> {
    /// Its number.
    pub index: usize,
    /// Every move from the start, forced passes included.
    pub moves: Vec<G::Move>,
    /// How many of the first moves were the random opening (not searched).
    pub opening: usize,
    /// Every searched position (forced passes are not searched).
    pub samples: Vec<Sample<G>>,
    /// How it ended (`None`: cut by the ply limit).
    pub outcome: Option<Outcome>,
    /// Simulations run over the whole game.
    pub sims: u64,
}

/// The seed of game `index`'s stream `stream` (its tree, its move draws).
#[must_use]
pub fn game_seed(seed: u64, index: usize, stream: u64) -> u64 {
    game::hash::splitmix64(seed ^ game::hash::splitmix64((index as u64) << 2 | stream))
}

struct Slot<G: Game> {
    index: usize,
    pos: G,
    tree: Puct<G>,
    rng: ChaCha8Rng,
    game: SelfPlayGame<G>,
    /// Whether the search of the current position has started, and whether it is full.
    searching: Option<bool>,
}

/// Plays games `games` (their numbers) of self-play from `start` with `net`,
/// `config.concurrent` at a time; game `k`'s searches and draws come from
/// [`game_seed`]`(seed, k, ..)` alone, so the games are the same whatever `concurrent` is and
/// however a set of games is split into calls, given a network whose answer for a position
/// does not depend on the batch it comes in (a CPU network's float sums may differ in the
/// last bits between batch sizes; with the same settings a run is always the same). `on_game` hears of each game as it ends (in the
/// order they end); the games come back in index order.
///
/// # Errors
/// [`AgentError::Failed`] when the network answers a different number of positions.
pub fn self_play<G: Game>(
    start: &G,
    games: std::ops::Range<usize>,
    seed: u64,
    net: &dyn PolicyValue<G>,
    config: &SelfPlayConfig,
    exact: Option<&Arc<dyn ExactLeaf<G>>>,
    on_game: &mut dyn FnMut(&SelfPlayGame<G>),
) -> Result<Vec<SelfPlayGame<G>>, AgentError> {
    let mut next = games.start;
    let mut slots: Vec<Slot<G>> = Vec::new();
    let mut done: Vec<SelfPlayGame<G>> = Vec::with_capacity(games.len());
    let new_slot = |index: usize| {
        let mut tree = Puct::new(config.search.clone(), game_seed(seed, index, 0));
        if let Some(e) = exact {
            tree = tree.with_exact(Arc::clone(e));
        }
        Slot {
            index,
            pos: start.clone(),
            tree,
            rng: ChaCha8Rng::seed_from_u64(game_seed(seed, index, 1)),
            game: SelfPlayGame {
                index,
                moves: Vec::new(),
                opening: 0,
                samples: Vec::new(),
                outcome: None,
                sims: 0,
            },
            searching: None,
        }
    };
    let mut batch: Vec<G> = Vec::new();
    loop {
        while slots.len() < config.concurrent.max(1) && next < games.end {
            let mut slot = new_slot(next);
            next += 1;
            if open(&mut slot, config) || settle(&mut slot, config) {
                finish(slot, &mut done, on_game);
            } else {
                slots.push(slot);
            }
        }
        if slots.is_empty() {
            break;
        }
        let mut trees: Vec<&mut Puct<G>> = slots
            .iter_mut()
            .map(|slot| {
                if slot.searching.is_none() {
                    begin(slot, config);
                }
                &mut slot.tree
            })
            .collect();
        if !step_together(&mut trees, net, &mut batch)? && trees.iter().any(|t| !t.done()) {
            return Err(AgentError::Failed(
                "a self-play search asked for no position and did not end".into(),
            ));
        }
        let mut k = 0;
        while k < slots.len() {
            if slots[k].tree.done() {
                let over = conclude(&mut slots[k], config)?;
                if over {
                    let slot = slots.swap_remove(k);
                    finish(slot, &mut done, on_game);
                    continue;
                }
            }
            k += 1;
        }
        // Keep slot order by game index, so that the batch order (and nothing else) is all
        // that `swap_remove` changes.
        slots.sort_by_key(|s| s.index);
    }
    done.sort_by_key(|g| g.index);
    Ok(done)
}

/// Plays the slot's random opening; true when the game ended in it.
fn open<G: Game>(slot: &mut Slot<G>, config: &SelfPlayConfig) -> bool {
    let Some((lo, hi)) = config.random_opening else {
        return false;
    };
    let plies = slot.rng.random_range(lo.min(hi)..=hi.max(lo));
    for _ in 0..plies {
        let moves = slot.pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let mv = moves[slot.rng.random_range(0..moves.len())];
        slot.game.moves.push(mv);
        slot.pos = slot.pos.play_unchecked(mv);
    }
    slot.game.opening = slot.game.moves.len();
    slot.game.outcome = slot.pos.outcome();
    slot.game.outcome.is_some()
}

/// Starts the search of the slot's position: full or cheap, with the matching settings.
fn begin<G: Game>(slot: &mut Slot<G>, config: &SelfPlayConfig) {
    let full = config
        .cap
        .is_none_or(|cap| slot.rng.random::<f32>() < cap.full_share);
    let mut search = config.search.clone();
    if !full {
        if let Some(cap) = config.cap {
            search.sims = Some(cap.fast_sims.max(1));
            search.time = None;
            search.noise = None;
            if let Some(g) = search.gumbel.as_mut() {
                g.sample = false;
            }
        }
    }
    slot.tree.set_config(search);
    slot.tree.start(&slot.pos, &Budget::default());
    slot.searching = Some(full);
}

/// Records the finished search, plays its move; true when the game is over.
fn conclude<G: Game>(slot: &mut Slot<G>, config: &SelfPlayConfig) -> Result<bool, AgentError> {
    let full = slot.searching.take().unwrap_or(true);
    let result: SearchResult<G::Move> = slot
        .tree
        .result()
        .ok_or_else(|| AgentError::Failed("a self-play search expanded no root".into()))?;
    slot.game.sims += u64::from(result.sims);
    let ply = slot.game.moves.len();
    let mv = if config.search.gumbel.is_none() && ply < config.temperature_plies as usize {
        result.sample(1.0, &mut slot.rng)
    } else {
        result.best
    };
    slot.game.samples.push(Sample {
        pos: slot.pos.clone(),
        policy: result.policy,
        value: result.value,
        full,
    });
    slot.game.moves.push(mv);
    slot.pos = slot.pos.play_unchecked(mv);
    Ok(settle(slot, config))
}

/// Plays forced passes; true when the game is over or cut.
fn settle<G: Game>(slot: &mut Slot<G>, config: &SelfPlayConfig) -> bool {
    while let Some(pass) = slot.pos.forced_pass() {
        slot.game.moves.push(pass);
        slot.pos = slot.pos.play_unchecked(pass);
    }
    slot.game.outcome = slot.pos.outcome();
    slot.game.outcome.is_some() || config.max_plies.is_some_and(|m| slot.game.moves.len() >= m)
}

fn finish<G: Game>(
    slot: Slot<G>,
    done: &mut Vec<SelfPlayGame<G>>,
    on_game: &mut dyn FnMut(&SelfPlayGame<G>),
) {
    on_game(&slot.game);
    done.push(slot.game);
}
