//! The registry of `stonelab train`'s algorithms: one [`Algorithm`] per trainer with its name,
//! the games it trains, what runs it, the options it reads, its log columns and its charts.
//! The binary builds the command's algorithm list, its option checks and its plots from it, so
//! an algorithm's facts live in one place.

/// The trainer the run framework runs for an algorithm ([`crate::build::build_trainer`]
/// builds it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Build {
    /// [`crate::qmlp::QMlpTrainer`].
    QMlp,
    /// [`crate::dqn::DqnTrainer`].
    Dqn,
    /// [`crate::dqn::SelfPlayTrainer`].
    DqnSelfPlay,
    /// [`crate::competitive::CompetitiveTrainer`].
    DqnCompetitive,
    /// [`crate::value::supervised::SupervisedTrainer`] (8x8 Othello).
    Supervised,
    /// [`crate::value::policy_iteration::ValueSelfPlayTrainer`] (8x8 Othello).
    ValueSelfPlay,
    /// [`crate::value::iteration::ValueIterationTrainer`] (8x8 Othello).
    ValueIteration,
    /// [`crate::alphazero::AlphaZeroTrainer`].
    AlphaZero,
}

/// What runs an algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runner {
    /// The run framework ([`crate::run::train`]: rounds, `log.csv`, `eval.csv`, checkpoints)
    /// with this trainer.
    Run(Build),
    /// The tabular Q-learner ([`crate::qtable_run`]).
    QTable,
    /// The Othello pattern pipeline (`othello_engine::train::pipeline::train_patterns`).
    Patterns,
    /// The Multi-ProbCut fit (`othello_engine::train::pipeline::fit_probcut_run`).
    ProbCut,
}

/// The settings an algorithm takes: which section of `config.json` it writes (the run
/// framework's algorithms) and how a command line builds them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Settings {
    /// [`crate::qtable_run`]'s (no `config.json` section).
    QTable,
    /// `q_mlp`: [`crate::run::QMlpSettings`].
    QMlp,
    /// `dqn`: [`crate::dqn::DqnConfig`].
    Dqn,
    /// `value`: [`crate::value::SupervisedConfig`], with this network unless one is asked for.
    Supervised {
        /// The default network (`--net`).
        net: &'static str,
    },
    /// `value_self_play`: [`crate::value::ValueSelfPlayConfig`].
    ValueSelfPlay,
    /// `value_iteration`: [`crate::value::ValueIterationConfig`].
    ValueIteration,
    /// `alphazero`: [`crate::alphazero::AlphaZeroConfig`].
    AlphaZero,
    /// The pattern pipeline's own `config.json`.
    Patterns,
    /// None: a ProbCut fit takes its settings from the command line.
    ProbCut,
}

/// The games an algorithm trains.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Games {
    /// Every game of the catalog (8x8 Othello unless asked).
    Any,
    /// Only this one (a game id).
    Only(&'static str),
}

/// The file a chart reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// `log.csv`: one row per episode (or epoch).
    Log,
    /// `eval.csv`: one row per evaluation, learner and opponent; one line per (learner,
    /// opponent) pair.
    Eval,
}

/// One line of a chart: a column and its legend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line {
    /// The column of the source's header.
    pub column: &'static str,
    /// Its legend (for [`Source::Eval`], the pair names the line instead).
    pub label: &'static str,
}

/// A chart of a run, drawn by the application from the run's CSV files by column name (a
/// column the header does not have is an error, not an empty chart).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Chart {
    /// The file in `plots/`.
    pub file: &'static str,
    /// Its title.
    pub title: &'static str,
    /// The horizontal axis's column.
    pub x: &'static str,
    /// The horizontal axis's label.
    pub x_label: &'static str,
    /// The vertical axis's label.
    pub y_label: &'static str,
    /// The file it reads.
    pub source: Source,
    /// Its lines.
    pub lines: &'static [Line],
    /// Each point is the mean over this many rows (at the last row's `x`; 1: every row).
    pub window: usize,
    /// The vertical range, when fixed.
    pub range: Option<(f64, f64)>,
}

/// A line of a chart as read from a run's files: its legend and its points.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// The legend.
    pub name: String,
    /// (x, y) points.
    pub points: Vec<(f64, f64)>,
}

impl Chart {
    /// Its lines, read from the run in `root` (its [`Source`] file) by column name: for
    /// [`Source::Log`] the mean of each window of rows, for [`Source::Eval`] one line per
    /// (learner, opponent) pair. A file not written yet reads as empty.
    ///
    /// # Errors
    /// A column the file's header does not have, named with the chart.
    pub fn series(&self, root: &std::path::Path) -> Result<Vec<Series>, String> {
        let name = match self.source {
            Source::Log => crate::run::LOG,
            Source::Eval => crate::run::EVAL,
        };
        let text = files::read_capped(&root.join(name), u64::MAX)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .unwrap_or_default();
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
        let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
        let column = |c: &str| {
            header
                .iter()
                .position(|h| *h == c)
                .ok_or_else(|| format!("{name}: no column {c:?} for plots/{}", self.file))
        };
        let num = |row: &[&str], i: usize| row.get(i).and_then(|v| v.parse::<f64>().ok());
        let x = column(self.x)?;
        let mut series: Vec<Series> = Vec::new();
        for line in self.lines {
            let y = column(line.column)?;
            match self.source {
                Source::Log => {
                    let mut points = Vec::new();
                    for chunk in rows.chunks(self.window.max(1)) {
                        let values: Vec<f64> = chunk.iter().filter_map(|r| num(r, y)).collect();
                        if let (Some(at), false) =
                            (chunk.last().and_then(|r| num(r, x)), values.is_empty())
                        {
                            points.push((at, values.iter().sum::<f64>() / values.len() as f64));
                        }
                    }
                    series.push(Series {
                        name: line.label.into(),
                        points,
                    });
                }
                Source::Eval => {
                    let (learner, opponent) = (column("learner")?, column("opponent")?);
                    for row in &rows {
                        let (Some(at), Some(value)) = (num(row, x), num(row, y)) else {
                            continue;
                        };
                        let field = |i: usize| row.get(i).copied().unwrap_or("");
                        let name = format!("{} vs {}", field(learner), field(opponent));
                        match series.iter_mut().find(|s| s.name == name) {
                            Some(s) => s.points.push((at, value)),
                            None => series.push(Series {
                                name,
                                points: vec![(at, value)],
                            }),
                        }
                    }
                }
            }
        }
        Ok(series)
    }
}

/// How often something happens in a run by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Every {
    /// Every this many episodes.
    Episodes(usize),
    /// This many times in the run: every `episodes / n` episodes (at least 1).
    Times(usize),
}

impl Every {
    /// The period for a run of `episodes`.
    #[must_use]
    pub fn period(self, episodes: usize) -> usize {
        match self {
            Every::Episodes(n) => n.max(1),
            Every::Times(n) => (episodes / n.max(1)).max(1),
        }
    }
}

/// An algorithm's default length and schedule (the command line's when it gives none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Defaults {
    /// Training episodes (epochs for the supervised networks; 0: not a length it takes).
    pub episodes: usize,
    /// Evaluations.
    pub eval_every: Every,
    /// Checkpoints.
    pub checkpoint_every: Every,
}

/// The schedule of the game-playing trainers: 20 evaluations and 10 checkpoints a run.
const PLAYING: Defaults = Defaults {
    episodes: 4_000,
    eval_every: Every::Times(20),
    checkpoint_every: Every::Times(10),
};

/// The supervised networks' schedule: 5 evaluations a run, a checkpoint every epoch.
const EPOCHS: Defaults = Defaults {
    episodes: 10,
    eval_every: Every::Times(5),
    checkpoint_every: Every::Episodes(1),
};

/// One training algorithm.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Algorithm {
    /// Its name: `stonelab train NAME`, and `algo` in `config.json`.
    pub name: &'static str,
    /// What it trains, in a line or two (the command's help).
    pub summary: &'static str,
    /// What runs it.
    pub runner: Runner,
    /// The settings it takes.
    pub settings: Settings,
    /// The games it trains.
    pub games: Games,
    /// The options of `stonelab train` it reads (their ids, in groups); any other given
    /// option is refused, naming the algorithms that read it.
    pub reads: &'static [&'static [&'static str]],
    /// The header of its `log.csv` (without the framework's final `seconds`; empty for a
    /// runner that writes its own logs): the trainer writes this header.
    pub log: &'static str,
    /// The charts drawn from its logs (a runner with its own logs draws its own).
    pub charts: &'static [Chart],
    /// Its default length and schedule.
    pub defaults: Defaults,
    /// What a logged episode's `won` counts, for a progress display: `wins` (the learner's)
    /// or `black wins` (a trainer that plays both colours).
    pub won: &'static str,
    /// The models a run exports to `checkpoints/`, each with the colour it plays (empty for
    /// the one model of a run).
    pub models: &'static [(&'static str, &'static str)],
    /// Every checkpoint is kept, not only the newest two (self-play: each holds the network
    /// of its episode, and the paper's Table 2 plays them).
    pub keeps_checkpoints: bool,
}

impl Algorithm {
    /// Whether the run framework runs it.
    #[must_use]
    pub fn is_run(&self) -> bool {
        matches!(self.runner, Runner::Run(_))
    }

    /// The columns of its `log.csv`.
    #[must_use]
    pub fn columns(&self) -> Vec<&'static str> {
        if self.log.is_empty() {
            return Vec::new();
        }
        self.log.split(',').collect()
    }

    /// Whether it reads the option `id`.
    #[must_use]
    pub fn reads(&self, id: &str) -> bool {
        self.reads.iter().any(|group| group.contains(&id))
    }

    /// The game it trains when none is asked for.
    #[must_use]
    pub fn default_game(&self) -> &'static str {
        match self.games {
            Games::Any => "othello8",
            Games::Only(game) => game,
        }
    }
}

/// Options every algorithm reads.
const COMMON_OPTIONS: &[&str] = &["algo", "out", "seed", "force", "quiet", "threads"];
/// The game, a resumed run and the length.
const LENGTH_OPTIONS: &[&str] = &["game", "resume", "episodes"];
/// The run framework's schedule and presets.
const RUN_OPTIONS: &[&str] = &[
    "preset",
    "defect",
    "eval_every",
    "eval_games",
    "checkpoint_every",
    "eval_opponents",
    "lr",
];
/// The DQN trainers' settings.
const DQN_OPTIONS: &[&str] = &[
    "arch",
    "blocks",
    "channels",
    "behaviour",
    "rewards",
    "replay",
    "warmup",
    "train_every",
    "parallel",
    "target_sync",
    "epsilon_start",
    "epsilon_end",
    "epsilon_decay",
    "uct_c",
    "no_augment",
    "encoding",
    "end_reward",
    "steps_per_episode",
    "batch_size",
    "gamma",
    "transitions",
    "q_loss",
    "uct_visits",
];
/// The Q-learning MLP's settings.
const Q_MLP_OPTIONS: &[&str] = &[
    "gamma",
    "always_black",
    "opponent_mix",
    "normal_init",
    "sgd_per_epoch",
    "sgd_per_transition",
];
/// The supervised value networks' settings.
const SUPERVISED_OPTIONS: &[&str] = &[
    "data",
    "net",
    "mobility",
    "symmetries",
    "split",
    "max_train",
    "max_test",
    "batch_size",
    "depth",
];
/// The pattern pipeline's settings.
const PATTERNS_OPTIONS: &[&str] = &[
    "game",
    "resume",
    "wthor",
    "depth",
    "max_games",
    "exact_empties",
    "exact_fraction",
    "exact_rest",
    "search_depth",
    "search_probcut",
    "self_play_exact",
    "theoretical_exact",
    "self_play_search",
    "edge_mobility",
    "correction",
    "correction_epochs",
    "correction_frontier",
    "correction_as_played",
    "stage_width",
    "lambda",
    "iterations",
    "blend",
    "self_play_games",
    "deviations",
];

/// The greedy players' win rates at each evaluation.
const WIN_RATE: Chart = Chart {
    file: "winrate.png",
    title: "greedy win rate in evaluation games (colours swapped)",
    x: "episode",
    x_label: "episode",
    y_label: "win rate",
    source: Source::Eval,
    lines: &[Line {
        column: "win_rate",
        label: "",
    }],
    window: 1,
    range: Some((0.0, 1.0)),
};

/// The temporal-difference loss of a Q-learner, over 50-episode windows.
const TD_LOSS: Chart = Chart {
    file: "loss.png",
    title: "training loss (mean squared TD error, 50-episode means)",
    x: "episode",
    x_label: "episode",
    y_label: "loss",
    source: Source::Log,
    lines: &[Line {
        column: "loss",
        label: "loss",
    }],
    window: 50,
    range: None,
};

/// The columns of the one-learner DQN trainers' logs.
const DQN_LOG: &str = "episode,color,result,reward,epsilon,loss,replay,grad_steps";

/// `stonelab train q-table`.
pub const Q_TABLE: Algorithm = Algorithm {
    name: "q-table",
    summary: "Tabular Q-learning by ε-greedy self-play (othello4), measured against the \
              exact value-iteration solution.",
    settings: Settings::QTable,
    runner: Runner::QTable,
    games: Games::Only("othello4"),
    reads: &[COMMON_OPTIONS, LENGTH_OPTIONS, &["evals"]],
    log: "",
    charts: &[],
    defaults: Defaults {
        episodes: 2_000_000,
        ..PLAYING
    },
    keeps_checkpoints: false,
    won: "wins",
    models: &[],
};

/// `stonelab train q-mlp`.
pub const Q_MLP: Algorithm = Algorithm {
    name: "q-mlp",
    summary: "The reference Q-learning MLP (64-128-128-64-64 tanh), epochs of 10 games \
              against random.",
    settings: Settings::QMlp,
    runner: Runner::Run(Build::QMlp),
    games: Games::Any,
    reads: &[COMMON_OPTIONS, LENGTH_OPTIONS, RUN_OPTIONS, Q_MLP_OPTIONS],
    log: "episode,epoch,color,result,epsilon,loss,epoch_wins",
    charts: &[TD_LOSS, WIN_RATE],
    defaults: Defaults {
        episodes: 3_000,
        ..PLAYING
    },
    keeps_checkpoints: false,
    won: "wins",
    models: &[("last.safetensors", "")],
};

/// `stonelab train dqn`.
pub const DQN: Algorithm = Algorithm {
    name: "dqn",
    summary: "DQN with a residual Q-network, trained against an opponent (random by \
              default).",
    settings: Settings::Dqn,
    runner: Runner::Run(Build::Dqn),
    games: Games::Any,
    reads: &[
        COMMON_OPTIONS,
        LENGTH_OPTIONS,
        RUN_OPTIONS,
        DQN_OPTIONS,
        &["opponent"],
    ],
    log: DQN_LOG,
    charts: &[TD_LOSS, WIN_RATE],
    defaults: PLAYING,
    keeps_checkpoints: false,
    won: "wins",
    models: &[("last.safetensors", "")],
};

/// `stonelab train dqn-self-play`.
pub const DQN_SELF_PLAY: Algorithm = Algorithm {
    name: "dqn-self-play",
    summary: "One DQN playing both colours, learning from every move (the seed000 regimes \
              1–2).",
    reads: &[COMMON_OPTIONS, LENGTH_OPTIONS, RUN_OPTIONS, DQN_OPTIONS],
    runner: Runner::Run(Build::DqnSelfPlay),
    log: "episode,winner,black_reward,white_reward,epsilon,loss,replay,grad_steps",
    won: "black wins",
    ..DQN
};

/// `stonelab train dqn-competitive`.
pub const DQN_COMPETITIVE: Algorithm = Algorithm {
    name: "dqn-competitive",
    summary: "A black DQN and a white DQN trained against each other.",
    settings: Settings::Dqn,
    runner: Runner::Run(Build::DqnCompetitive),
    games: Games::Any,
    reads: &[
        COMMON_OPTIONS,
        LENGTH_OPTIONS,
        RUN_OPTIONS,
        DQN_OPTIONS,
        &["learn_from"],
    ],
    log: "episode,winner,black_reward,white_reward,epsilon,black_loss,white_loss",
    charts: &[
        Chart {
            lines: &[
                Line {
                    column: "black_loss",
                    label: "black DQN",
                },
                Line {
                    column: "white_loss",
                    label: "white DQN",
                },
            ],
            ..TD_LOSS
        },
        WIN_RATE,
    ],
    defaults: PLAYING,
    keeps_checkpoints: false,
    won: "black wins",
    models: &[
        ("black-last.safetensors", "black"),
        ("white-last.safetensors", "white"),
    ],
};

/// `stonelab train cnn-supervised`.
pub const CNN_SUPERVISED: Algorithm = Algorithm {
    name: "cnn-supervised",
    summary: "The Othello paper's CNN value network on the WTHOR value dataset (--data): \
              the frequency-weighted squared error, Adam, one episode per epoch.",
    settings: Settings::Supervised {
        net: "cnn:16.16,k3,64",
    },
    runner: Runner::Run(Build::Supervised),
    games: Games::Only("othello8"),
    reads: &[
        COMMON_OPTIONS,
        LENGTH_OPTIONS,
        RUN_OPTIONS,
        SUPERVISED_OPTIONS,
    ],
    log: SUPERVISED_LOG,
    charts: &[EPOCH_LOSS, WIN_RATE],
    defaults: EPOCHS,
    keeps_checkpoints: false,
    won: "wins",
    models: &[("last.safetensors", "")],
};

/// `stonelab train mlp-supervised`.
pub const MLP_SUPERVISED: Algorithm = Algorithm {
    name: "mlp-supervised",
    summary: "The paper's MLP baseline (stones only) on the same labels.",
    settings: Settings::Supervised { net: "mlp:256.128" },
    defaults: Defaults {
        episodes: 20,
        ..EPOCHS
    },
    ..CNN_SUPERVISED
};

/// `stonelab train cnn-selfplay`.
pub const CNN_SELFPLAY: Algorithm = Algorithm {
    name: "cnn-selfplay",
    summary: "Self-play policy iteration from a supervised CNN (--from RUN or model file).",
    settings: Settings::ValueSelfPlay,
    runner: Runner::Run(Build::ValueSelfPlay),
    games: Games::Only("othello8"),
    reads: &[
        COMMON_OPTIONS,
        LENGTH_OPTIONS,
        RUN_OPTIONS,
        &["data", "from", "depth", "epochs_per_game", "reading"],
    ],
    log: "episode,start,learner,result,plies,positions,loss_before,loss,steps,promotions",
    charts: &[
        Chart {
            title: "training loss (squared error on each game, 10-episode means)",
            window: 10,
            ..TD_LOSS
        },
        WIN_RATE,
    ],
    defaults: Defaults {
        episodes: 200,
        eval_every: Every::Episodes(10),
        checkpoint_every: Every::Episodes(10),
    },
    keeps_checkpoints: true,
    won: "wins",
    models: &[("last.safetensors", "")],
};

/// `stonelab train cnn-iteration`.
pub const CNN_ITERATION: Algorithm = Algorithm {
    name: "cnn-iteration",
    summary: "A stronger-than-paper self-play from a supervised CNN (--from): hundreds of \
              games an iteration from XOT openings, a replay buffer, minibatch Adam, \
              result and search-value targets, a gate.",
    settings: Settings::ValueIteration,
    runner: Runner::Run(Build::ValueIteration),
    games: Games::Only("othello8"),
    reads: &[
        COMMON_OPTIONS,
        LENGTH_OPTIONS,
        RUN_OPTIONS,
        &["data", "from", "depth"],
    ],
    log: "episode,black_wins,draws,white_wins,positions,buffer,loss,steps,gate_score,\
          promoted,promotions",
    charts: &[
        Chart {
            title: "training loss (mean minibatch squared error per iteration)",
            x_label: "iteration",
            window: 1,
            ..TD_LOSS
        },
        Chart {
            x_label: "iteration",
            title: "the best network's win rate in evaluation games (colours swapped)",
            ..WIN_RATE
        },
    ],
    defaults: Defaults {
        episodes: 20,
        eval_every: Every::Episodes(5),
        checkpoint_every: Every::Episodes(1),
    },
    keeps_checkpoints: true,
    won: "gates passed",
    models: &[("last.safetensors", "")],
};

/// The AlphaZero trainer's settings.
const ALPHAZERO_OPTIONS: &[&str] = &[
    "blocks",
    "channels",
    "batch_size",
    "sims",
    "gumbel",
    "iteration_games",
    "concurrent",
    "full_share",
    "fast_sims",
    "window",
    "solver_empties",
    "no_margin_head",
    "gate_games",
    "eval_sims",
    "sample_reuse",
    "temperature_plies",
    "random_opening",
    "q_weight",
    "lr_drop",
];

/// `stonelab train alphazero`.
pub const ALPHAZERO: Algorithm = Algorithm {
    name: "alphazero",
    summary: "AlphaZero for every game: batched self-play with a Gumbel (or PUCT) root over a \
              policy-value ResNet, playout caps, a replay window, AdamW on policy, value and \
              margin; one episode is one iteration of --iteration-games games.",
    settings: Settings::AlphaZero,
    runner: Runner::Run(Build::AlphaZero),
    games: Games::Any,
    reads: &[
        COMMON_OPTIONS,
        LENGTH_OPTIONS,
        RUN_OPTIONS,
        ALPHAZERO_OPTIONS,
    ],
    log: "episode,black_wins,draws,white_wins,plies,sims_per_move,samples,window,steps,loss,\
          policy_loss,value_loss,margin_loss,gate_score,promotions",
    charts: &[
        Chart {
            file: "loss.png",
            title: "training loss per head (mean over each iteration's steps)",
            x: "episode",
            x_label: "iteration",
            y_label: "loss",
            source: Source::Log,
            lines: &[
                Line {
                    column: "policy_loss",
                    label: "policy (cross-entropy)",
                },
                Line {
                    column: "value_loss",
                    label: "value (squared error)",
                },
                Line {
                    column: "margin_loss",
                    label: "margin (squared error)",
                },
            ],
            window: 1,
            range: None,
        },
        Chart {
            x_label: "iteration",
            title: "score against the evaluation opponents (colours swapped)",
            ..WIN_RATE
        },
    ],
    defaults: Defaults {
        episodes: 30,
        eval_every: Every::Times(10),
        checkpoint_every: Every::Episodes(1),
    },
    keeps_checkpoints: false,
    won: "gates passed",
    models: &[("last.safetensors", "")],
};

/// `stonelab train patterns`.
pub const PATTERNS: Algorithm = Algorithm {
    name: "patterns",
    summary: "The Othello pattern evaluation (the `othello` agent's) by least squares per \
              stage on the WTHOR records (--wthor), exact solves near the end.",
    settings: Settings::Patterns,
    runner: Runner::Patterns,
    games: Games::Only("othello8"),
    reads: &[COMMON_OPTIONS, PATTERNS_OPTIONS],
    log: "",
    charts: &[],
    defaults: Defaults {
        episodes: 0,
        ..PLAYING
    },
    keeps_checkpoints: false,
    won: "wins",
    models: &[],
};

/// `stonelab train probcut`.
pub const PROBCUT: Algorithm = Algorithm {
    name: "probcut",
    summary: "The `othello` engine's Multi-ProbCut regressions: full-width searches to \
              --depth (default 10) on --positions record positions (default 1000).",
    settings: Settings::ProbCut,
    runner: Runner::ProbCut,
    games: Games::Only("othello8"),
    reads: &[COMMON_OPTIONS, &["wthor", "from", "depth", "positions"]],
    log: "",
    charts: &[],
    defaults: Defaults {
        episodes: 0,
        ..PLAYING
    },
    keeps_checkpoints: false,
    won: "wins",
    models: &[],
};

/// Every algorithm of `stonelab train`, in the order of its help.
pub const ALGORITHMS: &[Algorithm] = &[
    Q_TABLE,
    Q_MLP,
    DQN,
    DQN_SELF_PLAY,
    DQN_COMPETITIVE,
    CNN_SUPERVISED,
    MLP_SUPERVISED,
    CNN_SELFPLAY,
    CNN_ITERATION,
    ALPHAZERO,
    PATTERNS,
    PROBCUT,
];

/// The columns of the supervised value networks' logs (one row per epoch).
const SUPERVISED_LOG: &str = "epoch,train_loss,test_loss,test_mse,steps";

/// The supervised networks' loss per epoch.
const EPOCH_LOSS: Chart = Chart {
    file: "loss.png",
    title: "frequency-weighted squared error per epoch",
    x: "epoch",
    x_label: "epoch",
    y_label: "loss",
    source: Source::Log,
    lines: &[
        Line {
            column: "train_loss",
            label: "train",
        },
        Line {
            column: "test_loss",
            label: "test",
        },
    ],
    window: 1,
    range: None,
};

/// The algorithm named `name`.
#[must_use]
pub fn find(name: &str) -> Option<&'static Algorithm> {
    ALGORITHMS.iter().find(|a| a.name == name)
}

/// The names of the algorithms, in order.
#[must_use]
pub fn names() -> Vec<&'static str> {
    ALGORITHMS.iter().map(|a| a.name).collect()
}

/// The names of the algorithms that read option `id`.
#[must_use]
pub fn readers(id: &str) -> Vec<&'static str> {
    ALGORITHMS
        .iter()
        .filter(|a| a.reads(id))
        .map(|a| a.name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_charts_read_logged_columns() {
        for (i, a) in ALGORITHMS.iter().enumerate() {
            assert!(
                ALGORITHMS[..i].iter().all(|b| b.name != a.name),
                "{}",
                a.name
            );
            assert!(a.reads("algo") && a.reads("out"), "{}", a.name);
            for chart in a.charts {
                if chart.source == Source::Log {
                    let columns = a.columns();
                    assert!(columns.contains(&chart.x), "{}: {}", a.name, chart.x);
                    for line in chart.lines {
                        assert!(
                            columns.contains(&line.column),
                            "{}: {}",
                            a.name,
                            line.column
                        );
                    }
                }
                assert!(chart.window >= 1);
            }
            assert_eq!(a.is_run(), !a.log.is_empty(), "{}", a.name);
        }
        assert_eq!(find("dqn").map(|a| a.runner), Some(Runner::Run(Build::Dqn)));
        assert_eq!(readers("learn_from"), ["dqn-competitive"]);
        assert!(find("nope").is_none());
    }

    /// Each framework algorithm's trainer takes the settings its entry names, and the games
    /// of its entry.
    #[test]
    fn builds_fit_settings_and_games() {
        for a in ALGORITHMS {
            let Runner::Run(build) = a.runner else {
                continue;
            };
            let (settings, othello8) = match build {
                Build::QMlp => (matches!(a.settings, Settings::QMlp), false),
                Build::Dqn | Build::DqnSelfPlay | Build::DqnCompetitive => {
                    (a.settings == Settings::Dqn, false)
                }
                Build::Supervised => (matches!(a.settings, Settings::Supervised { .. }), true),
                Build::ValueSelfPlay => (a.settings == Settings::ValueSelfPlay, true),
                Build::ValueIteration => (a.settings == Settings::ValueIteration, true),
                Build::AlphaZero => (a.settings == Settings::AlphaZero, false),
            };
            assert!(settings, "{}", a.name);
            assert_eq!(a.games == Games::Only("othello8"), othello8, "{}", a.name);
        }
    }
}
