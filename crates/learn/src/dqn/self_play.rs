//! DQN self-play with one network: a single learner chooses the moves of both colours and
//! stores every transition in its one replay buffer (the reference design's regimes 1 and 2).

use game::{Color, Game};

use super::trainer::play_round;
use super::*;

/// One finished self-play game.
#[derive(Clone, Debug, PartialEq)]
pub struct SelfPlayStats {
    /// Episode number, from 1.
    pub episode: usize,
    /// The winner (None for a draw).
    pub winner: Option<Color>,
    /// Total reward of (black, white).
    pub rewards: [f32; 2],
    /// ε used.
    pub epsilon: f64,
    /// Mean loss of the gradient steps of this episode's round (None before learning starts).
    pub loss: Option<f64>,
}

/// Self-play training of one DQN learner that plays both colours.
pub struct SelfPlayTrainer<G: Game> {
    /// The learner.
    pub learner: DqnLearner<G>,
    /// Episodes played.
    pub episode: usize,
}

impl<G: Game> SelfPlayTrainer<G> {
    /// A fresh learner.
    ///
    /// # Errors
    /// [`DqnError::Config`] for invalid settings.
    pub fn new(config: DqnConfig) -> Result<Self, DqnError> {
        Ok(SelfPlayTrainer {
            learner: DqnLearner::new(config)?,
            episode: 0,
        })
    }

    /// Plays and learns one round of up to `config.parallel` games (at most `limit`), the
    /// learner on both sides of each.
    ///
    /// # Errors
    /// [`DqnError`] if the environment fails.
    pub fn round(&mut self, limit: usize) -> Result<Vec<SelfPlayStats>, DqnError> {
        let (ends, epsilon) =
            play_round(&mut [&mut self.learner], &mut self.episode, limit, &|_| {
                [Seat::Batched(0), Seat::Batched(0)]
            })?;
        let loss = self.learner.take_loss();
        let out = ends
            .into_iter()
            .map(|(episode, end)| SelfPlayStats {
                episode,
                winner: end.winner,
                rewards: end.rewards,
                epsilon,
                loss,
            })
            .collect();
        Ok(out)
    }
}
