//! `stonelab serve` (the default command): the browser app on a local address.

use std::net::{IpAddr, SocketAddr};
use std::path::Path;

use anyhow::{Context, Result};
use clap::Args;
use web::{Catalog, ServerConfig};

/// Options of `stonelab serve`.
#[derive(Args, Debug, Clone)]
pub struct ServeArgs {
    /// The address to listen on (127.0.0.1: this machine only).
    #[arg(long, default_value = "127.0.0.1")]
    pub host: IpAddr,
    /// The port to listen on.
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Agent searches running at once (default: the number of cores).
    #[arg(long)]
    pub workers: Option<usize>,
}

impl Default for ServeArgs {
    fn default() -> Self {
        ServeArgs {
            host: IpAddr::from([127, 0, 0, 1]),
            port: 8080,
            workers: None,
        }
    }
}

/// Every game of the app (the catalog's, in menu order) with its local agents, default
/// opponent and hint agent, and the bundled models.
pub fn catalog() -> Catalog {
    Catalog::standard().with_models(models(Path::new("models")))
}

/// The trained models in `dir` (`*.safetensors`), as the paths `dqn:model=` / `q-mlp:model=` take.
fn models(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let path = e.path();
            (path.extension()? == "safetensors").then(|| path.to_str().map(str::to_string))?
        })
        .collect();
    names.sort();
    names
}

/// Serves until Ctrl-C.
pub fn run(args: &ServeArgs) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async {
        let addr = SocketAddr::new(args.host, args.port);
        let listener = web::bind(addr).await.map_err(anyhow::Error::msg)?;
        let local = listener.local_addr().unwrap_or(addr);
        let mut config = ServerConfig {
            // On a loopback address only loopback host names are answered (no DNS rebinding);
            // on a public address any name is.
            loopback_hosts_only: args.host.is_loopback(),
            ..ServerConfig::default()
        };
        if let Some(w) = args.workers {
            config.workers = w.max(1);
        }
        println!("stonelab is running: open http://{local}/ in your browser (Ctrl-C stops it)");
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
        web::serve(listener, catalog(), config, shutdown)
            .await
            .context("serving the app")
    })
}
