//! AlphaZero's documented training runs and their tables: 6x6 Othello trained in under an hour
//! on two cores, then matched against alpha-beta and checked against the exact solver.

use std::time::Instant;

use anyhow::{anyhow, Result};
use arena::{play_game, Opening, Side};
use catalog::CatalogGame;
use game::{Color, Game};
use learn::alphazero::{exactness, AlphaZeroConfig};
use othello::Othello6;

use crate::{eval_openings, md_table, pct_ci, train_run, Ctx, Report};

/// Iterations of the 6x6 run: under an hour on the 2-core development machine (measured
/// 2026-12-07: the last one done at 3,563 s, the five in-run evaluations included).
pub const OTHELLO6_ITERATIONS: usize = 105;
/// Self-play games per iteration of the 6x6 run.
pub const OTHELLO6_GAMES: usize = 256;
/// Moves with at most this many empties are checked against the solver in every game.
const KEPT_EMPTIES: u32 = 22;
/// Every move of this many games of each colour is checked against the solver.
const WHOLE_GAMES: usize = 5;
/// The `az` agent's simulations in the measured games.
const MATCH_SIMS: u32 = 400;

/// The 6x6 run's settings at `ctx`'s scale.
#[must_use]
pub fn othello6_run(ctx: &Ctx) -> learn::RunConfig {
    let iterations = ctx.scaled(OTHELLO6_ITERATIONS, 2);
    let mut az = AlphaZeroConfig::for_game(Othello6::ID, ctx.seed);
    az.games = ctx.scaled(OTHELLO6_GAMES, 4);
    learn::RunConfig {
        algo: "alphazero".into(),
        game: Othello6::ID.into(),
        episodes: iterations,
        eval_every: (iterations / 5).max(1),
        eval_games: 100.min(ctx.games.max(2)),
        checkpoint_every: 1,
        opponent: "random".into(),
        settings: learn::AlgoSettings::AlphaZero(az),
        eval_opponents: vec!["alphabeta:depth=4".into()],
    }
}

/// `az-othello6`: trains 6x6 Othello for [`OTHELLO6_ITERATIONS`] iterations, then plays the
/// model (400 simulations a move) against `alphabeta:depth=4` from the evaluation openings,
/// checks every move it made there against the solver, and plays it as White from the start
/// against the exact solver (6x6 is a proven White win). With `--model` it checks that model
/// instead of training one.
///
/// # Errors
/// When training or a game fails, or the given model does not load.
pub fn othello6(ctx: &Ctx, report: &mut Report) -> Result<()> {
    let run = othello6_run(ctx);
    let (model, training) = match &ctx.paper.model {
        Some(path) => (
            path.clone(),
            format!(
                "Not trained here: the model checked is `{}`.",
                path.display()
            ),
        ),
        None => {
            let started = Instant::now();
            let trained = train_run::<Othello6>(ctx, "az6", &run)?;
            let text = format!(
                "`stonelab train alphazero --game othello6 --episodes {} --iteration-games {}` \
                 (the trainer's defaults otherwise): {:.0} s of training and evaluation.",
                run.episodes,
                match &run.settings {
                    learn::AlgoSettings::AlphaZero(a) => a.games,
                    _ => 0,
                },
                started.elapsed().as_secs_f64()
            );
            (trained.model("last.safetensors"), text)
        }
    };
    let az = format!("az:model={},sims={MATCH_SIMS}", model.display());
    let registry = Othello6::registry();
    registry.build(&az, 0).map_err(|e| anyhow!("{e}"))?;
    let factory = |spec: &str, seed: u64| registry.build(spec, seed);
    let games = ctx.games.max(2);
    let (openings, source) = eval_openings::<Othello6>(games.div_ceil(2), ctx.seed ^ 0x6f70);
    if openings.is_empty() {
        return Err(anyhow!("no openings for 6x6"));
    }
    let bar = ctx.bar(games as u64 + 1, "games");
    let mut points = [0.0f64; 2];
    let mut played = [0usize; 2];
    let mut records: [Vec<(Othello6, Vec<othello::Move>)>; 2] = [Vec::new(), Vec::new()];
    for g in 0..games {
        let opening: &Opening<Othello6> = &openings[(g / 2) % openings.len()];
        let side = if g % 2 == 0 { Side::Black } else { Side::White };
        let specs = match side {
            Side::Black => [az.as_str(), "alphabeta:depth=4"],
            Side::White => ["alphabeta:depth=4", az.as_str()],
        };
        let result = play_game(&factory, specs, [g as u64, g as u64], opening, 400, None);
        let k = usize::from(side == Side::White);
        points[k] += result.ending.points(side);
        played[k] += 1;
        let extra = result
            .moves
            .get(opening.moves().len()..)
            .unwrap_or_default();
        records[k].push((*opening.position(), extra.to_vec()));
        bar.inc(1);
    }
    let total: f64 = points.iter().sum();
    // At full scale: every move with at most KEPT_EMPTIES empties of every game, and every
    // move of the first WHOLE_GAMES games of each colour (the early solves take minutes); the
    // game against the exact solver. At a reduced scale only the last few empties.
    let full = ctx.scale >= 1.0;
    let (near_end, whole) = if full {
        (KEPT_EMPTIES, WHOLE_GAMES)
    } else {
        (10, 0)
    };
    let kept = |max_empties: u32, take: usize| -> exactness::KeptValue {
        [Color::Black, Color::White]
            .iter()
            .zip(&records)
            .map(|(&c, r)| {
                exactness::kept_value::<6>(&r[..take.min(r.len())], Some(c), max_empties, 22)
            })
            .fold(exactness::KeptValue::default(), |a, v| {
                exactness::KeptValue {
                    moves: a.moves + v.moves,
                    kept: a.kept + v.kept,
                }
            })
    };
    let late = kept(near_end, usize::MAX);
    let early = (whole > 0).then(|| kept(36, whole));
    let white = full.then(|| {
        play_game(
            &factory,
            ["solver:depth=64", az.as_str()],
            [1, 1],
            &Opening::start(),
            400,
            None,
        )
    });
    bar.inc(1);
    bar.finish();
    report.section("Training", &training);
    report.section(
        "Against alphabeta:depth=4",
        &format!(
            "{games} games from {source} (each twice, colours swapped), the model at \
             {MATCH_SIMS} simulations a move.\n\n{}",
            md_table(
                &["colour", "games", "score"],
                &[
                    vec![
                        "Black".into(),
                        played[0].to_string(),
                        pct_ci(points[0], played[0] as f64),
                    ],
                    vec![
                        "White".into(),
                        played[1].to_string(),
                        pct_ci(points[1], played[1] as f64),
                    ],
                    vec![
                        "both".into(),
                        games.to_string(),
                        pct_ci(total, games as f64)
                    ],
                ],
            )
        ),
    );
    let mut kept_text = format!(
        "The model's moves with a choice in those games, the position before and after each \
         solved exactly (win, draw or loss). With at most {near_end} empties: {} of {} keep \
         the mover's result ({}).",
        late.kept,
        late.moves,
        pct_ci(late.kept as f64, late.moves as f64)
    );
    if let Some(e) = early {
        kept_text.push_str(&format!(
            " Every move of the first {whole} games of each colour: {} of {} ({}).",
            e.kept,
            e.moves,
            pct_ci(e.kept as f64, e.moves as f64)
        ));
    }
    report.section("Moves that keep the exact value", &kept_text);
    let white_text = match white {
        Some(game) => format!(
            "6x6 Othello is a White win by 4 discs with perfect play. The model as White \
             against `solver:depth=64` (exact from the first move): {} for White ({}): {}.",
            match game.ending {
                arena::Ending::Finished { black_margin } => format!("{:+}", -black_margin),
                ref other => format!("{other:?}"),
            },
            match game.ending.points(Side::White) {
                p if p >= 1.0 => "a win",
                p if p > 0.0 => "a draw",
                _ => "a loss",
            },
            game.transcript()
        ),
        None => "Not played at a reduced scale (the solver's first moves take minutes).".into(),
    };
    report.section(
        "As White from the start against the exact solver",
        &white_text,
    );
    Ok(())
}
