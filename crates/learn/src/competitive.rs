//! Competitive DQN: a black learner and a white learner trained by playing each other.

use game::{Color, Game};

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
        let config = self.black.config.clone();
        let n = config.parallel.min(limit).max(1);
        let mut rng = round_rng(config.seed, self.episode);
        let epsilon = config.epsilon(self.episode);
        let seats = (0..n)
            .map(|_| [Seat::Batched(0), Seat::Batched(1)])
            .collect();
        let ends = play_games(
            &mut [&mut self.black, &mut self.white],
            seats,
            epsilon,
            true,
            true,
            &mut rng,
        )?;
        let loss = [self.black.take_loss(), self.white.take_loss()];
        let mut out = Vec::with_capacity(n);
        for end in ends {
            self.episode += 1;
            if self.episode.is_multiple_of(config.target_sync) {
                self.black.sync_target();
                self.white.sync_target();
            }
            out.push(CompetitiveStats {
                episode: self.episode,
                winner: end.winner,
                rewards: end.rewards,
                epsilon,
                loss,
            });
        }
        Ok(out)
    }
}
