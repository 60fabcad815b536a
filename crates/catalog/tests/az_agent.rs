//! The `az` agent from its spec: the bundled 4x4 model plays every game it meets to the end
//! with proven scores near the end, its keys are checked, and a model of another board is
//! refused naming the board it plays.

use catalog::CatalogGame;
use game::Game;
use othello::{Othello4, Othello6};
use search::{Budget, Score};

fn model() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../models/othello4-az.safetensors");
    path.display().to_string()
}

#[test]
fn the_az_agent_plays_the_bundled_4x4_model_to_the_end() {
    let registry = Othello4::registry();
    for spec in [
        format!("az:model={},sims=48", model()),
        format!("az:model={},sims=32,gumbel=8", model()),
        format!("az:model={},time=30ms,solver=0", model()),
    ] {
        let mut agent = registry.build(&spec, 3).expect("builds");
        agent.new_game();
        let mut pos = Othello4::start();
        let mut proven = 0;
        while !pos.is_over() {
            let d = agent.select(&pos, &Budget::default()).expect("a move");
            assert!(pos.is_legal(d.mv), "{spec}: {} is not legal", d.mv);
            proven += usize::from(matches!(d.value(), Some(Score::Proven { .. })));
            let next = pos.play(d.mv).expect("legal");
            agent.observe(d.mv, &next);
            pos = next;
        }
        assert!(proven > 0, "{spec}: the end of a 4x4 game is proven");
    }
}

#[test]
fn bad_az_specs_are_refused_naming_the_problem() {
    let registry = Othello6::registry();
    let e = registry
        .build(&format!("az:model={}", model()), 1)
        .err()
        .expect("a 4x4 model on 6x6")
        .to_string();
    assert!(e.contains("othello4"), "{e}");
    let r4 = Othello4::registry();
    for (spec, says) in [
        ("az".to_string(), "required"),
        (format!("az:model={},sims=0", model()), "at least 1"),
        (
            format!("az:model={},sims=1000000", model()),
            "at most 100000",
        ),
        (format!("az:model={},gumbel=9999", model()), "at most 512"),
        (format!("az:model={},solver=30", model()), "at most 20"),
        (
            "az:model=no-such-file.safetensors".to_string(),
            "no-such-file",
        ),
    ] {
        let e = r4.build(&spec, 1).err().expect(&spec).to_string();
        assert!(e.contains(says), "{spec}: {e}");
    }
}

/// A bundled model is named by its name in every front end, as the web app's menu names it:
/// `model=othello8-dqn` finds the bundled file; a name that is not bundled is refused as a
/// missing file.
#[test]
fn bundled_models_are_named_by_name() {
    let r4 = Othello4::registry();
    let mut agent = r4.build("az:model=othello4-az,sims=8", 1).expect("by name");
    let d = agent
        .select(&Othello4::start(), &Budget::default())
        .expect("a move");
    assert!(Othello4::start().is_legal(d.mv));
    let r8 = othello::Othello8::registry();
    for spec in [
        "dqn:model=othello8-dqn",
        "cnn-minimax:model=othello8-cnn.safetensors,depth=1",
        "az:model=othello8-az,sims=8",
    ] {
        r8.build(spec, 1).unwrap_or_else(|e| panic!("{spec}: {e}"));
    }
    let e = r4
        .build("az:model=othello5-az", 1)
        .err()
        .expect("no such bundled model")
        .to_string();
    assert!(e.ends_with("othello5-az: no such model file"), "{e}");
}
