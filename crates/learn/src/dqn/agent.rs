//! A trained Q-network as a player.

use burn::tensor::Device;
use game::{Color, Game};
use search::{Agent, AgentError, Budget, Decision};

use crate::encode::mover_cells;
use crate::resnet::QNet;

use super::*;

/// A trained Q-network as a player: the valid point with the highest value.
pub struct DqnAgent<G: Game> {
    net: QNet,
    name: String,
    device: Device,
    _game: std::marker::PhantomData<G>,
}

impl<G: Game> DqnAgent<G> {
    /// An agent over an inference network.
    #[must_use]
    pub fn new(net: QNet, name: String) -> Self {
        DqnAgent {
            net,
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
        if pos.is_over() {
            return Err(AgentError::GameOver);
        }
        if let Some(pass) = pos.forced_pass() {
            return Ok(Decision::just(pass));
        }
        let points = G::BOARD_SIZE * G::BOARD_SIZE;
        let moves = pos.legal_moves();
        let valid: Vec<usize> = moves
            .iter()
            .map(|&m| G::action_index(m))
            .filter(|&a| a < points)
            .collect();
        let q = self.values(pos);
        let a = best(&q, &valid).ok_or(AgentError::GameOver)?;
        let mv = G::action_move(a).ok_or_else(|| AgentError::Failed("no move".into()))?;
        let mut d = Decision::just(mv);
        // Value in hundredths (the scaled reward is discs/100 and ±1 for the result).
        d.score = q.get(a).map(|v| (v * 100.0).round() as i32);
        // Q estimates the result (±1) plus small shaped rewards: an expectation, not discs.
        d.scale = search::ScoreScale::Expectation;
        d.pv = vec![mv];
        Ok(d)
    }
}
