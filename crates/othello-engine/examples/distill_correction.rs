//! Makes a canonical correction network (one that gives the 8 images of a position the same
//! value) from one fitted on positions as played, offline: every position of the WTHOR records
//! as played (the orientation the teacher was fitted in) is labelled with the teacher's
//! correction, and a network of the same size reading each position's canonical image is
//! fitted to those labels (one game in ten held out).
//!
//! `cargo run --release -p stonelab-othello-engine --example distill_correction -- TEACHER OUT [WTHOR]`
//! (the bundled network: `TEACHER` the version-1 `othello8-correction.bin`, `OUT`
//! `models/othello8-correction.bin`, `WTHOR` `data/othello/wthor`).

use std::time::Instant;

use game::Game;
use othello::wthor::parse_games;
use othello_engine::book::transform;
use othello_engine::correction::CorrectionNet;
use othello_engine::train::correction_fit::{
    distillation_rows, fit_epoch, held_out_errors, FitConfig, FitState,
};

/// Epochs, as the teacher's fit.
const EPOCHS: u32 = 10;
const SEED: u64 = 1;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(teacher_path), Some(out)) = (args.first(), args.get(1)) else {
        return Err("usage: distill_correction TEACHER OUT [WTHOR folder]".into());
    };
    let wthor = args.get(2).map_or("data/othello/wthor", String::as_str);
    let started = Instant::now();
    let teacher = CorrectionNet::from_bytes(&std::fs::read(teacher_path)?)?;
    if teacher.canonical {
        return Err(format!("{teacher_path} already reads canonical images").into());
    }
    let eval = othello_engine::pattern::bundled();
    teacher.check_fits(othello_engine::pattern::BUNDLED_BYTES)?;

    let mut files: Vec<_> = std::fs::read_dir(wthor)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x.eq_ignore_ascii_case("wtb")))
        .collect();
    files.sort();
    let mut positions = Vec::new();
    let mut games = 0usize;
    for path in &files {
        for game in parse_games(&std::fs::read(path)?)?.games {
            let Ok(replay) = game.replay() else { continue };
            let held_out = games.is_multiple_of(10);
            games += 1;
            for pos in replay.positions() {
                if !pos.is_over() && pos.moves() != 0 {
                    positions.push((pos.player(), pos.opponent(), held_out));
                }
            }
        }
    }
    eprintln!(
        "{games} games, {} positions as played ({:.0} s)",
        positions.len(),
        started.elapsed().as_secs_f64()
    );

    let rows = distillation_rows(&teacher, &eval, &positions);
    let config = FitConfig {
        planes: teacher.planes,
        hidden: teacher.hidden,
        epochs: EPOCHS,
        seed: SEED,
        canonical: true,
        ..FitConfig::default()
    };
    let mut state = FitState::new(&config, teacher.patterns)?;
    while state.epochs < EPOCHS {
        let rmse = fit_epoch(&mut state, &rows, &config);
        eprintln!(
            "epoch {}: training rms distance to the teacher {rmse:.3} discs ({:.0} s)",
            state.epochs,
            started.elapsed().as_secs_f64()
        );
    }
    let net = state.net;
    std::fs::write(out, net.to_bytes())?;

    println!("held out ({} positions): by empties, positions, the teacher's mean |correction|, mean |student - teacher| (discs)",
        rows.iter().filter(|r| r.test).count());
    for (band, n, teacher_size, distance) in held_out_errors(&net, &rows) {
        println!(
            "{band:>2}-{:<2} {n:>8} {teacher_size:.3} {distance:.3}",
            band + 9
        );
    }
    // The teacher's spread over the 8 images of the held-out positions, against the student's.
    let (mut t_spread, mut s_spread, mut n) = (0f64, 0f64, 0usize);
    for r in rows.iter().filter(|r| r.test).step_by(50) {
        let mut t = Vec::new();
        let mut s = Vec::new();
        for k in 0..8u8 {
            let (p, o) = (transform(r.player, k), transform(r.opponent, k));
            t.push(teacher.correction(p, o, r.base));
            s.push(net.correction(p, o, r.base));
        }
        let spread = |v: &[f32]| {
            f64::from(
                v.iter().copied().fold(f32::MIN, f32::max)
                    - v.iter().copied().fold(f32::MAX, f32::min),
            )
        };
        t_spread += spread(&t);
        s_spread += spread(&s);
        n += 1;
    }
    println!(
        "mean spread over the 8 images ({n} positions): teacher {:.3} discs, student {:.3}",
        t_spread / n as f64,
        s_spread / n as f64
    );
    eprintln!("{out} written ({:.0} s)", started.elapsed().as_secs_f64());
    Ok(())
}
