//! DQN training of one learner against a fixed opponent, round by round.

use game::{Color, Game};
use rand::rngs::ChaCha8Rng;
use rand::SeedableRng;
use search::Agent;

use super::*;

/// One finished training game.
#[derive(Clone, Debug, PartialEq)]
pub struct EpisodeStats {
    /// Episode number, from 1.
    pub episode: usize,
    /// The learner's colour.
    pub color: Color,
    /// The learner's result: +1, 0, −1.
    pub result: i32,
    /// The learner's total reward.
    pub reward: f32,
    /// ε used.
    pub epsilon: f64,
    /// Mean loss of the gradient steps of this episode's round (None before learning starts).
    pub loss: Option<f64>,
}

/// DQN training of one learner against a fixed opponent (colours alternating).
pub struct DqnTrainer<G: Game> {
    /// The learner.
    pub learner: DqnLearner<G>,
    /// Episodes played.
    pub episode: usize,
}

/// The generator of the round starting at `episode`: derived from the seed, so a resumed run
/// draws what the uninterrupted run would have.
#[must_use]
pub fn round_rng(seed: u64, episode: usize) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed ^ (episode as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// One round of DQN training games, as every DQN trainer plays it: up to `parallel` games (at
/// most `limit`) seated by `seat(episode)`, with the first learner's settings (seed, ε,
/// schedule); then each game counts as an episode, and every learner's target network is
/// synced when an episode reaches a multiple of `target_sync`. Returns each game's episode
/// number and end, and the ε used.
///
/// # Errors
/// [`DqnError`] when a fixed agent fails.
pub(crate) fn play_round<G: Game>(
    learners: &mut [&mut DqnLearner<G>],
    episode: &mut usize,
    limit: usize,
    seat: &dyn Fn(usize) -> [Seat<G>; 2],
) -> Result<(Vec<(usize, GameEnd)>, f64), DqnError> {
    let Some(config) = learners.first().map(|l| l.config.clone()) else {
        return Err(DqnError::Config("a round needs a learner".into()));
    };
    let n = config.parallel.min(limit).max(1);
    let mut rng = round_rng(config.seed, *episode);
    let epsilon = config.epsilon(*episode);
    let seats = (*episode..*episode + n).map(seat).collect();
    let ends = play_games(learners, seats, epsilon, true, true, &mut rng)?;
    let mut out = Vec::with_capacity(ends.len());
    for end in ends {
        *episode += 1;
        if episode.is_multiple_of(config.target_sync) {
            for learner in learners.iter_mut() {
                learner.sync_target();
            }
        }
        out.push((*episode, end));
    }
    Ok((out, epsilon))
}

impl<G: Game> DqnTrainer<G> {
    /// A fresh learner.
    ///
    /// # Errors
    /// [`DqnError::Config`] for invalid settings.
    pub fn new(config: DqnConfig) -> Result<Self, DqnError> {
        Ok(DqnTrainer {
            learner: DqnLearner::new(config)?,
            episode: 0,
        })
    }

    /// Plays and learns one round of up to `config.parallel` games (at most `limit`) against
    /// fresh opponents from `opponent(seed)`.
    ///
    /// # Errors
    /// [`DqnError`] when an opponent fails.
    pub fn round(
        &mut self,
        opponent: &dyn Fn(u64) -> Box<dyn Agent<G>>,
        limit: usize,
    ) -> Result<Vec<EpisodeStats>, DqnError> {
        let seed = self.learner.config.seed;
        let colour = |episode: usize| {
            if episode.is_multiple_of(2) {
                Color::Black
            } else {
                Color::White
            }
        };
        let (ends, epsilon) = play_round(
            &mut [&mut self.learner],
            &mut self.episode,
            limit,
            &|episode| {
                let opp = Seat::Agent(opponent(seed ^ (episode as u64 + 1) << 20));
                if colour(episode) == Color::Black {
                    [Seat::Batched(0), opp]
                } else {
                    [opp, Seat::Batched(0)]
                }
            },
        )?;
        let loss = self.learner.take_loss();
        let mut out = Vec::with_capacity(ends.len());
        for (episode, end) in ends {
            let me = colour(episode - 1);
            out.push(EpisodeStats {
                episode,
                color: me,
                result: match end.winner {
                    Some(w) if w == me => 1,
                    None => 0,
                    Some(_) => -1,
                },
                reward: end.rewards[me.index()],
                epsilon,
                loss,
            });
        }
        Ok(out)
    }
}
