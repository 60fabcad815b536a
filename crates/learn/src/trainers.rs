//! [`Trainer`] for each algorithm: DQN against an opponent, competitive DQN (black vs white
//! learners), and the Q-learning MLP.

use std::path::Path;

use arena::{versus, ColourWdl, VersusSettings};
use game::{Color, Game};
use search::driver::{NoBatched, Seat};

use crate::checkpoint::{weights_bytes, Card};
use crate::competitive::CompetitiveTrainer;
use crate::dqn::{evaluate, DqnConfig, DqnLearner, DqnTrainer, SelfPlayTrainer};
use crate::qmlp::{epsilon, QMlpAgent, QMlpTrainer};
use crate::run::{AgentFactory, Cell, EpisodeRow, Export, RunError, Trainer};

fn color_name(c: Color) -> &'static str {
    if c == Color::Black {
        "black"
    } else {
        "white"
    }
}

/// The log row of a trainer that plays both colours: the episode, the winner, each colour's
/// reward and ε, then the trainer's own `rest`.
fn both_colours<const N: usize>(
    episode: usize,
    winner: Option<Color>,
    rewards: [f32; 2],
    epsilon: f64,
    rest: [Cell; N],
) -> Vec<Cell> {
    let mut cells = vec![
        Cell::count(episode),
        Cell::text(winner.map_or("draw", color_name)),
        Cell::real(f64::from(rewards[0]), 4),
        Cell::real(f64::from(rewards[1]), 4),
        Cell::real(epsilon, 4),
    ];
    cells.extend(rest);
    cells
}

/// A card without the file facts (name, sha256, size), which writing fills in.
#[allow(clippy::too_many_arguments)]
fn card(
    algo: &str,
    game: &str,
    board_size: usize,
    arch: Option<serde_json::Value>,
    config: serde_json::Value,
    episodes: usize,
    train_steps: u64,
    last_eval: &serde_json::Value,
) -> Card {
    Card {
        format: String::new(),
        algo: algo.into(),
        game: game.into(),
        board_size,
        arch,
        config,
        episodes,
        train_steps,
        weights: String::new(),
        sha256: String::new(),
        bytes: 0,
        last_eval: last_eval.clone(),
    }
}

fn dqn_export<G: Game>(
    file: String,
    learner: &DqnLearner<G>,
    game: &str,
    episodes: usize,
    last_eval: &serde_json::Value,
) -> Result<Export, RunError> {
    Ok(Export {
        file,
        weights: weights_bytes(&learner.inference_net())?,
        card: card(
            "dqn",
            game,
            G::BOARD_SIZE,
            serde_json::to_value(learner.config.arch).ok(),
            serde_json::to_value(&learner.config).unwrap_or_default(),
            episodes,
            learner.grad_steps,
            last_eval,
        ),
    })
}

/// The progress methods of a trainer of one DQN learner (fields `learner` and `episode`):
/// [`DqnTrainer`] and [`SelfPlayTrainer`].
macro_rules! one_learner_progress {
    () => {
        fn episode(&self) -> usize {
            self.episode
        }

        fn epsilon(&self) -> f64 {
            self.learner.config.epsilon(self.episode)
        }
    };
}

/// The evaluation, state and model methods of a trainer of one DQN learner (fields `learner`
/// and `episode`), whose player is labelled `dqn` and exported as `last.safetensors`.
macro_rules! one_learner_state {
    () => {
        fn evaluate(
            &mut self,
            opponent: &AgentFactory<'_, G>,
            settings: &VersusSettings,
        ) -> Result<Vec<(String, ColourWdl)>, RunError> {
            Ok(vec![(
                "dqn".into(),
                evaluate(&mut self.learner, opponent, settings)?,
            )])
        }

        fn save_state(&self, dir: &Path) -> Result<(), RunError> {
            Ok(self.learner.save_state(dir)?)
        }

        fn load_state(&mut self, dir: &Path, episode: usize) -> Result<(), RunError> {
            self.learner = DqnLearner::load_state(self.learner.config.clone(), dir)?;
            self.episode = episode;
            Ok(())
        }

        fn models(
            &self,
            game: &str,
            last_eval: &serde_json::Value,
        ) -> Result<Vec<Export>, RunError> {
            Ok(vec![dqn_export(
                "last.safetensors".into(),
                &self.learner,
                game,
                self.episode,
                last_eval,
            )?])
        }
    };
}

impl<G: Game> Trainer<G> for DqnTrainer<G> {
    fn algo(&self) -> &'static str {
        crate::algos::DQN.name
    }

    fn log_header(&self) -> &'static str {
        crate::algos::DQN.log
    }

    one_learner_progress!();

    fn round(
        &mut self,
        limit: usize,
        opponent: &AgentFactory<'_, G>,
    ) -> Result<Vec<EpisodeRow>, RunError> {
        let stats = DqnTrainer::round(self, opponent, limit)?;
        let replay = self.learner.replay_len();
        let steps = self.learner.grad_steps;
        Ok(stats
            .into_iter()
            .map(|s| EpisodeRow {
                values: vec![
                    Cell::count(s.episode),
                    Cell::text(color_name(s.color)),
                    Cell::Int(i64::from(s.result)),
                    Cell::real(f64::from(s.reward), 4),
                    Cell::real(s.epsilon, 4),
                    Cell::maybe(s.loss, 6),
                    Cell::count(replay),
                    Cell::count(steps),
                ],
                won: s.result > 0,
                loss: s.loss,
            })
            .collect())
    }

    one_learner_state!();
}

impl<G: Game> Trainer<G> for SelfPlayTrainer<G> {
    fn algo(&self) -> &'static str {
        crate::algos::DQN_SELF_PLAY.name
    }

    fn log_header(&self) -> &'static str {
        crate::algos::DQN_SELF_PLAY.log
    }

    one_learner_progress!();

    fn round(
        &mut self,
        limit: usize,
        _opponent: &AgentFactory<'_, G>,
    ) -> Result<Vec<EpisodeRow>, RunError> {
        let stats = SelfPlayTrainer::round(self, limit)?;
        let replay = self.learner.replay_len();
        let steps = self.learner.grad_steps;
        Ok(stats
            .into_iter()
            .map(|s| EpisodeRow {
                values: both_colours(
                    s.episode,
                    s.winner,
                    s.rewards,
                    s.epsilon,
                    [
                        Cell::maybe(s.loss, 6),
                        Cell::count(replay),
                        Cell::count(steps),
                    ],
                ),
                won: s.winner == Some(Color::Black),
                loss: s.loss,
            })
            .collect())
    }

    one_learner_state!();
}

impl<G: Game> Trainer<G> for CompetitiveTrainer<G> {
    fn algo(&self) -> &'static str {
        crate::algos::DQN_COMPETITIVE.name
    }

    fn log_header(&self) -> &'static str {
        crate::algos::DQN_COMPETITIVE.log
    }

    fn episode(&self) -> usize {
        self.episode
    }

    fn epsilon(&self) -> f64 {
        self.black.config.epsilon(self.episode)
    }

    fn round(
        &mut self,
        limit: usize,
        _opponent: &AgentFactory<'_, G>,
    ) -> Result<Vec<EpisodeRow>, RunError> {
        let stats = CompetitiveTrainer::round(self, limit)?;
        Ok(stats
            .into_iter()
            .map(|s| EpisodeRow {
                values: both_colours(
                    s.episode,
                    s.winner,
                    s.rewards,
                    s.epsilon,
                    [Cell::maybe(s.loss[0], 6), Cell::maybe(s.loss[1], 6)],
                ),
                won: s.winner == Some(Color::Black),
                loss: s.loss[0],
            })
            .collect())
    }

    fn evaluate(
        &mut self,
        opponent: &AgentFactory<'_, G>,
        settings: &VersusSettings,
    ) -> Result<Vec<(String, ColourWdl)>, RunError> {
        Ok(vec![
            (
                "black-dqn".into(),
                evaluate(&mut self.black, opponent, settings)?,
            ),
            (
                "white-dqn".into(),
                evaluate(&mut self.white, opponent, settings)?,
            ),
        ])
    }

    fn save_state(&self, dir: &Path) -> Result<(), RunError> {
        for (name, learner) in [("black", &self.black), ("white", &self.white)] {
            let sub = dir.join(name);
            std::fs::create_dir_all(&sub).map_err(|source| RunError::Io {
                path: sub.clone(),
                source,
            })?;
            learner.save_state(&sub)?;
        }
        Ok(())
    }

    fn load_state(&mut self, dir: &Path, episode: usize) -> Result<(), RunError> {
        let white = DqnConfig {
            seed: self.black.config.seed.wrapping_add(1),
            ..self.black.config.clone()
        };
        self.black = DqnLearner::load_state(self.black.config.clone(), &dir.join("black"))?;
        self.white = DqnLearner::load_state(white, &dir.join("white"))?;
        self.episode = episode;
        Ok(())
    }

    fn models(&self, game: &str, last_eval: &serde_json::Value) -> Result<Vec<Export>, RunError> {
        Ok(vec![
            dqn_export(
                "black-last.safetensors".into(),
                &self.black,
                game,
                self.episode,
                last_eval,
            )?,
            dqn_export(
                "white-last.safetensors".into(),
                &self.white,
                game,
                self.episode,
                last_eval,
            )?,
        ])
    }
}

impl<G: Game> Trainer<G> for QMlpTrainer<G> {
    fn algo(&self) -> &'static str {
        crate::algos::Q_MLP.name
    }

    fn log_header(&self) -> &'static str {
        crate::algos::Q_MLP.log
    }

    fn episode(&self) -> usize {
        self.epochs_done() * self.config().games_per_epoch
    }

    fn epsilon(&self) -> f64 {
        epsilon(self.epochs_done())
    }

    fn round(
        &mut self,
        _limit: usize,
        _opponent: &AgentFactory<'_, G>,
    ) -> Result<Vec<EpisodeRow>, RunError> {
        let before = Trainer::episode(self);
        let s = self.epoch();
        Ok(s.games
            .iter()
            .enumerate()
            .map(|(k, &(color, result, loss))| EpisodeRow {
                values: vec![
                    Cell::count(before + k + 1),
                    Cell::count(s.epoch),
                    Cell::text(color_name(color)),
                    Cell::Int(i64::from(result)),
                    Cell::real(s.epsilon, 4),
                    Cell::real(loss, 6),
                    Cell::count(s.wins),
                ],
                won: result > 0,
                loss: Some(loss),
            })
            .collect())
    }

    fn evaluate(
        &mut self,
        opponent: &AgentFactory<'_, G>,
        settings: &VersusSettings,
    ) -> Result<Vec<(String, ColourWdl)>, RunError> {
        let net = self.inference_net();
        let record = versus(
            &mut |_| Seat::Agent(Box::new(QMlpAgent::<G>::new(net.clone(), "q-mlp".into()))),
            &mut NoBatched,
            opponent,
            settings,
        )?;
        Ok(vec![("q-mlp".into(), record)])
    }

    fn save_state(&self, dir: &Path) -> Result<(), RunError> {
        Ok(QMlpTrainer::save_state(self, dir)?)
    }

    fn load_state(&mut self, dir: &Path, _episode: usize) -> Result<(), RunError> {
        *self = QMlpTrainer::load_state(self.config().clone(), dir)?;
        Ok(())
    }

    fn models(&self, game: &str, last_eval: &serde_json::Value) -> Result<Vec<Export>, RunError> {
        let c = self.config();
        let settings = serde_json::json!({
            "games_per_epoch": c.games_per_epoch,
            "gamma": c.gamma,
            "learning_rate": c.learning_rate,
            "seed": c.seed,
            "learner": c.learner,
            "opponent": c.opponent,
            "init": c.init,
            "optimizer": c.optimizer,
            "defects": c.defects,
        });
        let episodes = Trainer::episode(self);
        Ok(vec![Export {
            file: "last.safetensors".into(),
            weights: weights_bytes(&self.inference_net())?,
            card: card(
                "q-mlp",
                game,
                G::BOARD_SIZE,
                None,
                settings,
                episodes,
                self.optimizer_steps(),
                last_eval,
            ),
        }])
    }
}
