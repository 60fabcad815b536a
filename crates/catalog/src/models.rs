//! Trained models on disk: the [`Model`] type the app offers and their discovery in the
//! bundled folder and in folders a user names (cards read and checked by `learn::checkpoint`).

use std::path::{Path, PathBuf};

use crate::BundledModels;

/// A trained model the app offers. Pages choose it by `name` (`dqn:model=NAME`); only the
/// server knows its path, and no other file is ever read for a page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Model {
    /// The name pages use: the file stem for `models/`, `FOLDER/STEM` for other folders.
    pub name: String,
    /// The game it plays (from its card).
    pub game: String,
    /// Its agent (`dqn`, `q-mlp`; from its card).
    pub algo: String,
    /// The weights file.
    pub path: PathBuf,
}

impl Model {
    /// The agent spec that plays it.
    #[must_use]
    pub fn spec(&self) -> String {
        format!("{}:model={}", self.algo, self.name)
    }

    /// `text` with every mention of where the server keeps this model (its weights file, its
    /// card, their folder) replaced by the model's name: messages for a page name models only.
    #[must_use]
    pub fn scrub(&self, text: &str) -> String {
        let card = self.path.with_extension("json");
        let mut places = vec![
            (self.path.display().to_string(), self.name.clone()),
            (card.display().to_string(), format!("{}'s card", self.name)),
        ];
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            places.push((
                dir.display().to_string(),
                "(the server's model folder)".into(),
            ));
        }
        if let Ok(full) = self.path.canonicalize() {
            if let Some(dir) = full.parent() {
                places.push((full.display().to_string(), self.name.clone()));
                places.push((
                    dir.display().to_string(),
                    "(the server's model folder)".into(),
                ));
            }
        }
        let text = places.iter().fold(text.to_string(), |text, (place, name)| {
            text.replace(place.as_str(), name)
        });
        // Checksums say nothing a page needs.
        text.split(' ')
            .map(|word| {
                let hex = word.trim_matches(|c: char| !c.is_ascii_alphanumeric());
                if hex.len() == 64 && hex.chars().all(|c| c.is_ascii_hexdigit()) {
                    word.replace(hex, "…")
                } else {
                    word.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// What [`discover`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Discovered {
    /// The models, sorted by name, each once.
    pub models: Vec<Model>,
    /// Why model files were passed over (or that no bundled folder was found).
    pub warnings: Vec<String>,
}

/// Why the named model folders cannot be served.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiscoverError(pub String);

impl std::fmt::Display for DiscoverError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DiscoverError {}

/// The models of the bundled folder ([`BundledModels::locate`]) and of `extra` folders (each
/// its own files and a run folder's `checkpoints/`, named `FOLDER/STEM`), sorted by name, with
/// the warnings for model files passed over (no card, a name with odd characters, weights that
/// do not match their card's sha256).
///
/// # Errors
/// An `extra` folder that is missing, not a folder, or holds no model, and two models that
/// would share a name.
pub fn discover(extra: &[PathBuf]) -> Result<Discovered, DiscoverError> {
    let mut warnings = Vec::new();
    let bundled = BundledModels::locate();
    let mut models = match &bundled.dir {
        Some(dir) => find_models(dir, None, &mut warnings),
        None => {
            warnings.push(format!(
                "{}: the app offers no trained models",
                bundled.missing_message()
            ));
            Vec::new()
        }
    };
    for dir in extra {
        if !dir.exists() {
            return Err(DiscoverError(format!(
                "--models {}: no such folder",
                dir.display()
            )));
        }
        if !dir.is_dir() {
            return Err(DiscoverError(format!(
                "--models {}: not a folder (name the folder that holds the models, or a run \
                 folder)",
                dir.display()
            )));
        }
        // A run folder keeps its models in `checkpoints/`; that folder given itself takes its
        // run's name.
        let full = dir.canonicalize().unwrap_or_else(|_| dir.clone());
        let named_after = if full.file_name().is_some_and(|n| n == "checkpoints") {
            full.parent().unwrap_or(&full)
        } else {
            &full
        };
        let prefix = named_after
            .file_name()
            .map_or_else(|| "models".into(), |n| n.to_string_lossy().into_owned());
        let mut passed_over = Vec::new();
        let mut found = find_models(dir, Some(&prefix), &mut passed_over);
        let checkpoints = dir.join("checkpoints");
        if checkpoints.is_dir() {
            found.extend(find_models(&checkpoints, Some(&prefix), &mut passed_over));
        }
        if found.is_empty() {
            return Err(DiscoverError(format!(
                "--models {}: no model found (files NAME.safetensors with their NAME.json cards, \
                 in the folder or in a run folder's checkpoints/){}",
                dir.display(),
                if passed_over.is_empty() {
                    String::new()
                } else {
                    format!("; passed over: {}", passed_over.join("; "))
                }
            )));
        }
        warnings.extend(passed_over);
        models.extend(found);
    }
    // The same file reached twice (a run folder and its checkpoints/, or one folder given
    // twice) is offered once.
    models.sort_by(|a, b| a.name.cmp(&b.name));
    models.dedup_by(|a, b| {
        a.name == b.name
            && a.path.canonicalize().ok().is_some()
            && a.path.canonicalize().ok() == b.path.canonicalize().ok()
    });
    if let Some(pair) = models.windows(2).find(|w| w[0].name == w[1].name) {
        return Err(DiscoverError(format!(
            "two models would be offered as {}: {} and {} (give their folders different names)",
            pair[0].name,
            pair[0].path.display(),
            pair[1].path.display()
        )));
    }
    Ok(Discovered { models, warnings })
}

/// The models in `dir`: each `*.safetensors` whose card names
/// its game and agent. Names are the file stem, after `prefix/` when given.
fn find_models(dir: &Path, prefix: Option<&str>, warnings: &mut Vec<String>) -> Vec<Model> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for path in entries.filter_map(Result::ok).map(|e| e.path()) {
        if path.extension().is_none_or(|e| e != "safetensors") {
            continue;
        }
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        // Names travel inside agent specs: keep them to plain characters.
        if !stem
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        {
            warnings.push(format!(
                "model {}: skipped (rename it to letters, digits, '-', '_' and '.')",
                path.display()
            ));
            continue;
        }
        match read_card(&path) {
            Ok((game, algo)) => found.push(Model {
                name: prefix.map_or_else(|| stem.to_string(), |p| format!("{p}/{stem}")),
                game,
                algo,
                path,
            }),
            Err(e) => warnings.push(format!("model {}: skipped ({e})", path.display())),
        }
    }
    found
}

/// The game and agent a model's card names, once its weights match the card's sha256 (a
/// damaged model is passed over at start rather than refused on every request).
fn read_card(weights: &Path) -> Result<(String, String), String> {
    let card = learn::checkpoint::card_path(weights);
    if !card.is_file() {
        return Err(format!("no card {}", card.display()));
    }
    let (card, _) = learn::checkpoint::read_model(weights).map_err(|e| match e {
        learn::checkpoint::ModelError::Checksum { .. } => {
            "its weights do not match the sha256 of its card (incomplete or changed file)"
                .to_string()
        }
        other => other.to_string(),
    })?;
    Ok((card.game, card.algo))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn models_of(found: &Discovered, game: &str) -> Vec<Model> {
        found
            .models
            .iter()
            .filter(|m| m.game == game)
            .cloned()
            .collect()
    }

    /// The repository's `models/` folder, wherever the test runs from.
    fn bundled(file: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../models")
            .join(file)
    }

    /// A run folder keeps its model in `checkpoints/`: `--models RUN` and `--models
    /// RUN/checkpoints` offer it as `RUN/last`; a missing folder, a folder with no model and two
    /// models that would share a name are refused, naming the problem.
    #[test]
    fn model_folders_offer_run_checkpoints_and_refuse_what_offers_nothing() {
        let root = std::env::temp_dir().join(format!("stonelab-serve-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for run in ["a/myrun", "b/myrun"] {
            let checkpoints = root.join(run).join("checkpoints");
            std::fs::create_dir_all(&checkpoints).expect("folder");
            for ext in ["safetensors", "json"] {
                std::fs::copy(
                    bundled(&format!("othello8-dqn.{ext}")),
                    checkpoints.join(format!("last.{ext}")),
                )
                .expect("copy");
            }
        }
        let offered = |dirs: &[PathBuf]| -> Vec<String> {
            let found = discover(dirs).expect("models");
            models_of(&found, "othello8")
                .into_iter()
                .map(|m| m.name)
                .filter(|n| n.contains('/'))
                .collect()
        };
        let run = root.join("a/myrun");
        assert_eq!(offered(std::slice::from_ref(&run)), ["myrun/last"]);
        assert_eq!(offered(&[run.join("checkpoints")]), ["myrun/last"]);
        // The same file reached twice is offered once.
        assert_eq!(
            offered(&[run.clone(), run.join("checkpoints"), run.clone()]),
            ["myrun/last"]
        );
        let error = |dirs: &[PathBuf]| match discover(dirs) {
            Ok(_) => panic!("{dirs:?} accepted"),
            Err(e) => e.to_string(),
        };
        let both = error(&[run.clone(), root.join("b/myrun")]);
        assert!(
            both.contains("two models would be offered as myrun/last"),
            "{both}"
        );
        let missing = error(&[root.join("nowhere")]);
        assert!(missing.ends_with("no such folder"), "{missing}");
        std::fs::create_dir_all(root.join("empty")).expect("folder");
        let empty = error(&[root.join("empty")]);
        assert!(empty.contains("no model found"), "{empty}");
        // A folder whose only model was passed over says why.
        std::fs::write(root.join("empty/bad.safetensors"), b"x").expect("write");
        let bad = error(&[root.join("empty")]);
        assert!(
            bad.contains("passed over: model") && bad.contains("bad.safetensors: skipped (no card"),
            "{bad}"
        );
        let file = run.join("checkpoints/last.json");
        assert!(error(&[file]).contains("not a folder"));
        let _ = std::fs::remove_dir_all(&root);
    }

    /// A model whose weights no longer match its card's sha256 is left out at start, with a
    /// warning saying why; the good model beside it is offered.
    #[test]
    fn damaged_models_are_left_out_at_start_with_a_warning() {
        let root = std::env::temp_dir().join(format!("stonelab-serve-sha-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).expect("folder");
        for name in ["good", "bad"] {
            for ext in ["safetensors", "json"] {
                std::fs::copy(
                    bundled(&format!("othello8-dqn.{ext}")),
                    root.join(format!("{name}.{ext}")),
                )
                .expect("copy");
            }
        }
        let mut bytes = std::fs::read(root.join("bad.safetensors")).expect("read");
        bytes[100] ^= 0xff;
        std::fs::write(root.join("bad.safetensors"), bytes).expect("write");
        let found = discover(std::slice::from_ref(&root)).expect("models");
        let warnings = &found.warnings;
        let prefix = root.file_name().and_then(|n| n.to_str()).expect("name");
        let names: Vec<String> = models_of(&found, "othello8")
            .into_iter()
            .map(|m| m.name)
            .filter(|n| n.starts_with(prefix))
            .collect();
        assert_eq!(names, [format!("{prefix}/good")]);
        assert!(
            warnings.iter().any(|w| w.contains(
                "bad.safetensors: skipped (its weights do not \
                                                 match the sha256 of its card"
            )),
            "{warnings:?}"
        );
        let _ = std::fs::remove_dir_all(&root);
    }
}
