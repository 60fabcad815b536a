//! The `alphazero` trainer's model files: the bundled 4x4 model loads back into the network,
//! is refused as a model of another board, and plays optimally at every reachable 4x4 position.
//! (Resume, same-seed bytes and damaged checkpoints are checked for every trainer, this one
//! included, in `run.rs`.)

use std::path::Path;

use game::Game;
use learn::alphazero::{PvEvaluator, PvNet};
use othello::Othello4;
use search::PolicyValue;

#[test]
fn the_bundled_4x4_model_loads_back_and_is_no_6x6_model() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models/othello4-az.safetensors");
    let (net, card, arch) = PvNet::load::<Othello4>(&path).expect("loads");
    assert_eq!(card.algo, "az");
    assert_eq!((arch.blocks, arch.channels), (2, 32));
    let eval = PvEvaluator::<Othello4>::new(&net);
    let out = eval.policy_value(&[Othello4::new()]);
    let sum: f32 = out[0].priors.iter().sum();
    assert!((sum - 1.0).abs() < 1e-4);
    let legal = Othello4::new().legal_moves();
    for (a, p) in out[0].priors.iter().enumerate() {
        let is_legal = legal.iter().any(|&m| Othello4::action_index(m) == a);
        assert!(is_legal || *p == 0.0, "prior on illegal action {a}");
    }
    let e = PvNet::load::<othello::Othello6>(&path).expect_err("refused");
    assert!(e.to_string().contains("othello4"), "{e}");
}

/// The bundled 4x4 model (`docs/alphazero.md` gives the command that trained it) at every
/// position reachable from the start: its search plays a move of best exact value at 99% or
/// more of the choices, and its value head has the exact result's sign at 80% or more of the positions (85.3% measured, mean squared error 0.33).
#[test]
fn the_bundled_4x4_model_plays_optimally_at_every_reachable_position() {
    use learn::alphazero::exactness;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models/othello4-az.safetensors");
    let (net, card, _) = PvNet::load::<Othello4>(&path).expect("the bundled 4x4 model");
    assert_eq!(card.algo, "az");
    let eval = PvEvaluator::<Othello4>::new(&net);
    let table = exactness::othello4_table().expect("value iteration");
    let config = search::PuctConfig {
        sims: Some(EXACT_SIMS),
        ..search::PuctConfig::default()
    };
    let r = exactness::othello4(&eval, &table, &config, 512);
    assert!(r.choices > 20_000, "{r:?}");
    let share = |k: usize, n: usize| k as f64 / n as f64;
    assert!(share(r.search_optimal, r.choices) >= 0.99, "{r:?}");
    assert!(share(r.value_sign, r.positions) >= 0.8, "{r:?}");
    assert!(r.value_mse < 0.4, "{r:?}");
}

/// Simulations per move of the 4x4 exactness check (the `az` agent's default is 400).
const EXACT_SIMS: u32 = 64;
