//! Competitive DQN: a black learner and a white learner trained by playing each other.

use game::{Color, Game};

use crate::dqn::trainer::play_round;
use crate::dqn::*;

/// One finished game of competitive training.
#[derive(Clone, Debug, PartialEq)]
pub struct CompetitiveStats {
    /// Episode number, from 1.
    pub episode: usize,
    /// The winner (None for a draw).
    pub winner: Option<Color>,
    /// Total reward of (black, white).
    pub rewards: [f32; 2],
    /// ε used.
    pub epsilon: f64,
    /// Mean loss of each learner's gradient steps in this round.
    pub loss: [Option<f64>; 2],
}

/// Competitive training: a black DQN and a white DQN learn by playing each other.
pub struct CompetitiveTrainer<G: Game> {
    /// The learner that always plays black.
    pub black: DqnLearner<G>,
    /// The learner that always plays white.
    pub white: DqnLearner<G>,
    /// Episodes played.
    pub episode: usize,
}

impl<G: Game> CompetitiveTrainer<G> {
    /// Two fresh learners (the white one seeded `seed + 1`).
    ///
    /// # Errors
    /// [`DqnError::Config`] for invalid settings.
    pub fn new(config: DqnConfig) -> Result<Self, DqnError> {
        let white = DqnConfig {
            seed: config.seed.wrapping_add(1),
            ..config.clone()
        };
        Ok(CompetitiveTrainer {
            black: DqnLearner::new(config)?,
            white: DqnLearner::new(white)?,
            episode: 0,
        })
    }

    /// Plays and learns one round of up to `parallel` games (at most `limit`).
    ///
    /// # Errors
    /// [`DqnError`] if the environment fails.
    pub fn round(&mut self, limit: usize) -> Result<Vec<CompetitiveStats>, DqnError> {
        let (ends, epsilon) = play_round(
            &mut [&mut self.black, &mut self.white],
            &mut self.episode,
            limit,
            &|_| [Seat::Batched(0), Seat::Batched(1)],
        )?;
        let loss = [self.black.take_loss(), self.white.take_loss()];
        let out = ends
            .into_iter()
            .map(|(episode, end)| CompetitiveStats {
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
