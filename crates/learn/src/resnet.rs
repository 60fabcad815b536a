//! The DQN's Q-network: residual convolutional networks over the board planes, either the
//! reference project's down-sampling `seed-resnet` or our full-resolution `resnet`.

use burn::module::Module;
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::pool::{MaxPool2d, MaxPool2dConfig};
use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig, PaddingConfig2d};
use burn::tensor::activation::relu;
use burn::tensor::{Device, Tensor};
use serde::{Deserialize, Serialize};

use crate::checkpoint::{card_path, Card, ModelError};
use crate::encode::Encoding;

/// Input planes: [`StonePlanes`](crate::StonePlanes) (the mover's stones, the opponent's
/// stones, and a constant plane that is 1 when Black is to move).
pub const PLANES: usize = crate::encode::StonePlanes::PLANES;

/// Which Q-network, and its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum QNetArch {
    /// The reference design: 7x7 stride-2 stem with 64 filters, batch norm, ReLU, 3x3 stride-2
    /// max-pool, 3 residual blocks of 64 and 4 of 128 (1x1 projection on the first), global
    /// average pooling, one dense layer to the action values.
    SeedResnet,
    /// Ours: a 3x3 stem and `blocks` residual blocks of `channels` at full board resolution,
    /// then a 1x1 convolution to 2 planes and a dense layer to the action values.
    Resnet {
        /// Residual blocks.
        blocks: usize,
        /// Channels of every block.
        channels: usize,
    },
}

impl QNetArch {
    /// The default network (`resnet`, 3 blocks of 32 channels).
    pub const DEFAULT: QNetArch = QNetArch::Resnet {
        blocks: 3,
        channels: 32,
    };

    /// A short name: `seed-resnet` or `resnet-3x32`.
    #[must_use]
    pub fn label(&self) -> String {
        match self {
            QNetArch::SeedResnet => "seed-resnet".into(),
            QNetArch::Resnet { blocks, channels } => format!("resnet-{blocks}x{channels}"),
        }
    }
}

impl QNetArch {
    /// The most weights a Q-network may have (256 MB as `f32`): a model card is outside input,
    /// and the network it names is built before its weights are read.
    pub const MAX_PARAMETERS: u64 = 64_000_000;

    /// The network's weights, as its file stores them (convolutions, dense layers, and each
    /// batch norm's scale, shift and running statistics), for `planes` input planes of an
    /// `n`x`n` board.
    #[must_use]
    pub fn parameters(&self, planes: usize, n: usize) -> u64 {
        let conv = |from: u64, to: u64, k: u64| from * to * k * k;
        let norm = |c: u64| 4 * c;
        let block = |from: u64, to: u64| {
            let projection = if from == to {
                0
            } else {
                conv(from, to, 1) + norm(to)
            };
            conv(from, to, 3) + norm(to) + conv(to, to, 3) + norm(to) + projection
        };
        let (planes, cells) = (planes as u64, (n * n) as u64);
        match *self {
            QNetArch::SeedResnet => {
                conv(planes, 64, 7)
                    + norm(64)
                    + 3 * block(64, 64)
                    + block(64, 128)
                    + 3 * block(128, 128)
                    + 128 * cells
                    + cells
            }
            QNetArch::Resnet { blocks, channels } => {
                let c = channels.max(1) as u64;
                conv(planes, c, 3)
                    + norm(c)
                    + blocks as u64 * block(c, c)
                    + conv(c, 2, 1)
                    + norm(2)
                    + 2 * cells * cells
                    + cells
            }
        }
    }

    /// Checks the network's size for `planes` input planes of an `n`x`n` board: at most 64
    /// residual blocks, 1 to 1024 channels, at most [`Self::MAX_PARAMETERS`] weights.
    ///
    /// # Errors
    /// A message naming the size.
    pub fn check(&self, planes: usize, n: usize) -> Result<(), String> {
        if let QNetArch::Resnet { blocks, channels } = *self {
            if blocks > 64 || channels == 0 || channels > 1024 {
                return Err(format!(
                    "resnet {blocks}x{channels}: 0 to 64 blocks of 1 to 1024 channels"
                ));
            }
        }
        let params = self.parameters(planes, n);
        if params > Self::MAX_PARAMETERS {
            return Err(format!(
                "{} has {params} weights (at most {})",
                self.label(),
                Self::MAX_PARAMETERS
            ));
        }
        Ok(())
    }
}

impl Default for QNetArch {
    fn default() -> Self {
        QNetArch::DEFAULT
    }
}

/// Two 3x3 convolutions with batch norm and a skip connection (projected by a 1x1 convolution
/// when the channel count changes).
#[derive(Module, Debug)]
pub struct ResBlock {
    conv1: Conv2d,
    norm1: BatchNorm,
    conv2: Conv2d,
    norm2: BatchNorm,
    projection: Option<Conv2d>,
    projection_norm: Option<BatchNorm>,
}

fn conv3x3(from: usize, to: usize, device: &Device) -> Conv2d {
    Conv2dConfig::new([from, to], [3, 3])
        .with_padding(PaddingConfig2d::Explicit(1, 1, 1, 1))
        .with_bias(false)
        .init(device)
}

impl ResBlock {
    fn new(from: usize, to: usize, device: &Device) -> Self {
        let (projection, projection_norm) = if from == to {
            (None, None)
        } else {
            (
                Some(
                    Conv2dConfig::new([from, to], [1, 1])
                        .with_bias(false)
                        .init(device),
                ),
                Some(BatchNormConfig::new(to).init(device)),
            )
        };
        ResBlock {
            conv1: conv3x3(from, to, device),
            norm1: BatchNormConfig::new(to).init(device),
            conv2: conv3x3(to, to, device),
            norm2: BatchNormConfig::new(to).init(device),
            projection,
            projection_norm,
        }
    }

    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let skip = match (&self.projection, &self.projection_norm) {
            (Some(conv), Some(norm)) => norm.forward(conv.forward(x.clone())),
            _ => x.clone(),
        };
        let y = relu(self.norm1.forward(self.conv1.forward(x)));
        let y = self.norm2.forward(self.conv2.forward(y));
        relu(y + skip)
    }
}

/// A trunk: board planes `[batch, PLANES, n, n]` in, feature planes out. Heads turn the
/// features into what a network predicts; the trunk is shared by every kind of head.
#[derive(Module, Debug)]
pub struct ResTrunk {
    stem: Conv2d,
    stem_norm: BatchNorm,
    pool: Option<MaxPool2d>,
    blocks: Vec<ResBlock>,
}

impl ResTrunk {
    /// The trunk of `arch` over `planes` input planes.
    pub(crate) fn new(arch: QNetArch, planes: usize, device: &Device) -> Self {
        match arch {
            QNetArch::SeedResnet => {
                let mut blocks = Vec::new();
                for _ in 0..3 {
                    blocks.push(ResBlock::new(64, 64, device));
                }
                blocks.push(ResBlock::new(64, 128, device));
                for _ in 0..3 {
                    blocks.push(ResBlock::new(128, 128, device));
                }
                ResTrunk {
                    stem: Conv2dConfig::new([planes, 64], [7, 7])
                        .with_stride([2, 2])
                        .with_padding(PaddingConfig2d::Explicit(3, 3, 3, 3))
                        .with_bias(false)
                        .init(device),
                    stem_norm: BatchNormConfig::new(64).init(device),
                    pool: Some(
                        MaxPool2dConfig::new([3, 3])
                            .with_strides([2, 2])
                            .with_padding(PaddingConfig2d::Explicit(1, 1, 1, 1))
                            .init(),
                    ),
                    blocks,
                }
            }
            QNetArch::Resnet { blocks, channels } => {
                let channels = channels.max(1);
                ResTrunk {
                    stem: conv3x3(planes, channels, device),
                    stem_norm: BatchNormConfig::new(channels).init(device),
                    pool: None,
                    blocks: (0..blocks)
                        .map(|_| ResBlock::new(channels, channels, device))
                        .collect(),
                }
            }
        }
    }

    /// Feature planes of a batch of board planes.
    #[must_use]
    pub fn forward(&self, planes: Tensor<4>) -> Tensor<4> {
        let mut x = relu(self.stem_norm.forward(self.stem.forward(planes)));
        if let Some(pool) = &self.pool {
            x = pool.forward(x);
        }
        for block in &self.blocks {
            x = block.forward(x);
        }
        x
    }
}

/// An action-value head: features in, one value per board point out. Either a 1x1
/// convolution to 2 planes with batch norm and a dense layer over them (full resolution), or
/// global average pooling and a dense layer (`seed-resnet`).
#[derive(Module, Debug)]
pub struct QHead {
    conv: Option<Conv2d>,
    norm: Option<BatchNorm>,
    dense: Linear,
}

impl QHead {
    /// The head of `arch` for an `n`x`n` board.
    fn new(arch: QNetArch, n: usize, device: &Device) -> Self {
        match arch {
            QNetArch::SeedResnet => QHead {
                conv: None,
                norm: None,
                dense: LinearConfig::new(128, n * n).init(device),
            },
            QNetArch::Resnet { channels, .. } => QHead {
                conv: Some(
                    Conv2dConfig::new([channels.max(1), 2], [1, 1])
                        .with_bias(false)
                        .init(device),
                ),
                norm: Some(BatchNormConfig::new(2).init(device)),
                dense: LinearConfig::new(2 * n * n, n * n).init(device),
            },
        }
    }

    /// Action values `[batch, n·n]` of a batch of features.
    #[must_use]
    pub fn forward(&self, features: Tensor<4>) -> Tensor<2> {
        let flat: Tensor<2> = match (&self.conv, &self.norm) {
            (Some(conv), Some(norm)) => relu(norm.forward(conv.forward(features))).flatten(1, 3),
            // Global average pooling over the board.
            _ => features.mean_dim(3).mean_dim(2).flatten(1, 3),
        };
        self.dense.forward(flat)
    }
}

/// A Q-network: a [`ResTrunk`] and a [`QHead`]; `[batch, PLANES, n, n]` board planes in,
/// `[batch, n·n]` action values out.
#[derive(Module, Debug)]
pub struct QNet {
    trunk: ResTrunk,
    head: QHead,
}

/// Tensor names of files written before the network was split into trunk and head, and the
/// names they have now.
pub(crate) const LEGACY_KEYS: [(&str, &str); 3] = [
    (r"^(stem|stem_norm|blocks)\.", "trunk.${1}."),
    (r"^head_(conv|norm)\.", "head.${1}."),
    (r"^dense\.", "head.dense."),
];

impl QNet {
    /// A freshly initialised network of architecture `arch` for an `n`x`n` board; its weights
    /// depend only on `seed`.
    #[must_use]
    pub fn new(arch: QNetArch, n: usize, seed: u64, device: &Device) -> Self {
        Self::with_encoding(arch, Encoding::Stones, n, seed, device)
    }

    /// A freshly initialised network of architecture `arch` reading `encoding`'s planes, for an
    /// `n`x`n` board; its weights depend only on `seed`.
    #[must_use]
    pub fn with_encoding(
        arch: QNetArch,
        encoding: Encoding,
        n: usize,
        seed: u64,
        device: &Device,
    ) -> Self {
        crate::init::seeded(device, seed, || QNet {
            trunk: ResTrunk::new(arch, encoding.planes(), device),
            head: QHead::new(arch, n, device),
        })
    }

    /// The encoding a model's card names (its settings' `encoding`; files without one were
    /// trained on [`Encoding::Stones`]).
    ///
    /// # Errors
    /// A message when the card names an unknown encoding.
    pub fn card_encoding(card: &Card) -> Result<Encoding, String> {
        match card.config.get("encoding") {
            None | Some(serde_json::Value::Null) => Ok(Encoding::Stones),
            Some(v) => serde_json::from_value(v.clone()).map_err(|e| format!("encoding: {e}")),
        }
    }

    /// Loads a DQN model file for `game` (board side `board_size`) as an inference network of
    /// the architecture its card names.
    ///
    /// # Errors
    /// [`ModelError`] for bad files, an implausible architecture, or a model of another game.
    pub fn load(
        path: &std::path::Path,
        game: &str,
        board_size: usize,
    ) -> Result<(QNet, Card), ModelError> {
        crate::checkpoint::load_module(
            path,
            "dqn",
            game,
            board_size,
            &LEGACY_KEYS,
            |card, weights_len| {
                let bad = |why: String| ModelError::Card {
                    path: card_path(path),
                    why,
                };
                let arch: QNetArch = card
                    .arch
                    .clone()
                    .ok_or_else(|| bad("no arch".into()))
                    .and_then(|a| {
                        serde_json::from_value(a).map_err(|e| bad(format!("arch: {e}")))
                    })?;
                let encoding = QNet::card_encoding(card).map_err(bad)?;
                arch.check(encoding.planes(), board_size).map_err(bad)?;
                // Every weight is stored (as f32, or f16 at the least): a card that names a larger
                // network than its file holds is refused before the network is built.
                let params = arch.parameters(encoding.planes(), board_size);
                if params.saturating_mul(2) > weights_len as u64 {
                    return Err(bad(format!(
                    "{} has {params} weights, more than the {weights_len}-byte weights file holds",
                    arch.label()
                )));
                }
                Ok(QNet::with_encoding(
                    arch,
                    encoding,
                    board_size,
                    0,
                    &Device::default(),
                ))
            },
        )
    }

    /// Action values for a batch of board planes `[batch, PLANES, n, n]`: `[batch, n·n]`.
    #[must_use]
    pub fn forward(&self, planes: Tensor<4>) -> Tensor<2> {
        self.head.forward(self.trunk.forward(planes))
    }
}
