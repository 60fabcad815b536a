//! `stonelab serve` (the default command): the browser app on a local address, with the trained
//! models it offers by name.

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;
use web::{Catalog, Model, ServerConfig};

/// The server's default memory budget for search tables, in MiB.
const DEFAULT_MEMORY_MB: u64 = (web::DEFAULT_MEMORY_BUDGET >> 20) as u64;

/// Options of `stonelab serve`.
#[derive(Args, Debug, Clone)]
pub struct ServeArgs {
    /// The address to listen on: `127.0.0.1` or `localhost` (this machine only), or another
    /// address of this machine together with `--allow-remote`.
    #[arg(long, default_value = "127.0.0.1", value_parser = parse_host)]
    pub host: IpAddr,
    /// The port to listen on (0: any free port).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Serve beyond this machine (a `--host` that is not loopback): anyone who can reach the
    /// address can play and use the server's CPU, within its memory budget.
    #[arg(long)]
    pub allow_remote: bool,
    /// Search threads running at once (default: the number of cores); a search on
    /// `threads=N` takes N of them.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub workers: Option<u64>,
    /// The most memory, in MiB, that running searches' tables take together; a search that
    /// would pass it waits, then gets a clear 503.
    #[arg(long, default_value_t = DEFAULT_MEMORY_MB, value_parser = clap::value_parser!(u64).range(16..=1_048_576))]
    pub memory_mb: u64,
    /// Folders of trained models to offer (`*.safetensors` with their `.json` cards), or run
    /// folders (their `checkpoints/`), offered as FOLDER/NAME; repeatable. `models/` is always offered. Pages choose models by name only.
    #[arg(long = "models", value_name = "FOLDER")]
    pub models: Vec<PathBuf>,
}

impl Default for ServeArgs {
    fn default() -> Self {
        ServeArgs {
            host: IpAddr::from([127, 0, 0, 1]),
            port: 8080,
            allow_remote: false,
            workers: None,
            memory_mb: DEFAULT_MEMORY_MB,
            models: Vec::new(),
        }
    }
}

/// `localhost` (any case) or an IP address.
fn parse_host(text: &str) -> Result<IpAddr, String> {
    if text.eq_ignore_ascii_case("localhost") {
        return Ok(IpAddr::from([127, 0, 0, 1]));
    }
    text.parse().map_err(|_| {
        format!("{text:?} is not an IP address or `localhost` (e.g. 127.0.0.1, ::1, 0.0.0.0)")
    })
}

/// Every game of the app (the catalog's, in menu order) with its local agents, default
/// opponent and hint agent, and the models of `models/` and of `extra` folders; with the
/// warnings for model files passed over.
///
/// # Errors
/// An `extra` folder that is missing, not a folder, or holds no model (neither its own files
/// nor a run folder's `checkpoints/`), and two models that would share a name.
pub fn catalog(extra: &[PathBuf]) -> Result<(Catalog, Vec<String>)> {
    let mut warnings = Vec::new();
    let bundled = catalog::BundledModels::locate();
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
            bail!("--models {}: no such folder", dir.display());
        }
        if !dir.is_dir() {
            bail!(
                "--models {}: not a folder (name the folder that holds the models, or a run \
                 folder)",
                dir.display()
            );
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
            bail!(
                "--models {}: no model found (files NAME.safetensors with their NAME.json cards, \
                 in the folder or in a run folder's checkpoints/){}",
                dir.display(),
                if passed_over.is_empty() {
                    String::new()
                } else {
                    format!("; passed over: {}", passed_over.join("; "))
                }
            );
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
        bail!(
            "two models would be offered as {}: {} and {} (give their folders different names)",
            pair[0].name,
            pair[0].path.display(),
            pair[1].path.display()
        );
    }
    Ok((Catalog::standard().with_models(models), warnings))
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
fn read_card(weights: &Path) -> Result<(String, String)> {
    let card = learn::checkpoint::card_path(weights);
    if !card.is_file() {
        bail!("no card {}", card.display());
    }
    let (card, _) = learn::checkpoint::read_model(weights).map_err(|e| match e {
        learn::checkpoint::ModelError::Checksum { .. } => {
            anyhow::anyhow!(
                "its weights do not match the sha256 of its card (incomplete or changed file)"
            )
        }
        other => anyhow::Error::new(other),
    })?;
    Ok((card.game, card.algo))
}

/// Serves until Ctrl-C.
pub fn run(args: &ServeArgs) -> Result<()> {
    if !args.host.is_loopback() && !args.allow_remote {
        bail!(
            "{} is not a loopback address: serving beyond this machine must be asked for with \
             --allow-remote (or use --host 127.0.0.1)",
            args.host
        );
    }
    let (catalog, warnings) = catalog(&args.models)?;
    for w in warnings {
        eprintln!("warning: {w}");
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async {
        let addr = SocketAddr::new(args.host, args.port);
        let listener = web::bind(addr).await.map_err(anyhow::Error::msg)?;
        let local = listener.local_addr().unwrap_or(addr);
        let memory_mb = usize::try_from(args.memory_mb).unwrap_or(usize::MAX >> 20);
        let mut config = ServerConfig {
            // On a loopback address only loopback host names are answered (no DNS rebinding);
            // on a public address any name is.
            loopback_hosts_only: args.host.is_loopback(),
            memory_budget: memory_mb << 20,
            ..ServerConfig::default()
        };
        if let Some(w) = args.workers {
            config.workers = usize::try_from(w).unwrap_or(1024);
        }
        if !args.host.is_loopback() {
            eprintln!(
                "warning: serving beyond this machine on {local}: anyone who can reach it can \
                 play and use this machine's CPU (searches share {} MiB of tables, {} workers)",
                args.memory_mb, config.workers
            );
        }
        outln!("stonelab is running: open http://{local}/ in your browser (Ctrl-C stops it)");
        // Ctrl-C stops gracefully; open event streams or a long search get two seconds, and a
        // second Ctrl-C stops at once.
        let shutdown = async {
            let _ = tokio::signal::ctrl_c().await;
            eprintln!("stopping…");
            tokio::spawn(async {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = tokio::time::sleep(std::time::Duration::from_secs(2)) => {}
                }
                std::process::exit(0);
            });
        };
        web::serve(listener, catalog, config, shutdown)
            .await
            .context("serving the app")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
                    format!("models/othello8-dqn.{ext}"),
                    checkpoints.join(format!("last.{ext}")),
                )
                .expect("copy");
            }
        }
        let offered = |dirs: &[PathBuf]| -> Vec<String> {
            let (catalog, _) = catalog(dirs).expect("catalog");
            catalog
                .models_of("othello8")
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
        let error = |dirs: &[PathBuf]| match catalog(dirs) {
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
                    format!("models/othello8-dqn.{ext}"),
                    root.join(format!("{name}.{ext}")),
                )
                .expect("copy");
            }
        }
        let mut bytes = std::fs::read(root.join("bad.safetensors")).expect("read");
        bytes[100] ^= 0xff;
        std::fs::write(root.join("bad.safetensors"), bytes).expect("write");
        let (catalog, warnings) = catalog(std::slice::from_ref(&root)).expect("catalog");
        let prefix = root.file_name().and_then(|n| n.to_str()).expect("name");
        let names: Vec<String> = catalog
            .models_of("othello8")
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
