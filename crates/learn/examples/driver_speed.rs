//! Positions per second a greedy DQN learner (default 3x32 network) decides on 8x8 Othello
//! while 1, 16 and 64 games run at once on the multi-game driver (the same function as
//! `stonelab bench dqn`'s driver line). Usage: `driver_speed [SECONDS] [THREADS]`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let seconds: f64 = args.next().map_or(Ok(2.0), |s| s.parse())?;
    let threads: usize = args.next().map_or(Ok(2), |s| s.parse())?;
    let time = std::time::Duration::from_secs_f64(seconds);
    let mut base = None;
    for games in [1, 16, 64] {
        let rate = learn::speed::driver_positions_per_s::<othello::Othello8>(
            learn::QNetArch::DEFAULT,
            games,
            threads,
            time,
        )?;
        let base = *base.get_or_insert(rate);
        println!(
            "{games:>3} games at once: {rate:>8.0} positions/s ({:.2}x one game)",
            rate / base
        );
    }
    Ok(())
}
