//! Building a [`Trainer`] for a run's settings from its registry entry's [`Build`]: the one
//! place that knows every algorithm's trainer type, so the run framework ([`crate::run`])
//! needs none of them.

use game::Game;

use crate::algos::{Build, Runner};
use crate::competitive::CompetitiveTrainer;
use crate::config::RunConfig;
use crate::dqn::{DqnTrainer, SelfPlayTrainer};
use crate::qmlp::QMlpTrainer;
use crate::run::{Checkpoint, RunDir, RunError, Trainer};
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
    let algo = crate::config::framework_algorithm(&config.algo).map_err(RunError::Settings)?;
    // `framework_algorithm` returns only the run framework's algorithms.
    let Runner::Run(build) = algo.runner else {
        return Err(RunError::Settings(format!(
            "{} does not run in a run folder",
            algo.name
        )));
    };
    let dqn = || {
        config
            .dqn()
            .cloned()
            .ok_or_else(|| RunError::Settings("config.json has no dqn settings".into()))
    };
    let mut trainer: Box<dyn Trainer<G>> = match build {
        Build::QMlp => Box::new(QMlpTrainer::<G>::new(config.q_mlp_config()?)),
        Build::Dqn => Box::new(DqnTrainer::<G>::new(dqn()?)?),
        Build::DqnSelfPlay => Box::new(SelfPlayTrainer::<G>::new(dqn()?)?),
        Build::DqnCompetitive => Box::new(CompetitiveTrainer::<G>::new(dqn()?)?),
        Build::Supervised => {
            let settings = config
                .value()
                .cloned()
                .ok_or_else(|| RunError::Settings("no value settings".into()))?;
            othello8_only::<G>(
                Box::new(SupervisedTrainer::new(algo.name, settings)?),
                algo.name,
            )?
        }
        Build::ValueSelfPlay => {
            let settings = config
                .value_self_play()
                .cloned()
                .ok_or_else(|| RunError::Settings("no value_self_play settings".into()))?;
            let trainer = if from.is_some() {
                ValueSelfPlayTrainer::for_resume(settings)?
            } else {
                ValueSelfPlayTrainer::new(settings)?
            };
            othello8_only::<G>(Box::new(trainer), algo.name)?
        }
        Build::ValueIteration => {
            let settings = match &config.settings {
                crate::AlgoSettings::ValueIteration(v) => v.clone(),
                _ => return Err(RunError::Settings("no value_iteration settings".into())),
            };
            othello8_only::<G>(
                Box::new(crate::value::iteration::ValueIterationTrainer::new(
                    settings,
                )?),
                algo.name,
            )?
        }
        Build::AlphaZero => match &config.settings {
            crate::AlgoSettings::AlphaZero(s) => {
                Box::new(crate::alphazero::AlphaZeroTrainer::<G>::new(s.clone())?)
            }
            _ => return Err(RunError::Settings("no alphazero settings".into())),
        },
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
