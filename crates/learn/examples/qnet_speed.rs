//! Quick speed table of Q-networks (the `stonelab bench dqn` command prints the full one).
use learn::{speed::measure, QNetArch};
use std::time::Duration;
fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|s| s.parse().ok())
        .collect();
    let (blocks, channels) = (
        args.first().copied().unwrap_or(3),
        args.get(1).copied().unwrap_or(32),
    );
    let arch = QNetArch::Resnet { blocks, channels };
    for threads in [1, 2] {
        for batch in [1, 32, 64, 128, 256] {
            let s = measure(arch, 8, batch, threads, Duration::from_millis(1500)).expect("pool");
            println!(
                "{} threads {threads} batch {batch:3}: {:8.0} pos/s  {:6.2} train steps/s",
                arch.label(),
                s.positions_per_s,
                s.train_steps_per_s
            );
        }
    }
}
