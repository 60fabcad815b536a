//! Model files: weights as safetensors beside a JSON card (architecture, settings, training
//! progress, sha256, last evaluation), atomic writes, and checked loading.

use std::fs::File;
use std::path::{Path, PathBuf};

use burn::module::Module;
use burn::store::{ModuleSnapshot, SafetensorsStore};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The card format written by this version.
pub const CARD_FORMAT: &str = "stonelab-model/1";

/// What a model file is: read from and written beside the weights (`x.safetensors` → `x.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Card {
    /// Always [`CARD_FORMAT`].
    pub format: String,
    /// `dqn` or `q-mlp`.
    pub algo: String,
    /// The game it was trained on (`othello8`, ...).
    pub game: String,
    /// Board side.
    pub board_size: usize,
    /// The network's architecture, as its model module writes it (`dqn`: a
    /// [`QNetArch`](crate::QNetArch)); absent where the shape is fixed (`q-mlp`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arch: Option<serde_json::Value>,
    /// The training settings.
    pub config: serde_json::Value,
    /// Training episodes behind these weights.
    pub episodes: usize,
    /// Gradient steps behind these weights.
    pub train_steps: u64,
    /// File name of the weights (in the card's folder).
    pub weights: String,
    /// sha256 of the weights file, lower-case hex.
    pub sha256: String,
    /// Size of the weights file.
    pub bytes: u64,
    /// The last evaluation (against `random` and `greedy`), if any.
    #[serde(default)]
    pub last_eval: serde_json::Value,
}

/// Errors reading or writing model files.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The card is missing fields, malformed, or of another format.
    #[error("model card {path}: {why}")]
    Card {
        /// The card.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// A card or weights file that is not a regular file or is larger than it can be.
    #[error("{path}: {why}")]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// The weights do not match the card's sha256 (a partial or changed file).
    #[error(
        "{path}: sha256 {found} does not match the card's {expected} (incomplete or changed file)"
    )]
    Checksum {
        /// The weights.
        path: PathBuf,
        /// From the card.
        expected: String,
        /// Of the file.
        found: String,
    },
    /// The weights do not fit the network the card describes.
    #[error("weights: {0}")]
    Weights(String),
    /// The model is for another game or algorithm.
    #[error("{0}")]
    Mismatch(String),
    /// A training-state file (optimizer, replay buffer, visit counts, counters) is damaged.
    #[error("training state {path}: {why}")]
    State {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ModelError + '_ {
    move |source| ModelError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Lower-case hex sha256 of `bytes`.
#[must_use]
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Writes `bytes` to `path` atomically: a temporary file in the same folder, synced, then
/// renamed over `path`.
///
/// # Errors
/// [`ModelError::Io`].
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ModelError> {
    files::write_atomic(path, bytes).map_err(|e| match e {
        files::FileError::Io { path, source } => ModelError::Io { path, source },
        other => ModelError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::other(other.to_string()),
        },
    })
}

/// The card of a weights file: `x.safetensors` → `x.json`.
#[must_use]
pub fn card_path(weights: &Path) -> PathBuf {
    weights.with_extension("json")
}

/// A module's parameters as safetensors bytes.
///
/// # Errors
/// [`ModelError::Weights`] if burn cannot serialise them.
pub fn weights_bytes<M: Module>(module: &M) -> Result<Vec<u8>, ModelError> {
    let mut store = SafetensorsStore::from_bytes(None);
    module
        .save_into(&mut store)
        .map_err(|e| ModelError::Weights(e.to_string()))?;
    let bytes = store
        .get_bytes()
        .map_err(|e| ModelError::Weights(e.to_string()))?;
    canonical_safetensors(&bytes)
}

/// A module in burn's own state format (parameters with their ids, so an optimizer's state
/// still matches them after loading): what training checkpoints keep of a network in training.
///
/// # Errors
/// [`ModelError::Weights`] if burn cannot serialise it.
pub fn state_bytes<M: Module>(module: &M) -> Result<Vec<u8>, ModelError> {
    use burn::store::BurnpackStore;
    let mut store = BurnpackStore::from_bytes(None);
    module
        .save_into(&mut store)
        .map_err(|e| ModelError::Weights(e.to_string()))?;
    let bytes = store
        .get_bytes()
        .map_err(|e| ModelError::Weights(e.to_string()))?;
    Ok(bytes.to_vec())
}

/// The same safetensors file with its JSON header written in one fixed order (keys sorted at
/// every level, padded with spaces to a multiple of 8 bytes): burn writes the metadata from a
/// hash map, so equal tensors would otherwise give different bytes and different sha256s.
///
/// # Errors
/// [`ModelError::Weights`] when `bytes` is no safetensors file.
pub fn canonical_safetensors(bytes: &[u8]) -> Result<Vec<u8>, ModelError> {
    let bad = |why: &str| ModelError::Weights(format!("not a safetensors file: {why}"));
    let len_bytes: [u8; 8] = bytes
        .get(..8)
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| bad("shorter than its header size"))?;
    let len = usize::try_from(u64::from_le_bytes(len_bytes)).map_err(|_| bad("header size"))?;
    let end = 8usize.checked_add(len).ok_or_else(|| bad("header size"))?;
    let header = bytes
        .get(8..end)
        .ok_or_else(|| bad("header past the end"))?;
    let value: serde_json::Value =
        serde_json::from_slice(header).map_err(|e| bad(&format!("header: {e}")))?;
    let mut text = serde_json::to_vec(&sorted(value)).map_err(|e| bad(&e.to_string()))?;
    while text.len() % 8 != 0 {
        text.push(b' ');
    }
    let mut out = Vec::with_capacity(8 + text.len() + bytes.len() - end);
    out.extend_from_slice(&(text.len() as u64).to_le_bytes());
    out.extend_from_slice(&text);
    out.extend_from_slice(&bytes[end..]);
    Ok(out)
}

/// `value` with every object's keys in sorted order.
fn sorted(value: serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Object(map) => {
            let mut entries: Vec<(String, serde_json::Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            serde_json::Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        serde_json::Value::Array(items) => {
            serde_json::Value::Array(items.into_iter().map(sorted).collect())
        }
        other => other,
    }
}

/// Loads safetensors bytes into `module`, refusing missing or misshapen tensors.
///
/// # Errors
/// [`ModelError::Weights`] naming what did not fit.
pub fn load_weights<M: Module>(module: &mut M, bytes: Vec<u8>) -> Result<(), ModelError> {
    load_weights_renamed(module, bytes, &[])
}

/// [`load_weights`] for files that may name tensors as an older version of the module did:
/// each `(pattern, replacement)` renames the matching names (a regex and its replacement)
/// before loading.
///
/// # Errors
/// [`ModelError::Weights`] naming what did not fit.
pub fn load_weights_renamed<M: Module>(
    module: &mut M,
    bytes: Vec<u8>,
    renames: &[(&str, &str)],
) -> Result<(), ModelError> {
    check_finite(&bytes)?;
    // The store reports every problem back instead of failing on the first with its own
    // (debug-formatted) text; the module is refused below all the same.
    let mut store = SafetensorsStore::from_bytes(Some(bytes))
        .validate(false)
        .allow_partial(true);
    for (from, to) in renames {
        store = store.with_key_remapping(from, *to);
    }
    let result = module
        .load_from(&mut store)
        .map_err(|e| ModelError::Weights(e.to_string()))?;
    let mut why: Vec<String> = result.errors.iter().map(apply_error).collect();
    why.extend(
        result
            .missing
            .iter()
            .map(|(p, _)| format!("{p} is missing")),
    );
    if why.is_empty() {
        return Ok(());
    }
    const SHOWN: usize = 4;
    let more = why.len().saturating_sub(SHOWN);
    why.truncate(SHOWN);
    let mut text = why.join("; ");
    if more > 0 {
        text.push_str(&format!("; {more} more"));
    }
    Err(ModelError::Weights(format!(
        "not the network the card describes: {text}"
    )))
}

/// Refuses a safetensors file whose floating-point tensors hold a NaN or an infinity (a
/// diverged training run's weights would otherwise play silently at random).
///
/// # Errors
/// [`ModelError::Weights`] naming the first such tensor, or a malformed file.
pub fn check_finite(bytes: &[u8]) -> Result<(), ModelError> {
    let bad = |why: String| ModelError::Weights(why);
    let len = bytes
        .get(..8)
        .and_then(|b| <[u8; 8]>::try_from(b).ok())
        .map(u64::from_le_bytes)
        .and_then(|l| usize::try_from(l).ok())
        .ok_or_else(|| bad("not a safetensors file: shorter than its header size".into()))?;
    let start = 8usize
        .checked_add(len)
        .filter(|&end| end <= bytes.len())
        .ok_or_else(|| bad("not a safetensors file: header past the end".into()))?;
    let header: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(&bytes[8..start])
            .map_err(|e| bad(format!("not a safetensors file: header: {e}")))?;
    let data = &bytes[start..];
    let mut names: Vec<&String> = header.keys().filter(|k| *k != "__metadata__").collect();
    names.sort();
    for name in names {
        let entry = &header[name];
        let offsets = entry["data_offsets"]
            .as_array()
            .and_then(|o| Some((o.first()?.as_u64()?, o.get(1)?.as_u64()?)))
            .and_then(|(a, b)| Some((usize::try_from(a).ok()?, usize::try_from(b).ok()?)))
            .ok_or_else(|| {
                bad(format!(
                    "not a safetensors file: {name} has no data offsets"
                ))
            })?;
        let values = data
            .get(offsets.0..offsets.1)
            .ok_or_else(|| bad(format!("not a safetensors file: {name} lies past the end")))?;
        let finite = match entry["dtype"].as_str() {
            Some("F32") => values
                .chunks_exact(4)
                .all(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]).is_finite()),
            Some("F64") => values.chunks_exact(8).all(|c| {
                f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]).is_finite()
            }),
            // Half precision: all exponent bits set is an infinity or a NaN.
            Some("F16") => values
                .chunks_exact(2)
                .all(|c| u16::from_le_bytes([c[0], c[1]]) & 0x7c00 != 0x7c00),
            Some("BF16") => values
                .chunks_exact(2)
                .all(|c| u16::from_le_bytes([c[0], c[1]]) & 0x7f80 != 0x7f80),
            _ => true,
        };
        if !finite {
            return Err(bad(format!(
                "{name} holds a NaN or an infinite value (a diverged training run?)"
            )));
        }
    }
    Ok(())
}

/// One tensor that did not load, in words.
fn apply_error(e: &burn::store::ApplyError) -> String {
    use burn::store::ApplyError;
    match e {
        ApplyError::ShapeMismatch {
            path,
            expected,
            found,
        } => format!(
            "{path} has shape {:?} in the file, {:?} in the network",
            found.as_slice(),
            expected.as_slice()
        ),
        ApplyError::DTypeMismatch {
            path,
            expected,
            found,
        } => format!("{path} holds {found:?} values, the network {expected:?}"),
        ApplyError::AdapterError { path, message } | ApplyError::LoadError { path, message } => {
            format!("{path}: {message}")
        }
    }
}

/// Writes `weights` and its card (the card's `weights`, `sha256` and `bytes` are filled in),
/// weights first, each atomically.
///
/// # Errors
/// [`ModelError::Io`].
pub fn write_model(path: &Path, weights: &[u8], mut card: Card) -> Result<Card, ModelError> {
    card.format = CARD_FORMAT.into();
    card.weights = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    card.sha256 = sha256_hex(weights);
    card.bytes = weights.len() as u64;
    write_atomic(path, weights)?;
    let text = serde_json::to_string_pretty(&card).map_err(|e| ModelError::Card {
        path: card_path(path),
        why: e.to_string(),
    })?;
    write_atomic(&card_path(path), text.as_bytes())?;
    Ok(card)
}

/// The largest model card read (cards are a few kilobytes).
pub const MAX_CARD_BYTES: u64 = 64 * 1024;

/// The largest weights file read (the bundled models are a few MiB).
pub const MAX_WEIGHTS_BYTES: u64 = 1 << 30;

/// Reads at most `limit` bytes of `path`: a longer file is refused without reading the rest.
///
/// # Errors
/// [`ModelError::Io`], or [`ModelError::Card`] for a file longer than `limit`.
pub fn read_capped(path: &Path, limit: u64) -> Result<Vec<u8>, ModelError> {
    use std::io::Read;
    // `metadata` never blocks, where opening a FIFO would.
    if !std::fs::metadata(path).map_err(io(path))?.is_file() {
        return Err(ModelError::File {
            path: path.to_path_buf(),
            why: "not a regular file".into(),
        });
    }
    let file = File::open(path).map_err(io(path))?;
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io(path))?;
    if bytes.len() as u64 > limit {
        return Err(ModelError::File {
            path: path.to_path_buf(),
            why: format!("longer than the {limit} bytes expected"),
        });
    }
    Ok(bytes)
}

/// Reads a weights file and its card (each read up to its size limit), checking the format
/// and the sha256.
///
/// # Errors
/// [`ModelError`] for unreadable files, a malformed card, or a checksum mismatch.
pub fn read_model(path: &Path) -> Result<(Card, Vec<u8>), ModelError> {
    if path.as_os_str().is_empty() {
        return Err(ModelError::File {
            path: path.to_path_buf(),
            why: "no file named: give the model's .safetensors file".into(),
        });
    }
    if path.extension().is_some_and(|e| e == "json") {
        return Err(ModelError::File {
            path: path.to_path_buf(),
            why: format!(
                "this is a model card: name its weights file ({}) instead",
                path.with_extension("safetensors").display()
            ),
        });
    }
    if !path.exists() {
        return Err(ModelError::File {
            path: path.to_path_buf(),
            why: "no such model file".into(),
        });
    }
    let card_file = card_path(path);
    if !card_file.exists() {
        return Err(ModelError::File {
            path: path.to_path_buf(),
            why: format!(
                "its card {} is missing (a model is its weights and the card written beside them)",
                card_file.display()
            ),
        });
    }
    let text = read_capped(&card_file, MAX_CARD_BYTES)?;
    let card: Card = serde_json::from_slice(&text).map_err(|e| ModelError::Card {
        path: card_file.clone(),
        why: e.to_string(),
    })?;
    if card.format != CARD_FORMAT {
        return Err(ModelError::Card {
            path: card_file,
            why: format!("format {:?}, expected {CARD_FORMAT:?}", card.format),
        });
    }
    if card.bytes > MAX_WEIGHTS_BYTES {
        return Err(ModelError::Card {
            path: card_file,
            why: format!(
                "weights of {} bytes: larger than the {} MiB a model may take",
                card.bytes,
                MAX_WEIGHTS_BYTES >> 20
            ),
        });
    }
    let bytes = read_capped(path, card.bytes)?;
    let found = sha256_hex(&bytes);
    if found != card.sha256 {
        return Err(ModelError::Checksum {
            path: path.to_path_buf(),
            expected: card.sha256,
            found,
        });
    }
    Ok((card, bytes))
}

/// Checks that `card` is a model of `algo` for `game` (board side `board_size`).
///
/// # Errors
/// [`ModelError::Mismatch`] naming what the card says instead.
pub fn check_card(
    card: &Card,
    algo: &str,
    game: &str,
    board_size: usize,
) -> Result<(), ModelError> {
    if card.algo != algo {
        return Err(ModelError::Mismatch(format!(
            "this is a model for {}, not {algo}",
            card.algo
        )));
    }
    if card.game != game || card.board_size != board_size {
        return Err(ModelError::Mismatch(format!(
            "this model plays {} ({}x{}), not {game}",
            card.game, card.board_size, card.board_size
        )));
    }
    Ok(())
}

/// Loads the model file at `path` as an inference module: reads and checks the card (format,
/// sha256, `algo`, `game`, `board_size`), lets `build` make the module the card describes (it is given the weights file's length in
/// bytes, to refuse a card that names more weights than the file holds), and
/// loads the weights into it (tensor names renamed by `renames`, as in
/// [`load_weights_renamed`]). Each model module wraps this in its own `load`.
///
/// # Errors
/// [`ModelError`] for bad files, a model of another algorithm or game, or weights that do not
/// fit the module (`build`'s own errors pass through).
pub fn load_module<M: Module>(
    path: &Path,
    algo: &str,
    game: &str,
    board_size: usize,
    renames: &[(&str, &str)],
    build: impl FnOnce(&Card, usize) -> Result<M, ModelError>,
) -> Result<(M, Card), ModelError> {
    let (card, bytes) = read_model(path)?;
    check_card(&card, algo, game, board_size)?;
    let mut module = build(&card, bytes.len())?;
    load_weights_renamed(&mut module, bytes, renames)?;
    Ok((module.valid(), card))
}
