//! The agents each game offers, by spec string: one registry per game, shared by `play`,
//! `arena` and the engine protocols.

use std::sync::Arc;

use othello::Othello;
use othello_engine::{DiscDifference, Heuristic};
use search::Registry;

use crate::games::GameId;

/// Every agent for Othello on the `N x N` board: the generic ones over the hand-built
/// heuristic (greedy over the disc difference, so it flips the most discs).
pub fn othello_registry<const N: usize>() -> Registry<Othello<N>> {
    Registry::generic(
        Arc::new(Heuristic::<N>::default()),
        Arc::new(DiscDifference),
    )
}

/// The agent list of a game, one line each, for `stonelab agents`.
pub fn help(game: GameId) -> String {
    let list = match game {
        GameId::Othello4 => othello_registry::<4>().help(),
        GameId::Othello6 => othello_registry::<6>().help(),
        GameId::Othello8 => othello_registry::<8>().help(),
    };
    format!(
        "Agents for {game} (spec: name or name:key=value,...; every agent takes seed=N):\n{list}"
    )
}
