//! Where the bundled models are: the folder of trained weights and cards shipped with stonelab,
//! found wherever the program is started from (or a plain list of the places looked in).

use std::path::{Path, PathBuf};

/// The environment variable that names the bundled models' folder (it overrides the search).
pub const MODELS_ENV: &str = "STONELAB_MODELS";

/// A file every bundled models folder holds: a folder without it is not stonelab's.
const MARKER: &str = "othello8-patterns.json";

/// The bundled models' folder, or the places looked in when none holds them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BundledModels {
    /// The folder found.
    pub dir: Option<PathBuf>,
    /// Every place looked in, in order.
    pub looked: Vec<PathBuf>,
}

impl BundledModels {
    /// Looks for the bundled models: the folder `STONELAB_MODELS` names when it is set (and
    /// only there), else `models/` in the current folder, beside the executable (also
    /// `../share/stonelab/models` and, for a cargo build, the `models/` two folders up) and in
    /// the source tree the program was built from.
    #[must_use]
    pub fn locate() -> Self {
        let exe = std::env::current_exe().ok();
        Self::locate_from(
            std::env::var_os(MODELS_ENV).map(PathBuf::from),
            exe.as_deref(),
        )
    }

    /// [`locate`](Self::locate) with the environment's folder and the executable given.
    #[must_use]
    pub fn locate_from(env: Option<PathBuf>, exe: Option<&Path>) -> Self {
        let candidates = match env {
            Some(dir) => vec![dir],
            None => {
                let mut list = vec![PathBuf::from("models")];
                if let Some(bin) = exe.and_then(Path::parent) {
                    list.push(bin.join("models"));
                    list.push(bin.join("../share/stonelab/models"));
                    list.push(bin.join("../../models"));
                }
                list.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models"));
                list
            }
        };
        let dir = candidates
            .iter()
            .find(|dir| dir.join(MARKER).is_file())
            .cloned();
        BundledModels {
            dir,
            looked: candidates,
        }
    }

    /// The bundled file `name` (`othello8-cnn.safetensors`), when the folder was found.
    #[must_use]
    pub fn file(&self, name: &str) -> Option<PathBuf> {
        self.dir.as_ref().map(|d| d.join(name))
    }

    /// The file a `model=` value names: an existing path as it is, else a bundled model's
    /// name (`othello8-cnn` or `othello8-cnn.safetensors`) when the bundled folder holds it,
    /// else the value as a path (whose loading then says that no such file exists).
    #[must_use]
    pub fn model_file(value: &str) -> PathBuf {
        let given = PathBuf::from(value);
        if given.exists() || value.contains(['/', '\\']) {
            return given;
        }
        let file = if value.ends_with(".safetensors") {
            value.to_string()
        } else {
            format!("{value}.safetensors")
        };
        match Self::locate().file(&file) {
            Some(bundled) if bundled.is_file() => bundled,
            _ => given,
        }
    }

    /// The places looked in, for a message: "models, /usr/bin/models, ...".
    #[must_use]
    pub fn looked_in(&self) -> String {
        self.looked
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Why no folder was found, in words (set `STONELAB_MODELS`).
    #[must_use]
    pub fn missing_message(&self) -> String {
        format!(
            "the bundled models were not found (looked in {}; set {MODELS_ENV} to the folder \
             holding {MARKER})",
            self.looked_in()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The source tree's folder is found from any current folder; a folder named by the
    /// environment is the only place looked in.
    #[test]
    fn the_bundled_folder_is_found_from_anywhere_and_the_environment_overrides() {
        let found = BundledModels::locate_from(None, Some(Path::new("/nowhere/bin/stonelab")));
        let dir = found.dir.expect("the source tree's models");
        assert!(dir.join("othello8-cnn.safetensors").is_file(), "{dir:?}");
        let beside = std::env::temp_dir().join(format!("stonelab-bundled-{}", std::process::id()));
        std::fs::create_dir_all(beside.join("bin/models")).expect("folder");
        std::fs::write(beside.join("bin/models").join(MARKER), b"{}").expect("marker");
        let found = BundledModels::locate_from(None, Some(&beside.join("bin/stonelab")));
        // The current folder (the crate's, under cargo test) has no models/, the executable's has.
        assert_eq!(found.dir, Some(beside.join("bin/models")));
        let env = BundledModels::locate_from(Some(beside.join("none")), None);
        assert_eq!(env.dir, None);
        assert_eq!(env.looked, [beside.join("none")]);
        assert!(env.missing_message().contains(MODELS_ENV));
        let _ = std::fs::remove_dir_all(&beside);
    }
}
