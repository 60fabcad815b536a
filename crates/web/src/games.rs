//! The games the app offers, each with its agent registry, default opponent and hint agent.

use std::sync::Arc;

use search::Registry;
use serde_json::{json, Value};

use crate::error::ApiError;
use crate::session::{GameSession, Session};
use crate::view::WebGame;

/// One game type, with its agents, as the server sees it.
pub trait GameKind: Send + Sync {
    /// The game id (`othello8`, `omok`, ...).
    fn id(&self) -> &'static str;
    /// The catalog entry as JSON.
    fn info(&self) -> Value;
    /// Every agent with its keys, as JSON.
    fn agents(&self) -> Value;
    /// The default opponent's spec.
    fn default_agent(&self) -> &str;
    /// A new game, whose agents may use `models` (this game's models, chosen by name) and
    /// search tables of at most `table_cap` bytes (the server's whole memory budget).
    ///
    /// # Errors
    /// 400 when a player spec is not an agent of this game, or needs more tables than that.
    fn create(
        &self,
        black: &str,
        white: &str,
        seed: u64,
        models: Arc<Vec<Model>>,
        table_cap: usize,
    ) -> Result<Box<dyn Session>, ApiError>;
}

pub use catalog::models::Model;

/// A model as `/api/catalog` lists it.
fn model_json(m: &Model) -> Value {
    json!({"name": m.name, "game": m.game, "algo": m.algo, "spec": m.spec()})
}

struct Kind<G: WebGame> {
    label: String,
    registry: Arc<Registry<G>>,
    default_agent: String,
    hint_agent: String,
}

impl<G: WebGame> GameKind for Kind<G> {
    fn id(&self) -> &'static str {
        G::ID
    }

    fn info(&self) -> Value {
        json!({
            "id": G::ID,
            "label": self.label,
            "family": G::FAMILY,
            "size": G::BOARD_SIZE,
            "rule": G::rule(),
            "default_agent": self.default_agent,
            "hint_agent": self.hint_agent,
        })
    }

    fn agents(&self) -> Value {
        let agents: Vec<Value> = self
            .registry
            .describe()
            .into_iter()
            .map(|info| {
                let keys: Vec<Value> = info
                    .keys
                    .iter()
                    .map(|&(key, about)| match info.kind(key) {
                        search::KeyKind::Setting => json!({"key": key, "about": about}),
                        search::KeyKind::File { words } => {
                            json!({"key": key, "about": about, "names": "file", "words": words})
                        }
                        search::KeyKind::Program => {
                            json!({"key": key, "about": about, "names": "program"})
                        }
                        search::KeyKind::Model => {
                            json!({"key": key, "about": about, "names": "model"})
                        }
                    })
                    .collect();
                json!({"name": info.name, "about": info.about, "keys": keys})
            })
            .collect();
        json!({ "agents": agents })
    }

    fn default_agent(&self) -> &str {
        &self.default_agent
    }

    fn create(
        &self,
        black: &str,
        white: &str,
        seed: u64,
        models: Arc<Vec<Model>>,
        table_cap: usize,
    ) -> Result<Box<dyn Session>, ApiError> {
        Ok(Box::new(GameSession::new(
            Arc::clone(&self.registry),
            &self.hint_agent,
            models,
            [black, white],
            seed,
            table_cap,
        )?))
    }
}

/// The games on offer, in menu order.
#[derive(Clone, Default)]
pub struct AppGames {
    kinds: Vec<Arc<dyn GameKind>>,
    models: Vec<Model>,
}

impl AppGames {
    /// An empty catalog.
    #[must_use]
    pub fn new() -> Self {
        AppGames::default()
    }

    /// Adds a game with its agents, the spec of the default opponent and of the hint agent.
    #[must_use]
    pub fn with<G: WebGame>(
        mut self,
        label: &str,
        registry: Registry<G>,
        default_agent: &str,
        hint_agent: &str,
    ) -> Self {
        self.kinds.push(Arc::new(Kind {
            label: label.to_string(),
            registry: Arc::new(registry),
            default_agent: default_agent.to_string(),
            hint_agent: hint_agent.to_string(),
        }));
        self
    }

    /// Every game of the game catalog ([`catalog::GameId::MENU`] order) with its local agents
    /// (no external programs), default opponent and hint agent.
    #[must_use]
    pub fn standard() -> Self {
        use catalog::CatalogGame;
        let mut app = AppGames::new();
        for id in catalog::GameId::MENU {
            app = catalog::with_game!(id, G => app.with(
                id.title(),
                catalog::local_registry::<G>(),
                G::DEFAULT_OPPONENT,
                G::HINT_AGENT,
            ));
        }
        app
    }

    /// The trained models the app offers (see [`Model`]).
    #[must_use]
    pub fn with_models(mut self, models: Vec<Model>) -> Self {
        self.models = models;
        self
    }

    /// The models of game `id`.
    #[must_use]
    pub fn models_of(&self, id: &str) -> Vec<Model> {
        self.models
            .iter()
            .filter(|m| m.game == id)
            .cloned()
            .collect()
    }

    /// The game with this id.
    #[must_use]
    pub fn get(&self, id: &str) -> Option<&Arc<dyn GameKind>> {
        self.kinds.iter().find(|k| k.id() == id)
    }

    /// The ids, in menu order.
    #[must_use]
    pub fn ids(&self) -> Vec<&'static str> {
        self.kinds.iter().map(|k| k.id()).collect()
    }

    /// The catalog as JSON.
    #[must_use]
    pub fn json(&self) -> Value {
        json!({
            "games": self.kinds.iter().map(|k| k.info()).collect::<Vec<_>>(),
            "models": self.models.iter().map(model_json).collect::<Vec<_>>(),
        })
    }
}
