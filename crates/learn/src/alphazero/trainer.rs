//! The `alphazero` trainer: iterations of batched self-play by the current (or best, with a
//! gate) network, a replay window of the full searches' targets, and AdamW steps on it.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;

use arena::{ColourWdl, VersusSettings};
use burn::module::Module;
use burn::optim::{AdamWConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Tensor, TensorData};
use game::{Color, Game, Symmetry};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use search::selfplay::{self_play, PlayoutCap, SelfPlayConfig, SelfPlayGame};
use search::{ExactLeaf, GumbelRoot, PolicyValue, PuctConfig, PuctPlayers, RootNoise};
use serde::{Deserialize, Serialize};

use super::net::{encode, PvArch, PvEvaluator, PvNet, AZ_ALGO, AZ_PLANES};
use crate::checkpoint::{weights_bytes, Card, ModelError};
use crate::run::{AgentFactory, Cell, EpisodeRow, Export, RunError, StepProgress, Trainer};
use crate::value::supervised::{counter, load_training, save_training};

/// The settings of an `alphazero` run (`config.json`'s `alphazero`). One episode of the run is
/// one iteration: `games` self-play games, then training on the window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AlphaZeroConfig {
    /// The network.
    pub arch: PvArch,
    /// Self-play games per iteration.
    pub games: usize,
    /// Games played at once (their leaves share one network batch).
    pub concurrent: usize,
    /// Simulations of a full search.
    pub sims: u32,
    /// The Gumbel root with this many considered actions (0: PUCT with Dirichlet noise).
    pub gumbel: usize,
    /// The share of moves that get the full search and become samples (1: every move).
    pub full_share: f32,
    /// Simulations of the cheap searches of the other moves.
    pub fast_sims: u32,
    /// PUCT's exploration constant.
    pub c_puct: f32,
    /// First-play urgency reduction.
    pub fpu: f32,
    /// Dirichlet `alpha` of the root noise (PUCT roots).
    pub noise_alpha: f32,
    /// The noise's weight.
    pub noise_frac: f32,
    /// Plies drawn in proportion to the visits at the start of each game (PUCT roots).
    pub temperature_plies: u32,
    /// Othello: the exact solver at leaves with at most this many empties (0: off).
    pub solver_empties: u32,
    /// Each self-play game opens with 0 to this many uniformly random moves, not trained on
    /// (0: none), so the games reach more positions than the start's neighbourhood.
    #[serde(default)]
    pub random_opening: u32,
    /// Positions the replay window keeps (the oldest games go first).
    pub window: usize,
    /// Positions per minibatch.
    pub batch: usize,
    /// Each new sample is drawn this many times on average (steps = new samples × reuse /
    /// batch).
    pub sample_reuse: f32,
    /// AdamW's learning rate.
    pub learning_rate: f64,
    /// Step drops of the learning rate: from iteration (episode) `.0` on, the rate is `.1`
    /// (ascending iterations; empty: the rate stays).
    #[serde(default)]
    pub lr_drops: Vec<(usize, f64)>,
    /// AdamW's decoupled weight decay.
    pub weight_decay: f32,
    /// The margin head's weight in the loss (with the head).
    pub margin_weight: f32,
    /// The value target's weight on the full search's root value: target = (1 − w)·result +
    /// w·root value (0: the game's result alone, as AlphaZero; a proven root's value is exact).
    #[serde(default)]
    pub q_weight: f32,
    /// Each sampled position shown as one of its 8 images at random.
    pub augment: bool,
    /// Gate games per iteration against the best network so far (0: no gate; the newest
    /// network plays the self-play games).
    pub gate_games: usize,
    /// The share of the gate's points the new network needs.
    pub gate_threshold: f64,
    /// Simulations of the evaluation games.
    pub eval_sims: u32,
    /// Seed of the network, the self-play games and the minibatches.
    pub seed: u64,
}

impl AlphaZeroConfig {
    /// The defaults for game `id`: a 4x48 network, 64 games an iteration, 32 at once,
    /// a 32-simulation Gumbel root with 16 considered actions, a quarter of the moves
    /// searched in full and 8-simulation searches for the rest, a window of 50,000 positions,
    /// minibatches of 256, each sample drawn 4 times, AdamW at 0.002; smaller on 4x4.
    #[must_use]
    pub fn for_game(id: &str, seed: u64) -> Self {
        let small = id == "othello4";
        AlphaZeroConfig {
            arch: if small {
                PvArch {
                    blocks: 2,
                    channels: 32,
                    margin_head: true,
                }
            } else {
                PvArch::DEFAULT
            },
            games: 64,
            concurrent: 32,
            sims: 32,
            gumbel: 16,
            full_share: 0.25,
            fast_sims: 8,
            c_puct: 1.5,
            fpu: 0.25,
            noise_alpha: 0.3,
            noise_frac: 0.25,
            temperature_plies: 8,
            solver_empties: if id.starts_with("othello") { 8 } else { 0 },
            random_opening: if small { 8 } else { 0 },
            window: if small { 20_000 } else { 50_000 },
            batch: 256,
            sample_reuse: 4.0,
            learning_rate: 2e-3,
            lr_drops: Vec::new(),
            weight_decay: 1e-4,
            margin_weight: 0.5,
            q_weight: 0.0,
            augment: true,
            gate_games: 0,
            gate_threshold: 0.55,
            eval_sims: 64,
            seed,
        }
    }

    /// Checks the settings.
    ///
    /// # Errors
    /// A message naming the bad setting.
    pub fn validate(&self) -> Result<(), String> {
        let within = |name: &str, v: usize, lo: usize, hi: usize| {
            if (lo..=hi).contains(&v) {
                Ok(())
            } else {
                Err(format!("{name} {v} ({lo}..={hi})"))
            }
        };
        within("games", self.games, 1, 100_000)?;
        within("concurrent", self.concurrent, 1, 4096)?;
        within("sims", self.sims as usize, 1, 100_000)?;
        within("fast sims", self.fast_sims as usize, 1, 100_000)?;
        within("gumbel", self.gumbel, 0, 512)?;
        within("solver empties", self.solver_empties as usize, 0, 20)?;
        within("random opening", self.random_opening as usize, 0, 400)?;
        within("window", self.window, 1, 10_000_000)?;
        within("batch", self.batch, 1, 65_536)?;
        within("gate games", self.gate_games, 0, 10_000)?;
        within("eval sims", self.eval_sims as usize, 1, 100_000)?;
        if self.gate_games % 2 == 1 {
            return Err(format!(
                "gate games {} (even: colours are swapped in pairs)",
                self.gate_games
            ));
        }
        for (name, v, lo, hi) in [
            ("full share", f64::from(self.full_share), 0.0, 1.0),
            ("noise frac", f64::from(self.noise_frac), 0.0, 1.0),
            ("gate threshold", self.gate_threshold, 0.0, 1.0),
            ("sample reuse", f64::from(self.sample_reuse), 0.0, 1000.0),
            ("c_puct", f64::from(self.c_puct), 0.0, 100.0),
            ("fpu", f64::from(self.fpu), 0.0, 2.0),
            ("noise alpha", f64::from(self.noise_alpha), 0.0, 100.0),
            ("weight decay", f64::from(self.weight_decay), 0.0, 1.0),
            ("margin weight", f64::from(self.margin_weight), 0.0, 100.0),
            ("q weight", f64::from(self.q_weight), 0.0, 1.0),
        ] {
            if !(lo..=hi).contains(&v) || v.is_nan() {
                return Err(format!("{name} {v} ({lo}..={hi})"));
            }
        }
        if self.full_share <= 0.0 {
            return Err("full share 0: no move would become a sample".into());
        }
        if !(self.learning_rate > 0.0 && self.learning_rate < 1.0) {
            return Err(format!("learning rate {} (0..1)", self.learning_rate));
        }
        let mut last = 0;
        for &(at, lr) in &self.lr_drops {
            if at <= last {
                return Err(format!(
                    "learning rate drop at iteration {at}: drops go at iterations 1, 2, ... in \
                     ascending order"
                ));
            }
            if !(lr > 0.0 && lr < 1.0) {
                return Err(format!("learning rate drop to {lr} (0..1)"));
            }
            last = at;
        }
        Ok(())
    }

    /// The learning rate of iteration (episode) `iteration`, counted from 1.
    #[must_use]
    pub fn learning_rate_at(&self, iteration: usize) -> f64 {
        self.lr_drops
            .iter()
            .take_while(|(at, _)| *at <= iteration)
            .last()
            .map_or(self.learning_rate, |&(_, lr)| lr)
    }

    /// The full search of self-play.
    #[must_use]
    pub fn search(&self) -> PuctConfig {
        PuctConfig {
            sims: Some(self.sims),
            c_puct: self.c_puct,
            fpu: self.fpu,
            noise: (self.gumbel == 0).then_some(RootNoise {
                alpha: self.noise_alpha,
                frac: self.noise_frac,
            }),
            gumbel: (self.gumbel > 0).then(|| GumbelRoot {
                considered: self.gumbel,
                sample: true,
                ..GumbelRoot::default()
            }),
            ..PuctConfig::default()
        }
    }

    /// The search of evaluation games (no noise, no draws).
    #[must_use]
    pub fn eval_search(&self) -> PuctConfig {
        let mut search = self.search();
        search.sims = Some(self.eval_sims);
        search.noise = None;
        if let Some(g) = search.gumbel.as_mut() {
            g.sample = false;
        }
        search
    }

    /// Self-play's settings.
    #[must_use]
    pub fn self_play(&self) -> SelfPlayConfig {
        SelfPlayConfig {
            search: self.search(),
            cap: (self.full_share < 1.0).then_some(PlayoutCap {
                full_share: self.full_share,
                fast_sims: self.fast_sims,
            }),
            temperature_plies: self.temperature_plies,
            concurrent: self.concurrent,
            max_plies: None,
            random_opening: (self.random_opening > 0).then_some((0, self.random_opening)),
        }
    }
}

/// One training sample: a position, its policy target (sparse) and its outcome targets.
#[derive(Clone, Debug, PartialEq)]
struct AzSample<G: Game> {
    pos: G,
    policy: Vec<(u16, f32)>,
    /// The result for the side to move: 1, 0 (a draw) or −1.
    z: f32,
    /// The full search's root value for the side to move (exact where it proved the root);
    /// `None` in windows written before it was kept.
    q: Option<f32>,
    /// The final margin for the side to move over the board's points.
    margin: f32,
}

/// What a full search left for training at one ply: its policy target (sparse (action,
/// weight) pairs) and its root value.
#[derive(Clone, Debug, PartialEq)]
struct Target {
    ply: u16,
    q: Option<f32>,
    policy: Vec<(u16, f32)>,
}

/// The value head's target: the result `z`, mixed with the root value `q` at weight `w` when
/// the sample has one.
fn value_target(z: f32, q: Option<f32>, w: f32) -> f32 {
    match q {
        Some(q) if w > 0.0 => (1.0 - w) * z + w * q,
        _ => z,
    }
}

/// A self-play game of the window: its moves (for the checkpoint) and its samples.
#[derive(Clone, Debug, PartialEq)]
struct AzGame<G: Game> {
    moves: Vec<G::Move>,
    /// The full searches' targets, one per sample.
    targets: Vec<Target>,
    samples: Vec<AzSample<G>>,
}

impl<G: Game> AzGame<G> {
    /// The game's samples from its moves and the targets of its full searches.
    fn rebuild(moves: Vec<G::Move>, targets: Vec<Target>) -> Result<Self, String> {
        let mut positions = Vec::with_capacity(moves.len() + 1);
        let mut pos = G::start();
        for &mv in &moves {
            positions.push(pos.clone());
            pos = pos.play(mv).map_err(|e| e.to_string())?;
        }
        let outcome = pos.outcome();
        let cells = (G::BOARD_SIZE * G::BOARD_SIZE) as f32;
        let mut samples = Vec::with_capacity(targets.len());
        for Target { ply, q, policy } in &targets {
            if q.is_some_and(|q| !(-1.0..=1.0).contains(&q)) {
                return Err(format!("a root value {q:?} outside -1..1"));
            }
            let p = positions
                .get(usize::from(*ply))
                .ok_or_else(|| format!("a sample at ply {ply} of a {}-ply game", moves.len()))?;
            for &(a, w) in policy {
                if G::action_move(usize::from(a)).is_none_or(|m| !p.is_legal(m)) || !w.is_finite() {
                    return Err(format!("a policy target on an illegal action {a}"));
                }
            }
            let me = p.side_to_move();
            samples.push(AzSample {
                pos: p.clone(),
                policy: policy.clone(),
                z: outcome.map_or(0.0, |o| o.value_for(me)),
                q: *q,
                margin: outcome.map_or(0.0, |o| (o.score_for(me) as f32 / cells).clamp(-1.0, 1.0)),
            });
        }
        Ok(AzGame {
            moves,
            targets,
            samples,
        })
    }

    fn from_self_play(game: &SelfPlayGame<G>) -> Result<Self, String> {
        let mut targets = Vec::new();
        let mut samples = game.samples.iter();
        let mut pos = G::start();
        for (ply, &mv) in game.moves.iter().enumerate() {
            if ply >= game.opening && pos.forced_pass().is_none() {
                if let Some(s) = samples.next() {
                    if s.full {
                        let sparse: Vec<(u16, f32)> = s
                            .policy
                            .iter()
                            .enumerate()
                            .filter(|(_, &p)| p > 0.0)
                            .map(|(a, &p)| (u16::try_from(a).unwrap_or(u16::MAX), p))
                            .collect();
                        targets.push(Target {
                            ply: u16::try_from(ply).unwrap_or(u16::MAX),
                            q: s.value.is_finite().then(|| s.value.clamp(-1.0, 1.0)),
                            policy: sparse,
                        });
                    }
                }
            }
            pos = pos.play_unchecked(mv);
        }
        Self::rebuild(game.moves.clone(), targets)
    }
}

/// The window's file of a checkpoint.
const WINDOW_FILE: &str = "window.bin";
/// The best network's file of a checkpoint (with a gate).
const BEST_FILE: &str = "best.bpk";
/// The window file's magic: version 2 keeps each target's root value.
const WINDOW_MAGIC: &[u8; 4] = b"AZW2";
/// Version 1 (no root values), still read.
const WINDOW_MAGIC_V1: &[u8; 4] = b"AZW1";

/// The `alphazero` trainer.
pub struct AlphaZeroTrainer<G: Game> {
    config: AlphaZeroConfig,
    net: PvNet,
    /// The best network so far, with a gate.
    best: Option<PvNet>,
    optim: ModuleOptimizer,
    device: Device,
    window: VecDeque<AzGame<G>>,
    window_len: usize,
    exact: Option<Arc<dyn ExactLeaf<G>>>,
    iteration: usize,
    steps: u64,
    promotions: u64,
    progress: Option<StepProgress>,
}

fn adamw(config: &AlphaZeroConfig) -> ModuleOptimizer {
    AdamWConfig::new()
        .with_weight_decay(config.weight_decay)
        .init()
}

impl<G: Game> AlphaZeroTrainer<G> {
    /// A fresh network from the settings.
    ///
    /// # Errors
    /// [`RunError::Settings`] for bad settings.
    pub fn new(config: AlphaZeroConfig) -> Result<Self, RunError> {
        config.validate().map_err(RunError::Settings)?;
        config
            .arch
            .check(G::BOARD_SIZE, G::NUM_ACTIONS)
            .map_err(RunError::Settings)?;
        let device = Device::default().autodiff();
        let net = PvNet::new(
            config.arch,
            G::BOARD_SIZE,
            G::NUM_ACTIONS,
            config.seed,
            &device,
        );
        let best = (config.gate_games > 0).then(|| net.valid());
        Ok(AlphaZeroTrainer {
            optim: adamw(&config),
            exact: super::exact::exact_leaf::<G>(config.solver_empties),
            config,
            net,
            best,
            device,
            window: VecDeque::new(),
            window_len: 0,
            iteration: 0,
            steps: 0,
            promotions: 0,
            progress: None,
        })
    }

    /// The settings.
    #[must_use]
    pub fn config(&self) -> &AlphaZeroConfig {
        &self.config
    }

    /// The network that plays: the best with a gate, else the newest (an inference copy).
    #[must_use]
    pub fn player_net(&self) -> PvNet {
        self.best.clone().unwrap_or_else(|| self.net.valid())
    }

    /// Positions in the replay window.
    #[must_use]
    pub fn window_len(&self) -> usize {
        self.window_len
    }

    fn rng(&self, stream: u64) -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(game::hash::splitmix64(
            self.config.seed ^ game::hash::splitmix64((self.iteration as u64) << 8 | stream),
        ))
    }

    /// One iteration's self-play games.
    fn self_play(&self) -> Result<Vec<SelfPlayGame<G>>, RunError> {
        let eval = PvEvaluator::<G>::new(&self.player_net());
        let first = self.iteration * self.config.games;
        self_play(
            &G::start(),
            first..first + self.config.games,
            self.config.seed,
            &eval,
            &self.config.self_play(),
            self.exact.as_ref(),
            &mut |_| {},
        )
        .map_err(|e| RunError::Settings(format!("self-play: {e}")))
    }

    fn add(&mut self, game: AzGame<G>) {
        self.window_len += game.samples.len();
        self.window.push_back(game);
        while self.window_len > self.config.window && self.window.len() > 1 {
            if let Some(old) = self.window.pop_front() {
                self.window_len -= old.samples.len();
            }
        }
    }

    /// AdamW steps on the window; (steps, mean loss, policy, value, margin losses).
    fn train(&mut self, new_samples: usize) -> (usize, [f64; 4]) {
        let steps = (new_samples as f64 * f64::from(self.config.sample_reuse)
            / self.config.batch as f64)
            .ceil() as usize;
        if self.window_len == 0 || steps == 0 {
            return (0, [0.0; 4]);
        }
        let index: Vec<(usize, usize)> = self
            .window
            .iter()
            .enumerate()
            .flat_map(|(g, game)| (0..game.samples.len()).map(move |s| (g, s)))
            .collect();
        let mut rng = self.rng(2);
        let n = G::BOARD_SIZE;
        let actions = G::NUM_ACTIONS;
        let mut sums = [0.0f64; 4];
        let lr = self.config.learning_rate_at(self.iteration + 1);
        for step in 0..steps {
            let rows = self.config.batch.min(index.len());
            let mut x = Vec::with_capacity(rows * AZ_PLANES * n * n);
            let mut pi = vec![0.0f32; rows * actions];
            let mut mask = vec![-1.0e4f32; rows * actions];
            let mut z = Vec::with_capacity(rows);
            let mut m = Vec::with_capacity(rows);
            for r in 0..rows {
                let (g, s) = index[rng.random_range(0..index.len())];
                let sample = &self.window[g].samples[s];
                let sym = if self.config.augment {
                    Symmetry::ALL[rng.random_range(0..Symmetry::ALL.len())]
                } else {
                    Symmetry::Identity
                };
                let pos = sample.pos.transform(sym);
                encode(&pos, &mut x);
                for mv in pos.legal_moves() {
                    mask[r * actions + G::action_index(mv)] = 0.0;
                }
                for &(a, p) in &sample.policy {
                    if let Some(mv) = G::action_move(usize::from(a)) {
                        let b = G::action_index(G::transform_move(mv, sym));
                        pi[r * actions + b] = p;
                    }
                }
                z.push(value_target(sample.z, sample.q, self.config.q_weight));
                m.push(sample.margin);
            }
            let d = &self.device;
            let input = Tensor::<4>::from_data(TensorData::new(x, [rows, AZ_PLANES, n, n]), d);
            let pi = Tensor::<2>::from_data(TensorData::new(pi, [rows, actions]), d);
            let mask = Tensor::<2>::from_data(TensorData::new(mask, [rows, actions]), d);
            let z = Tensor::<1>::from_data(TensorData::new(z, [rows]), d);
            let out = self.net.forward(input);
            let logp = log_softmax(out.logits + mask, 1);
            let policy_loss = (logp * pi).sum_dim(1).mean().neg();
            let value_loss = (out.value - z).powi_scalar(2).mean();
            let mut loss = policy_loss.clone() + value_loss.clone();
            let mut margin_loss = 0.0;
            if let Some(margin) = out.margin {
                let target = Tensor::<1>::from_data(TensorData::new(m, [rows]), d);
                let ml = (margin - target).powi_scalar(2).mean();
                margin_loss = f64::from(ml.clone().into_scalar::<f32>());
                loss = loss + ml.mul_scalar(self.config.margin_weight);
            }
            sums[0] += f64::from(loss.clone().into_scalar::<f32>());
            sums[1] += f64::from(policy_loss.into_scalar::<f32>());
            sums[2] += f64::from(value_loss.into_scalar::<f32>());
            sums[3] += margin_loss;
            let grads = GradientsParams::from_grads(loss.backward(), &self.net);
            self.net = self.optim.step(lr, self.net.clone(), grads);
            self.steps += 1;
            if let Some(progress) = self.progress.as_mut() {
                progress(step + 1, steps);
            }
        }
        (steps, sums.map(|s| s / steps as f64))
    }

    /// The gate: the newest network against the best, colours swapped in pairs from random
    /// openings; its share of the points and whether it replaced the best.
    fn gate(&mut self) -> Result<Option<(f64, bool)>, RunError> {
        let Some(best) = self.best.clone() else {
            return Ok(None);
        };
        let newest = self.net.valid();
        let search = self.config.eval_search();
        let mut players = PuctPlayers::new(
            vec![
                (
                    Arc::new(PvEvaluator::<G>::new(&newest)) as Arc<dyn PolicyValue<G>>,
                    search.clone(),
                ),
                (Arc::new(PvEvaluator::<G>::new(&best)), search),
            ],
            self.config.seed ^ 0x6761_7465,
        );
        let pairs = self.config.gate_games / 2;
        let starts = eval_starts::<G>(pairs, self.config.seed ^ self.iteration as u64);
        let tables = (0..pairs * 2)
            .map(|k| search::driver::Table {
                start: starts[(k / 2) % starts.len().max(1)].clone(),
                seats: if k % 2 == 0 {
                    [
                        search::driver::Seat::Batched(0),
                        search::driver::Seat::Batched(1),
                    ]
                } else {
                    [
                        search::driver::Seat::Batched(1),
                        search::driver::Seat::Batched(0),
                    ]
                },
            })
            .collect();
        let played = search::driver::play(
            tables,
            &mut players,
            &search::driver::DriverConfig::default(),
        )
        .map_err(|e| RunError::Settings(format!("gate: {e}")))?;
        let mut points = 0.0;
        for (k, p) in played.iter().enumerate() {
            let me = if k % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            points += p
                .end
                .outcome()
                .map_or(0.5, |o| match o.score_for(me).signum() {
                    1 => 1.0,
                    0 => 0.5,
                    _ => 0.0,
                });
        }
        let share = points / played.len().max(1) as f64;
        let passed = share >= self.config.gate_threshold;
        if passed {
            self.best = Some(newest);
            self.promotions += 1;
        }
        Ok(Some((share, passed)))
    }

    fn card(&self, last_eval: &serde_json::Value) -> Card {
        Card {
            format: String::new(),
            algo: AZ_ALGO.into(),
            game: G::ID.into(),
            board_size: G::BOARD_SIZE,
            arch: serde_json::to_value(self.config.arch).ok(),
            config: serde_json::to_value(&self.config).unwrap_or_default(),
            episodes: self.iteration,
            train_steps: self.steps,
            weights: String::new(),
            sha256: String::new(),
            bytes: 0,
            last_eval: last_eval.clone(),
        }
    }
}

/// Start positions of evaluation games: the balanced openings where the game has them, else
/// seeded random openings.
fn eval_starts<G: Game>(count: usize, seed: u64) -> Vec<G> {
    let builtin: Vec<G> = arena::builtin_openings::<G>()
        .ok()
        .flatten()
        .unwrap_or_default()
        .iter()
        .map(|o| o.position().clone())
        .collect();
    if !builtin.is_empty() {
        return builtin;
    }
    let plies = arena::default_random_plies::<G>();
    let random: Vec<G> = arena::random_openings::<G>(plies, count.max(1), seed)
        .iter()
        .map(|o| o.position().clone())
        .collect();
    if random.is_empty() {
        vec![G::start()]
    } else {
        random
    }
}

/// The window as bytes: [`WINDOW_MAGIC`], the game count, then per game its move count, the
/// moves' action indices, its sample count and per sample its ply, its root value (f32, NaN
/// for none), its target count and the (action, weight) pairs; little-endian.
fn window_bytes<G: Game>(window: &VecDeque<AzGame<G>>) -> Result<Vec<u8>, ModelError> {
    let mut out = WINDOW_MAGIC.to_vec();
    let too_big =
        |what: &str| ModelError::Weights(format!("the replay window: {what} over 65,535"));
    if window
        .iter()
        .any(|g| g.moves.len() > usize::from(u16::MAX) || g.targets.len() > usize::from(u16::MAX))
    {
        return Err(too_big("a game's moves or samples"));
    }
    let u16b = |v: usize| u16::try_from(v).unwrap_or(u16::MAX).to_le_bytes();
    out.extend_from_slice(
        &u32::try_from(window.len())
            .unwrap_or(u32::MAX)
            .to_le_bytes(),
    );
    for game in window {
        out.extend_from_slice(&u16b(game.moves.len()));
        for &mv in &game.moves {
            out.extend_from_slice(&u16b(G::action_index(mv)));
        }
        out.extend_from_slice(&u16b(game.targets.len()));
        for Target { ply, q, policy } in &game.targets {
            out.extend_from_slice(&ply.to_le_bytes());
            out.extend_from_slice(&q.unwrap_or(f32::NAN).to_le_bytes());
            out.extend_from_slice(&u16b(policy.len()));
            for &(a, p) in policy {
                out.extend_from_slice(&a.to_le_bytes());
                out.extend_from_slice(&p.to_le_bytes());
            }
        }
    }
    Ok(out)
}

/// The window back from [`window_bytes`], every game replayed and checked.
fn window_from<G: Game>(bytes: &[u8]) -> Result<Vec<AzGame<G>>, String> {
    let mut at = 0usize;
    let mut take = |n: usize| -> Result<&[u8], String> {
        let s = bytes.get(at..at + n).ok_or("it ends early")?;
        at += n;
        Ok(s)
    };
    let version = match take(4)? {
        m if m == WINDOW_MAGIC => 2,
        m if m == WINDOW_MAGIC_V1 => 1,
        _ => return Err("not a window file".into()),
    };
    let word = |b: &[u8]| u16::from_le_bytes([b[0], b[1]]);
    let games = u32::from_le_bytes(take(4)?.try_into().map_err(|_| "a short count")?);
    let mut out = Vec::new();
    for _ in 0..games {
        let n = usize::from(word(take(2)?));
        let mut moves = Vec::with_capacity(n);
        for _ in 0..n {
            let a = usize::from(word(take(2)?));
            moves.push(G::action_move(a).ok_or_else(|| format!("action {a} is off the board"))?);
        }
        let k = usize::from(word(take(2)?));
        let mut targets = Vec::with_capacity(k);
        for _ in 0..k {
            let ply = word(take(2)?);
            let q = if version >= 2 {
                let q = f32::from_le_bytes(take(4)?.try_into().map_err(|_| "a short value")?);
                (!q.is_nan()).then_some(q)
            } else {
                None
            };
            let j = usize::from(word(take(2)?));
            let mut policy = Vec::with_capacity(j);
            for _ in 0..j {
                let a = word(take(2)?);
                let p = f32::from_le_bytes(take(4)?.try_into().map_err(|_| "a short weight")?);
                policy.push((a, p));
            }
            targets.push(Target { ply, q, policy });
        }
        out.push(AzGame::rebuild(moves, targets)?);
    }
    if at != bytes.len() {
        return Err("bytes after the last game".into());
    }
    Ok(out)
}

impl<G: Game> Trainer<G> for AlphaZeroTrainer<G> {
    fn algo(&self) -> &'static str {
        "alphazero"
    }

    fn log_header(&self) -> &'static str {
        crate::algos::ALPHAZERO.log
    }

    fn episode(&self) -> usize {
        self.iteration
    }

    fn epsilon(&self) -> f64 {
        0.0
    }

    fn set_step_progress(&mut self, progress: Option<StepProgress>) {
        self.progress = progress;
    }

    fn round(
        &mut self,
        _limit: usize,
        _opponent: &AgentFactory<'_, G>,
    ) -> Result<Vec<EpisodeRow>, RunError> {
        let games = self.self_play()?;
        let mut results = [0usize; 3];
        let mut plies = 0usize;
        let mut sims = 0u64;
        let mut moves = 0usize;
        let mut new_samples = 0usize;
        for g in &games {
            plies += g.moves.len();
            sims += g.sims;
            moves += g.samples.len();
            results[match g.outcome.map(|o| o.score_for(Color::Black).signum()) {
                Some(1) => 0,
                Some(-1) => 2,
                _ => 1,
            }] += 1;
            let stored = AzGame::from_self_play(g)
                .map_err(|e| RunError::Settings(format!("a self-play game: {e}")))?;
            new_samples += stored.samples.len();
            self.add(stored);
        }
        let (steps, [loss, policy, value, margin]) = self.train(new_samples);
        let gate = self.gate()?;
        self.iteration += 1;
        let [b, d, w] = results;
        Ok(vec![EpisodeRow {
            values: vec![
                Cell::count(self.iteration),
                Cell::count(b),
                Cell::count(d),
                Cell::count(w),
                Cell::real(plies as f64 / games.len().max(1) as f64, 2),
                Cell::real(sims as f64 / moves.max(1) as f64, 2),
                Cell::count(new_samples),
                Cell::count(self.window_len),
                Cell::count(steps),
                Cell::real(loss, 6),
                Cell::real(policy, 6),
                Cell::real(value, 6),
                Cell::real(margin, 6),
                Cell::maybe(gate.map(|g| g.0), 4),
                Cell::count(self.promotions),
            ],
            won: gate.is_some_and(|g| g.1),
            loss: Some(loss),
        }])
    }

    fn evaluate(
        &mut self,
        opponent: &AgentFactory<'_, G>,
        settings: &VersusSettings,
    ) -> Result<Vec<(String, ColourWdl)>, RunError> {
        let net: Arc<dyn PolicyValue<G>> = Arc::new(PvEvaluator::<G>::new(&self.player_net()));
        let mut players = PuctPlayers::new(
            vec![(net, self.config.eval_search())],
            settings.seed ^ 0x6576_616c,
        );
        let starts = eval_starts::<G>(settings.games.div_ceil(2), settings.seed);
        let r = arena::versus_from(
            &mut |_| search::driver::Seat::Batched(0),
            &mut players,
            opponent,
            settings,
            &starts,
        )
        .map_err(|e| RunError::Settings(format!("evaluation: {e}")))?;
        Ok(vec![(format!("az:sims={}", self.config.eval_sims), r)])
    }

    fn save_state(&self, dir: &Path) -> Result<(), RunError> {
        save_training(
            dir,
            &self.net,
            &self.optim,
            &serde_json::json!({
                "episode": self.iteration,
                "steps": self.steps,
                "promotions": self.promotions,
            }),
        )?;
        if let Some(best) = &self.best {
            crate::checkpoint::write_atomic(
                &dir.join(BEST_FILE),
                &crate::checkpoint::state_bytes(best)?,
            )?;
        }
        crate::checkpoint::write_atomic(&dir.join(WINDOW_FILE), &window_bytes(&self.window)?)?;
        Ok(())
    }

    fn load_state(&mut self, dir: &Path, episode: usize) -> Result<(), RunError> {
        let config = self.config.clone();
        let counters = load_training(dir, &mut self.net, &mut self.optim, move || adamw(&config))?;
        self.steps = counter(dir, &counters, "steps")?;
        self.promotions = counter(dir, &counters, "promotions")?;
        let at = counter(dir, &counters, "episode")?;
        if at as usize != episode {
            return Err(RunError::Model(ModelError::State {
                path: dir.join("learner.json"),
                why: format!("holds iteration {at}, not {episode}"),
            }));
        }
        if let Some(best) = self.best.clone() {
            let mut best = best.no_grad();
            crate::value::policy_iteration::load_net_state(&mut best, &dir.join(BEST_FILE))?;
            self.best = Some(best);
        }
        let path = dir.join(WINDOW_FILE);
        let bytes = std::fs::read(&path).map_err(|source| {
            RunError::Model(ModelError::Io {
                path: path.clone(),
                source,
            })
        })?;
        let games = window_from::<G>(&bytes).map_err(|why| {
            RunError::Model(ModelError::State {
                path: path.clone(),
                why,
            })
        })?;
        self.window.clear();
        self.window_len = 0;
        for g in games {
            self.window_len += g.samples.len();
            self.window.push_back(g);
        }
        self.iteration = episode;
        Ok(())
    }

    fn models(&self, _game: &str, last_eval: &serde_json::Value) -> Result<Vec<Export>, RunError> {
        Ok(vec![Export {
            file: "last.safetensors".into(),
            weights: weights_bytes(&self.player_net())?,
            card: self.card(last_eval),
        }])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello::Othello4;
    use search::UniformPolicy;

    /// A few 4x4 self-play games as window games.
    fn window() -> VecDeque<AzGame<Othello4>> {
        let config = AlphaZeroConfig::for_game("othello4", 3);
        let games = self_play(
            &Othello4::start(),
            0..3,
            3,
            &UniformPolicy,
            &config.self_play(),
            None,
            &mut |_| {},
        )
        .expect("self-play");
        games
            .iter()
            .map(|g| AzGame::from_self_play(g).expect("a game"))
            .collect()
    }

    #[test]
    fn the_window_file_keeps_every_target_and_root_value() {
        let w = window();
        assert!(w.iter().any(|g| !g.samples.is_empty()));
        assert!(w.iter().flat_map(|g| &g.samples).all(|s| s.q.is_some()));
        let bytes = window_bytes(&w).expect("bytes");
        let back = window_from::<Othello4>(&bytes).expect("read back");
        assert_eq!(back, Vec::from(w));
    }

    #[test]
    fn a_version_1_window_reads_with_no_root_values() {
        let w = window();
        // Version 1: the same layout without the f32 root value after each ply.
        let mut v1 = WINDOW_MAGIC_V1.to_vec();
        v1.extend_from_slice(&u32::try_from(w.len()).expect("count").to_le_bytes());
        let u16b = |v: usize| u16::try_from(v).expect("u16").to_le_bytes();
        for game in &w {
            v1.extend_from_slice(&u16b(game.moves.len()));
            for &mv in &game.moves {
                v1.extend_from_slice(&u16b(Othello4::action_index(mv)));
            }
            v1.extend_from_slice(&u16b(game.targets.len()));
            for t in &game.targets {
                v1.extend_from_slice(&t.ply.to_le_bytes());
                v1.extend_from_slice(&u16b(t.policy.len()));
                for &(a, p) in &t.policy {
                    v1.extend_from_slice(&a.to_le_bytes());
                    v1.extend_from_slice(&p.to_le_bytes());
                }
            }
        }
        let back = window_from::<Othello4>(&v1).expect("a version 1 window");
        assert_eq!(back.len(), w.len());
        for (a, b) in back.iter().zip(&w) {
            assert_eq!(a.moves, b.moves);
            assert_eq!(a.samples.len(), b.samples.len());
            for (s, t) in a.samples.iter().zip(&b.samples) {
                assert_eq!((s.q, &s.pos, s.z), (None, &t.pos, t.z));
            }
        }
    }

    #[test]
    fn the_value_target_mixes_result_and_root_value_by_the_weight() {
        assert_eq!(value_target(1.0, Some(-0.5), 0.0), 1.0);
        assert_eq!(value_target(1.0, Some(-0.5), 0.5), 0.25);
        assert_eq!(value_target(-1.0, Some(0.5), 1.0), 0.5);
        assert_eq!(value_target(0.0, None, 0.7), 0.0);
    }

    #[test]
    fn the_learning_rate_drops_at_its_iterations() {
        let mut c = AlphaZeroConfig::for_game("othello6", 1);
        c.lr_drops = vec![(3, 1e-3), (5, 1e-4)];
        let rates: Vec<f64> = (1..=6).map(|i| c.learning_rate_at(i)).collect();
        assert_eq!(rates, [2e-3, 2e-3, 1e-3, 1e-3, 1e-4, 1e-4]);
        assert!(c.validate().is_ok());
        c.lr_drops = vec![(5, 1e-3), (3, 1e-4)];
        assert!(c.validate().expect_err("descending").contains("ascending"));
        c.lr_drops = vec![(3, 0.0)];
        assert!(c.validate().is_err());
    }

    #[test]
    fn a_root_value_out_of_range_is_refused() {
        let mut w = window();
        let game = w
            .iter_mut()
            .find(|g| !g.targets.is_empty())
            .expect("a target");
        game.targets[0].q = Some(1.5);
        let bytes = window_bytes(&w).expect("bytes");
        let err = window_from::<Othello4>(&bytes).expect_err("refused");
        assert!(err.contains("root value"), "{err}");
    }
}
