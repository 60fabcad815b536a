//! The value networks of the Othello paper (J. IKEEE 23(4), 2019): a CNN over the 13 paper
//! planes and the MLP baseline over the stone layout, each one sigmoid output — the win
//! probability of the side to move.

use burn::module::Module;
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{Linear, LinearConfig, PaddingConfig2d};
use burn::tensor::activation::{relu, sigmoid};
use burn::tensor::{Device, Tensor, TensorData};
use game::Game;
use serde::{Deserialize, Serialize};

use crate::checkpoint::{card_path, Card, ModelError};
use crate::encode::{Encoder, Mobility, PaperPlanes, StoneOnly};

/// The card `algo` of a CNN value model (the agent that plays it).
pub const CNN_ALGO: &str = "cnn-minimax";
/// The card `algo` of an MLP value model (the agent that plays it).
pub const MLP_ALGO: &str = "mlp-minimax";

/// The most parameters a value network may have (about 64 MB of weights).
pub const MAX_PARAMETERS: u64 = 16_000_000;

/// What the network sees of a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ValueInput {
    /// The paper's 13 planes ([`PaperPlanes`]), mobility read as `mobility` says.
    PaperPlanes {
        /// The reading of the mobility planes.
        mobility: Mobility,
        /// Whether the side-to-move plane is shown (a card without the field shows it).
        #[serde(default, skip_serializing_if = "TurnPlane::is_kept")]
        turn: TurnPlane,
    },
    /// The MLP baseline's stone layout ([`StoneOnly`]: own, opponent, empty).
    StoneOnly,
}

impl ValueInput {
    /// Input planes.
    #[must_use]
    pub fn planes(self) -> usize {
        match self {
            ValueInput::PaperPlanes { .. } => PaperPlanes::PLANES,
            ValueInput::StoneOnly => StoneOnly::PLANES,
        }
    }

    /// Appends the planes of `pos` to `out`.
    pub fn encode<G: Game>(self, pos: &G, out: &mut Vec<f32>) {
        match self {
            ValueInput::PaperPlanes { mobility, turn } => {
                let base = out.len();
                PaperPlanes::new(mobility).encode(pos, out);
                if turn == TurnPlane::Zeroed {
                    let points = G::BOARD_SIZE * G::BOARD_SIZE;
                    let plane = base + PaperPlanes::TURN_PLANE * points;
                    out[plane..plane + points].fill(0.0);
                }
            }
            ValueInput::StoneOnly => Encoder::<G>::encode(&StoneOnly, pos, out),
        }
    }

    /// The same input with the side-to-move plane shown or zeroed as `turn` says (the MLP's
    /// stone layout has no such plane and is returned as it is).
    #[must_use]
    pub fn with_turn(self, turn: TurnPlane) -> Self {
        match self {
            ValueInput::PaperPlanes { mobility, .. } => ValueInput::PaperPlanes { mobility, turn },
            ValueInput::StoneOnly => ValueInput::StoneOnly,
        }
    }
}

/// The paper planes' side-to-move plane: shown (the paper), or all zeros, so that the plane
/// says nothing of who is to move (one self-play game's labels are decided by who won, and a
/// network that sees the turn can learn colour from them). Zeroing removes the plane only:
/// the disc count's parity still tells the side to move in a game without passes, and to a
/// network trained with the plane shown, zeros read as White to move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TurnPlane {
    /// The plane as the paper encodes it.
    #[default]
    Kept,
    /// All zeros.
    Zeroed,
}

impl TurnPlane {
    /// Whether the plane is shown (the default, not written on cards).
    #[must_use]
    pub fn is_kept(&self) -> bool {
        *self == TurnPlane::Kept
    }
}

/// Which image of a position a value network reads: the one it was trained on. A network
/// trained on states merged over the 8 symmetries has only seen canonical images
/// ([`Game::canonical`]); shown another image of the same position it answers for a position it
/// never saw, so every evaluation maps the position to its canonical image first. Written on
/// the card (`arch.orientation`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Orientation {
    /// Each position as played (trained on raw states, or on all 8 images).
    #[default]
    AsPlayed,
    /// Each position's canonical image (trained on merged states).
    Canonical,
}

impl Orientation {
    /// The image of `pos` the network reads.
    #[must_use]
    pub fn image<G: Game>(self, pos: &G) -> G {
        match self {
            Orientation::AsPlayed => pos.clone(),
            Orientation::Canonical => pos.canonical(),
        }
    }

    /// Appends the planes of the image of `pos` the network reads, as `input` encodes it.
    pub fn encode<G: Game>(self, input: ValueInput, pos: &G, out: &mut Vec<f32>) {
        match self {
            Orientation::AsPlayed => input.encode(pos, out),
            Orientation::Canonical => input.encode(&pos.canonical(), out),
        }
    }
}

/// The shape of a value network.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum ValueArch {
    /// `convs.len()` zero-padded `kernel`x`kernel` convolutions with ReLU (filters per layer),
    /// then dense ReLU layers of `dense` units, then one sigmoid unit.
    Cnn {
        /// Filters of each convolution.
        convs: Vec<usize>,
        /// Kernel side (odd).
        kernel: usize,
        /// Units of each hidden dense layer.
        dense: Vec<usize>,
    },
    /// Dense ReLU layers of `dense` units over the flattened input, then one sigmoid unit.
    Mlp {
        /// Units of each hidden layer.
        dense: Vec<usize>,
    },
}

impl ValueArch {
    /// stonelab's default CNN: three 3x3 convolutions of 32 filters, one dense layer of 128
    /// (sized so the default supervised run fits an hour on two cores).
    #[must_use]
    pub fn default_cnn() -> Self {
        ValueArch::Cnn {
            convs: vec![32, 32, 32],
            kernel: 3,
            dense: vec![128],
        }
    }

    /// stonelab's default MLP baseline: two hidden layers of 256 and 128.
    #[must_use]
    pub fn default_mlp() -> Self {
        ValueArch::Mlp {
            dense: vec![256, 128],
        }
    }

    /// The card algo of models of this shape ([`CNN_ALGO`] or [`MLP_ALGO`]).
    #[must_use]
    pub fn algo(&self) -> &'static str {
        match self {
            ValueArch::Cnn { .. } => CNN_ALGO,
            ValueArch::Mlp { .. } => MLP_ALGO,
        }
    }

    /// A short name: `cnn-32.32.32-k3-128` or `mlp-256.128`.
    #[must_use]
    pub fn label(&self) -> String {
        let join = |v: &[usize]| {
            v.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(".")
        };
        match self {
            ValueArch::Cnn {
                convs,
                kernel,
                dense,
            } => format!("cnn-{}-k{kernel}-{}", join(convs), join(dense)),
            ValueArch::Mlp { dense } => format!("mlp-{}", join(dense)),
        }
    }

    /// Checks the sizes are plausible (a model card is outside input).
    ///
    /// # Errors
    /// A message naming the bad size.
    pub fn check(&self) -> Result<(), String> {
        let layers = |v: &[usize], what: &str| {
            if v.len() > 16 {
                return Err(format!("{} {what} layers (at most 16)", v.len()));
            }
            match v.iter().find(|&&u| u == 0 || u > 2048) {
                Some(u) => Err(format!("{what} layer of {u} units (1..=2048)")),
                None => Ok(()),
            }
        };
        match self {
            ValueArch::Cnn {
                convs,
                kernel,
                dense,
            } => {
                if convs.is_empty() {
                    return Err("a cnn needs at least one convolution".into());
                }
                if *kernel == 0 || kernel % 2 == 0 || *kernel > 9 {
                    return Err(format!("kernel {kernel} (odd, 1..=9)"));
                }
                layers(convs, "convolution")?;
                layers(dense, "dense")?;
            }
            ValueArch::Mlp { dense } => layers(dense, "dense")?,
        }
        // A card is outside input: bound the memory the network would take (8x8, 13 planes).
        let params = self.parameters(13, 8);
        if params > MAX_PARAMETERS {
            return Err(format!("{params} parameters (at most {MAX_PARAMETERS})"));
        }
        Ok(())
    }

    /// The network's parameter count for `planes` input planes of an `n`x`n` board.
    #[must_use]
    pub fn parameters(&self, planes: usize, n: usize) -> u64 {
        let mut total = 0u64;
        let mut width = (planes * n * n) as u64;
        let hidden = match self {
            ValueArch::Cnn {
                convs,
                kernel,
                dense,
            } => {
                let mut from = planes as u64;
                for &to in convs {
                    let to = to as u64;
                    total = total.saturating_add(from * to * (*kernel as u64).pow(2) + to);
                    from = to;
                }
                width = from * (n * n) as u64;
                dense
            }
            ValueArch::Mlp { dense } => dense,
        };
        for &units in hidden {
            total = total.saturating_add(width * units as u64 + units as u64);
            width = units as u64;
        }
        total.saturating_add(width + 1)
    }
}

impl std::str::FromStr for ValueArch {
    type Err = String;

    /// `cnn:32.32.32,k3,128` (filters, kernel, dense units; `,` alone for no dense layer:
    /// `cnn:64.64,k3,`) or `mlp:256.128`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let units = |t: &str| -> Result<Vec<usize>, String> {
            if t.is_empty() {
                return Ok(Vec::new());
            }
            t.split('.')
                .map(|u| {
                    u.parse::<usize>()
                        .map_err(|_| format!("bad layer size {u:?}"))
                })
                .collect()
        };
        let arch = if let Some(rest) = s.strip_prefix("cnn:") {
            let parts: Vec<&str> = rest.split(',').collect();
            let [convs, kernel, dense] = parts[..] else {
                return Err(format!(
                    "bad cnn shape {s:?}: use cnn:FILTERS.FILTERS...,kK,DENSE.DENSE..."
                ));
            };
            let kernel = kernel
                .strip_prefix('k')
                .and_then(|k| k.parse().ok())
                .ok_or_else(|| format!("bad kernel {kernel:?} (k3, k5, ...)"))?;
            ValueArch::Cnn {
                convs: units(convs)?,
                kernel,
                dense: units(dense)?,
            }
        } else if let Some(rest) = s.strip_prefix("mlp:") {
            ValueArch::Mlp {
                dense: units(rest)?,
            }
        } else {
            return Err(format!(
                "unknown network shape {s:?}: use cnn:32.32.32,k3,128 or mlp:256.128"
            ));
        };
        arch.check()?;
        Ok(arch)
    }
}

/// A value network: input planes `[batch, planes, n, n]` in, the win probability of the side to
/// move out.
#[derive(Module, Debug)]
pub struct ValueNet {
    convs: Vec<Conv2d>,
    dense: Vec<Linear>,
    out: Linear,
}

impl ValueNet {
    /// A freshly initialised network of shape `arch` reading `planes` planes of an `n`x`n`
    /// board; its weights depend only on `seed` (burn's default initialisation, drawn under
    /// [`crate::init::seeded`]).
    #[must_use]
    pub fn new(arch: &ValueArch, planes: usize, n: usize, seed: u64, device: &Device) -> Self {
        crate::init::seeded(device, seed, || {
            let mut convs = Vec::new();
            let mut width = planes * n * n;
            let hidden = match arch {
                ValueArch::Cnn {
                    convs: filters,
                    kernel,
                    dense,
                } => {
                    let pad = kernel / 2;
                    let mut from = planes;
                    for &to in filters {
                        convs.push(
                            Conv2dConfig::new([from, to], [*kernel, *kernel])
                                .with_padding(PaddingConfig2d::Explicit(pad, pad, pad, pad))
                                .init(device),
                        );
                        from = to;
                    }
                    width = from * n * n;
                    dense
                }
                ValueArch::Mlp { dense } => dense,
            };
            let mut dense = Vec::new();
            for &units in hidden {
                dense.push(LinearConfig::new(width, units).init(device));
                width = units;
            }
            ValueNet {
                convs,
                dense,
                out: LinearConfig::new(width, 1).init(device),
            }
        })
    }

    /// Win probabilities `[batch]` for input planes `[batch, planes, n, n]`.
    #[must_use]
    pub fn forward(&self, input: Tensor<4>) -> Tensor<1> {
        let mut x = input;
        for conv in &self.convs {
            x = relu(conv.forward(x));
        }
        let mut y: Tensor<2> = x.flatten(1, 3);
        for layer in &self.dense {
            y = relu(layer.forward(y));
        }
        sigmoid(self.out.forward(y)).flatten(0, 1)
    }

    /// The win probabilities of a batch of encoded positions (`planes·n·n` floats each), on
    /// `device` (no autodiff).
    #[must_use]
    pub fn predict(&self, inputs: Vec<f32>, planes: usize, n: usize, device: &Device) -> Vec<f32> {
        let rows = inputs.len() / (planes * n * n).max(1);
        if rows == 0 {
            return Vec::new();
        }
        let x = Tensor::<4>::from_data(TensorData::new(inputs, [rows, planes, n, n]), device);
        self.forward(x)
            .into_data()
            .try_to_vec::<f32>()
            .unwrap_or_default()
    }
}

/// What a value model file is: the network, its input and shape (from the card).
pub struct ValueModel {
    /// The inference network.
    pub net: ValueNet,
    /// Its input encoding.
    pub input: ValueInput,
    /// Its shape.
    pub arch: ValueArch,
    /// The image of a position it reads.
    pub orientation: Orientation,
    /// The card.
    pub card: Card,
}

/// The card fields a value model adds to its settings: the input encoding and orientation.
#[must_use]
pub fn card_arch(
    arch: &ValueArch,
    input: ValueInput,
    orientation: Orientation,
) -> serde_json::Value {
    serde_json::json!({ "net": arch, "input": input, "orientation": orientation })
}

/// The orientation a card names (`arch.orientation`). A card written before the field existed
/// names none: it is read as canonical when its settings say it trained on merged states
/// (`config.symmetries`), and as played otherwise (an old self-play card: its games were
/// learned as played).
fn card_orientation(card: &Card, spec: &serde_json::Value) -> Result<Orientation, String> {
    match spec.get("orientation") {
        Some(v) => serde_json::from_value(v.clone()).map_err(|e| format!("arch.orientation: {e}")),
        None => Ok(
            if card.config.get("symmetries").and_then(|v| v.as_str()) == Some("merged") {
                Orientation::Canonical
            } else {
                Orientation::AsPlayed
            },
        ),
    }
}

impl ValueModel {
    /// Loads a value model file of `algo` ([`CNN_ALGO`] or [`MLP_ALGO`]) for `game` (board side
    /// `n`): the card is checked, the network built as it says and every tensor loaded.
    ///
    /// # Errors
    /// [`ModelError`] for bad files, another algorithm or game, an implausible shape.
    pub fn load(
        path: &std::path::Path,
        algo: &str,
        game: &str,
        n: usize,
    ) -> Result<ValueModel, ModelError> {
        let mut found = None;
        let (net, card) = crate::checkpoint::load_module(path, algo, game, n, &[], |card, _| {
            let bad = |why: String| ModelError::Card {
                path: card_path(path),
                why,
            };
            let spec = card.arch.clone().ok_or_else(|| bad("no arch".into()))?;
            let arch: ValueArch = serde_json::from_value(spec["net"].clone())
                .map_err(|e| bad(format!("arch.net: {e}")))?;
            arch.check().map_err(|e| bad(format!("arch.net: {e}")))?;
            if arch.algo() != algo {
                return Err(bad(format!("arch.net is a {}, not {algo}", arch.algo())));
            }
            let input: ValueInput = serde_json::from_value(spec["input"].clone())
                .map_err(|e| bad(format!("arch.input: {e}")))?;
            let orientation = card_orientation(card, &spec).map_err(bad)?;
            let net = ValueNet::new(&arch, input.planes(), n, 0, &Device::default());
            found = Some((arch, input, orientation));
            Ok(net)
        })?;
        let (arch, input, orientation) = found.ok_or_else(|| ModelError::Card {
            path: card_path(path),
            why: "no arch".into(),
        })?;
        Ok(ValueModel {
            net,
            input,
            arch,
            orientation,
            card,
        })
    }

    /// The model as a search evaluator (it reads the image of each position it was trained
    /// on).
    #[must_use]
    pub fn evaluator(&self) -> super::agent::ValueEvaluator {
        super::agent::ValueEvaluator::new(self.net.clone(), self.input, self.orientation)
    }
}
