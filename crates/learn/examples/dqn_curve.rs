//! Trains the default DQN against `random` and prints the greedy win rate as it goes:
//! `cargo run --release -p stonelab-learn --example dqn_curve -- [6|8] [episodes] [blocks] [channels]`.

use std::time::Instant;

use learn::{evaluate, DqnConfig, DqnTrainer, QNetArch};
use othello::Othello;
use search::{Agent, RandomAgent};

fn run<const N: usize>(episodes: usize, arch: QNetArch) {
    let mut config = DqnConfig {
        arch,
        epsilon_decay: episodes / 2,
        ..DqnConfig::default()
    };
    for kv in std::env::args().skip(5) {
        let (k, v) = kv.split_once('=').expect("key=value");
        match k {
            "train_every" => config.train_every = v.parse().expect("n"),
            "batch" => config.batch_size = v.parse().expect("n"),
            "lr" => config.learning_rate = v.parse().expect("x"),
            "decay" => config.epsilon_decay = v.parse().expect("n"),
            "terminal" => config.rewards = learn::Rewards::Terminal,
            "sync" => config.target_sync = v.parse().expect("n"),
            "behaviour" => config.behaviour = v.parse().expect("b"),
            "parallel" => config.parallel = v.parse().expect("n"),
            _ => panic!("unknown {k}"),
        }
    }
    println!("{config:?}");
    let random = |seed: u64| -> Box<dyn Agent<Othello<N>>> { Box::new(RandomAgent::new(seed)) };
    let mut trainer = DqnTrainer::<Othello<N>>::new(config).expect("config");
    let start = Instant::now();
    let mut wins = 0;
    let mut games = 0;
    let every = (episodes / 10).max(1);
    while trainer.episode < episodes {
        let stats = trainer
            .round(&random, episodes - trainer.episode)
            .expect("round");
        for s in &stats {
            games += 1;
            if s.result > 0 {
                wins += 1;
            }
        }
        let last = stats.last().map_or(0, |s| s.episode);
        if last % every < stats.len() || trainer.episode >= episodes {
            let rec = evaluate(
                &mut trainer.learner,
                &random,
                &arena::VersusSettings::new(200, 77),
            )
            .expect("eval");
            println!(
                "episode {last:6} {:7.1}s grad steps {:6} replay {:6} train wins {:.2} eps {:.2} loss {:?} | greedy vs random {:.3}",
                start.elapsed().as_secs_f64(),
                trainer.learner.grad_steps,
                trainer.learner.replay_len(),
                wins as f64 / games.max(1) as f64,
                stats.last().map_or(0.0, |s| s.epsilon),
                stats.last().and_then(|s| s.loss),
                rec.win_rate()
            );
            wins = 0;
            games = 0;
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let size: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(6);
    let episodes: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(2000);
    let blocks: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(3);
    let channels: usize = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(32);
    let arch = QNetArch::Resnet { blocks, channels };
    match size {
        8 => run::<8>(episodes, arch),
        _ => run::<6>(episodes, arch),
    }
}
