//! The Othello DQN design's three regimes (`seed000-greedy`, `seed000-uct`,
//! `seed000-competitive`): the preset trained, its losses beside the authors', and the trained
//! networks measured against fixed players.

use std::fmt::Write as _;

use anyhow::{anyhow, Result};
use learn::presets::{self, PresetOptions, Regime};
use learn::{DqnAgent, QNet};
use othello::Othello8;

use super::{evaluate_table, md_table, relative, train_run, AgentMaker, Ctx, Report, TrainedRun};

/// The authors' reported losses: (episode, loss) per network (one network in regimes 1–2;
/// black then white in regime 3).
fn authors_losses(regime: Regime) -> Vec<(&'static str, Vec<(usize, f64)>)> {
    match regime {
        Regime::Greedy => vec![("network", vec![(4, 5.41), (51, 4.47)])],
        Regime::Uct => vec![("network", vec![(4, 7.90), (150, 4.35)])],
        Regime::Competitive => vec![
            ("black", vec![(8, 1.12), (729, 0.0301)]),
            ("white", vec![(8, 1.28), (729, 0.0241)]),
        ],
    }
}

/// The preset's name.
fn preset_name(regime: Regime) -> &'static str {
    match regime {
        Regime::Greedy => "seed000-greedy",
        Regime::Uct => "seed000-uct",
        Regime::Competitive => "seed000-competitive",
    }
}

/// Episodes at the default size: the design's own for regimes 1–2, which fit in the time;
/// regime 3's 9,999 only with `--full`.
fn default_episodes(regime: Regime) -> usize {
    match regime {
        Regime::Greedy => 499,
        Regime::Uct => 399,
        Regime::Competitive => 1_000,
    }
}

/// Regime 1.
pub fn greedy(ctx: &Ctx, report: &mut Report) -> Result<()> {
    regime(ctx, report, Regime::Greedy)
}

/// Regime 2.
pub fn uct(ctx: &Ctx, report: &mut Report) -> Result<()> {
    regime(ctx, report, Regime::Uct)
}

/// Regime 3.
pub fn competitive(ctx: &Ctx, report: &mut Report) -> Result<()> {
    regime(ctx, report, Regime::Competitive)
}

/// The loss column of the log for each network: (network, column index).
fn loss_columns(regime: Regime) -> Vec<(&'static str, usize)> {
    match regime {
        // episode,winner,black_reward,white_reward,epsilon,loss,replay,grad_steps,seconds
        Regime::Greedy | Regime::Uct => vec![("network", 5)],
        // episode,winner,black_reward,white_reward,epsilon,black_loss,white_loss,seconds
        Regime::Competitive => vec![("black", 5), ("white", 6)],
    }
}

/// The logged loss of `episode` in `column`, and the mean over the ten episodes up to it.
fn loss_at(log: &[Vec<String>], column: usize, episode: usize) -> (Option<f64>, Option<f64>) {
    let value = |row: &Vec<String>| row.get(column).and_then(|v| v.parse::<f64>().ok());
    let at = log
        .iter()
        .find(|r| r.first().and_then(|e| e.parse::<usize>().ok()) == Some(episode))
        .and_then(value);
    let window: Vec<f64> = log
        .iter()
        .filter(|r| {
            r.first()
                .and_then(|e| e.parse::<usize>().ok())
                .is_some_and(|e| e <= episode && e + 10 > episode)
        })
        .filter_map(value)
        .collect();
    let mean = (!window.is_empty()).then(|| window.iter().sum::<f64>() / window.len() as f64);
    (at, mean)
}

fn regime(ctx: &Ctx, report: &mut Report, regime: Regime) -> Result<()> {
    let name = preset_name(regime);
    let episodes = ctx.scaled(
        if ctx.full {
            regime.design_episodes()
        } else {
            default_episodes(regime)
        },
        2,
    );
    let mut run = presets::preset(
        name,
        &PresetOptions {
            seed: ctx.seed,
            episodes: Some(episodes),
            ..PresetOptions::default()
        },
    )
    .map_err(|e| anyhow!("{e}"))?;
    run.eval_games = ctx.scaled(50, 2);
    let dqn = run
        .dqn()
        .cloned()
        .ok_or_else(|| anyhow!("{name} has no DQN settings"))?;
    let trained = train_run::<Othello8>(ctx, name, &run)?;
    let cmd = format!(
        "stonelab train {} --preset {name} --episodes {episodes} --seed {} --eval-every {} \
         --eval-games {} --out runs/{name}",
        run.algo, ctx.seed, run.eval_every, run.eval_games
    );
    report.command(&cmd);

    report.section(
        "What was run",
        &format!(
            "The `{name}` preset ({}), {episodes} episodes{}: {}.\n\n\
             Settings (as `config.json` of the run holds them): network `{}`, input `{}` \
             (board 0/1/2 and turn 1/2), behaviour `{}`{}, rewards \
             `{}`, end reward `{}`, transitions `{}`, loss `{}`, {} gradient step per \
             episode (mini-batch {}, first step once the buffer holds {} transitions), target \
             network every {} episode(s), learns from `{}`, no symmetry augmentation, one game \
             at a time, Adam {} and γ {} (the design does not state these two), seed {}. \
             Equivalent command: `{cmd}`.",
            run.algo,
            if episodes == regime.design_episodes() {
                " (the authors' length)".to_string()
            } else {
                format!(
                    " (the authors trained {}; `--full` runs them)",
                    regime.design_episodes()
                )
            },
            presets::PRESETS
                .iter()
                .find(|(n, _)| *n == name)
                .map_or("", |(_, about)| about),
            dqn.arch.label(),
            kebab(&dqn.encoding),
            kebab(&dqn.behaviour),
            if dqn.behaviour == learn::Behaviour::Uct {
                format!(" (UCT visits counted `{}`)", kebab(&dqn.uct_visits))
            } else {
                String::new()
            },
            kebab(&dqn.rewards),
            kebab(&dqn.end_reward),
            kebab(&dqn.transitions),
            kebab(&dqn.q_loss),
            dqn.steps_per_episode,
            dqn.batch_size,
            dqn.warmup,
            dqn.target_sync,
            kebab(&dqn.learn_from),
            dqn.learning_rate,
            dqn.gamma,
            ctx.seed,
        ),
    );

    // Losses beside the authors'.
    let log = trained.log()?;
    let mut rows = Vec::new();
    for ((net, authors), (_, column)) in
        authors_losses(regime).into_iter().zip(loss_columns(regime))
    {
        for (episode, theirs) in authors {
            let (at, mean) = loss_at(&log, column, episode);
            let show = |v: Option<f64>| v.map_or("not reached".into(), |v| format!("{v:.4}"));
            rows.push(vec![
                net.into(),
                episode.to_string(),
                format!("{theirs}"),
                show(at),
                show(mean),
                mean.map_or("—".into(), |m| agreement(m, theirs)),
            ]);
        }
        let (last, mean) = loss_at(&log, column, trained.summary.episodes);
        rows.push(vec![
            net.into(),
            format!("{} (last)", trained.summary.episodes),
            "—".into(),
            last.map_or("—".into(), |v| format!("{v:.4}")),
            mean.map_or("—".into(), |v| format!("{v:.4}")),
            "—".into(),
        ]);
    }
    let mut losses = md_table(
        &[
            "network",
            "episode",
            "authors' loss",
            "stonelab loss",
            "stonelab, mean of the 10 episodes to it",
            "the mean against the authors'",
        ],
        &rows,
    );
    let _ = write!(
        losses,
        "\n{1} The \
         last column sets the 10-episode mean beside the authors' single figure: \"agrees\" \
         when it lies within a factor of 1.5 of it. One seed, and the authors' figures are one \
         episode each: a guide to the scale, not a test. Curves: \
         [loss]({0}/plots/loss.png), [win rate in the run's evaluations]({0}/plots/winrate.png); \
         the per-episode log is `{0}/log.csv`.\n",
        relative(ctx, &trained.dir),
        if dqn.q_loss == learn::QLoss::RowMean {
            "Both are on the design's scale: its Keras model is compiled with `loss='mse'` and \
             fitted on a 64-wide target row that differs from the network's values only at the \
             chosen action, so its loss is the mean over the 64 outputs, the chosen action's \
             squared TD error divided by 64 (`q_loss: row-mean`; the episode's one gradient \
             step)."
        } else {
            "stonelab's loss is the chosen action's squared TD error (`q_loss: chosen`), 64 \
             times the design's Keras `mse` over the 64-wide row: divide by 64 to compare."
        }
    );
    if regime == Regime::Competitive {
        losses.push_str(
            "\nThe authors' figures are after they divided the rewards by 100 (before that, \
             the white loss reached 2312 at episode 1596 with Q-values near ±750); the preset \
             trains on the divided rewards.\n",
        );
    }
    report.section("Loss beside the authors' figures", &losses);

    // The trained networks against fixed players, with an untrained network as the floor.
    let models: Vec<(String, String)> = if regime == Regime::Competitive {
        vec![
            ("black network".into(), "black-last.safetensors".into()),
            ("white network".into(), "white-last.safetensors".into()),
        ]
    } else {
        vec![("trained network".into(), "last.safetensors".into())]
    };
    let mut nets = Vec::new();
    for (label, file) in &models {
        let path = trained.model(file);
        let (net, card) = QNet::load(&path, "othello8", 8).map_err(|e| anyhow!("{e}"))?;
        let encoding = QNet::card_encoding(&card).map_err(|e| anyhow!("{e}"))?;
        nets.push((label.clone(), net, encoding));
    }
    let untrained = learn::DqnLearner::<Othello8>::new(dqn.clone())
        .map_err(|e| anyhow!("{e}"))?
        .inference_net();
    nets.push(("untrained network".into(), untrained, dqn.encoding));
    let makers: Vec<(String, Box<AgentMaker<'static, Othello8>>)> = nets
        .into_iter()
        .map(|(label, net, encoding)| {
            let name = label.clone();
            let make: Box<AgentMaker<'static, Othello8>> = Box::new(move |_| {
                Box::new(DqnAgent::<Othello8>::with_encoding(
                    net.clone(),
                    encoding,
                    name.clone(),
                ))
            });
            (label, make)
        })
        .collect();
    let table = evaluate_table::<Othello8>(ctx, &makers)?;
    report.section(
        "Measured: the trained networks against fixed players",
        &format!(
            "Greedy play by the network (the best legal point), {} games per pair. The authors measured no such games; they could not tell their \
             trained model from a random player. An untrained network of the same design is \
             the floor.\n\n{table}",
            ctx.games
        ),
    );
    report.section(
        "Where stonelab differs from the authors, and why",
        &differences(regime, &trained),
    );
    Ok(())
}

/// "agrees" when `ours` is within a factor of 1.5 of `theirs`, else the factor.
fn agreement(ours: f64, theirs: f64) -> String {
    let ratio = ours / theirs;
    if (1.0 / 1.5..=1.5).contains(&ratio) {
        format!("agrees (×{ratio:.2})")
    } else if ratio >= 10.0 {
        format!("×{ratio:.0}")
    } else if ratio >= 0.1 {
        format!("×{ratio:.2}")
    } else {
        // Two significant digits, so that a small ratio does not read as ×0.00.
        format!("×{ratio:.1e}")
    }
}

/// A setting as `config.json` spells it.
fn kebab<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn differences(regime: Regime, trained: &TrainedRun) -> String {
    let mut text = String::from(
        "- The loss is the design's (Keras `mse` over the 64-wide row; see above), but for one \
         detail: Keras predicts the target row with batch normalisation in inference mode and \
         fits in training mode, so the design's other 63 entries carry a small error that \
         stonelab's row mean leaves out.\n\
         - The design leaves the mini-batch size, buffer size, discount, learning rate and the \
         UCT constant unstated; the preset uses stonelab's defaults (64, 100,000, 0.99, Adam \
         5e-4, 0.3), so the loss scale need not match the authors' exactly.\n\
         - Transitions are the design's: (board before the move, action, the mover's own \
         reward, the board right after it). The target maximises the target network's values \
         of that board over the legal points of the side to move there, as they are (one \
         network plays both colours, told apart by the turn plane); where that side must pass \
         the target is the reward alone. The result reaches only the side that made the last \
         move.\n\
         - The design's pass rule (a side with no move sits out while the other plays on to \
         the end) is not reproduced: stonelab's rules engine passes as Othello does (a side \
         with no move passes and plays again as soon as it has one), the one rule every agent, \
         the arena and the evaluation share.\n\
         - Seeds, the random generator and the network initialisation (burn's) differ from the \
         authors' Python stack: the same settings give other games.\n",
    );
    if regime != Regime::Greedy {
        text.push_str(
            "- UCT (regime 2, and both networks in regime 3, \"DQN + UCT Policy\"): the \
             behaviour picks argmax Q(s, a) + c·sqrt(ln N(s) / N(s, a)), unvisited moves \
             first; as in the design's `train()`, the counts grow for the transitions replayed \
             in each training step, not when a move is played.\n",
        );
    }
    if regime == Regime::Competitive && trained.summary.episodes < regime.design_episodes() {
        let _ = writeln!(
            text,
            "- This run: {} episodes of the authors' 9,999 (`--full` runs them all).",
            trained.summary.episodes
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::agreement;

    #[test]
    fn agreement_names_the_factor_at_every_scale() {
        assert_eq!(agreement(5.0, 4.0), "agrees (×1.25)");
        assert_eq!(agreement(1.0, 4.0), "×0.25");
        assert_eq!(agreement(3055.6, 1.0), "×3056");
        // A small ratio keeps two significant digits instead of reading ×0.00.
        assert_eq!(agreement(0.0039, 1.12), "×3.5e-3");
    }
}
