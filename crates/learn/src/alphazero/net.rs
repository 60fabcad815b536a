//! The AlphaZero policy-value network — a residual trunk, a policy head over the game's action
//! space, a value head and an optional final-margin head — and its batched [`PolicyValue`].

use std::marker::PhantomData;
use std::path::Path;

use burn::module::Module;
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig};
use burn::tensor::activation::{relu, tanh};
use burn::tensor::{Device, Tensor, TensorData};
use game::{Color, Game};
use search::{masked_softmax, PolicyValue, PriorsValue};
use serde::{Deserialize, Serialize};

use crate::checkpoint::{card_path, Card, ModelError};
use crate::resnet::{QNetArch, ResTrunk};

/// The card `algo` of an AlphaZero model (the `az` agent plays it).
pub const AZ_ALGO: &str = "az";

/// Input planes: the mover's stones, the opponent's, the mover's legal points, and a plane of
/// ones when Black is to move (renju's rules differ by colour).
pub const AZ_PLANES: usize = 4;

/// Units of the value head's hidden layer.
const VALUE_HIDDEN: usize = 64;

/// The shape of a policy-value network.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PvArch {
    /// Residual blocks of the trunk.
    pub blocks: usize,
    /// Channels of every block.
    pub channels: usize,
    /// An auxiliary head that predicts the final margin (discs over board points) beside the
    /// result.
    #[serde(default)]
    pub margin_head: bool,
}

impl PvArch {
    /// The default network: 4 blocks of 48 channels with the margin head.
    pub const DEFAULT: PvArch = PvArch {
        blocks: 4,
        channels: 48,
        margin_head: true,
    };

    /// A short name: `pv-4x48` (`+m` with the margin head).
    #[must_use]
    pub fn label(&self) -> String {
        format!(
            "pv-{}x{}{}",
            self.blocks,
            self.channels,
            if self.margin_head { "+m" } else { "" }
        )
    }

    /// Its weights, as the file stores them, for an `n`x`n` board with `actions` actions.
    #[must_use]
    pub fn parameters(&self, n: usize, actions: usize) -> u64 {
        let c = self.channels.max(1) as u64;
        let cells = (n * n) as u64;
        let norm = |k: u64| 4 * k;
        let trunk = QNetArch::Resnet {
            blocks: self.blocks,
            channels: self.channels,
        }
        .parameters(AZ_PLANES, n)
            - (c * 2 + norm(2) + 2 * cells * cells + cells);
        let policy = c * 2 + norm(2) + (2 * cells + 1) * actions as u64;
        let hidden = VALUE_HIDDEN as u64;
        let value = c + norm(1) + (cells + 1) * hidden + (hidden + 1);
        let margin = if self.margin_head { hidden + 1 } else { 0 };
        trunk + policy + value + margin
    }

    /// Checks the shape: 0 to 40 blocks of 1 to 512 channels, at most 64 million weights.
    ///
    /// # Errors
    /// A message naming the size.
    pub fn check(&self, n: usize, actions: usize) -> Result<(), String> {
        if self.blocks > 40 || self.channels == 0 || self.channels > 512 {
            return Err(format!(
                "{}: 0 to 40 blocks of 1 to 512 channels",
                self.label()
            ));
        }
        let params = self.parameters(n, actions);
        if params > QNetArch::MAX_PARAMETERS {
            return Err(format!(
                "{} has {params} weights (at most {})",
                self.label(),
                QNetArch::MAX_PARAMETERS
            ));
        }
        Ok(())
    }
}

impl Default for PvArch {
    fn default() -> Self {
        PvArch::DEFAULT
    }
}

/// Appends the [`AZ_PLANES`] planes of `pos` to `out`.
pub fn encode<G: Game>(pos: &G, out: &mut Vec<f32>) {
    encode_with(pos, &pos.legal_moves(), out);
}

/// [`encode`] with the legal moves of `pos` already generated.
fn encode_with<G: Game>(pos: &G, legal: &[G::Move], out: &mut Vec<f32>) {
    let points = G::BOARD_SIZE * G::BOARD_SIZE;
    let me = pos.side_to_move();
    let base = out.len();
    out.resize(base + AZ_PLANES * points, 0.0);
    for i in 0..points {
        match pos.stone_at(i) {
            Some(c) if c == me => out[base + i] = 1.0,
            Some(_) => out[base + points + i] = 1.0,
            None => {}
        }
    }
    for &mv in legal {
        let a = G::action_index(mv);
        if a < points {
            out[base + 2 * points + a] = 1.0;
        }
    }
    if me == Color::Black {
        out[base + 3 * points..base + 4 * points].fill(1.0);
    }
}

/// What the network says of a batch: policy logits `[batch, actions]`, values `[batch]` in
/// `[-1, 1]`, and margins `[batch]` where it has the head.
pub struct PvOutput {
    /// Policy logits.
    pub logits: Tensor<2>,
    /// Values (tanh).
    pub value: Tensor<1>,
    /// Final margins over board points (tanh), with the margin head.
    pub margin: Option<Tensor<1>>,
}

/// The policy-value network.
#[derive(Module, Debug)]
pub struct PvNet {
    trunk: ResTrunk,
    policy_conv: Conv2d,
    policy_norm: BatchNorm,
    policy: Linear,
    value_conv: Conv2d,
    value_norm: BatchNorm,
    value_hidden: Linear,
    value: Linear,
    margin: Option<Linear>,
}

impl PvNet {
    /// A fresh network of shape `arch` for an `n`x`n` board with `actions` actions; its
    /// weights depend only on `seed`.
    #[must_use]
    pub fn new(arch: PvArch, n: usize, actions: usize, seed: u64, device: &Device) -> Self {
        let c = arch.channels.max(1);
        let cells = n * n;
        crate::init::seeded(device, seed, || PvNet {
            trunk: ResTrunk::new(
                QNetArch::Resnet {
                    blocks: arch.blocks,
                    channels: c,
                },
                AZ_PLANES,
                device,
            ),
            policy_conv: Conv2dConfig::new([c, 2], [1, 1])
                .with_bias(false)
                .init(device),
            policy_norm: BatchNormConfig::new(2).init(device),
            policy: LinearConfig::new(2 * cells, actions).init(device),
            value_conv: Conv2dConfig::new([c, 1], [1, 1])
                .with_bias(false)
                .init(device),
            value_norm: BatchNormConfig::new(1).init(device),
            value_hidden: LinearConfig::new(cells, VALUE_HIDDEN).init(device),
            value: LinearConfig::new(VALUE_HIDDEN, 1).init(device),
            margin: arch
                .margin_head
                .then(|| LinearConfig::new(VALUE_HIDDEN, 1).init(device)),
        })
    }

    /// The heads' outputs for input planes `[batch, AZ_PLANES, n, n]`.
    #[must_use]
    pub fn forward(&self, planes: Tensor<4>) -> PvOutput {
        let x = self.trunk.forward(planes);
        let p = relu(
            self.policy_norm
                .forward(self.policy_conv.forward(x.clone())),
        );
        let logits = self.policy.forward(p.flatten(1, 3));
        let v = relu(self.value_norm.forward(self.value_conv.forward(x)));
        let h: Tensor<2> = relu(self.value_hidden.forward(v.flatten::<2>(1, 3)));
        let value = tanh(self.value.forward(h.clone())).flatten(0, 1);
        let margin = self
            .margin
            .as_ref()
            .map(|m| tanh(m.forward(h)).flatten(0, 1));
        PvOutput {
            logits,
            value,
            margin,
        }
    }

    /// Loads an AlphaZero model file of `G` as an inference network; returns it with its
    /// card and shape.
    ///
    /// # Errors
    /// [`ModelError`] for bad files, an implausible shape, or a model of another game.
    pub fn load<G: Game>(path: &Path) -> Result<(PvNet, Card, PvArch), ModelError> {
        let mut shape = None;
        let (net, card) = crate::checkpoint::load_module(
            path,
            AZ_ALGO,
            G::ID,
            G::BOARD_SIZE,
            &[],
            |card, weights_len| {
                let bad = |why: String| ModelError::Card {
                    path: card_path(path),
                    why,
                };
                let arch: PvArch = card
                    .arch
                    .clone()
                    .ok_or_else(|| bad("no arch".into()))
                    .and_then(|a| {
                        serde_json::from_value(a).map_err(|e| bad(format!("arch: {e}")))
                    })?;
                arch.check(G::BOARD_SIZE, G::NUM_ACTIONS).map_err(bad)?;
                let params = arch.parameters(G::BOARD_SIZE, G::NUM_ACTIONS);
                if params.saturating_mul(2) > weights_len as u64 {
                    return Err(bad(format!(
                        "{} has {params} weights, more than the {weights_len}-byte file holds",
                        arch.label()
                    )));
                }
                shape = Some(arch);
                Ok(PvNet::new(
                    arch,
                    G::BOARD_SIZE,
                    G::NUM_ACTIONS,
                    0,
                    &Device::default(),
                ))
            },
        )?;
        let arch = shape.ok_or_else(|| ModelError::Mismatch("no architecture".into()))?;
        Ok((net, card, arch))
    }
}

/// A [`PolicyValue`] over an inference copy of a [`PvNet`]: one forward pass per batch,
/// priors by a softmax over the legal actions.
pub struct PvEvaluator<G: Game> {
    net: PvNet,
    device: Device,
    game: PhantomData<fn() -> G>,
}

impl<G: Game> PvEvaluator<G> {
    /// An evaluator over `net` (made an inference copy).
    #[must_use]
    pub fn new(net: &PvNet) -> Self {
        PvEvaluator {
            net: net.valid(),
            device: Device::default(),
            game: PhantomData,
        }
    }

    /// Logits, values and margins of unfinished positions (each with its legal moves), as
    /// plain vectors.
    fn raw(&self, positions: &[(&G, Vec<G::Move>)]) -> (Vec<f32>, Vec<f32>, Option<Vec<f32>>) {
        let n = G::BOARD_SIZE;
        let mut x = Vec::with_capacity(positions.len() * AZ_PLANES * n * n);
        for (pos, legal) in positions {
            encode_with(*pos, legal, &mut x);
        }
        let rows = positions.len();
        let input =
            Tensor::<4>::from_data(TensorData::new(x, [rows, AZ_PLANES, n, n]), &self.device);
        let out = self.net.forward(input);
        let vec1 = |t: Tensor<1>| t.into_data().try_to_vec::<f32>().unwrap_or_default();
        let logits = out
            .logits
            .into_data()
            .try_to_vec::<f32>()
            .unwrap_or_default();
        (logits, vec1(out.value), out.margin.map(vec1))
    }
}

impl<G: Game> PolicyValue<G> for PvEvaluator<G> {
    fn policy_value(&self, positions: &[G]) -> Vec<PriorsValue> {
        // One move generation per position: the moves are empty exactly when it is over.
        let live: Vec<(&G, Vec<G::Move>)> = positions
            .iter()
            .map(|p| (p, p.legal_moves()))
            .filter(|(_, legal)| !legal.is_empty())
            .collect();
        let (logits, values, _) = if live.is_empty() {
            (Vec::new(), Vec::new(), None)
        } else {
            self.raw(&live)
        };
        let actions = G::NUM_ACTIONS;
        let mut rows = live.iter().enumerate().peekable();
        positions
            .iter()
            .map(|pos| {
                let Some((row, (_, legal))) = rows.next_if(|(_, (p, _))| std::ptr::eq(*p, pos))
                else {
                    return PriorsValue {
                        priors: vec![0.0; actions],
                        value: pos
                            .outcome()
                            .map_or(0.0, |o| o.value_for(pos.side_to_move())),
                    };
                };
                let legal: Vec<usize> = legal.iter().map(|&m| G::action_index(m)).collect();
                let at = row * actions;
                let priors = match logits.get(at..at + actions) {
                    Some(l) => masked_softmax(l, &legal),
                    None => masked_softmax(&vec![0.0; actions], &legal),
                };
                PriorsValue {
                    priors,
                    value: values.get(row).copied().unwrap_or(0.0),
                }
            })
            .collect()
    }
}
