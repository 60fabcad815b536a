//! End to end in a real headless Chromium (Debian's `chromium` and `chromium-driver`, which
//! `.ci/run` installs): load the app, click a legal move and see the AI reply, see an illegal
//! click refused, play a whole 6x6 game against `random` to the game-over banner and a Gomoku
//! game against the default engine to its winning line. Saves a screenshot to
//! `target/tmp/app-screenshot.png` (Cargo's `CARGO_TARGET_TMPDIR`).
//!
//! Set `STONELAB_SKIP_BROWSER=1` to skip on a machine without Chromium (CI never does).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::json;

/// A child process killed on drop.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// Starts `stonelab serve` on a free port; returns the process and the app's URL.
fn start_app() -> (Guard, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_stonelab"))
        .args(["serve", "--port", "0"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("start stonelab serve");
    let stdout = child.stdout.take().expect("stdout");
    let guard = Guard(child);
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("first line");
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no URL in {line:?}"))
        .to_string();
    (guard, url)
}

fn start_driver() -> Option<(Guard, u16)> {
    let port = free_port();
    let child = Command::new("chromedriver")
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let child = match child {
        Ok(c) => c,
        Err(e) => {
            if std::env::var_os("STONELAB_SKIP_BROWSER").is_some() {
                eprintln!("skipping the browser test: chromedriver not found ({e})");
                return None;
            }
            panic!(
                "chromedriver not found ({e}): install Debian's chromium and chromium-driver \
                 (.ci/run does), or set STONELAB_SKIP_BROWSER=1"
            );
        }
    };
    let guard = Guard(child);
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "chromedriver did not start"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    Some((guard, port))
}

async fn browser(driver_port: u16) -> Client {
    let mut caps = serde_json::Map::new();
    let binary = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists());
    let mut options = json!({
        "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1280,900"],
    });
    if let Some(b) = binary {
        options["binary"] = json!(b);
    }
    caps.insert("goog:chromeOptions".into(), options);
    // Plain HTTP to the local chromedriver: no TLS library needed.
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{driver_port}"))
        .await
        .expect("connect to chromedriver")
}

async fn text(c: &Client, css: &str) -> String {
    match c.find(Locator::Css(css)).await {
        Ok(e) => e.text().await.unwrap_or_default(),
        Err(_) => String::new(),
    }
}

async fn count(c: &Client, css: &str) -> u32 {
    text(c, css).await.trim().parse().unwrap_or(0)
}

/// Waits until `check` holds, polling every 100 ms, for at most `secs` seconds.
async fn wait_until<F, Fut>(secs: u64, what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let started = Instant::now();
    while !check().await {
        assert!(
            started.elapsed() < Duration::from_secs(secs),
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The points a human may click now (legal, and a human to move).
async fn legal_cells(c: &Client) -> Vec<fantoccini::elements::Element> {
    c.find_all(Locator::Css("#board .pt.legal[data-move]"))
        .await
        .unwrap_or_default()
}

async fn banner_visible(c: &Client) -> bool {
    match c.find(Locator::Css("#banner")).await {
        Ok(e) => {
            e.is_displayed().await.unwrap_or(false)
                && !e.text().await.unwrap_or_default().is_empty()
        }
        Err(_) => false,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_app_plays_in_a_real_browser() {
    let Some((_driver, driver_port)) = start_driver() else {
        return;
    };
    let (_app, url) = start_app();
    let c = browser(driver_port).await;
    c.goto(&url).await.expect("load the app");

    // The default game (Othello 8x8, you are black) is ready to click.
    wait_until(20, "legal moves on the board", || async {
        legal_cells(&c).await.len() == 4
    })
    .await;
    assert_eq!(count(&c, "#count-black").await, 2);
    assert_eq!(count(&c, "#count-white").await, 2);

    // An illegal click (a corner) is refused and changes nothing.
    let corner = c
        .find(Locator::Css("#board [data-index=\"0\"]"))
        .await
        .expect("the a1 point");
    corner.click().await.expect("click a1");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        count(&c, "#count-black").await,
        2,
        "an illegal click changed the board"
    );
    assert!(
        !text(&c, "#status").await.trim().is_empty(),
        "no message for an illegal click"
    );

    // A legal click: black gets 4 discs, then the AI replies and the counts change again.
    let cells = legal_cells(&c).await;
    cells[0].click().await.expect("click a legal move");
    wait_until(30, "the AI's reply", || async {
        let (b, w) = (
            count(&c, "#count-black").await,
            count(&c, "#count-white").await,
        );
        b + w == 6 && !legal_cells(&c).await.is_empty()
    })
    .await;

    // A whole 6x6 game against random, to the game-over banner.
    let select = c
        .find(Locator::Css("#game-select"))
        .await
        .expect("game select");
    select
        .select_by_value("othello6")
        .await
        .expect("choose othello6");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let white = c
        .find(Locator::Css("#white-spec"))
        .await
        .expect("white spec");
    white.clear().await.expect("clear");
    white.send_keys("random").await.expect("type random");
    let black = c
        .find(Locator::Css("#black-spec"))
        .await
        .expect("black spec");
    black.clear().await.expect("clear");
    black.send_keys("human").await.expect("type human");
    c.find(Locator::Css("#new-game"))
        .await
        .expect("new game")
        .click()
        .await
        .expect("click");
    wait_until(20, "the 6x6 board", || async {
        count(&c, "#count-black").await == 2 && legal_cells(&c).await.len() == 4
    })
    .await;
    let started = Instant::now();
    while !banner_visible(&c).await {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the game did not end"
        );
        if let Ok(pass) = c.find(Locator::Css("#pass")).await {
            if pass.is_displayed().await.unwrap_or(false)
                && pass.is_enabled().await.unwrap_or(false)
            {
                let _ = pass.click().await;
                tokio::time::sleep(Duration::from_millis(200)).await;
                continue;
            }
        }
        let cells = legal_cells(&c).await;
        if let Some(cell) = cells.first() {
            let _ = cell.click().await;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let banner = text(&c, "#banner").await;
    assert!(
        banner.contains("wins") || banner.contains("Draw"),
        "{banner}"
    );
    let (b, w) = (
        count(&c, "#count-black").await,
        count(&c, "#count-white").await,
    );
    assert!(b + w > 4 && b + w <= 36, "{b}-{w}");

    // Gomoku against the default engine: the board is 15x15, the game ends with a banner and a
    // highlighted line (the engine wins against a player who always takes the first point).
    let select = c
        .find(Locator::Css("#game-select"))
        .await
        .expect("game select");
    select
        .select_by_value("gomoku15")
        .await
        .expect("choose gomoku15");
    wait_until(20, "the 15x15 board", || async {
        c.find_all(Locator::Css("#board .pt"))
            .await
            .map_or(0, |v| v.len())
            == 225
            && legal_cells(&c).await.len() == 225
    })
    .await;
    let started = Instant::now();
    while !banner_visible(&c).await {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the Gomoku game did not end"
        );
        let cells = legal_cells(&c).await;
        if let Some(cell) = cells.first() {
            let _ = cell.click().await;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let banner = text(&c, "#banner").await;
    assert!(banner.contains("five in a row"), "{banner}");
    let line = c
        .find_all(Locator::Css("#board .win-line, #board .win-ring"))
        .await
        .unwrap_or_default();
    assert!(!line.is_empty(), "no winning line drawn");

    // Back to the finished 6x6 picture for the screenshot is not possible; show Othello 8x8
    // after a few moves instead.
    let select = c
        .find(Locator::Css("#game-select"))
        .await
        .expect("game select");
    select
        .select_by_value("othello8")
        .await
        .expect("choose othello8");
    wait_until(20, "the 8x8 board", || async {
        legal_cells(&c).await.len() == 4
    })
    .await;
    for _ in 0..6 {
        wait_until(30, "the human's turn", || async {
            !legal_cells(&c).await.is_empty()
        })
        .await;
        let cells = legal_cells(&c).await;
        let _ = cells[cells.len() / 2].click().await;
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    wait_until(30, "the human's turn", || async {
        !legal_cells(&c).await.is_empty()
    })
    .await;

    // Let the last flips settle and the messages clear before the picture.
    wait_until(10, "a clear status line", || async {
        text(&c, "#status").await.trim().is_empty()
    })
    .await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    let png = c.screenshot().await.expect("screenshot");
    // Cargo's scratch folder for integration tests (under the target folder, wherever it is).
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("app-screenshot.png");
    std::fs::write(&path, png).expect("write the screenshot");
    c.close().await.expect("close the browser");
}
