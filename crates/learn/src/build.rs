//! Building a [`Trainer`] for a run's settings: the one place that knows every algorithm's
//! trainer type, so the run framework ([`crate::run`]) needs none of them.

use game::Game;

use crate::competitive::CompetitiveTrainer;
use crate::dqn::{DqnTrainer, SelfPlayTrainer};
use crate::qmlp::QMlpTrainer;
use crate::run::{Checkpoint, RunConfig, RunDir, RunError, Trainer};
use crate::value::policy_iteration::ValueSelfPlayTrainer;
use crate::value::supervised::SupervisedTrainer;

/// A trainer for `config` on game `G`: fresh, or continued from `from`, whose files are
/// checked against its manifest ([`RunDir::checkpoint`]) before any of them is read.
///
/// # Errors
/// [`RunError`] for bad settings, [`RunError::Damaged`] for a damaged checkpoint, or another
/// [`RunError`] for an unreadable one.
pub fn build_trainer<G: Game>(
    config: &RunConfig,
    from: Option<&Checkpoint>,
) -> Result<Box<dyn Trainer<G>>, RunError> {
    config.validate()?;
    let mut trainer: Box<dyn Trainer<G>> = match config.algo.as_str() {
        "cnn-supervised" | "mlp-supervised" => {
            let algo = if config.algo == "cnn-supervised" {
                "cnn-supervised"
            } else {
                "mlp-supervised"
            };
            let settings = config
                .value
                .clone()
                .ok_or_else(|| RunError::Settings("no value settings".into()))?;
            othello8_only::<G>(Box::new(SupervisedTrainer::new(algo, settings)?), algo)?
        }
        "cnn-selfplay" => {
            let settings = config
                .value_self_play
                .clone()
                .ok_or_else(|| RunError::Settings("no value_self_play settings".into()))?;
            othello8_only::<G>(
                Box::new(ValueSelfPlayTrainer::new(settings)?),
                "cnn-selfplay",
            )?
        }
        "dqn" => Box::new(DqnTrainer::<G>::new(config.dqn_config()?)?),
        "dqn-competitive" => Box::new(CompetitiveTrainer::<G>::new(config.dqn_config()?)?),
        "dqn-self-play" => Box::new(SelfPlayTrainer::<G>::new(config.dqn_config()?)?),
        _ => Box::new(QMlpTrainer::<G>::new(config.q_mlp_config()?)),
    };
    if let Some(cp) = from {
        let checked = RunDir::checkpoint(&cp.path)?;
        if checked.episode != cp.episode {
            return Err(RunError::BadCheckpoint {
                path: cp.path.clone(),
                why: format!(
                    "it holds episode {}, not {} as asked",
                    checked.episode, cp.episode
                ),
            });
        }
        trainer.load_state(&cp.path, cp.episode)?;
    }
    Ok(trainer)
}

/// A trainer of 8x8 Othello as a trainer of `G`, when `G` is 8x8 Othello.
fn othello8_only<G: Game>(
    trainer: Box<dyn Trainer<othello::Othello8>>,
    algo: &str,
) -> Result<Box<dyn Trainer<G>>, RunError> {
    let any: Box<dyn std::any::Any> = Box::new(trainer);
    any.downcast::<Box<dyn Trainer<G>>>()
        .map(|t| *t)
        .map_err(|_| RunError::Settings(format!("{algo} trains on othello8 only, not {}", G::ID)))
}
