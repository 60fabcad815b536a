//! Helpers shared by the API tests: one request through the router, its status and JSON.
#![allow(dead_code)]

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;

/// Sends `method uri` with an optional JSON body text; the status and the body as JSON (`null`
/// when it is not JSON).
pub async fn call(
    app: &Router,
    method: &str,
    uri: &str,
    body: Option<&str>,
) -> (StatusCode, Value) {
    let mut req = Request::builder()
        .header("host", "localhost")
        .method(method)
        .uri(uri);
    if body.is_some() {
        req = req.header("content-type", "application/json");
    }
    let req = req
        .body(body.map_or_else(Body::empty, |b| Body::from(b.to_string())))
        .expect("request");
    let resp = app.clone().oneshot(req).await.expect("response");
    let status = resp.status();
    let bytes = resp.into_body().collect().await.expect("body").to_bytes();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

/// [`call`] with a JSON value as the body.
pub async fn call_json(
    app: &Router,
    method: &str,
    uri: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    call(app, method, uri, body.map(|b| b.to_string()).as_deref()).await
}

/// The generic agents of `Othello<N>` over the hand-built heuristic (greedy by disc count).
pub fn othello_registry<const N: usize>() -> search::Registry<othello::Othello<N>> {
    search::Registry::generic(
        std::sync::Arc::new(othello_engine::Heuristic::<N>::default()),
        std::sync::Arc::new(othello_engine::DiscDifference),
    )
}
