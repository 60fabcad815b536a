//! `config.json` files as earlier versions wrote them (one per trainer, copied from real runs)
//! load into the typed `RunConfig` and are written back byte for byte: the settings' sections
//! (`dqn`, `q_mlp` as `null` when unused; `value`, `value_self_play`, `eval_opponents` only
//! when set) keep their shape.

use learn::{AlgoSettings, RunConfig};

const CONFIGS: &[(&str, &str)] = &[
    ("q-mlp", include_str!("data/configs/qmlp.json")),
    ("dqn", include_str!("data/configs/dqn.json")),
    ("dqn", include_str!("data/configs/dqn-eval-opponents.json")),
    (
        "dqn-self-play",
        include_str!("data/configs/dqn-self-play.json"),
    ),
    (
        "dqn-competitive",
        include_str!("data/configs/dqn-competitive.json"),
    ),
    ("mlp-supervised", include_str!("data/configs/mlp.json")),
    ("cnn-supervised", include_str!("data/configs/cnn.json")),
    ("cnn-selfplay", include_str!("data/configs/selfplay.json")),
];

#[test]
fn every_earlier_config_loads_typed_and_is_written_back_byte_for_byte() {
    for (algo, text) in CONFIGS {
        let config: RunConfig = serde_json::from_str(text).expect("an earlier config.json");
        assert_eq!(config.algo, *algo);
        let kind = learn::algos::find(algo).expect("a registry entry").settings;
        assert!(config.settings.fits(kind), "{algo}: {:?}", config.settings);
        let back = serde_json::to_string_pretty(&config).expect("serialise");
        assert_eq!(back.trim_end(), text.trim_end(), "{algo}");
    }
}

#[test]
fn a_config_without_its_settings_or_of_an_unknown_algorithm_is_refused() {
    let dqn: serde_json::Value = serde_json::from_str(CONFIGS[1].1).expect("json");
    let mut without = dqn.clone();
    without["dqn"] = serde_json::Value::Null;
    let e = serde_json::from_value::<RunConfig>(without).expect_err("no dqn section");
    assert!(
        e.to_string().contains("a dqn run needs dqn settings"),
        "{e}"
    );
    let mut unknown = dqn.clone();
    unknown["algo"] = "dqn-2".into();
    let e = serde_json::from_value::<RunConfig>(unknown).expect_err("unknown algorithm");
    assert!(
        e.to_string().contains("unknown algorithm \"dqn-2\"") && e.to_string().contains("q-mlp"),
        "{e}"
    );
    // Settings of another kind than the algorithm's are refused by `validate`.
    let mut config: RunConfig = serde_json::from_value(dqn).expect("dqn config");
    config.settings = AlgoSettings::QMlp(learn::qmlp::QMlpSettings::default());
    let e = config.validate().expect_err("q-mlp settings for dqn");
    assert!(
        e.to_string().contains("needs dqn settings, not q_mlp"),
        "{e}"
    );
}
