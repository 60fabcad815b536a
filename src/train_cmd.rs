//! `stonelab train`: training runs with a progress bar, written to `runs/NAME/` (settings in
//! `config.json`, per-episode `log.csv`, evaluations in `eval.csv`, plots, checkpoints that
//! `--resume` continues from).

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use learn::algos::{self, Algorithm, Games, Runner};
use learn::options::TrainOptions;
use learn::session::Finished;
use learn::{QTableConfig, RunConfig, RunDir, RunError};

use catalog::{othello4_values, CatalogGame};

use crate::games::{with_game, CliGame, GameId};
use lab::plots::{line_chart, Series};

/// The algorithms of `stonelab train`, from the registry ([`learn::algos`]), with their
/// summaries as the help of each value.
fn algorithm_parser() -> impl clap::builder::TypedValueParser<Value = &'static Algorithm> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(
        algos::ALGORITHMS
            .iter()
            .map(|a| PossibleValue::new(a.name).help(a.summary)),
    )
    .try_map(|name: String| algos::find(&name).ok_or_else(|| format!("unknown algorithm {name:?}")))
}

/// `stonelab train`: the algorithm, the game and the options ([`TrainOptions`]).
#[derive(Args, Debug, Clone)]
pub struct TrainArgs {
    /// The algorithm.
    #[arg(value_parser = algorithm_parser())]
    pub algo: &'static Algorithm,
    /// The game (default othello4 for q-table, othello8 otherwise; the neural agents train on
    /// every game, e.g. gomoku9 for a quick Gomoku run).
    // Listed after --preset and --defect (the options' first two), as before.
    #[arg(long, display_order = 2)]
    pub game: Option<GameId>,
    /// The options.
    #[command(flatten)]
    pub options: TrainOptions,
}

/// Runs `stonelab train` after refusing options the algorithm does not read.
pub fn run(args: &TrainArgs) -> Result<()> {
    learn::options::check_options(args.algo, &args.options.given)?;
    args.options.check_common()?;
    let threads = args.options.threads.unwrap_or(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("building the thread pool")?;
    let algo = args.algo;
    pool.install(|| match algo.runner {
        Runner::QTable => q_table(args),
        Runner::Run(_) => match algo.games {
            Games::Any => {
                // A resumed run's game is its config's unless --game names one.
                let game = args
                    .game
                    .or_else(|| resumed_game(args))
                    .unwrap_or(GameId::Othello8);
                with_game!(game, G => neural::<G>(args, game))
            }
            Games::Only(only) => {
                let game = args.game.unwrap_or(GameId::Othello8);
                if game.to_string() != only || game != GameId::Othello8 {
                    bail!(
                        "{} learns from the WTHOR records of 8x8 Othello: --game othello8 only, \
                         not {game}",
                        algo.name
                    );
                }
                neural::<othello::Othello8>(args, game)
            }
        },
        Runner::Patterns => crate::patterns_cmd::train(args),
        Runner::ProbCut => crate::patterns_cmd::probcut(args),
    })
}

fn q_table(args: &TrainArgs) -> Result<()> {
    let game = args.game.unwrap_or(GameId::Othello4);
    if game != GameId::Othello4 {
        bail!("q-table tabulates every position: only othello4 is small enough ({game} is not)");
    }
    if args.options.resume {
        bail!(
            "q-table runs take seconds and keep no checkpoints, so they cannot be resumed: run \
             the command again with --force (it replaces the run in --out)"
        );
    }
    let episodes = args.options.episodes.unwrap_or(2_000_000);
    if episodes == 0 {
        bail!("--episodes must be at least 1");
    }
    if args.options.evals == 0 {
        bail!("--evals 0: at least one evaluation");
    }
    // At most one evaluation per episode (so a short run with the default 20 evaluates each).
    let evals = args.options.evals.min(episodes);
    let dir = RunDir::create(&args.options.out, args.options.force).map_err(|e| match e {
        RunError::Exists(path) => anyhow!(
            "{} already holds a run: add --force to start it over (q-table runs cannot be \
             resumed), or choose another --out",
            path.display()
        ),
        e => cli_error(e),
    })?;
    let config = QTableConfig {
        episodes,
        seed: args.options.seed,
        ..QTableConfig::default()
    };
    let exact = othello4_values().map_err(|e| anyhow!("value iteration: {e}"))?;
    let bar = crate::progress::bar(args.options.quiet, episodes as u64, "episodes");
    let summary = learn::qtable_run::train_q_table(&dir, &config, evals, &exact, &mut |p, last| {
        if p.episode % 1000 == 0 {
            bar.set_position(p.episode as u64);
            bar.set_message(format!(
                "ε {:.3}, optimal {:.1}%, {} positions",
                p.epsilon,
                100.0 * last,
                p.states
            ));
        }
    })
    .map_err(cli_error)
    .context("training the q-table")?;
    bar.finish_and_clear();
    files::create_dir_all(&args.options.out.join("plots"))?;
    line_chart(
        &args.options.out.join("plots/optimal.png"),
        "q-table on othello4: greedy move optimal",
        "episodes",
        "fraction of positions",
        &[Series {
            name: "optimal fraction".into(),
            points: summary.curve,
        }],
        Some((0.0, 1.0)),
    )?;
    outln!(
        "q-table on othello4: {episodes} episodes, {} positions learned; greedy move optimal in \
         {:.1}% of the positions where the choice matters (start {:.1}%); logs in {}",
        summary.states,
        100.0 * summary.last,
        100.0 * summary.first,
        args.options.out.display()
    );
    Ok(())
}

/// What this invocation played, in words: "80 episodes in 8 s", or after a resume "40
/// episodes (41 to 80) in 4 s; the run has 80".
fn played_text(summary: &learn::run::Summary) -> String {
    let played = summary.episodes.saturating_sub(summary.started_at);
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    if summary.started_at == 0 {
        format!(
            "{played} episode{} in {:.0} s",
            plural(played),
            summary.seconds
        )
    } else {
        format!(
            "{played} episode{} ({} to {}) in {:.0} s; the run has {}",
            plural(played),
            summary.started_at + 1,
            summary.episodes,
            summary.seconds,
            summary.episodes
        )
    }
}

/// Library errors in the command line's words.
fn cli_error(e: RunError) -> anyhow::Error {
    match e {
        RunError::Exists(path) => anyhow!(
            "{} already holds a run: add --resume to continue it, --force to start over, or \
             choose another --out",
            path.display()
        ),
        RunError::NotEmpty(path) => anyhow!(
            "--out {} is not empty and holds no run: choose another --out (or add --force when \
             it holds only what a run stopped before writing config.json left there)",
            path.display()
        ),
        e @ RunError::Foreign { .. } => anyhow!("--out: {e}"),
        e @ RunError::NoRun(_) => {
            anyhow!("--resume: {e}; a run stopped before writing it starts over with --force")
        }
        e @ RunError::Mismatch { .. } => anyhow!("--resume: {e}"),
        e @ RunError::NoUsableCheckpoint { .. } => {
            anyhow!("--resume: {e} (--force starts it over)")
        }
        e => anyhow!(e),
    }
}

/// The game of the run `--resume` names in `--out`, when its config.json reads.
fn resumed_game(args: &TrainArgs) -> Option<GameId> {
    if !args.options.resume {
        return None;
    }
    let config: learn::RunConfig = RunDir::open(&args.options.out).ok()?.read_config().ok()?;
    config.game.parse().ok()
}

fn neural<G: CliGame + CatalogGame>(args: &TrainArgs, game: GameId) -> Result<()> {
    let registry = G::registry();
    let (dir, run, from) = if args.options.resume {
        // The run's agents are checked before the resume touches its files.
        if let Ok(config) =
            RunDir::open(&args.options.out).and_then(|d| d.read_config::<learn::RunConfig>())
        {
            config.opponents(&registry)?;
        }
        let learn::Resumed {
            dir,
            config: run,
            from,
            warnings,
        } = learn::resume(
            &args.options.out,
            args.algo.name,
            &game.to_string(),
            args.options.episodes,
        )
        .map_err(cli_error)?;
        for warning in &warnings {
            eprintln!("warning: {warning}");
        }
        if let Some(warning) = args
            .options
            .resume_warning(args.algo, &game.to_string(), &run)
        {
            eprintln!("warning: {warning}");
        }
        if from.is_none() {
            eprintln!(
                "no checkpoint in {} yet: starting the run over",
                args.options.out.display()
            );
        }
        // A new total is the run's from now on: a later plain --resume goes on to it.
        if args.options.episodes.is_some() {
            run.check_whole_epochs()?;
            dir.write_config(&run)?;
        }
        (dir, run, from)
    } else {
        if args.options.episodes == Some(0) {
            bail!("--episodes must be at least 1");
        }
        let run = args.options.run_config(args.algo, &game.to_string())?;
        run.validate().map_err(|e| anyhow!("{e}"))?;
        registry
            .validate(&args.options.opponent)
            .map_err(|e| anyhow!("--opponent: {e}"))?;
        run.opponents(&registry)?;
        let dir = RunDir::create(&args.options.out, args.options.force).map_err(cli_error)?;
        dir.write_config(&run)?;
        (dir, run, None)
    };
    let Some(summary) = execute::<G>(&dir, &run, from.as_ref(), args.options.quiet)? else {
        return Ok(());
    };
    let checkpoints = dir.file(learn::run::CHECKPOINTS);
    let shown: Vec<String> = args
        .algo
        .models
        .iter()
        .map(|(file, colour)| {
            let path = checkpoints.join(file).display().to_string();
            if colour.is_empty() {
                path
            } else {
                format!("{path} ({colour})")
            }
        })
        .collect();
    let models = match shown.as_slice() {
        [one] => format!("model {one}"),
        many => format!("models {}", many.join(" and ")),
    };
    outln!(
        "{} on {}: {}; last evaluation: {}; {models}",
        run.algo,
        run.game,
        played_text(&summary),
        learn::session::eval_line(&summary.last_eval),
    );
    Ok(())
}

/// Trains the run in `dir` (fresh, or from the checkpoint `from`) to its end
/// ([`learn::session::execute`]) with a progress bar (unless `quiet`) and the plots. `None`
/// when the run had nothing left to do.
///
/// # Errors
/// A failed round, evaluation, write or plot.
pub fn execute<G: CliGame + CatalogGame>(
    dir: &RunDir,
    run: &RunConfig,
    from: Option<&learn::Checkpoint>,
    quiet: bool,
) -> Result<Option<learn::run::Summary>> {
    let ui = crate::progress::Terminal { quiet };
    match learn::session::execute::<G>(dir, run, from, &G::registry(), &ui)? {
        Finished::Trained(summary) => Ok(Some(summary)),
        Finished::AlreadyDone { start } => {
            outln!(
                "{} already has {start} of {} episodes: nothing to do (raise --episodes to go on)",
                dir.root().display(),
                run.episodes
            );
            Ok(None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every option of `train` says which algorithms read it, so a new one cannot be silently
    /// ignored by the others.
    #[test]
    fn every_option_names_the_algorithms_that_read_it() {
        let command = TrainArgs::augment_args(clap::Command::new("train"));
        for arg in command.get_arguments() {
            let id = arg.get_id().as_str();
            if matches!(id, "help" | "version") {
                continue;
            }
            assert!(
                !algos::readers(id).is_empty(),
                "{id} is read by no algorithm of the registry (learn::algos)"
            );
        }
    }
}
