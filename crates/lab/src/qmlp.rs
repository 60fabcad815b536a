//! The Othello Q-learning MLP design (`seed001`): the preset as designed, each of its four code
//! defects switched on alone, all four (the authors' code as written), and stonelab's corrected
//! `q-mlp` — curves against random and the trained networks against fixed players.

use std::fmt::Write as _;

use anyhow::{anyhow, Result};
use learn::presets::{self, PresetOptions};
use learn::qmlp::Defects;
use learn::{QMlpAgent, QMlpNet};
use othello::Othello8;

use super::{
    evaluate_table, md_table, pct_ci, relative, train_run, AgentMaker, Ctx, Report, TrainedRun,
};

/// What a run of the experiment changes: the design's defect switches, one of the design's
/// settings put back to stonelab's (a diagnosis), or stonelab's corrected trainer.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Change {
    Defects(Defects),
    /// The design with burn's initialisation instead of N(0, 1).
    BurnInit,
    /// The design with Adam after each game instead of SGD per transition after each epoch.
    Adam,
    Corrected,
}

/// The runs of the experiment.
fn variants() -> Vec<(&'static str, Change)> {
    let mut all: Vec<(&'static str, Change)> = defect_variants()
        .into_iter()
        .map(|(label, d)| (label, d.map_or(Change::Corrected, Change::Defects)))
        .collect();
    let corrected = all.pop();
    all.push(("design, burn's initialisation", Change::BurnInit));
    all.push(("design, Adam after each game", Change::Adam));
    all.extend(corrected);
    all
}

/// The defect runs: (label, defects; `None` for stonelab's corrected trainer).
fn defect_variants() -> Vec<(&'static str, Option<Defects>)> {
    let on = |greedy_lowest, frozen_state, additive_target, tanh_derivative| {
        Some(Defects {
            greedy_lowest,
            frozen_state,
            additive_target,
            tanh_derivative,
        })
    };
    vec![
        ("design, defects off", on(false, false, false, false)),
        ("greedy-lowest", on(true, false, false, false)),
        ("frozen-state", on(false, true, false, false)),
        ("additive-target", on(false, false, true, false)),
        ("tanh-derivative", on(false, false, false, true)),
        ("all four (the code as written)", on(true, true, true, true)),
        ("stonelab q-mlp (corrected)", None),
    ]
}

/// The `--defect` flags of a set of switches.
fn defect_flags(d: &Defects) -> String {
    let mut flags = String::new();
    for (on, name) in [
        (d.greedy_lowest, "greedy-lowest"),
        (d.frozen_state, "frozen-state"),
        (d.additive_target, "additive-target"),
        (d.tanh_derivative, "tanh-derivative"),
    ] {
        if on {
            let _ = write!(flags, " --defect {name}");
        }
    }
    flags
}

/// A folder name for a label.
fn slug(label: &str) -> String {
    let s: String = label
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    s.split('-')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("-")
}

/// The win rate against `random` at the run's first and last evaluation.
fn curve_ends(run: &TrainedRun) -> Result<(String, String)> {
    let path = run.dir.join(learn::run::EVAL);
    let text =
        std::fs::read_to_string(&path).map_err(|e| anyhow!("reading {}: {e}", path.display()))?;
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .filter(|r: &Vec<&str>| r.get(2) == Some(&"random"))
        .collect();
    let rate = |r: Option<&Vec<&str>>| {
        r.and_then(|r| {
            let games: f64 = r.get(3)?.parse().ok()?;
            let won: f64 = r.get(4)?.parse::<f64>().ok()? * games;
            Some(format!("{} (ep. {})", pct_ci(won, games), r.first()?))
        })
        .unwrap_or_else(|| "—".into())
    };
    Ok((rate(rows.first()), rate(rows.last())))
}

/// The learner's share of wins in the last `n` training games (against its training opponent).
fn training_wins(run: &TrainedRun, n: usize) -> Result<String> {
    let log = run.log()?;
    // episode,epoch,color,result,epsilon,loss,epoch_wins,seconds
    let last: Vec<i32> = log
        .iter()
        .rev()
        .take(n)
        .filter_map(|r| r.get(3).and_then(|v| v.parse().ok()))
        .collect();
    let wins = last.iter().filter(|&&r| r > 0).count();
    Ok(pct_ci(wins as f64, last.len() as f64))
}

/// `seed001`.
pub fn seed001(ctx: &Ctx, report: &mut Report) -> Result<()> {
    // Whole epochs of the design's 10 games.
    let episodes = ctx.scaled(20_000, 10).div_ceil(10) * 10;
    let mut trained = Vec::new();
    for (label, change) in variants() {
        let design = || {
            presets::preset(
                "seed001",
                &PresetOptions {
                    seed: ctx.seed,
                    episodes: Some(episodes),
                    defects: match change {
                        Change::Defects(d) => d,
                        _ => Defects::default(),
                    },
                },
            )
            .map_err(|e| anyhow!("{e}"))
        };
        let mut run = match change {
            Change::Defects(_) => design()?,
            Change::BurnInit | Change::Adam => {
                let mut run = design()?;
                if let Some(q) = run.q_mlp_mut() {
                    if change == Change::BurnInit {
                        q.init = learn::qmlp::QMlpInit::Default;
                    } else {
                        q.optimizer = learn::qmlp::QMlpOptimizer::Adam;
                        q.learning_rate = 1e-3;
                    }
                }
                run
            }
            Change::Corrected => {
                // stonelab's own trainer: Adam after each game, colours alternating, against
                // uniformly random moves, burn's initialisation, no defects.
                let mut run = presets::preset(
                    "seed001",
                    &PresetOptions {
                        seed: ctx.seed,
                        episodes: Some(episodes),
                        ..PresetOptions::default()
                    },
                )
                .map_err(|e| anyhow!("{e}"))?;
                run.settings = learn::AlgoSettings::QMlp(learn::qmlp::QMlpSettings {
                    seed: ctx.seed,
                    ..learn::qmlp::QMlpSettings::default()
                });
                run
            }
        };
        run.eval_every = (episodes / 10).max(10);
        run.checkpoint_every = run.eval_every;
        run.eval_games = ctx.scaled(100, 2);
        let design_flags = "--always-black --opponent-mix 0.6 --sgd-per-transition --lr 0.03";
        let cmd = match &change {
            Change::Defects(d) => format!(
                "stonelab train q-mlp --preset seed001{} --episodes {episodes} --seed {} \
                 --eval-every {} --eval-games {} --out runs/{}",
                defect_flags(d),
                ctx.seed,
                run.eval_every,
                run.eval_games,
                slug(label)
            ),
            Change::BurnInit => format!(
                "stonelab train q-mlp {design_flags} --episodes {episodes} --seed {} \
                 --eval-every {} --eval-games {} --out runs/{}",
                ctx.seed,
                run.eval_every,
                run.eval_games,
                slug(label)
            ),
            Change::Adam => format!(
                "stonelab train q-mlp --always-black --opponent-mix 0.6 --normal-init \
                 --episodes {episodes} --seed {} --eval-every {} --eval-games {} --out runs/{}",
                ctx.seed,
                run.eval_every,
                run.eval_games,
                slug(label)
            ),
            Change::Corrected => format!(
                "stonelab train q-mlp --episodes {episodes} --seed {} --eval-every {} \
                 --eval-games {} --out runs/{}",
                ctx.seed,
                run.eval_every,
                run.eval_games,
                slug(label)
            ),
        };
        report.command(&cmd);
        let done = train_run::<Othello8>(ctx, &slug(label), &run)?;
        trained.push((label, change, done));
    }

    report.section(
        "What was run",
        &format!(
            "The `seed001` preset as the design specifies it: {episodes} games ({} epochs of 10; \
             the authors' 20,000 when the scale is 1), the learner always Black, weights and \
             biases drawn from N(0, 1), plain SGD with learning rate 0.03 after each epoch, one \
             step per transition of the epoch in the order played (the design's `updateWeights` \
             calls `backProp` once per transition; each step the delta rule, the gradient of \
             ½·Σ over the 64 outputs of the squared error), ε = (e^(−0.017·epoch) + 0.11)/1.1, \
             against an opponent that plays a random move with probability 0.6 and otherwise \
             the choice of a fixed untrained network of the same shape; γ 0.99, the value the \
             design passes. Then the same with each of the design's four code defects switched \
             on alone, with all four (the code as the authors wrote it), two diagnoses (the design without defects but with burn's \
             initialisation, and with Adam after each game at 1e-3), and stonelab's corrected \
             `q-mlp` (Adam after each game, colours \
             alternating, against uniformly random moves) for the same number of games. The \
             default size is already the authors' length, so `--full` changes nothing here.",
            episodes / 10
        ),
    );

    let mut rows = Vec::new();
    for (label, _, run) in &trained {
        let (first, last) = curve_ends(run)?;
        rows.push(vec![
            (*label).to_string(),
            training_wins(run, 1_000)?,
            first,
            last,
            format!("[curves]({}/plots/winrate.png)", relative(ctx, &run.dir)),
        ]);
    }
    report.section(
        "Learning: did it improve?",
        &format!(
            "The authors saw no improvement. Below: the learner's wins in its last 1,000 \
             training games (against its training opponent, with exploration), and greedy play \
             against `random` (colours alternating) at the first and last evaluation of the \
             run, each with its 95% interval.\n\n{}",
            md_table(
                &[
                    "run",
                    "training wins, last 1,000 games",
                    "vs random, start",
                    "vs random, end",
                    "plots",
                ],
                &rows
            )
        ),
    );

    let mut makers: Vec<(String, Box<AgentMaker<'static, Othello8>>)> = Vec::new();
    for (label, _, run) in &trained {
        let path = run.model("last.safetensors");
        let (net, _) = QMlpNet::load(&path, "othello8", 8).map_err(|e| anyhow!("{e}"))?;
        let name = (*label).to_string();
        makers.push((
            name.clone(),
            Box::new(move |_| Box::new(QMlpAgent::<Othello8>::new(net.clone(), name.clone()))),
        ));
    }
    let table = evaluate_table::<Othello8>(ctx, &makers)?;
    report.section(
        "Measured: each trained network against fixed players",
        &format!(
            "Greedy play (the legal point with the highest value), {} games per pair — the \
             evaluation the authors lacked.\n\n{table}",
            ctx.games
        ),
    );
    report.section(
        "Where stonelab differs from the authors, and why",
        "- Seeds, the generator and the initial weights are stonelab's, not the authors' Python \
         stack: the same design gives other games.\n\
         - The last move's target is the final disc share 2·own/total − 1.\n\
         - The targets of an epoch are made when each game ends, by the network of the \
         epoch's start (which plays the whole epoch); the epoch's per-transition steps follow \
         in the order played.\n\
         - With `greedy-lowest` the learner's training moves and the opponent network's choice \
         take the lowest value, as the design's one choosing function does; the evaluation \
         games play the highest value, to measure what the network learned.\n\
         - `frozen-state` feeds the board of the learner's first decision (the start position: \
         the learner is Black) to every update of a game; moves, targets and target rows (the \
         network's values of the real board, but for the move's entry) are those of the game \
         played, as in the design.\n\
         - `tanh-derivative` takes each tanh layer's derivative as 1 − tanh(y)² of its output y, \
         as the design's `dactivation` does, instead of 1 − y²; the values are unchanged.",
    );
    Ok(())
}
