//! A trained Q-network as a player.

use burn::tensor::Device;
use game::{Color, Game};
use search::{Agent, AgentError, Budget, Decision};

use crate::encode::{mover_cells, Encoding};
use crate::resnet::QNet;

use super::*;

/// A trained Q-network as a player: the valid point with the highest value.
pub struct DqnAgent<G: Game> {
    net: QNet,
    encoding: Encoding,
    name: String,
    device: Device,
    _game: std::marker::PhantomData<G>,
}

impl<G: Game> DqnAgent<G> {
    /// An agent over an inference network that reads [`Encoding::Stones`].
    #[must_use]
    pub fn new(net: QNet, name: String) -> Self {
        Self::with_encoding(net, Encoding::Stones, name)
    }

    /// An agent over an inference network that reads `encoding`'s planes (the encoding its
    /// card names: [`QNet::card_encoding`]).
    #[must_use]
    pub fn with_encoding(net: QNet, encoding: Encoding, name: String) -> Self {
        DqnAgent {
            net,
            encoding,
            name,
            device: Device::default(),
            _game: std::marker::PhantomData,
        }
    }

    /// The network's values for `pos` (one per point, from the mover's side).
    #[must_use]
    pub fn values(&self, pos: &G) -> Vec<f32> {
        let cells = mover_cells(pos);
        q_values(
            &self.net,
            &[(&cells, pos.side_to_move() == Color::Black)],
            self.encoding,
            G::BOARD_SIZE,
            &self.device,
        )
    }
}

impl<G: Game> Agent<G> for DqnAgent<G> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn select(&mut self, pos: &G, _budget: &Budget) -> Result<Decision<G::Move>, AgentError> {
        greedy_decision(pos, || self.values(pos))
    }
}
