//! Training runs through the library: the run folder, resume-equals-uninterrupted for every
//! trainer and from every kept checkpoint, a run killed with SIGKILL that resumes into exactly
//! the uninterrupted run, clear refusals, and DQN learning on small Gomoku.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use game::Game;
use gomoku::Gomoku9;
use learn::qmlp::QMlpSettings;
use learn::run::CHECKPOINTS;
use learn::{
    build_trainer, resume, train, AlgoSettings, DqnConfig, Encoding, EndReward, Opponent, QNetArch,
    Rewards, RunConfig, RunDir, RunError,
};
use othello::Othello4;
use search::{Agent, RandomAgent};

fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stonelab-run-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn random<G: Game>(seed: u64) -> Box<dyn Agent<G>> {
    Box::new(RandomAgent::new(seed))
}

/// A tiny run of `algo` on `game`: seconds, not minutes.
fn tiny(algo: &str, game: &str, episodes: usize) -> RunConfig {
    RunConfig {
        algo: algo.into(),
        game: game.into(),
        episodes,
        eval_every: 16,
        eval_games: 6,
        checkpoint_every: 8,
        opponent: "random".into(),
        settings: if algo == "alphazero" {
            let mut az = learn::alphazero::AlphaZeroConfig::for_game(game, 5);
            az.arch = learn::alphazero::PvArch {
                blocks: 1,
                channels: 8,
                margin_head: true,
            };
            az.games = 2;
            az.concurrent = 2;
            az.sims = 6;
            az.fast_sims = 2;
            az.full_share = 0.5;
            az.batch = 16;
            az.window = 100;
            az.eval_sims = 4;
            az.solver_empties = 3;
            AlgoSettings::AlphaZero(az)
        } else if algo == "q-mlp" {
            AlgoSettings::QMlp(QMlpSettings {
                games_per_epoch: 4,
                gamma: 0.99,
                learning_rate: 1e-3,
                seed: 5,
                ..QMlpSettings::default()
            })
        } else {
            AlgoSettings::Dqn(DqnConfig {
                arch: QNetArch::Resnet {
                    blocks: 1,
                    channels: 8,
                },
                parallel: 4,
                batch_size: 16,
                warmup: 24,
                train_every: 4,
                epsilon_decay: 32,
                target_sync: 8,
                seed: 5,
                // The self-play trainer runs with the reference design's options, so resume and
                // reproducibility cover them too.
                encoding: if algo == "dqn-self-play" {
                    Encoding::Seed
                } else {
                    Encoding::Stones
                },
                end_reward: if algo == "dqn-self-play" {
                    EndReward::Replace
                } else {
                    EndReward::Add
                },
                steps_per_episode: usize::from(algo == "dqn-self-play"),
                rewards: if algo == "dqn-self-play" {
                    Rewards::Seed
                } else {
                    Rewards::Scaled
                },
                ..DqnConfig::default()
            })
        },
        eval_opponents: Vec::new(),
    }
}

/// Runs (or continues) the run in `root` to `config.episodes`.
fn run<G: Game>(root: &Path, config: &RunConfig, fresh: bool) -> Result<(), RunError> {
    run_warned::<G>(root, config, fresh).map(|_| ())
}

/// [`run`], returning the warnings of the resume.
fn run_warned<G: Game>(
    root: &Path,
    config: &RunConfig,
    fresh: bool,
) -> Result<Vec<String>, RunError> {
    let (dir, config, from, warnings) = if fresh {
        let dir = RunDir::create(root, false)?;
        dir.write_config(config)?;
        (dir, config.clone(), None, Vec::new())
    } else {
        let r = resume(root, &config.algo, &config.game, Some(config.episodes))?;
        (r.dir, r.config, r.from, r.warnings)
    };
    let mut trainer = build_trainer::<G>(&config, from.as_ref())?;
    let evals = [Opponent {
        name: "random".into(),
        make: Box::new(random::<G>),
    }];
    train(
        &dir,
        &config,
        trainer.as_mut(),
        &random::<G>,
        &evals,
        &mut |_| {},
    )?;
    Ok(warnings)
}

/// log.csv without the wall-clock column, and eval.csv.
fn logs(root: &Path) -> (Vec<String>, String) {
    let log = std::fs::read_to_string(root.join("log.csv")).expect("log.csv");
    let rows = log
        .lines()
        .map(|l| l.rsplit_once(',').map_or(l, |(a, _)| a).to_string())
        .collect();
    (
        rows,
        std::fs::read_to_string(root.join("eval.csv")).expect("eval.csv"),
    )
}

fn checkpoints(root: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root.join(CHECKPOINTS))
        .expect("checkpoints")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("ep-"))
        .collect();
    names.sort();
    names
}

#[test]
fn every_trainer_resumes_from_every_kept_checkpoint_like_an_uninterrupted_run() {
    for algo in [
        "dqn",
        "dqn-self-play",
        "dqn-competitive",
        "q-mlp",
        "alphazero",
    ] {
        let whole = folder(&format!("{algo}-whole"));
        run::<Othello4>(&whole, &tiny(algo, "othello4", 32), true).expect("uninterrupted");
        let expected = logs(&whole);
        assert_eq!(expected.0.len(), 33, "{algo}: header + one row per episode");
        assert_eq!(
            checkpoints(&whole),
            ["ep-00000024", "ep-00000032"],
            "{algo}"
        );
        let card: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(whole.join(CHECKPOINTS).join(if algo == "dqn-competitive" {
                "black-last.json"
            } else {
                "last.json"
            }))
            .expect("card"),
        )
        .expect("json");
        let want = match algo {
            "q-mlp" => "q-mlp",
            "alphazero" => "az",
            _ => "dqn",
        };
        assert_eq!(card["algo"], want);
        if algo == "dqn-self-play" {
            assert_eq!(card["config"]["encoding"], "seed", "{card}");
        }
        assert_eq!(card["game"], "othello4");
        assert_eq!(card["episodes"], 32);
        assert_eq!(card["last_eval"]["episode"], 32, "{card}");

        // Stopped at 16 (checkpoints 8 and 16 kept), continued from each of them.
        for keep in ["ep-00000008", "ep-00000016"] {
            let part = folder(&format!("{algo}-part"));
            run::<Othello4>(&part, &tiny(algo, "othello4", 16), true).expect("first part");
            assert_eq!(checkpoints(&part), ["ep-00000008", "ep-00000016"], "{algo}");
            if keep == "ep-00000008" {
                std::fs::remove_dir_all(part.join(CHECKPOINTS).join("ep-00000016"))
                    .expect("remove");
            }
            run::<Othello4>(&part, &tiny(algo, "othello4", 32), false).expect("resumed");
            assert_eq!(logs(&part), expected, "{algo} resumed from {keep}");
        }
    }
}

#[test]
fn refusals_name_the_problem_and_change_nothing() {
    let root = folder("refusals");
    run::<Othello4>(&root, &tiny("dqn", "othello4", 8), true).expect("run");
    let before = logs(&root);
    let e = run::<Othello4>(&root, &tiny("dqn", "othello4", 8), true).expect_err("exists");
    assert!(matches!(e, RunError::Exists(_)), "{e}");
    let e = resume(&root, "q-mlp", "othello4", None).expect_err("other algorithm");
    assert!(
        e.to_string()
            .contains("is a dqn run on othello4, not q-mlp"),
        "{e}"
    );
    let e = resume(&root, "dqn", "gomoku9", None).expect_err("other game");
    assert!(e.to_string().contains("not dqn on gomoku9"), "{e}");
    let e = resume(&root, "dqn", "othello4", Some(4)).expect_err("fewer than played");
    assert!(
        e.to_string()
            .contains("already played 8 episodes (its newest checkpoint), more than the 4"),
        "{e}"
    );
    assert_eq!(logs(&root), before);
    let e = resume(&folder("nothing"), "dqn", "othello4", None).expect_err("no run");
    assert!(e.to_string().contains("no config.json"), "{e}");
    // A config.json that is there but garbage is named as such, not as missing.
    let garbled = folder("garbled");
    run::<Othello4>(&garbled, &tiny("dqn", "othello4", 8), true).expect("run");
    std::fs::write(garbled.join("config.json"), [0xff, 0xfe, 0x00, 0x7b]).expect("garble");
    let e = resume(&garbled, "dqn", "othello4", None).expect_err("garbled config");
    let text = e.to_string();
    assert!(
        text.contains("config.json") && !text.contains("no config.json"),
        "{text}"
    );
    let mut bad = tiny("dqn", "othello4", 8);
    bad.algo = "sarsa".into();
    let e = bad.validate().expect_err("unknown algorithm");
    assert!(e.to_string().contains("unknown algorithm \"sarsa\""), "{e}");
}

/// The child side of the SIGKILL test: trains a long run into the folder it is given.
#[test]
#[ignore = "run by a_run_killed_with_sigkill_resumes_into_the_uninterrupted_run"]
fn child_trains_until_killed() {
    let Ok(root) = std::env::var("STONELAB_RUN_CHILD") else {
        return;
    };
    run::<Othello4>(Path::new(&root), &tiny("dqn", "othello4", 100_000), true).expect("child");
}

#[test]
fn a_run_killed_with_sigkill_resumes_into_the_uninterrupted_run() {
    let root = folder("killed");
    let mut child = Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "--exact",
            "child_trains_until_killed",
            "--ignored",
            "--nocapture",
        ])
        .env("STONELAB_RUN_CHILD", &root)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the child");
    // Kill it soon after its second checkpoint, probably in the middle of a round or a write.
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(300) {
        let done = std::fs::read_dir(root.join(CHECKPOINTS)).map_or(0, |d| {
            d.filter_map(Result::ok)
                .filter(|e| e.file_name().to_string_lossy().starts_with("ep-"))
                .count()
        });
        if done >= 2 {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(120));
    child.kill().expect("SIGKILL");
    let _ = child.wait();
    // The killed run's config says 100,000 episodes: continue it to two checkpoints past its
    // newest one instead, and compare with an uninterrupted run of that length.
    let newest = RunDir::open(&root)
        .expect("the run folder")
        .latest_checkpoint()
        .expect("a complete checkpoint survives the kill");
    let total = newest.episode + 16;
    run::<Othello4>(&root, &tiny("dqn", "othello4", total), false).expect("resume after a kill");
    let whole = folder("killed-whole");
    run::<Othello4>(&whole, &tiny("dqn", "othello4", total), true).expect("uninterrupted");
    let (killed, whole) = (logs(&root), logs(&whole));
    assert_eq!(
        killed.0, whole.0,
        "every episode once, as in the uninterrupted run"
    );
    assert_eq!(
        killed.1, whole.1,
        "every evaluation once, as in the uninterrupted run"
    );
}

/// DQN learns 9x9 freestyle Gomoku against `random`: from about even to a clear majority in
/// 2,000 episodes (the settings of `stonelab train dqn --game gomoku9 --episodes 2000 --blocks 2
/// --channels 16 --rewards terminal --warmup 500 --batch-size 32 --train-every 2
/// --epsilon-decay 800 --seed 2`). Slow (minutes): run with `--ignored`.
#[test]
#[ignore = "slow: trains 2,000 Gomoku episodes (about 5 minutes on 2 cores)"]
fn dqn_on_9x9_gomoku_rises_against_random() {
    let config: RunConfig = serde_json::from_value(serde_json::json!({
        "algo": "dqn", "game": "gomoku9", "episodes": 2000, "eval_every": 1000,
        "eval_games": 100, "checkpoint_every": 1000, "opponent": "random",
        "dqn": {
            "arch": {"kind": "resnet", "blocks": 2, "channels": 16},
            "behaviour": "epsilon", "rewards": "terminal", "parallel": 16, "batch_size": 32,
            "replay_capacity": 100000, "warmup": 500, "train_every": 2, "gamma": 0.99,
            "learning_rate": 0.0005, "target_sync": 30, "epsilon_start": 1.0,
            "epsilon_end": 0.05, "epsilon_decay": 800, "uct_c": 0.3, "augment": true, "seed": 2
        },
        "q_mlp": null
    }))
    .expect("config");
    let root = folder("gomoku9");
    let dir = RunDir::create(&root, false).expect("dir");
    let mut trainer = build_trainer::<Gomoku9>(&config, None).expect("trainer");
    let evals = [Opponent {
        name: "random".into(),
        make: Box::new(random::<Gomoku9>),
    }];
    let mut rates = Vec::new();
    train(
        &dir,
        &config,
        trainer.as_mut(),
        &random::<Gomoku9>,
        &evals,
        &mut |p| {
            if let learn::Progress::Evaluated { results, .. } = p {
                rates.push(results[0].2.score());
            }
        },
    )
    .expect("train");
    assert_eq!(rates.len(), 3, "before, halfway and after");
    assert!(rates[2] > rates[0] + 0.2, "score against random {rates:?}");
    // The model is written for gomoku9 and loads only as a gomoku9 model.
    let path = root.join(CHECKPOINTS).join("last.safetensors");
    learn::QNet::load(&path, "gomoku9", 9).expect("loads");
    let e = learn::QNet::load(&path, "gomoku15", 15).expect_err("other game");
    assert!(e.to_string().contains("plays gomoku9"), "{e}");
}

/// A q-table run through the library: the files, the curve against the exact solution, the
/// same logs for the same seed, and a refusal of zero episodes.
#[test]
fn q_table_runs_write_their_curve_and_repeat_exactly() {
    use learn::qtable_run::train_q_table;
    use learn::QTableConfig;
    use search::{ValueIterationConfig, ValueTable};
    let (exact, _) = ValueTable::solve(Othello4::base3_key, &ValueIterationConfig::default())
        .expect("4x4 value iteration");
    let config = QTableConfig {
        episodes: 3000,
        seed: 4,
        ..QTableConfig::default()
    };
    let run_once = |name: &str| {
        let root = folder(name);
        let dir = RunDir::create(&root, false).expect("dir");
        let mut seen = 0;
        let summary = train_q_table(&dir, &config, 3, &exact, &mut |_, _| seen += 1).expect("run");
        assert_eq!(seen, 3000, "progress sees every episode");
        let eval = std::fs::read_to_string(root.join("eval.csv")).expect("eval.csv");
        let log = std::fs::read_to_string(root.join("log.csv")).expect("log.csv");
        (summary, eval, log)
    };
    let (summary, eval, log) = run_once("qtable-a");
    assert_eq!(summary.curve.len(), 4, "the start and three evaluations");
    assert_eq!(eval.lines().count(), 5, "{eval}");
    assert!(
        eval.ends_with(&format!("3000,{:.5}\n", summary.last)),
        "{eval}"
    );
    assert!(
        summary.states > 1000 && summary.last > summary.first,
        "{summary:?}"
    );
    assert_eq!(log.lines().count(), 1 + 1000, "a row every 3 episodes");
    let (again, eval2, log2) = run_once("qtable-b");
    assert_eq!(
        (again, eval2, log2),
        (summary, eval, log),
        "same seed, same run"
    );
    let dir = RunDir::create(&folder("qtable-zero"), false).expect("dir");
    let zero = QTableConfig {
        episodes: 0,
        ..config
    };
    let e = train_q_table(&dir, &zero, 3, &exact, &mut |_, _| {}).expect_err("zero episodes");
    assert!(e.to_string().contains("at least 1"), "{e}");
}

/// Same seed, same model file, byte for byte (so the same sha256 on its card), for every
/// trainer.
#[test]
fn the_same_seed_writes_the_same_model_bytes() {
    for algo in [
        "dqn",
        "dqn-self-play",
        "dqn-competitive",
        "q-mlp",
        "alphazero",
    ] {
        let files = |name: &str| {
            let root = folder(&format!("{algo}-{name}"));
            run::<Othello4>(&root, &tiny(algo, "othello4", 16), true).expect("run");
            let dir = root.join(CHECKPOINTS);
            let mut found: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
                .expect("checkpoints")
                .filter_map(Result::ok)
                .filter(|e| e.file_name().to_string_lossy().ends_with(".safetensors"))
                .map(|e| {
                    let bytes = std::fs::read(e.path()).expect("model");
                    (e.file_name().to_string_lossy().into_owned(), bytes)
                })
                .collect();
            found.sort();
            found
        };
        let (a, b) = (files("a"), files("b"));
        assert!(!a.is_empty(), "{algo}: no model");
        assert_eq!(a, b, "{algo}: the same seed wrote other bytes");
    }
}

/// A log cut short before the checkpoint is noticed: resuming is refused, naming the missing
/// episodes, and nothing is changed.
#[test]
fn a_cut_log_is_refused_on_resume() {
    let root = folder("cut-log");
    run::<Othello4>(&root, &tiny("dqn", "othello4", 16), true).expect("run");
    let path = root.join("log.csv");
    let log = std::fs::read_to_string(&path).expect("log.csv");
    let cut: String = log.lines().take(6).map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, &cut).expect("cut");
    let e = run::<Othello4>(&root, &tiny("dqn", "othello4", 32), false).expect_err("a gap");
    assert!(
        e.to_string()
            .contains("rows of episodes 6 to 16 are missing or out of order"),
        "{e}"
    );
    assert_eq!(
        std::fs::read_to_string(&path).expect("log.csv"),
        cut,
        "nothing changed"
    );
}

/// A log whose header another version wrote (other columns) is refused on resume, naming both
/// headers, and nothing changes: rows of other columns would garble it.
#[test]
fn a_log_of_other_columns_is_refused_on_resume() {
    let root = folder("other-columns");
    run::<Othello4>(&root, &tiny("dqn", "othello4", 16), true).expect("run");
    let path = root.join("log.csv");
    let log = std::fs::read_to_string(&path).expect("log.csv");
    // As another version would have written it: one more column on every line.
    let older: String = log.lines().map(|l| format!("{l},extra\n")).collect();
    std::fs::write(&path, &older).expect("edit");
    let e = run::<Othello4>(&root, &tiny("dqn", "othello4", 32), false).expect_err("columns");
    assert!(
        e.to_string().contains("its columns are `") && e.to_string().contains(",extra`"),
        "{e}"
    );
    assert_eq!(
        std::fs::read_to_string(&path).expect("log.csv"),
        older,
        "nothing changed"
    );
}

/// An evaluation log removed or cut before the checkpoint is noticed: resuming is refused,
/// naming the rows missing, and nothing changes.
#[test]
fn a_cut_evaluation_log_is_refused_on_resume() {
    let root = folder("cut-eval");
    let mut config = tiny("dqn", "othello4", 16);
    config.eval_every = 8;
    run::<Othello4>(&root, &config, true).expect("run");
    let path = root.join("eval.csv");
    let whole = std::fs::read_to_string(&path).expect("eval.csv");
    let rows = whole.lines().count() - 1;
    assert!(rows >= 3, "{whole}");
    let cut: String = whole.lines().take(2).map(|l| format!("{l}\n")).collect();
    config.episodes = 24;
    for damage in [Some(cut.as_str()), None] {
        match damage {
            Some(text) => std::fs::write(&path, text).expect("cut"),
            None => std::fs::remove_file(&path).expect("remove"),
        }
        let e = run::<Othello4>(&root, &config, false).expect_err("rows missing");
        let found = if damage.is_some() { 1 } else { 0 };
        assert!(
            e.to_string().contains(&format!(
                "holds {found} evaluation rows up to episode 16, where checkpoint"
            )) && e.to_string().contains(&format!("was written after {rows}")),
            "{e}"
        );
        assert_eq!(std::fs::read_to_string(&path).ok().as_deref(), damage);
    }
    std::fs::write(&path, &whole).expect("restore");
    run::<Othello4>(&root, &config, false).expect("resumes once restored");
}

/// A config.json changed after a checkpoint (a network's width, an epoch's games) is refused
/// on resume, naming each setting with both values, and nothing changes; raising only the
/// total of episodes is a resume. For every trainer.
#[test]
fn a_config_changed_since_the_checkpoint_is_refused_on_resume() {
    for algo in [
        "dqn",
        "dqn-self-play",
        "dqn-competitive",
        "q-mlp",
        "alphazero",
    ] {
        let root = folder(&format!("{algo}-edited"));
        let config = tiny(algo, "othello4", 16);
        run::<Othello4>(&root, &config, true).expect("run");
        let path = root.join("config.json");
        let log = std::fs::read_to_string(root.join("log.csv")).expect("log.csv");
        let mut edited = config.clone();
        edited.episodes = 32;
        let changed = if let Some(q) = edited.q_mlp_mut() {
            q.games_per_epoch = 8;
            "q_mlp.games_per_epoch: 4 in the checkpoint, 8 now"
        } else if let Some(d) = edited.dqn_mut() {
            d.arch = QNetArch::Resnet {
                blocks: 1,
                channels: 16,
            };
            "dqn.arch.channels: 8 in the checkpoint, 16 now"
        } else if let AlgoSettings::AlphaZero(a) = &mut edited.settings {
            a.arch.channels = 16;
            "alphazero.arch.channels: 8 in the checkpoint, 16 now"
        } else {
            unreachable!()
        };
        let text = serde_json::to_string_pretty(&edited).expect("json");
        std::fs::write(&path, &text).expect("edit");
        let e = resume(&root, algo, "othello4", None)
            .map(|_| ())
            .expect_err("edited");
        let message = e.to_string();
        assert!(
            message.contains("changed since checkpoint") && message.contains(changed),
            "{algo}: {message}"
        );
        assert_eq!(std::fs::read_to_string(&path).expect("config"), text);
        assert_eq!(
            std::fs::read_to_string(root.join("log.csv")).expect("log"),
            log,
            "{algo}: nothing changed"
        );
        // Put back, with a larger total only: it resumes.
        let mut more = config.clone();
        more.episodes = 24;
        std::fs::write(&path, serde_json::to_string_pretty(&more).expect("json")).expect("w");
        assert!(resume(&root, algo, "othello4", None).is_ok(), "{algo}");
    }
}

/// A resume changes no log by itself: the rows after the checkpoint stay until training
/// starts from it, so whatever fails between the two (building the trainer, loading its
/// model) leaves the logs whole.
#[test]
fn resume_leaves_the_logs_to_training() {
    let root = folder("logs-stay");
    let mut config = tiny("dqn", "othello4", 16);
    config.checkpoint_every = 8;
    run::<Othello4>(&root, &config, true).expect("run");
    // Drop the newest checkpoint: the log runs 8 episodes past the remaining one.
    let checkpoints = root.join(CHECKPOINTS);
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&checkpoints)
        .expect("read")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    std::fs::remove_dir_all(folders.last().expect("a checkpoint")).expect("remove");
    let log = std::fs::read_to_string(root.join("log.csv")).expect("log.csv");
    let before = logs(&root);
    let resumed = resume(&root, "dqn", "othello4", None).expect("resume");
    assert_eq!(resumed.from.as_ref().map(|c| c.episode), Some(8));
    assert_eq!(
        std::fs::read_to_string(root.join("log.csv")).expect("log.csv"),
        log,
        "resume alone cut the log"
    );
    run::<Othello4>(&root, &config, false).expect("resumed run");
    assert_eq!(
        logs(&root),
        before,
        "the resumed run ends with the same logs"
    );
}

/// Copies the folder `from` to `to` (files and folders).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from)
        .expect("read dir")
        .filter_map(Result::ok)
    {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// Resume equals uninterrupted from *every* checkpoint of a run, for every trainer: a run that
/// keeps all its checkpoints is copied once per checkpoint with the later ones removed and its
/// logs left running past it (as a run killed right after writing that checkpoint leaves them),
/// then resumed to the end; every copy must end with the uninterrupted run's logs.
#[test]
fn every_trainer_resumes_from_every_checkpoint_of_a_run() {
    for algo in [
        "dqn",
        "dqn-self-play",
        "dqn-competitive",
        "q-mlp",
        "alphazero",
    ] {
        let mut config = tiny(algo, "othello4", 40);
        config.eval_every = 12;
        resumes_from_every_checkpoint(algo, &config);
    }
    // AlphaZero with a gate: its best network and promotions are in the checkpoints too.
    let mut config = tiny("alphazero", "othello4", 6);
    if let AlgoSettings::AlphaZero(a) = &mut config.settings {
        a.gate_games = 2;
    }
    config.checkpoint_every = 1;
    config.eval_every = 3;
    resumes_from_every_checkpoint("alphazero-gate", &config);
}

/// The body of [`every_trainer_resumes_from_every_checkpoint_of_a_run`] for one run.
fn resumes_from_every_checkpoint(label: &str, config: &RunConfig) {
    let whole = folder(&format!("{label}-every"));
    {
        let dir = RunDir::create(&whole, false)
            .expect("dir")
            .keeping(usize::MAX);
        dir.write_config(config).expect("config");
        let mut trainer = build_trainer::<Othello4>(config, None).expect("trainer");
        let evals = [Opponent {
            name: "random".into(),
            make: Box::new(random::<Othello4>),
        }];
        train(
            &dir,
            config,
            trainer.as_mut(),
            &random::<Othello4>,
            &evals,
            &mut |_| {},
        )
        .expect("uninterrupted");
    }
    let expected = logs(&whole);
    let all = checkpoints(&whole);
    assert!(all.len() >= 5, "{label}: {all:?}");
    for (k, keep) in all.iter().enumerate() {
        let part = folder(&format!("{label}-every-{keep}"));
        copy_tree(&whole, &part);
        for later in &all[k + 1..] {
            std::fs::remove_dir_all(part.join(CHECKPOINTS).join(later)).expect("remove");
        }
        run::<Othello4>(&part, config, false).expect("resumed");
        assert_eq!(logs(&part), expected, "{label} resumed from {keep}");
        let _ = std::fs::remove_dir_all(&part);
    }
}

/// Every file under `dir`, as `/`-separated paths relative to it, sorted.
fn files_under(dir: &Path) -> Vec<String> {
    fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir)
            .expect("read dir")
            .filter_map(Result::ok)
        {
            let name = format!("{prefix}{}", entry.file_name().to_string_lossy());
            if entry.path().is_dir() {
                walk(&entry.path(), &format!("{name}/"), out);
            } else {
                out.push(name);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, "", &mut out);
    out.sort();
    out
}

/// Every file under `dir` with its bytes: what "nothing was changed" compares.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    files_under(dir)
        .into_iter()
        .map(|f| {
            let bytes = std::fs::read(dir.join(&f)).expect("read");
            (f, bytes)
        })
        .collect()
}

/// The exported models of a run (`checkpoints/*.safetensors` and their cards), with their
/// bytes.
fn models(root: &Path) -> Vec<(String, Vec<u8>)> {
    let dir = root.join(CHECKPOINTS);
    files_under(&dir)
        .into_iter()
        .filter(|f| !f.contains('/'))
        .map(|f| {
            let bytes = std::fs::read(dir.join(&f)).expect("read");
            (f, bytes)
        })
        .collect()
}

/// Flips sixteen bytes (every bit of each) spread over the file.
fn flip_bytes(path: &Path) {
    let mut bytes = std::fs::read(path).expect("read");
    let len = bytes.len();
    assert!(len > 0, "{}: empty", path.display());
    let mut at: Vec<usize> = (0..16).map(|i| len * (2 * i + 1) / 32).collect();
    at.dedup();
    for i in at {
        bytes[i] ^= 0xff;
    }
    std::fs::write(path, bytes).expect("write");
}

/// The files of the newest checkpoint are damaged one at a time (sixteen bytes flipped in the
/// network, target network, optimiser, replay, visit counts, counters, the run's settings and
/// `state.json`, and `state.json` edited to another episode as valid JSON), for every trainer:
/// each resume
/// refuses that checkpoint, says which file of which folder is damaged and that it falls back
/// to the older one, sets the damaged folder aside, and ends with exactly the uninterrupted
/// run's logs and models (weights and cards, byte for byte).
#[test]
fn a_damaged_newest_checkpoint_is_passed_over_and_resume_falls_back_to_the_older_one() {
    for algo in [
        "dqn",
        "dqn-self-play",
        "dqn-competitive",
        "q-mlp",
        "alphazero",
    ] {
        let whole = folder(&format!("{algo}-fallback-whole"));
        run::<Othello4>(&whole, &tiny(algo, "othello4", 24), true).expect("uninterrupted");
        let expected = logs(&whole);
        let template = folder(&format!("{algo}-fallback"));
        run::<Othello4>(&template, &tiny(algo, "othello4", 16), true).expect("first part");
        assert_eq!(checkpoints(&template), ["ep-00000008", "ep-00000016"]);
        let newest = template.join(CHECKPOINTS).join("ep-00000016");
        let files = files_under(&newest);
        let state: serde_json::Value = serde_json::from_slice(
            &std::fs::read(newest.join(learn::run::STATE)).expect("state.json"),
        )
        .expect("json");
        let listed: Vec<String> = state["files"]
            .as_object()
            .expect("a manifest")
            .keys()
            .cloned()
            .collect();
        let others: Vec<String> = files
            .iter()
            .filter(|f| *f != "state.json")
            .cloned()
            .collect();
        assert_eq!(
            listed, others,
            "{algo}: the manifest lists every other file"
        );
        // The trainer's files, the run's settings (config.json), the count of evaluation
        // rows (eval-rows.json) and state.json.
        let expected_files = if algo == "dqn-competitive" {
            15
        } else if algo == "dqn" || algo == "dqn-self-play" {
            9
        } else if algo == "alphazero" {
            7
        } else {
            6
        };
        assert_eq!(files.len(), expected_files, "{algo}: {files:?}");

        // (file, edited rather than flipped): every file flipped, then state.json edited.
        let cases = files
            .iter()
            .map(|f| (f.clone(), false))
            .chain([("state.json".to_string(), true)]);
        for (k, (file, edit)) in cases.enumerate() {
            let part = folder(&format!("{algo}-fallback-{k}"));
            copy_tree(&template, &part);
            let damaged = part.join(CHECKPOINTS).join("ep-00000016").join(&file);
            if edit {
                let text = std::fs::read_to_string(&damaged).expect("state.json");
                assert!(text.contains("\"episode\": 16"), "{text}");
                std::fs::write(&damaged, text.replace("\"episode\": 16", "\"episode\": 15"))
                    .expect("edit");
            } else {
                flip_bytes(&damaged);
            }
            let warnings = run_warned::<Othello4>(&part, &tiny(algo, "othello4", 24), false)
                .unwrap_or_else(|e| panic!("{algo}, {file} damaged: {e}"));
            assert_eq!(warnings.len(), 1, "{algo}, {file}: {warnings:?}");
            let w = &warnings[0];
            assert!(
                w.contains(&format!("ep-00000016: {file} is damaged"))
                    && w.contains("resuming from the older checkpoint")
                    && w.contains("ep-00000008 (episode 8)")
                    && w.contains("damaged-ep-00000016"),
                "{algo}, {file}: {w}"
            );
            assert_eq!(logs(&part), expected, "{algo}, {file} damaged");
            assert_eq!(checkpoints(&part), ["ep-00000016", "ep-00000024"]);
            assert!(part.join(CHECKPOINTS).join("damaged-ep-00000016").is_dir());
            assert_eq!(
                models(&part),
                models(&whole),
                "{algo}, {file}: the final models are the uninterrupted run's, byte for byte"
            );
            let _ = std::fs::remove_dir_all(&part);
        }
    }
}

/// A run whose checkpoints are all damaged (the newest with a flipped target network, the older
/// one cut short) is refused with both reasons, and nothing in its folder changes; with the
/// newest intact, loading it is refused too once a file of it changes after the check.
#[test]
fn a_run_whose_checkpoints_are_all_damaged_is_refused_and_left_as_it_was() {
    let root = folder("all-damaged");
    let config = tiny("dqn", "othello4", 16);
    run::<Othello4>(&root, &config, true).expect("run");
    let cps = root.join(CHECKPOINTS);
    flip_bytes(&cps.join("ep-00000016").join("target.safetensors"));
    let optim = cps.join("ep-00000008").join("optim.bpk");
    let bytes = std::fs::read(&optim).expect("optim");
    std::fs::write(&optim, &bytes[..bytes.len() / 2]).expect("cut");
    let before = snapshot(&root);
    let e = run::<Othello4>(&root, &tiny("dqn", "othello4", 24), false).expect_err("unusable");
    assert!(matches!(e, RunError::NoUsableCheckpoint { .. }), "{e:?}");
    let text = e.to_string();
    assert!(
        text.contains("no usable checkpoint to resume from")
            && text.contains("ep-00000016: target.safetensors is damaged (checksum mismatch")
            && text.contains(&format!(
                "ep-00000008: optim.bpk is damaged ({} bytes, the manifest says {}",
                bytes.len() / 2,
                bytes.len()
            ))
            && text.contains("nothing was changed"),
        "{text}"
    );
    assert_eq!(snapshot(&root), before, "nothing written");
    assert_eq!(
        RunDir::open(&root).expect("run").latest_checkpoint(),
        None,
        "no usable checkpoint"
    );
}

/// `build_trainer` checks a checkpoint's files before it reads any: a file changed after the
/// checkpoint was found, or one missing, is a `Damaged` error naming the folder and the file.
#[test]
fn loading_a_damaged_checkpoint_is_refused_naming_the_folder_and_the_file() {
    let root = folder("load-damaged");
    let config = tiny("dqn", "othello4", 8);
    run::<Othello4>(&root, &config, true).expect("run");
    let cp = RunDir::open(&root)
        .expect("run")
        .latest_checkpoint()
        .expect("checkpoint");
    assert!(cp.verified && cp.episode == 8, "{cp:?}");
    build_trainer::<Othello4>(&config, Some(&cp)).expect("an intact checkpoint loads");
    flip_bytes(&cp.path.join("online.bpk"));
    let e = build_trainer::<Othello4>(&config, Some(&cp))
        .err()
        .expect("damaged");
    match &e {
        RunError::Damaged {
            checkpoint, file, ..
        } => assert_eq!((checkpoint, file.as_str()), (&cp.path, "online.bpk")),
        other => panic!("{other:?}"),
    }
    assert!(
        e.to_string().starts_with(&format!(
            "checkpoint {}: online.bpk is damaged (checksum mismatch",
            cp.path.display()
        )),
        "{e}"
    );
    std::fs::remove_file(cp.path.join("replay.bin")).expect("remove");
    let e = RunDir::checkpoint(&cp.path).expect_err("missing");
    assert!(
        e.to_string().contains("online.bpk is damaged")
            || e.to_string().contains("replay.bin is damaged (missing)"),
        "{e}"
    );
}

/// A checkpoint written before checksums (a `state.json` of only the episode and the algorithm)
/// still resumes, exactly, with a warning that it is unverified.
#[test]
fn a_checkpoint_written_before_checksums_resumes_unverified_with_a_warning() {
    let whole = folder("legacy-whole");
    run::<Othello4>(&whole, &tiny("dqn", "othello4", 24), true).expect("uninterrupted");
    let root = folder("legacy");
    run::<Othello4>(&root, &tiny("dqn", "othello4", 16), true).expect("first part");
    let newest = root.join(CHECKPOINTS).join("ep-00000016");
    std::fs::write(
        newest.join("state.json"),
        "{\n  \"episode\": 16,\n  \"algo\": \"dqn\"\n}",
    )
    .expect("old state.json");
    let cp = RunDir::checkpoint(&newest).expect("an old checkpoint is accepted");
    assert!(!cp.verified && cp.episode == 16, "{cp:?}");
    let warnings =
        run_warned::<Othello4>(&root, &tiny("dqn", "othello4", 24), false).expect("resumed");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("ep-00000016: unverified (written before checksums"),
        "{warnings:?}"
    );
    assert_eq!(logs(&root), logs(&whole));
}
