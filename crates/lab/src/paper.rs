//! `paper-table1` and `paper-table2`: the Othello CNN value-network paper (J. IKEEE 23(4),
//! 2019) measured by its own protocol — one game to the end from each of up to 1,000 record
//! positions of moves 10–20 whose record win rate is near 50%, the agent once as Black and once
//! as White — beside the paper's figures, plus stonelab's ladder (`alphabeta:depth=4`, the
//! bundled DQN) from the arena's balanced openings.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{anyhow, bail, Context, Result};
use arena::ColourWdl;
use catalog::CatalogGame;
use game::Color;
use othello::Othello8;
use rayon::prelude::*;

use super::{md_table, pct_ci, relative, wdl, Ctx, Report};
use crate::plots::{line_chart, Series};

/// The bundled supervised CNN (in the bundled models' folder, [`catalog::BundledModels`]).
pub const BUNDLED_CNN: &str = "othello8-cnn.safetensors";
/// The bundled MLP baseline.
pub const BUNDLED_MLP: &str = "othello8-mlp.safetensors";
/// The bundled DQN (the ladder's learned rung).
pub const BUNDLED_DQN: &str = "othello8-dqn.safetensors";

/// Table 1 of the paper: the CNN agent against the MLP agent, as Black and as White (%).
pub const PAPER_TABLE1: (f64, f64) = (69.7, 72.1);

/// Table 2 of the paper: episodes, then the self-play agent's win rates against the MLP agent
/// (as Black, as White) and against the supervised CNN agent (as Black, as White), in %.
pub const PAPER_TABLE2: [(usize, [f64; 4]); 6] = [
    (10, [68.0, 73.0, 49.0, 51.0]),
    (30, [76.0, 80.0, 55.0, 57.0]),
    (50, [90.0, 91.0, 58.0, 60.0]),
    (100, [100.0, 100.0, 69.0, 73.0]),
    (150, [100.0, 100.0, 71.0, 74.0]),
    (200, [100.0, 100.0, 76.0, 78.0]),
];

fn model(given: Option<&PathBuf>, bundled: &str, what: &str, train: &str) -> Result<PathBuf> {
    let path = match given {
        Some(path) => path.clone(),
        None => {
            let folder = catalog::BundledModels::locate();
            match folder.file(bundled) {
                Some(path) => path,
                None => bail!(
                    "no bundled {what} model: {}; or train one ({train}) and pass its \
                     checkpoints/last.safetensors",
                    folder.missing_message()
                ),
            }
        }
    };
    if !path.is_file() {
        bail!(
            "no {what} model at {}: train one ({train}) and pass its \
             checkpoints/last.safetensors",
            path.display()
        );
    }
    Ok(path)
}

/// The supervised CNN and the MLP: `--cnn` and `--mlp`, else the bundled models.
fn models(ctx: &Ctx) -> Result<(PathBuf, PathBuf)> {
    Ok((
        model(
            ctx.paper.cnn.as_ref(),
            BUNDLED_CNN,
            "CNN",
            "stonelab train cnn-supervised --data DIR --out runs/cnn",
        )?,
        model(
            ctx.paper.mlp.as_ref(),
            BUNDLED_MLP,
            "MLP",
            "stonelab train mlp-supervised --data DIR --out runs/mlp",
        )?,
    ))
}

/// The `--data` and `--seed` a part's command needs to draw the same positions.
fn data_and_seed(ctx: &Ctx) -> String {
    let mut text = String::new();
    if let Some(data) = &ctx.paper.data {
        text.push_str(&format!(" --data {}", data.display()));
    }
    if ctx.seed != 1 {
        text.push_str(&format!(" --seed {}", ctx.seed));
    }
    text
}

/// The evaluation positions: from the dataset folder's merged states when `--data` is given,
/// else from the WTHOR records in `data/othello/wthor` (merged in memory, a few seconds).
fn positions(ctx: &Ctx) -> Result<(Vec<Othello8>, String)> {
    let records = match &ctx.paper.data {
        Some(dir) => {
            let path = dir.join("merged-frequency-train.bin");
            othello::dataset::DatasetReader::open(&path)
                .and_then(othello::dataset::DatasetReader::read_all)
                .map_err(|e| anyhow!("{e} (make it with `stonelab data wthor --out DIR`)"))?
        }
        None => learn::value::wthor::merged_states(Path::new("data/othello/wthor"))?,
    };
    let eligible = records
        .iter()
        .filter(|r| learn::value::positions::is_balanced(r))
        .count();
    let list = learn::value::positions::evaluation_positions(&records, ctx.positions(), ctx.seed);
    if list.is_empty() {
        bail!("no record position fits the protocol");
    }
    if list.len() < ctx.positions() {
        ctx.ui.warn(&format!(
            "note: only {} record positions fit the protocol, fewer than the {} asked for: the \
             tables play {}",
            list.len(),
            ctx.positions(),
            list.len()
        ));
    }
    let about = format!(
        "{} positions (seed {}) drawn from the {eligible} distinct record positions (merged \
         over the 8 symmetries) after moves 10–20 (14–24 discs) seen at least {} times with a \
         record win rate within {} of 50%",
        list.len(),
        ctx.seed,
        learn::value::positions::MIN_COUNT,
        learn::value::positions::MAX_IMBALANCE
    );
    Ok((list, about))
}

/// One game from `start` through the arena's game loop: `a` (spec) against `b`, `a` playing
/// `a_colour`; `a`'s points. A player that fails (a forfeit) stops the experiment.
fn game(a: &str, b: &str, a_colour: Color, start: Othello8, seed: u64) -> Result<f64> {
    let registry = Othello8::registry();
    let factory = |spec: &str, s: u64| registry.build(spec, s);
    let side = if a_colour == Color::Black {
        arena::Side::Black
    } else {
        arena::Side::White
    };
    let (specs, seeds) = match side {
        arena::Side::Black => ([a, b], [seed, seed ^ 1]),
        arena::Side::White => ([b, a], [seed ^ 1, seed]),
    };
    let opening = arena::Opening::at(start).map_err(|e| anyhow!("a start position: {e}"))?;
    let played = arena::play_game(
        &factory,
        specs,
        seeds,
        &opening,
        arena::default_max_plies::<Othello8>(),
        None,
    );
    if let arena::Ending::Forfeit { loser, reason } = &played.ending {
        let who = specs[usize::from(*loser == arena::Side::White)];
        bail!("{who} failed: {reason}");
    }
    Ok(played.ending.points(side))
}

/// `a` against `b` from every position twice, `a` as Black then as White, on all cores.
fn protocol(ctx: &Ctx, a: &str, b: &str, starts: &[Othello8], what: &str) -> Result<ColourWdl> {
    let registry = Othello8::registry();
    for spec in [a, b] {
        registry
            .build(spec, 0)
            .map_err(|e| anyhow!("{spec}: {e}"))?;
    }
    let bar = ctx.bar(2 * starts.len() as u64, what);
    let done = AtomicUsize::new(0);
    let results: Vec<Result<(Color, f64)>> = (0..2 * starts.len())
        .into_par_iter()
        .map(|g| {
            let colour = if g % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            let seed = arena::derive_seed(ctx.seed, &[g as u64]);
            let points = game(a, b, colour, starts[g / 2], seed);
            done.fetch_add(1, Ordering::Relaxed);
            bar.inc(1);
            points.map(|p| (colour, p))
        })
        .collect();
    bar.finish();
    let mut record = ColourWdl::default();
    for r in results {
        let (colour, points) = r?;
        let side = if colour == Color::Black {
            arena::Side::Black
        } else {
            arena::Side::White
        };
        record.add(side, points);
    }
    Ok(record)
}

fn pct(w: &arena::Wdl) -> String {
    let n = f64::from(w.wins + w.draws + w.losses);
    pct_ci(f64::from(w.wins), n)
}

fn rate(w: &arena::Wdl) -> f64 {
    let n = f64::from(w.wins + w.draws + w.losses).max(1.0);
    100.0 * f64::from(w.wins) / n
}

fn spec(algo: &str, model: &Path, depth: u32) -> String {
    format!("{algo}:model={},depth={depth}", model.display())
}

/// The ladder: each agent against `alphabeta:depth=4` and the bundled DQN from the arena's
/// balanced openings, colours swapped.
fn ladder(ctx: &Ctx, report: &mut Report, agents: &[(String, String)]) -> Result<()> {
    let (openings, about) = super::eval_openings::<Othello8>(ctx.games.div_ceil(2), ctx.seed);
    let starts: Vec<Othello8> = openings
        .iter()
        .take(ctx.games.div_ceil(2))
        .map(|o| *o.position())
        .collect();
    let mut opponents = vec![(
        "`alphabeta:depth=4`".to_string(),
        "alphabeta:depth=4".to_string(),
    )];
    if let Some(dqn) = catalog::BundledModels::locate()
        .file(BUNDLED_DQN)
        .filter(|p| p.is_file())
    {
        opponents.push(("bundled DQN".into(), format!("dqn:model={}", dqn.display())));
    }
    let mut rows = Vec::new();
    for (label, agent) in agents {
        for (opp_label, opp) in &opponents {
            let r = protocol(
                ctx,
                agent,
                opp,
                &starts,
                &format!("games {label} vs {opp_label}"),
            )?;
            let t = r.total();
            let points = f64::from(t.wins) + 0.5 * f64::from(t.draws);
            rows.push(vec![
                label.clone(),
                opp_label.clone(),
                r.games().to_string(),
                pct_ci(points, f64::from(r.games())),
                wdl(&r.as_black),
                wdl(&r.as_white),
            ]);
        }
    }
    report.section(
        "On stonelab's ladder",
        &format!(
            "From {} of {about}, each once per colour; score = wins + draws/2, 95% Wilson \
             intervals.\n\n{}",
            starts.len(),
            md_table(
                &[
                    "agent",
                    "opponent",
                    "games",
                    "score",
                    "as Black W-D-L",
                    "as White W-D-L"
                ],
                &rows
            )
        ),
    );
    Ok(())
}

/// `paper-table1`: the supervised CNN agent against the MLP agent.
///
/// # Errors
/// Missing models, unreadable records, a failed game.
pub fn table1(ctx: &Ctx, report: &mut Report) -> Result<()> {
    let (cnn, mlp) = models(ctx)?;
    let depth = ctx.depth();
    let (starts, about) = positions(ctx)?;
    let a = spec("cnn-minimax", &cnn, depth);
    let b = spec("mlp-minimax", &mlp, depth);
    let r = protocol(ctx, &a, &b, &starts, "games CNN vs MLP")?;
    report.section(
        "Setting",
        &format!(
            "Both agents search {depth} {} (alpha-beta, the network at the leaves in \
             batches). CNN: `{}`; MLP: `{}`. Positions: {about}; from each, one game with the \
             CNN as Black and one as White.",
            if depth == 1 { "ply" } else { "plies" },
            cnn.display(),
            mlp.display()
        ),
    );
    report.section(
        "Table 1: the CNN agent against the MLP agent",
        &md_table(
            &[
                "",
                "as Black (wins)",
                "as White (wins)",
                "W-D-L as Black",
                "W-D-L as White",
            ],
            &[
                vec![
                    "paper".into(),
                    format!("{:.1}%", PAPER_TABLE1.0),
                    format!("{:.1}%", PAPER_TABLE1.1),
                    "-".into(),
                    "-".into(),
                ],
                vec![
                    "stonelab".into(),
                    pct(&r.as_black),
                    pct(&r.as_white),
                    wdl(&r.as_black),
                    wdl(&r.as_white),
                ],
            ],
        ),
    );
    let plot = ctx.out.join("table1.png");
    line_chart(
        &plot,
        "CNN vs MLP win rate (%)",
        "colour (0 = Black, 1 = White)",
        "win rate %",
        &[
            Series {
                name: "paper".into(),
                points: vec![(0.0, PAPER_TABLE1.0), (1.0, PAPER_TABLE1.1)],
            },
            Series {
                name: "stonelab".into(),
                points: vec![(0.0, rate(&r.as_black)), (1.0, rate(&r.as_white))],
            },
        ],
        Some((0.0, 100.0)),
    )?;
    report.section("Plot", &format!("![table 1]({})", relative(ctx, &plot)));
    report.command(&format!(
        "stonelab reproduce paper-table1 --cnn {} --mlp {} --positions {} --depth {depth}{}",
        cnn.display(),
        mlp.display(),
        ctx.positions(),
        data_and_seed(ctx)
    ));
    ladder(
        ctx,
        report,
        &[
            (format!("MLP (depth {depth})"), b.clone()),
            (format!("CNN (depth {depth})"), a.clone()),
        ],
    )
}

/// `paper-table2`: the self-play agent after 10/30/50/100/150/200 episodes against the MLP and
/// the supervised CNN agents.
///
/// # Errors
/// Missing models or dataset, a failed run or game.
pub fn table2(ctx: &Ctx, report: &mut Report) -> Result<()> {
    let (cnn, mlp) = models(ctx)?;
    let depth = ctx.depth();
    let run_dir = match &ctx.paper.selfplay {
        Some(dir) => {
            // The run must be a self-play run: its checkpoints are the table's rows.
            let config: learn::RunConfig =
                learn::RunDir::open(dir)
                    .and_then(|d| d.read_config())
                    .map_err(|e| anyhow!("--selfplay {}: {e}", dir.display()))?;
            if config.algo != learn::algos::CNN_SELFPLAY.name {
                bail!(
                    "--selfplay {}: a {} run, not a cnn-selfplay run (stonelab train \
                     cnn-selfplay makes one)",
                    dir.display(),
                    config.algo
                );
            }
            dir.clone()
        }
        None => {
            let data = ctx.paper.data.clone().context(
                "paper-table2 trains the self-play run from record positions: make the value \
                 dataset first (stonelab data wthor --out DIR) and pass --data DIR, or pass \
                 --selfplay RUN for a cnn-selfplay run that holds the checkpoints",
            )?;
            let loaded =
                learn::value::ValueModel::load(&cnn, learn::value::CNN_ALGO, "othello8", 8)?;
            let mut settings = learn::value::ValueSelfPlayConfig::paper(
                std::path::absolute(&cnn).unwrap_or(cnn.clone()),
                loaded.card.sha256,
                loaded.orientation,
                std::path::absolute(&data).unwrap_or(data),
            );
            settings
                .apply_reading(ctx.paper.reading.as_deref().unwrap_or("paper"))
                .map_err(|e| anyhow!("--reading: {e}"))?;
            // --depth sets the self-play's search too; without it the reading's own depth
            // stands (the evaluation games stay at `depth`).
            if let Some(d) = ctx.paper.depth {
                settings.depth = d;
            }
            settings.seed = ctx.seed;
            let episodes = ctx.scaled(200, 1);
            let run = learn::RunConfig {
                algo: learn::algos::CNN_SELFPLAY.name.into(),
                game: "othello8".into(),
                episodes,
                eval_every: 50,
                eval_games: 20,
                checkpoint_every: 10,
                opponent: "random".into(),
                settings: learn::AlgoSettings::ValueSelfPlay(settings),
                eval_opponents: vec![spec("mlp-minimax", &mlp, depth)],
            };
            let trained = super::train_run::<Othello8>(ctx, "selfplay", &run)?;
            report.command(&format!(
                "stonelab train cnn-selfplay --from {} --data DIR --episodes {episodes} \
                 --depth {}{} --checkpoint-every 10 --out runs/selfplay",
                run.value_self_play()
                    .map_or(String::new(), |s| s.from.display().to_string()),
                run.value_self_play().map_or(depth, |s| s.depth),
                ctx.paper
                    .reading
                    .as_ref()
                    .map_or(String::new(), |r| format!(" --reading {r}"))
            ));
            trained.dir
        }
    };
    let checkpoints = run_dir.join(learn::run::CHECKPOINTS);
    let mut at: Vec<(usize, PathBuf)> = Vec::new();
    for (episode, _) in PAPER_TABLE2 {
        let path = checkpoints
            .join(format!("ep-{episode:08}"))
            .join(learn::value::policy_iteration::CHECKPOINT_MODEL);
        if path.is_file() {
            at.push((episode, path));
        }
    }
    if at.is_empty() {
        // A shortened run: its last network.
        let last = checkpoints.join("last.safetensors");
        let card = learn::checkpoint::read_model(&last)
            .map_err(|e| anyhow!("{}: {e}", last.display()))?
            .0;
        at.push((card.episodes, last));
    }
    let (starts, about) = positions(ctx)?;
    let mut rows = Vec::new();
    let mut ours: [Vec<(f64, f64)>; 4] = Default::default();
    for (episode, path) in &at {
        let me = spec("cnn-minimax", path, depth);
        let vs_mlp = protocol(
            ctx,
            &me,
            &spec("mlp-minimax", &mlp, depth),
            &starts,
            &format!("games ep {episode} vs MLP"),
        )?;
        let vs_cnn = protocol(
            ctx,
            &me,
            &spec("cnn-minimax", &cnn, depth),
            &starts,
            &format!("games ep {episode} vs CNN"),
        )?;
        let paper = PAPER_TABLE2
            .iter()
            .find(|(e, _)| e == episode)
            .map(|(_, p)| p);
        let show = |i: usize| paper.map_or("-".to_string(), |p| format!("{:.0}%", p[i]));
        rows.push(vec![
            episode.to_string(),
            format!("{} ({})", pct(&vs_mlp.as_black), show(0)),
            format!("{} ({})", pct(&vs_mlp.as_white), show(1)),
            format!("{} ({})", pct(&vs_cnn.as_black), show(2)),
            format!("{} ({})", pct(&vs_cnn.as_white), show(3)),
        ]);
        for (i, w) in [
            &vs_mlp.as_black,
            &vs_mlp.as_white,
            &vs_cnn.as_black,
            &vs_cnn.as_white,
        ]
        .into_iter()
        .enumerate()
        {
            ours[i].push((*episode as f64, rate(w)));
        }
    }
    let run_config: learn::RunConfig = learn::RunDir::open(&run_dir)
        .and_then(|d| d.read_config())
        .map_err(|e| anyhow!("{}: {e}", run_dir.display()))?;
    let settings = run_config
        .value_self_play()
        .context("the self-play run's config.json has no value_self_play settings")?;
    report.section(
        "Setting",
        &format!(
            "Self-play run: `{}`, {}. Evaluation: every agent searches {depth} {}. Positions: \
             {about}; from each, one game with the self-play agent as Black and one as White.",
            run_dir.display(),
            describe_self_play(settings),
            if depth == 1 { "ply" } else { "plies" }
        ),
    );
    report.section(
        "Table 2: the self-play agent's wins (the paper's in brackets)",
        &md_table(
            &[
                "episodes",
                "vs MLP as Black",
                "vs MLP as White",
                "vs supervised CNN as Black",
                "vs supervised CNN as White",
            ],
            &rows,
        ),
    );
    let mut probes = probe_rows(&checkpoints, &at);
    if !probes.is_empty() {
        // The supervised network the run started from, read as the run reads it.
        let base = settings
            .probe_start()
            .map_err(|e| anyhow!("probe of {}: {e}", settings.from.display()))?;
        if let Some(base) = base {
            probes.insert(0, probe_row(&base, "0 (supervised)"));
        }
        report.section(
            "Probe: each checkpoint on held-out states",
            &format!(
                "{}\n\nThe loss is the paper's Σ N·(V − v)² / M on a seeded subset of the merged \
                 frequency split's test states. The colour gap is the mean value of White-to-move \
                 states minus that of Black-to-move states, beside the labels' own gap: a network \
                 that learns who won one game from who was to move widens it. Turn flip: the mean \
                 change of the value when the side-to-move plane alone is inverted.",
                md_table(
                    &[
                        "episodes",
                        "states",
                        "loss",
                        "MSE",
                        "colour gap (labels')",
                        "turn flip",
                    ],
                    &probes,
                )
            ),
        );
    }
    let names = [
        "vs MLP, Black",
        "vs MLP, White",
        "vs CNN, Black",
        "vs CNN, White",
    ];
    let mut series = Vec::new();
    for (i, name) in names.iter().enumerate() {
        series.push(Series {
            name: format!("stonelab {name}"),
            points: ours[i].clone(),
        });
        series.push(Series {
            name: format!("paper {name}"),
            points: PAPER_TABLE2
                .iter()
                .map(|(e, p)| (*e as f64, p[i]))
                .collect(),
        });
    }
    let plot = ctx.out.join("table2.png");
    line_chart(
        &plot,
        "self-play agent win rate (%) by episode",
        "episode",
        "win rate %",
        &series,
        Some((0.0, 100.0)),
    )?;
    report.section("Plot", &format!("![table 2]({})", relative(ctx, &plot)));
    report.command(&format!(
        "stonelab reproduce paper-table2 --cnn {} --mlp {} --selfplay {} --positions {} --depth {depth}{}",
        cnn.display(),
        mlp.display(),
        run_dir.display(),
        ctx.positions(),
        data_and_seed(ctx)
    ));
    if let Some((episode, best)) = at.last() {
        ladder(
            ctx,
            report,
            &[(
                format!("self-play ep {episode} (depth {depth})"),
                spec("cnn-minimax", best, depth),
            )],
        )?;
    }
    Ok(())
}

/// The self-play settings in words, for the report.
fn describe_self_play(s: &learn::value::ValueSelfPlayConfig) -> String {
    use learn::value::policy_iteration::{AdamState, SelfPlayOpponent, SelfPlayStart};
    let opponent = match s.opponent {
        SelfPlayOpponent::Previous => "θ⁻ = θ one episode earlier".to_string(),
        SelfPlayOpponent::Frozen => "θ⁻ = the supervised network throughout".to_string(),
        SelfPlayOpponent::Gated {
            every,
            games,
            threshold,
        } => format!(
            "θ⁻ = the best network so far (every {every} episodes θ plays it {games} games and \
             replaces it at {:.0}% or more)",
            threshold * 100.0
        ),
    };
    let adam = match s.adam {
        AdamState::Run => "one Adam through the run",
        AdamState::Carried => "Adam carried on from the supervised run",
        AdamState::PerGame => "a fresh Adam every game",
    };
    let start = match s.start {
        SelfPlayStart::Record => {
            "from seeded record positions of moves 10–20 that are not evaluation positions"
                .to_string()
        }
        SelfPlayStart::Initial { random_plies } => {
            format!("from the initial position after {random_plies} seeded random moves")
        }
    };
    format!(
        "reading `{}`: {opponent}; {adam}; {} full-batch {} per game at lr {}; {start}; \
         self-play depth {}; turn plane {}; positions read {}",
        s.reading_label(),
        s.epochs_per_game,
        if s.epochs_per_game == 1 {
            "step"
        } else {
            "steps"
        },
        s.learning_rate,
        s.depth,
        match s.turn {
            learn::value::TurnPlane::Kept => "kept",
            learn::value::TurnPlane::Zeroed => "zeroed",
        },
        match s.orientation {
            Some(learn::value::Orientation::Canonical) => "canonical",
            Some(learn::value::Orientation::AsPlayed) => "as played",
            None => "as the supervised model reads them",
        }
    )
}

/// The probe of each evaluated checkpoint (`probe.json` in its folder), as table rows; a
/// checkpoint without one is left out.
fn probe_rows(checkpoints: &Path, at: &[(usize, PathBuf)]) -> Vec<Vec<String>> {
    at.iter()
        .filter_map(|(episode, _)| {
            let path = checkpoints
                .join(format!("ep-{episode:08}"))
                .join(learn::value::policy_iteration::PROBE_FILE);
            let text = std::fs::read_to_string(path).ok()?;
            let p: learn::value::policy_iteration::Probe = serde_json::from_str(&text).ok()?;
            Some(probe_row(&p, &p.episode.to_string()))
        })
        .collect()
}

/// One probe as a table row, its first cell `label`.
fn probe_row(p: &learn::value::policy_iteration::Probe, label: &str) -> Vec<String> {
    vec![
        label.to_string(),
        p.states.to_string(),
        format!("{:.4}", p.loss),
        format!("{:.4}", p.mse),
        format!("{:+.3} ({:+.3})", p.colour_gap, p.label_colour_gap),
        p.turn_flip.map_or("-".into(), |f| format!("{f:.3}")),
    ]
}
