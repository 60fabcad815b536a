//! `stonelab serve` (the default command): the browser app on a local address, with the trained
//! models it offers by name.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;
use web::{AppGames, ServerConfig};

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
/// opponent and hint agent, and the models of `models/` and of `extra` folders
/// ([`catalog::models::discover`]); with the warnings for model files passed over.
///
/// # Errors
/// What `discover` refuses.
pub fn catalog(extra: &[PathBuf]) -> Result<(AppGames, Vec<String>)> {
    let found = catalog::models::discover(extra)?;
    Ok((
        AppGames::standard().with_models(found.models),
        found.warnings,
    ))
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
