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
        let config = self.learner.config.clone();
        let n = config.parallel.min(limit).max(1);
        let mut rng = round_rng(config.seed, self.episode);
        let epsilon = config.epsilon(self.episode);
        let mut seats = Vec::with_capacity(n);
        let mut colours = Vec::with_capacity(n);
        for g in 0..n {
            let episode = self.episode + g;
            let me = if episode.is_multiple_of(2) {
                Color::Black
            } else {
                Color::White
            };
            let opp = Seat::Agent(opponent(config.seed ^ (episode as u64 + 1) << 20));
            seats.push(if me == Color::Black {
                [Seat::Batched(0), opp]
            } else {
                [opp, Seat::Batched(0)]
            });
            colours.push(me);
        }
        let ends = play_games(
            &mut [&mut self.learner],
            seats,
            epsilon,
            true,
            true,
            &mut rng,
        )?;
        let loss = self.learner.take_loss();
        let mut out = Vec::with_capacity(n);
        for (me, end) in colours.into_iter().zip(ends) {
            self.episode += 1;
            if self.episode.is_multiple_of(config.target_sync) {
                self.learner.sync_target();
            }
            out.push(EpisodeStats {
                episode: self.episode,
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
