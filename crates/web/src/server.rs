//! The axum server: static files, the JSON API, server-sent events, the game store with idle
//! expiry and least-recently-used eviction, a bounded pool for agent work and a memory budget
//! for its search tables.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures_util::stream::{self, Stream};
use rand::RngExt;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::{broadcast, Semaphore};

use crate::error::ApiError;
use crate::games::{AppGames, Model};
use crate::memory::MemoryBudget;
use crate::session::{clip, Session, Think};

const INDEX_HTML: &str = include_str!("../static/index.html");
const APP_JS: &str = include_str!("../static/app.js");
const STYLE_CSS: &str = include_str!("../static/style.css");

/// Server settings.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Games kept at once; beyond it the least recently used idle game (no worker running for
    /// it) is dropped.
    pub max_games: usize,
    /// Games one client address keeps at once (a fifth of [`max_games`](Self::max_games) by
    /// default); beyond it that client's own least recently used idle game is dropped, so that
    /// one client cannot push everyone else's games out of the store. Requests that carry no
    /// address (a router called directly) count only against `max_games`.
    pub max_games_per_client: usize,
    /// A game untouched this long is dropped.
    pub idle: Duration,
    /// Search threads running at once: a search on `threads=N` takes N of them (at most all),
    /// the rest wait their turn.
    pub workers: usize,
    /// How long a request waits for a free worker (and then for memory) before a 503.
    pub queue_wait: Duration,
    /// The most memory, in bytes, that the search tables of all running searches take
    /// together. A game holds no tables; a search reserves its agent's tables when it starts.
    pub memory_budget: usize,
    /// The most thinking time a request may ask for.
    pub max_think: Duration,
    /// Thinking time when neither the request nor the agent's spec names one.
    pub default_think: Duration,
    /// Answer only requests whose `Host` is a loopback name (`localhost`, `127.0.0.1`,
    /// `[::1]`, any case), so that a web page cannot reach the server through DNS rebinding.
    /// Set it when serving on a loopback address.
    pub loopback_hosts_only: bool,
    /// A connection that has not sent a whole request head within this time is closed.
    pub header_timeout: Duration,
    /// Connections open at once; more are closed at once until one ends.
    pub max_connections: usize,
    /// A request whose body has not all arrived within this time gets a 408 (and its
    /// connection closes), so that slow bodies cannot hold connections.
    pub body_timeout: Duration,
    /// Event streams (`/events`) open at once: a quarter of [`max_connections`](Self::max_connections)
    /// by default, so that streams, which never end by themselves, cannot take every connection.
    pub max_event_streams: usize,
}

/// The default [`ServerConfig::memory_budget`]: 1 GiB.
pub const DEFAULT_MEMORY_BUDGET: usize = 1 << 30;

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            max_games: 500,
            max_games_per_client: 100,
            idle: Duration::from_secs(30 * 60),
            workers: std::thread::available_parallelism()
                .map_or(2, |n| n.get())
                .max(2),
            queue_wait: Duration::from_secs(30),
            memory_budget: DEFAULT_MEMORY_BUDGET,
            max_think: Duration::from_secs(10),
            default_think: Duration::from_secs(1),
            loopback_hosts_only: true,
            header_timeout: Duration::from_secs(10),
            max_connections: 1024,
            body_timeout: Duration::from_secs(10),
            max_event_streams: 256,
        }
    }
}

/// One game in the store.
struct Entry {
    session: Arc<tokio::sync::Mutex<Box<dyn Session>>>,
    /// The last state, served while an agent thinks.
    snapshot: Mutex<Value>,
    /// A worker is running for this game (set and cleared by [`Busy`]).
    busy: AtomicBool,
    last_used: Mutex<Instant>,
    events: broadcast::Sender<(&'static str, Value)>,
    /// The address of the client that created the game, where the server knows it.
    owner: Option<std::net::IpAddr>,
}

/// Marks a game busy while it lives: created when a worker starts on the game, dropped on every
/// way out (the job's end, a panic, the task being dropped).
struct Busy(Arc<Entry>);

impl Busy {
    fn new(entry: Arc<Entry>) -> Self {
        entry.busy.store(true, Ordering::SeqCst);
        Busy(entry)
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.busy.store(false, Ordering::SeqCst);
        self.0.touch();
    }
}

impl Entry {
    fn touch(&self) {
        if let Ok(mut t) = self.last_used.lock() {
            *t = Instant::now();
        }
    }

    fn state(&self, id: &str) -> Value {
        let mut state = self
            .snapshot
            .lock()
            .map(|s| s.clone())
            .unwrap_or(Value::Null);
        if let Some(obj) = state.as_object_mut() {
            obj.insert("id".into(), json!(id));
            obj.insert("busy".into(), json!(self.busy.load(Ordering::SeqCst)));
        }
        state
    }

    /// Stores the session's state and tells the listeners.
    fn publish(&self, id: &str, session: &dyn Session) -> Value {
        if let Ok(mut s) = self.snapshot.lock() {
            *s = session.state();
        }
        let state = self.state(id);
        let _ = self.events.send(("state", state.clone()));
        state
    }
}

/// Shared server state.
struct App {
    catalog: AppGames,
    games: Mutex<HashMap<String, Arc<Entry>>>,
    pool: Arc<Semaphore>,
    /// One permit per open event stream.
    streams: Arc<Semaphore>,
    memory: Arc<MemoryBudget>,
    /// Each game's models, by game id.
    models: HashMap<&'static str, Arc<Vec<Model>>>,
    no_models: Arc<Vec<Model>>,
    config: ServerConfig,
}

type Shared = Arc<App>;

/// The router with every route, over this catalog and settings. Starts the idle sweeper on
/// the current tokio runtime.
pub fn router(catalog: AppGames, config: ServerConfig) -> Router {
    let models = catalog
        .ids()
        .into_iter()
        .map(|id| (id, Arc::new(catalog.models_of(id))))
        .collect();
    let app = Arc::new(App {
        models,
        no_models: Arc::new(Vec::new()),
        catalog,
        games: Mutex::new(HashMap::new()),
        pool: Arc::new(Semaphore::new(config.workers.max(1))),
        streams: Arc::new(Semaphore::new(config.max_event_streams.max(1))),
        memory: Arc::new(MemoryBudget::new(config.memory_budget, config.queue_wait)),
        config,
    });
    let sweeper = Arc::downgrade(&app);
    let idle = app.config.idle;
    tokio::spawn(async move {
        let every = (idle / 2).clamp(Duration::from_millis(50), Duration::from_secs(30));
        let mut tick = tokio::time::interval(every);
        loop {
            tick.tick().await;
            let Some(app) = sweeper.upgrade() else { break };
            app.expire();
        }
    });
    Router::new()
        .route("/", get(index))
        .route("/index.html", get(index))
        .route("/app.js", get(app_js))
        .route("/style.css", get(style_css))
        .route("/api/catalog", get(catalog_json))
        .route("/api/agents", get(agents))
        .route("/api/games", post(create))
        .route("/api/games/{id}", get(state).delete(delete_game))
        .route("/api/games/{id}/move", post(play))
        .route("/api/games/{id}/agent-move", post(agent_move))
        .route("/api/games/{id}/undo", post(undo))
        .route("/api/games/{id}/hint", post(hint))
        .route("/api/games/{id}/players", post(players))
        .route("/api/games/{id}/position", post(position))
        .route("/api/games/{id}/analysis", get(analysis))
        .route("/api/games/{id}/events", get(events))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::extract::DefaultBodyLimit::max(MAX_BODY))
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&app),
            body_deadline,
        ))
        .layer(axum::middleware::map_response(json_errors))
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&app),
            check_host,
        ))
        // Outermost: the refusals of the layers inside carry the headers too.
        .layer(axum::middleware::map_response(security_headers))
        .with_state(app)
}

/// Turns the plain-text errors of axum's own extractors (a path that is not UTF-8, for example)
/// into the API's `{"error": …}` form.
async fn json_errors(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json") || v.starts_with("text/event-stream"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let body = axum::body::to_bytes(response.into_body(), 64 * 1024)
        .await
        .unwrap_or_default();
    let text = String::from_utf8_lossy(&body);
    let message = if text.trim().is_empty() {
        status.canonical_reason().unwrap_or("error").to_string()
    } else {
        text.trim().to_string()
    };
    ApiError { status, message }.into_response()
}

/// The content security policy: the app's own files only, no framing, no plugins.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                   connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; \
                   form-action 'self'; frame-ancestors 'none'";

/// Adds the security headers to every response: the content security policy, no framing,
/// no content sniffing, no referrer.
async fn security_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        header::HeaderValue::from_static(CSP),
    );
    headers.insert(
        header::X_FRAME_OPTIONS,
        header::HeaderValue::from_static("DENY"),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        header::HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        header::HeaderValue::from_static("no-referrer"),
    );
    response
}

/// Reads each request's body within [`ServerConfig::body_timeout`] (408 past it, the same 413
/// as every route past [`MAX_BODY`]) and hands the handler the bytes read.
async fn body_deadline(
    State(app): State<Shared>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let (parts, body) = request.into_parts();
    // A body declared larger than the cap is refused at once, not waited for.
    let declared = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_BODY as u64) {
        return too_large().into_response();
    }
    let read = tokio::time::timeout(
        app.config.body_timeout,
        axum::body::to_bytes(body, MAX_BODY),
    )
    .await;
    match read {
        Ok(Ok(bytes)) => {
            let request = axum::extract::Request::from_parts(parts, axum::body::Body::from(bytes));
            next.run(request).await
        }
        Ok(Err(_)) => too_large().into_response(),
        Err(_) => ApiError {
            status: StatusCode::REQUEST_TIMEOUT,
            message: format!(
                "request body not received within {} s",
                app.config.body_timeout.as_secs_f64()
            ),
        }
        .into_response(),
    }
}

/// Refuses requests addressed to a name other than loopback (see
/// [`ServerConfig::loopback_hosts_only`]).
async fn check_host(
    State(app): State<Shared>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    if app.config.loopback_hosts_only {
        // A request must say whom it is for: without a Host header it is refused like a
        // foreign name (HTTP/1.1 requires one; every browser sends it).
        if request.headers().get(header::HOST).is_none() {
            return ApiError::forbidden(
                "requests without a Host header are refused: open the app at a loopback address",
            )
            .into_response();
        }
        // Every Host header is checked, not only the first.
        for host in request.headers().get_all(header::HOST) {
            let host = host.to_str().unwrap_or("");
            let name = match host.rsplit_once(':') {
                Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
                _ => host,
            };
            let name = name.to_ascii_lowercase();
            if !matches!(name.as_str(), "localhost" | "127.0.0.1" | "[::1]") {
                return ApiError::forbidden(format!(
                    "requests for host {:?} are refused: open the app at a loopback address",
                    clip(host)
                ))
                .into_response();
            }
        }
    }
    next.run(request).await
}

/// Serves on `listener` until `shutdown` completes: HTTP/1.1 connections, each closed when
/// its request head takes longer than [`ServerConfig::header_timeout`], at most
/// [`ServerConfig::max_connections`] at once. Open connections get two seconds to finish.
///
/// # Errors
/// None today (a failed accept is retried); kept for future listener errors.
pub async fn serve(
    listener: tokio::net::TcpListener,
    catalog: AppGames,
    config: ServerConfig,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    use hyper_util::rt::{TokioIo, TokioTimer};
    let header_timeout = config.header_timeout;
    let connections = Arc::new(Semaphore::new(config.max_connections.max(1)));
    let router = router(catalog, config);
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(_) => {
                    // Out of file descriptors and the like: wait a little, then go on.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let (stream, peer) = stream;
        let Ok(permit) = Arc::clone(&connections).try_acquire_owned() else {
            drop(stream); // too many open connections
            continue;
        };
        let _ = stream.set_nodelay(true);
        // Every request knows its client's address (the per-client game cap).
        let inner = hyper_util::service::TowerToHyperService::new(router.clone());
        let service = hyper::service::service_fn(
            move |mut request: hyper::Request<hyper::body::Incoming>| {
                request
                    .extensions_mut()
                    .insert(axum::extract::ConnectInfo(peer));
                hyper::service::Service::call(&inner, request)
            },
        );
        let connection = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(header_timeout)
            .serve_connection(TokioIo::new(stream), service);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            let _ = connection.await;
            drop(permit);
        });
    }
    drop(listener);
    // Event streams never end by themselves: give open connections two seconds.
    let _ = tokio::time::timeout(Duration::from_secs(2), graceful.shutdown()).await;
    Ok(())
}

/// The least recently used idle game among `games`: one with no worker running or queued for it
/// (a game waiting for a human is idle however recently it was played).
fn least_recently_used_idle<'a>(
    games: impl Iterator<Item = (&'a String, &'a Arc<Entry>)>,
) -> Option<String> {
    games
        .filter(|(_, e)| !e.busy.load(Ordering::SeqCst) && e.session.try_lock().is_ok())
        .filter_map(|(id, e)| e.last_used.lock().ok().map(|t| (id, *t)))
        .min_by_key(|(_, t)| *t)
        .map(|(id, _)| id.clone())
}

/// Binds a TCP listener, turning "address in use" into a clear message.
///
/// # Errors
/// A message naming the address and what to do.
pub async fn bind(addr: SocketAddr) -> Result<tokio::net::TcpListener, String> {
    tokio::net::TcpListener::bind(addr).await.map_err(|e| {
        if e.kind() == std::io::ErrorKind::AddrInUse {
            format!(
                "{addr} is already in use (another stonelab or another server?): choose another port with --port"
            )
        } else {
            format!("cannot listen on {addr}: {e}")
        }
    })
}

impl App {
    fn entry(&self, id: &str) -> Result<Arc<Entry>, ApiError> {
        let games = self
            .games
            .lock()
            .map_err(|_| ApiError::internal("game store unavailable"))?;
        let entry = games.get(id).cloned().ok_or_else(|| {
            ApiError::not_found(format!("no game {:?} (unknown or expired)", clip(id)))
        })?;
        entry.touch();
        Ok(entry)
    }

    fn expire(&self) {
        let Ok(mut games) = self.games.lock() else {
            return;
        };
        let idle = self.config.idle;
        games.retain(|_, e| {
            e.busy.load(Ordering::SeqCst) || e.last_used.lock().map_or(true, |t| t.elapsed() < idle)
        });
    }

    fn insert(
        &self,
        session: Box<dyn Session>,
        owner: Option<std::net::IpAddr>,
    ) -> Result<(String, Value), ApiError> {
        let mut games = self
            .games
            .lock()
            .map_err(|_| ApiError::internal("game store unavailable"))?;
        if owner.is_some() {
            let cap = self.config.max_games_per_client.max(1);
            loop {
                let mine = games.iter().filter(|(_, e)| e.owner == owner);
                if mine.clone().count() < cap {
                    break;
                }
                match least_recently_used_idle(mine) {
                    Some(id) => {
                        games.remove(&id);
                    }
                    None => {
                        return Err(ApiError::unavailable(format!(
                            "this client's {cap} games all have an agent thinking; try again \
                             shortly"
                        )))
                    }
                }
            }
        }
        while games.len() >= self.config.max_games.max(1) {
            match least_recently_used_idle(games.iter()) {
                Some(id) => {
                    games.remove(&id);
                }
                None => {
                    return Err(ApiError::unavailable(format!(
                        "the server is full: all {} games have an agent thinking; try again \
                         shortly",
                        games.len()
                    )))
                }
            }
        }
        let id = new_id();
        let (events, _) = broadcast::channel(64);
        let entry = Arc::new(Entry {
            snapshot: Mutex::new(session.state()),
            session: Arc::new(tokio::sync::Mutex::new(session)),
            busy: AtomicBool::new(false),
            last_used: Mutex::new(Instant::now()),
            events,
            owner,
        });
        let state = entry.state(&id);
        games.insert(id.clone(), entry);
        Ok((id, state))
    }

    fn think(&self, ms: Option<u64>) -> Think {
        Think {
            requested: ms.map(Duration::from_millis),
            default: self.config.default_think,
            cap: self.config.max_think,
        }
    }
}

/// 128 random bits from the operating system's generator, as 32 hex digits.
fn new_id() -> String {
    let bits: u128 = rand::rng().random();
    format!("{bits:032x}")
}

// ----- static files -----

async fn index() -> Response {
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        INDEX_HTML,
    )
        .into_response()
}

async fn app_js() -> Response {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        APP_JS,
    )
        .into_response()
}

async fn style_css() -> Response {
    (
        [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
        STYLE_CSS,
    )
        .into_response()
}

async fn not_found() -> ApiError {
    ApiError::not_found("no such page or API route")
}

async fn method_not_allowed() -> ApiError {
    ApiError::method_not_allowed("this route does not take that method (see API.md)")
}

// ----- request bodies -----

/// The largest request body (positions are at most 10,000 characters).
const MAX_BODY: usize = 64 * 1024;

/// The same answer on every route for a body over [`MAX_BODY`].
fn too_large() -> ApiError {
    ApiError {
        status: StatusCode::PAYLOAD_TOO_LARGE,
        message: format!("request body larger than {} KiB", MAX_BODY / 1024),
    }
}

/// A required JSON body: declared as UTF-8 JSON ([`check_json_type`], 415 otherwise) and read
/// into `T` (400 naming the problem).
fn body<T: serde::de::DeserializeOwned>(
    headers: &HeaderMap,
    payload: Result<axum::body::Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<T, ApiError> {
    let bytes = bytes(payload)?;
    check_json_type(headers)?;
    parse_object(&bytes)
}

/// A body read as `T` from a JSON object (serde would also read a struct from an array).
fn parse_object<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first != Some(&b'{') {
        return Err(ApiError::bad_request(
            "bad JSON body: expected a JSON object ({…})",
        ));
    }
    serde_json::from_slice(bytes).map_err(|e| ApiError::bad_request(format!("bad JSON body: {e}")))
}

/// Every body is JSON in UTF-8: `Content-Type: application/json` (or `application/…+json`),
/// with no charset or `charset=utf-8`. Anything else is a 415 naming what was sent, on every
/// route alike.
fn check_json_type(headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(value) = headers.get(header::CONTENT_TYPE) else {
        return Err(ApiError::unsupported_media(
            "a JSON body needs `Content-Type: application/json`",
        ));
    };
    let text = value
        .to_str()
        .map_err(|_| ApiError::unsupported_media("unreadable Content-Type header"))?;
    let mut parts = text.split(';');
    let essence = parts.next().unwrap_or("").trim().to_ascii_lowercase();
    let json = essence == "application/json"
        || (essence.starts_with("application/") && essence.ends_with("+json"));
    if !json {
        return Err(ApiError::unsupported_media(format!(
            "Content-Type {:?} is not JSON: send `application/json`",
            clip(text)
        )));
    }
    for parameter in parts {
        let Some((key, charset)) = parameter.split_once('=') else {
            continue;
        };
        let charset = charset.trim().trim_matches('"');
        if key.trim().eq_ignore_ascii_case("charset")
            && !charset.eq_ignore_ascii_case("utf-8")
            && !charset.eq_ignore_ascii_case("utf8")
        {
            return Err(ApiError::unsupported_media(format!(
                "charset {:?}: bodies are JSON in UTF-8",
                clip(charset)
            )));
        }
    }
    Ok(())
}

/// The bytes of a body, or the same 413 on every route when it is too large.
fn bytes(
    payload: Result<axum::body::Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<axum::body::Bytes, ApiError> {
    payload.map_err(|e| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            too_large()
        } else {
            ApiError::bad_request(format!("unreadable body: {}", e.body_text()))
        }
    })
}

/// An optional JSON body: empty (whatever the content type) means the defaults; any other is
/// read as [`body`] reads a required one.
fn optional_body<T: Default + serde::de::DeserializeOwned>(
    headers: &HeaderMap,
    payload: Result<axum::body::Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<T, ApiError> {
    let bytes = bytes(payload)?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    check_json_type(headers)?;
    parse_object(&bytes)
}

/// `undo` takes no field.
#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct UndoBody {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateBody {
    game: String,
    black: Option<String>,
    white: Option<String>,
    #[serde(default, deserialize_with = "whole_number")]
    seed: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveBody {
    #[serde(rename = "move")]
    mv: String,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ThinkBody {
    #[serde(default, deserialize_with = "whole_number")]
    time_ms: Option<u64>,
}

/// A field that is a whole number from 0 to 2^64 - 1 (or null), its error saying so: JSON
/// numbers past that range parse as floats, which serde would otherwise name "floating point,
/// expected u64".
fn whole_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    struct Whole;
    impl serde::de::Visitor<'_> for Whole {
        type Value = Option<u64>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(f, "a whole number from 0 to {}", u64::MAX)
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Ok(Some(v))
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
    }
    d.deserialize_any(Whole)
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct PlayersBody {
    black: Option<String>,
    white: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PositionBody {
    text: String,
}

#[derive(Deserialize)]
struct GameQuery {
    game: String,
}

#[derive(Deserialize, Default)]
struct TimeQuery {
    time_ms: Option<u64>,
}

// ----- handlers -----

async fn catalog_json(State(app): State<Shared>) -> Json<Value> {
    Json(app.catalog.json())
}

async fn agents(
    State(app): State<Shared>,
    query: Result<Query<GameQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Query(q) = query.map_err(|_| ApiError::bad_request("expected ?game=ID"))?;
    let kind = app
        .catalog
        .get(&q.game)
        .ok_or_else(|| unknown_game(&app, &q.game))?;
    Ok(Json(kind.agents()))
}

fn unknown_game(app: &App, id: &str) -> ApiError {
    ApiError::bad_request(format!(
        "unknown game {:?}; the games are {}",
        clip(id),
        app.catalog.ids().join(", ")
    ))
}

async fn create(
    State(app): State<Shared>,
    extensions: axum::http::Extensions,
    headers: HeaderMap,
    payload: Result<axum::body::Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let req: CreateBody = body(&headers, payload)?;
    let kind = app
        .catalog
        .get(&req.game)
        .ok_or_else(|| unknown_game(&app, &req.game))?;
    let black = req.black.unwrap_or_else(|| "human".into());
    let white = req
        .white
        .unwrap_or_else(|| kind.default_agent().to_string());
    let seed = req
        .seed
        .unwrap_or_else(|| rand::rng().random::<u32>().into());
    let kind = Arc::clone(kind);
    // Building agents may allocate tables: off the async threads.
    let models = Arc::clone(app.models.get(kind.id()).unwrap_or(&app.no_models));
    let cap = app.memory.total();
    let session =
        tokio::task::spawn_blocking(move || kind.create(&black, &white, seed, models, cap))
            .await
            .map_err(|_| ApiError::internal("creating the game failed"))??;
    let client = extensions
        .get::<axum::extract::ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip());
    let (_, state) = app.insert(session, client)?;
    Ok((StatusCode::CREATED, Json(state)))
}

async fn delete_game(
    State(app): State<Shared>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let entry = app.entry(&id)?;
    if entry.busy.load(Ordering::SeqCst) || entry.session.try_lock().is_err() {
        return Err(ApiError::conflict(
            "busy: an agent is thinking on this game",
        ));
    }
    let mut games = app
        .games
        .lock()
        .map_err(|_| ApiError::internal("game store unavailable"))?;
    games.remove(&id);
    Ok(StatusCode::NO_CONTENT)
}

async fn state(State(app): State<Shared>, Path(id): Path<String>) -> Result<Json<Value>, ApiError> {
    Ok(Json(app.entry(&id)?.state(&id)))
}

/// Runs a quick change under the game's lock (409 while an agent thinks).
fn quick(
    app: &App,
    id: &str,
    change: impl FnOnce(&mut dyn Session) -> Result<(), ApiError>,
) -> Result<Json<Value>, ApiError> {
    let entry = app.entry(id)?;
    let mut session = entry
        .session
        .try_lock()
        .map_err(|_| ApiError::conflict("busy: an agent is thinking on this game"))?;
    change(session.as_mut())?;
    Ok(Json(entry.publish(id, session.as_ref())))
}

async fn play(
    State(app): State<Shared>,
    Path(id): Path<String>,
    headers: HeaderMap,
    payload: Result<axum::body::Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let req: MoveBody = body(&headers, payload)?;
    quick(&app, &id, |s| s.play(&req.mv))
}

async fn undo(
    State(app): State<Shared>,
    Path(id): Path<String>,
    headers: HeaderMap,
    payload: Result<axum::body::Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    // No field is taken: an empty body or `{}`, like every other route's unknown fields refused.
    let UndoBody {} = optional_body(&headers, payload)?;
    quick(&app, &id, |s| s.undo())
}

async fn players(
    State(app): State<Shared>,
    Path(id): Path<String>,
    headers: HeaderMap,
    payload: Result<axum::body::Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let req: PlayersBody = optional_body(&headers, payload)?;
    quick(&app, &id, |s| {
        s.set_players(req.black.as_deref(), req.white.as_deref())
    })
}

async fn position(
    State(app): State<Shared>,
    Path(id): Path<String>,
    headers: HeaderMap,
    payload: Result<axum::body::Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let req: PositionBody = body(&headers, payload)?;
    if req.text.chars().count() > 10_000 {
        return Err(ApiError {
            status: StatusCode::PAYLOAD_TOO_LARGE,
            message: "position text longer than 10,000 characters".into(),
        });
    }
    quick(&app, &id, |s| s.set_position(&req.text))
}

/// What a heavy job does with the session (its search tables reserved from the budget);
/// returns its JSON answer.
type Job = Box<dyn FnOnce(&mut dyn Session, &MemoryBudget) -> Result<Value, ApiError> + Send>;

/// Runs a search on the worker pool under the game's lock, with a time limit.
async fn heavy(
    app: &Shared,
    id: &str,
    think: Duration,
    announce: bool,
    job: Job,
) -> Result<Value, ApiError> {
    let entry = app.entry(id)?;
    // The game's lock is held while the request waits for a worker (other changes get a 409);
    // if the client goes away meanwhile, this future is dropped and the lock with it.
    let guard = Arc::clone(&entry.session)
        .try_lock_owned()
        .map_err(|_| ApiError::conflict("busy: an agent is thinking on this game"))?;
    // A search on several threads takes as many workers (at most all of them), so that
    // `workers` bounds the threads searching at once.
    let threads = if announce {
        guard
            .agent_to_move()
            .map_or(1, |spec| crate::session::search_threads(&spec))
    } else {
        1
    };
    let workers = u32::try_from(app.config.workers.max(1)).unwrap_or(u32::MAX);
    let wanted = Arc::clone(&app.pool).acquire_many_owned(threads.min(workers));
    let permit = match tokio::time::timeout(app.config.queue_wait, wanted).await {
        Ok(Ok(permit)) => permit,
        Ok(Err(_)) => return Err(ApiError::unavailable("the server is shutting down")),
        Err(_) => {
            return Err(ApiError::unavailable(
                "the server is busy: try again shortly",
            ))
        }
    };
    if announce {
        let side = entry
            .state(id)
            .get("to_move")
            .cloned()
            .unwrap_or(Value::Null);
        let agent = guard.agent_to_move().unwrap_or_default();
        let _ = entry
            .events
            .send(("thinking", json!({"side": side, "agent": agent})));
    }
    let worker_entry = Arc::clone(&entry);
    let worker_id = id.to_string();
    let memory = Arc::clone(&app.memory);
    // Busy from the moment a worker runs for the game until it ends, on every path.
    let busy = Busy::new(Arc::clone(&entry));
    let task = tokio::task::spawn_blocking(move || {
        let mut guard = guard;
        let result = job(guard.as_mut(), &memory);
        drop(busy);
        let state = worker_entry.publish(&worker_id, guard.as_ref());
        drop(guard);
        drop(permit);
        (result, state)
    });
    // Agents stop by their time budget; this is the backstop for one that does not.
    let limit = think + Duration::from_secs(20);
    match tokio::time::timeout(limit, task).await {
        Ok(Ok((Ok(answer), state))) => Ok(json!({"answer": answer, "state": state})),
        Ok(Ok((Err(e), _))) => Err(e),
        Ok(Err(_)) => Err(ApiError::internal("the agent crashed")),
        Err(_) => Err(ApiError::unavailable(
            "the agent is taking too long; the game stays busy until it finishes",
        )),
    }
}

async fn agent_move(
    State(app): State<Shared>,
    Path(id): Path<String>,
    headers: HeaderMap,
    payload: Result<axum::body::Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let req: ThinkBody = optional_body(&headers, payload)?;
    let think = app.think(req.time_ms);
    // Refuse at once when no agent is to move (before queueing).
    {
        let entry = app.entry(&id)?;
        let session = entry
            .session
            .try_lock()
            .map_err(|_| ApiError::conflict("busy: an agent is thinking on this game"))?;
        session.agent_to_move()?;
    }
    let result = heavy(
        &app,
        &id,
        think.cap,
        true,
        Box::new(move |s, memory| s.agent_move(think, memory)),
    )
    .await?;
    let decision = result.get("answer").cloned().unwrap_or(Value::Null);
    if let Ok(entry) = app.entry(&id) {
        let _ = entry.events.send(("decision", decision.clone()));
    }
    Ok(Json(json!({
        "state": result.get("state").cloned().unwrap_or(Value::Null),
        "decision": decision,
    })))
}

async fn hint(
    State(app): State<Shared>,
    Path(id): Path<String>,
    headers: HeaderMap,
    payload: Result<axum::body::Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let req: ThinkBody = optional_body(&headers, payload)?;
    let think = app.think(req.time_ms);
    let result = heavy(
        &app,
        &id,
        think.cap,
        false,
        Box::new(move |s, memory| s.hint(think, memory)),
    )
    .await?;
    Ok(Json(result.get("answer").cloned().unwrap_or(Value::Null)))
}

async fn analysis(
    State(app): State<Shared>,
    Path(id): Path<String>,
    query: Result<Query<TimeQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Query(q) = query.map_err(|_| ApiError::bad_request("expected ?time_ms=N"))?;
    let think = app.think(q.time_ms).for_spec("");
    let result = heavy(
        &app,
        &id,
        think,
        false,
        Box::new(move |s, memory| s.analysis(think, memory)),
    )
    .await?;
    Ok(Json(result.get("answer").cloned().unwrap_or(Value::Null)))
}

async fn events(
    State(app): State<Shared>,
    Path(id): Path<String>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    let entry = app.entry(&id)?;
    // Held for as long as the stream is open.
    let permit = Arc::clone(&app.streams).try_acquire_owned().map_err(|_| {
        ApiError::unavailable(format!(
            "{} event streams are open, the most this server keeps: close a tab, or poll \
             /api/games/{{id}} instead",
            app.config.max_event_streams.max(1)
        ))
    })?;
    let first = entry.state(&id);
    let rx = entry.events.subscribe();
    let initial = stream::once(async move {
        Ok::<Event, Infallible>(Event::default().event("state").data(first.to_string()))
    });
    let updates = stream::unfold((rx, permit), |(mut rx, permit)| async move {
        loop {
            match rx.recv().await {
                Ok((name, data)) => {
                    let event = Event::default().event(name).data(data.to_string());
                    return Some((Ok(event), (rx, permit)));
                }
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    });
    use futures_util::StreamExt;
    Ok(Sse::new(initial.chain(updates)).keep_alive(KeepAlive::default()))
}
