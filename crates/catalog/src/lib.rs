//! The games and agents stonelab offers, for every front end (CLI, web app, engine protocols,
//! Python): game ids, one runtime dispatch from an id to its type ([`with_game!`]), each game's
//! agent registry (learned and external agents included) and its defaults.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod agents;
pub mod bundled;
mod gomocup;
mod ids;
pub mod models;

pub use agents::{
    help, local_registry, match_openings, othello4_values, CatalogGame, OpeningList,
    MAX_RANDOM_OPENINGS,
};
pub use bundled::BundledModels;
pub use gomocup::{gomocup_factory, validate_gomocup_agent, GOMOCUP_SIZES};
pub use ids::{GameId, UnknownGame};

/// The game types behind the ids, for [`with_game!`].
pub mod games {
    pub use gomoku::{Gomoku15, Gomoku9, Omok, Renju15, Standard15};
    pub use othello::{Othello4, Othello6, Othello8};
}

/// Runs `$body` with `$G` the game type of the [`GameId`] `$id`: the one place an id becomes a
/// type. Every type it names implements [`CatalogGame`].
///
/// ```
/// use catalog::{with_game, CatalogGame, GameId};
/// let agents = with_game!(GameId::Gomoku9, G => G::registry().names().len());
/// assert!(agents > 5);
/// ```
#[macro_export]
macro_rules! with_game {
    ($id:expr, $G:ident => $body:expr) => {
        match $id {
            $crate::GameId::Othello4 => {
                type $G = $crate::games::Othello4;
                $body
            }
            $crate::GameId::Othello6 => {
                type $G = $crate::games::Othello6;
                $body
            }
            $crate::GameId::Othello8 => {
                type $G = $crate::games::Othello8;
                $body
            }
            $crate::GameId::Gomoku15 => {
                type $G = $crate::games::Gomoku15;
                $body
            }
            $crate::GameId::Gomoku9 => {
                type $G = $crate::games::Gomoku9;
                $body
            }
            $crate::GameId::Omok => {
                type $G = $crate::games::Omok;
                $body
            }
            $crate::GameId::Standard15 => {
                type $G = $crate::games::Standard15;
                $body
            }
            $crate::GameId::Renju15 => {
                type $G = $crate::games::Renju15;
                $body
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use game::Game;

    /// Every id dispatches to the type whose own id it is, and parses back from its name.
    #[test]
    fn every_id_dispatches_to_its_own_type() {
        for id in GameId::ALL {
            let name = with_game!(id, G => G::ID);
            assert_eq!(name, id.to_string());
            assert_eq!(name.parse::<GameId>(), Ok(id));
            assert!(with_game!(id, G => !G::registry().names().is_empty()));
        }
        assert_eq!(GameId::MENU.len(), GameId::ALL.len());
        let e = "chess".parse::<GameId>().expect_err("not a game");
        assert!(e.to_string().contains("othello8"), "{e}");
    }

    /// Learned agents are offered on every game; external engines only where the protocol
    /// plays; value iteration only on 4x4.
    #[test]
    fn registries_hold_the_right_agents() {
        for id in GameId::ALL {
            let names = with_game!(id, G => G::registry().names());
            assert!(names.contains(&"dqn"), "{id}");
            assert!(names.contains(&"q-mlp"), "{id}");
            assert_eq!(names.contains(&"dp"), id == GameId::Othello4, "{id}");
            assert_eq!(
                names.contains(&"nboard-engine"),
                id == GameId::Othello8,
                "{id}"
            );
            let local = with_game!(id, G => local_registry::<G>().names());
            assert!(
                !local.iter().any(|n| n.ends_with("-engine")),
                "{id}: {local:?}"
            );
            // An agent of other games only is named as such, with the games that have it.
            let all: Vec<&str> = GameId::ALL
                .iter()
                .flat_map(|&other| with_game!(other, G => G::registry().names()))
                .collect();
            for name in all.iter().filter(|n| !names.contains(n)) {
                let error = with_game!(id, G => G::registry().validate(name))
                    .expect_err("not an agent of this game")
                    .to_string();
                assert!(
                    error.starts_with(&format!("agent \"{name}\" does not play {id} (it plays ")),
                    "{error}"
                );
            }
            let error =
                with_game!(GameId::Othello6, G => G::registry().validate("othello:depth=2"))
                    .expect_err("8x8 only")
                    .to_string();
            assert!(error.contains("(it plays othello8)"), "{error}");
            let error = with_game!(id, G => G::registry().validate("nosuch"))
                .expect_err("no such agent")
                .to_string();
            assert!(error.starts_with("unknown agent \"nosuch\""), "{error}");
            let (opponent, hint) = with_game!(id, G => (G::DEFAULT_OPPONENT, G::HINT_AGENT));
            with_game!(id, G => {
                local_registry::<G>().validate(opponent).expect("default opponent");
                local_registry::<G>().validate(hint).expect("hint agent");
            });
        }
    }
}
