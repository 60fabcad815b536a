//! Speed of a Q-network on this machine: inference positions per second and training steps
//! per second (forward, backward, Adam) at a given batch size and thread count, and positions
//! per second through the multi-game driver with a given number of concurrent games.

use std::time::{Duration, Instant};

use burn::module::Module;
use burn::optim::{AdamConfig, GradientsParams};
use burn::tensor::{Device, Tensor, TensorData};

use crate::resnet::{QNet, QNetArch, PLANES};

/// One measurement.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Speed {
    /// Positions evaluated per second (inference network, no gradients).
    pub positions_per_s: f64,
    /// Training steps per second: forward, MSE backward and an Adam step on one batch.
    pub train_steps_per_s: f64,
}

/// Errors of the measurement.
#[derive(Debug, thiserror::Error)]
pub enum SpeedError {
    /// The thread pool could not be built, or a measured game failed.
    #[error("speed measurement: {0}")]
    Pool(String),
    /// The measurement cannot run as asked (a setting out of range, a file that is not a
    /// value network), or its searches failed or differed.
    #[error("{0}")]
    Refused(String),
}

/// Random-looking but deterministic board planes.
fn input(batch: usize, n: usize, device: &Device) -> Tensor<4> {
    let len = batch * PLANES * n * n;
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let data: Vec<f32> = (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            f32::from(u8::from(x.is_multiple_of(3)))
        })
        .collect();
    Tensor::<4>::from_data(TensorData::new(data, [batch, PLANES, n, n]), device)
}

/// Measures `arch` on an `n`x`n` board at batch size `batch` with `threads` worker threads,
/// running each kind of work for about `time` (after one warm-up call).
///
/// # Errors
/// [`SpeedError::Pool`] when the thread pool cannot be made.
pub fn measure(
    arch: QNetArch,
    n: usize,
    batch: usize,
    threads: usize,
    time: Duration,
) -> Result<Speed, SpeedError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(|e| SpeedError::Pool(e.to_string()))?;
    Ok(pool.install(|| {
        let batch = batch.max(1);
        let device = Device::default();
        let net = QNet::new(arch, n, 7, &device).valid();
        let x = input(batch, n, &device);
        let _ = net.forward(x.clone()).into_data();
        let start = Instant::now();
        let mut calls = 0u64;
        while start.elapsed() < time || calls == 0 {
            let _ = net.forward(x.clone()).into_data();
            calls += 1;
        }
        let positions_per_s = (calls * batch as u64) as f64 / start.elapsed().as_secs_f64();

        let train = Device::default().autodiff();
        let mut net = QNet::new(arch, n, 7, &train);
        let mut optim = AdamConfig::new().init();
        let x = input(batch, n, &train);
        let target = Tensor::<2>::zeros([batch, n * n], &train);
        let mut step = |net: QNet| -> QNet {
            let loss = (net.forward(x.clone()) - target.clone())
                .powi_scalar(2)
                .mean();
            let grads = GradientsParams::from_grads(loss.backward(), &net);
            optim.step(1e-4, net, grads)
        };
        net = step(net);
        let start = Instant::now();
        let mut steps = 0u64;
        while start.elapsed() < time || steps == 0 {
            net = step(net);
            steps += 1;
        }
        let train_steps_per_s = steps as f64 / start.elapsed().as_secs_f64();
        Speed {
            positions_per_s,
            train_steps_per_s,
        }
    }))
}

/// Positions a greedy DQN learner of architecture `arch` decides per second while playing
/// `games` games at once against `random` on the multi-game driver (each driver step sends
/// every position it must move in to the network as one batch), for about `time`.
///
/// # Errors
/// [`SpeedError::Pool`] when the thread pool cannot be made, or a failed game.
pub fn driver_positions_per_s<G: game::Game>(
    arch: QNetArch,
    games: usize,
    threads: usize,
    time: Duration,
) -> Result<f64, SpeedError> {
    use crate::dqn::{play_games, DqnConfig, DqnLearner, Seat};
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(|e| SpeedError::Pool(e.to_string()))?;
    pool.install(|| {
        let config = DqnConfig {
            arch,
            ..DqnConfig::default()
        };
        let mut learner =
            DqnLearner::<G>::new(config).map_err(|e| SpeedError::Pool(e.to_string()))?;
        let mut rng = <rand::rngs::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1);
        let start = Instant::now();
        let mut round = 0u64;
        while start.elapsed() < time || round == 0 {
            let seats = (0..games.max(1))
                .map(|g| {
                    let opponent: Seat<G> =
                        Seat::Agent(Box::new(search::RandomAgent::new(round * 1000 + g as u64)));
                    if g.is_multiple_of(2) {
                        [Seat::Batched(0), opponent]
                    } else {
                        [opponent, Seat::Batched(0)]
                    }
                })
                .collect();
            play_games(&mut [&mut learner], seats, 0.0, false, false, &mut rng)
                .map_err(|e| SpeedError::Pool(e.to_string()))?;
            round += 1;
        }
        Ok(learner.positions_evaluated() as f64 / start.elapsed().as_secs_f64())
    })
}

/// AlphaZero self-play on `G` with the `alphazero` trainer's defaults for it (its network,
/// a 32-simulation Gumbel root, playout caps): `(searched positions/s, network evaluations/s,
/// mean batch)` with `games` games at once on `threads` threads, for about `time` (whole
/// rounds of `games` games, at least one).
///
/// # Errors
/// [`SpeedError::Pool`] when the thread pool cannot be made, or a failed game.
pub fn az_self_play<G: game::Game>(
    games: usize,
    threads: usize,
    time: Duration,
) -> Result<(f64, f64, f64), SpeedError> {
    use crate::alphazero::{AlphaZeroConfig, PvEvaluator, PvNet};
    use search::PolicyValue;
    /// Counts the positions and batches the network sees.
    struct Counted<'a, G: game::Game> {
        net: &'a PvEvaluator<G>,
        positions: std::sync::atomic::AtomicU64,
        calls: std::sync::atomic::AtomicU64,
    }
    impl<G: game::Game> PolicyValue<G> for Counted<'_, G> {
        fn policy_value(&self, positions: &[G]) -> Vec<search::PriorsValue> {
            use std::sync::atomic::Ordering::Relaxed;
            self.positions.fetch_add(positions.len() as u64, Relaxed);
            self.calls.fetch_add(1, Relaxed);
            self.net.policy_value(positions)
        }
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(|e| SpeedError::Pool(e.to_string()))?;
    pool.install(|| {
        let mut config = AlphaZeroConfig::for_game(G::ID, 1);
        config.concurrent = games.max(1);
        let net = PvNet::new(
            config.arch,
            G::BOARD_SIZE,
            G::NUM_ACTIONS,
            1,
            &Device::default(),
        );
        let eval = PvEvaluator::<G>::new(&net);
        let counted = Counted {
            net: &eval,
            positions: 0.into(),
            calls: 0.into(),
        };
        let exact = crate::alphazero::exact::exact_leaf::<G>(config.solver_empties);
        let start = Instant::now();
        let (mut round, mut searched) = (0usize, 0usize);
        while start.elapsed() < time || round == 0 {
            let first = round * config.concurrent;
            let played = search::selfplay::self_play(
                &G::start(),
                first..first + config.concurrent,
                1,
                &counted,
                &config.self_play(),
                exact.as_ref(),
                &mut |_| {},
            )
            .map_err(|e| SpeedError::Pool(e.to_string()))?;
            searched += played.iter().map(|g| g.samples.len()).sum::<usize>();
            round += 1;
        }
        let seconds = start.elapsed().as_secs_f64();
        let evals = counted.positions.into_inner() as f64;
        let calls = counted.calls.into_inner().max(1) as f64;
        Ok((searched as f64 / seconds, evals / seconds, evals / calls))
    })
}

/// One pass of [`value_minimax`]: the searches with their leaves evaluated one way.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LeafRun {
    /// Leaves evaluated in batches (one network call per node's leaves), or one at a time.
    pub batched: bool,
    /// Wall-clock seconds of all the searches.
    pub seconds: f64,
    /// Nodes searched.
    pub nodes: u64,
    /// Positions the network evaluated.
    pub evaluated: u64,
    /// Network calls.
    pub passes: u64,
}

/// What [`value_minimax`] measured.
#[derive(Clone, Debug, PartialEq)]
pub struct MinimaxSpeed {
    /// The network's architecture, in words.
    pub arch: String,
    /// Positions searched.
    pub positions: usize,
    /// Batched, then one at a time.
    pub runs: [LeafRun; 2],
}

/// Searches the first `count` built-in balanced 8x8 openings to `depth` with the value network
/// in `model` at the leaves of alpha-beta, its leaves batched and then one at a time, and
/// checks that both find the same moves, scores and nodes. `started` is called with the
/// network's architecture and the number of positions once the model has loaded, before the
/// searches.
///
/// # Errors
/// [`SpeedError::Refused`] naming the problem: a depth outside 1..=8, no positions or more
/// than the openings, a file that is not a value network, a failed search, or searches that
/// differ.
pub fn value_minimax(
    model: &std::path::Path,
    depth: u32,
    count: usize,
    started: &mut dyn FnMut(&str, usize),
) -> Result<MinimaxSpeed, SpeedError> {
    use search::Agent;
    let fail = SpeedError::Refused;
    if !(1..=8).contains(&depth) || count == 0 {
        return Err(fail("--depth 1..=8 and --positions at least 1".into()));
    }
    // Its errors name the file.
    let (card, _) = crate::checkpoint::read_model(model).map_err(|e| fail(e.to_string()))?;
    if card.algo != crate::value::CNN_ALGO && card.algo != crate::value::MLP_ALGO {
        return Err(fail(format!(
            "{}: this is a model for {}, not a value network ({} or {}: cnn-supervised, \
             mlp-supervised or cnn-selfplay)",
            model.display(),
            card.algo,
            crate::value::CNN_ALGO,
            crate::value::MLP_ALGO
        )));
    }
    let loaded = crate::value::ValueModel::load(model, &card.algo, "othello8", 8)
        .map_err(|e| fail(format!("{}: {e}", model.display())))?;
    let openings = arena::builtin_openings::<othello::Othello8>()
        .map_err(|e| fail(e.to_string()))?
        .ok_or_else(|| fail("no built-in openings".into()))?;
    if count > openings.len() {
        return Err(fail(format!(
            "--positions {count}: at most {} (the built-in balanced openings)",
            openings.len()
        )));
    }
    let positions: Vec<othello::Othello8> =
        openings.iter().take(count).map(|o| *o.position()).collect();
    started(&loaded.arch.label(), positions.len());
    let mut runs = Vec::new();
    let mut decisions = Vec::new();
    for batched in [true, false] {
        let eval = std::sync::Arc::new(loaded.evaluator().batched(batched));
        let started = Instant::now();
        let mut nodes = 0;
        let mut found = Vec::new();
        for pos in &positions {
            let mut agent = crate::value::ValueMinimax::<othello::Othello8>::new(
                "bench".into(),
                eval.clone(),
                depth,
            );
            let d = agent
                .select(pos, &search::Budget::default())
                .map_err(|e| fail(e.to_string()))?;
            nodes += d.nodes;
            found.push((d.mv, d.score, d.nodes));
        }
        let seconds = started.elapsed().as_secs_f64();
        let (evaluated, passes) = eval.counts();
        runs.push(LeafRun {
            batched,
            seconds,
            nodes,
            evaluated,
            passes,
        });
        decisions.push(found);
    }
    if decisions[0] != decisions[1] {
        return Err(fail(
            "batched and one-at-a-time searches differ: a bug".into(),
        ));
    }
    Ok(MinimaxSpeed {
        arch: loaded.arch.label(),
        positions: positions.len(),
        runs: [runs[0], runs[1]],
    })
}
