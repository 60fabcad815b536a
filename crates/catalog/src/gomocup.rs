//! The Gomocup brain's dispatch: a board size and rule from the manager's `START`/`INFO` to the
//! preset type, with the agent built from the catalog.

use gomoku::{presets, Rule, Variant};
use protocol::{AgentBrain, BrainFactory, GomocupBrain};

use crate::CatalogGame;

/// The brain for one board size and rule, built from the spec.
fn brain<V: Variant + Send + Sync + 'static>(
    spec: &str,
    seed: u64,
) -> Result<Box<dyn GomocupBrain>, String> {
    let parsed: search::Spec = spec.parse().map_err(|e: search::SpecError| e.to_string())?;
    let own_time = parsed.duration("time").map_err(|e| e.to_string())?;
    let agent = gomoku::Gomoku::<V>::registry()
        .build_spec(&parsed, seed)
        .map_err(|e| e.to_string())?;
    // The spec's own `time=` caps what the manager allows per move.
    Ok(Box::new(
        AgentBrain::<V>::new(agent).with_time_cap(own_time),
    ))
}

/// Checks an agent spec once, before a session starts, by building it for 15x15 freestyle
/// (every board offers the same agents). A learned agent's model plays one board only, so for
/// those only the name and keys are checked here: the model is loaded at `START`, when the
/// board is known, and refused there if it plays another board.
///
/// # Errors
/// The registry's message for a spec that names no agent, a bad key or a bad value.
pub fn validate_gomocup_agent(spec: &str) -> Result<(), search::SpecError> {
    let registry = gomoku::Gomoku15::registry();
    let parsed: search::Spec = spec.parse()?;
    if crate::agents::LEARNED.contains(&parsed.name.as_str()) {
        registry.check_names(spec)
    } else {
        registry.validate(spec)
    }
}

/// The boards [`gomocup_factory`] plays, in words.
pub const GOMOCUP_SIZES: &str = "15x15, 19x19 and 20x20 boards (and 9x9 freestyle)";

/// Brains for every board the Gomocup protocol may ask for: 15x15, 19x19 and 20x20 under every
/// rule, and 9x9 freestyle; another size is answered with an error naming what is supported.
#[must_use]
pub fn gomocup_factory(spec: String, seed: u64) -> BrainFactory {
    Box::new(move |size, rule| match (size, rule) {
        (9, Rule::Freestyle) => brain::<presets::Freestyle9>(&spec, seed),
        (15, Rule::Freestyle) => brain::<presets::Freestyle15>(&spec, seed),
        (19, Rule::Freestyle) => brain::<presets::Freestyle19>(&spec, seed),
        (20, Rule::Freestyle) => brain::<presets::Freestyle20>(&spec, seed),
        (15, Rule::Standard) => brain::<presets::Standard15>(&spec, seed),
        (19, Rule::Standard) => brain::<presets::Standard19>(&spec, seed),
        (20, Rule::Standard) => brain::<presets::Standard20>(&spec, seed),
        (15, Rule::Renju) => brain::<presets::Renju15>(&spec, seed),
        (19, Rule::Renju) => brain::<presets::Renju19>(&spec, seed),
        (20, Rule::Renju) => brain::<presets::Renju20>(&spec, seed),
        _ => Err(format!("stonelab plays {GOMOCUP_SIZES}")),
    })
}
