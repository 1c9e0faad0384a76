//! `fam serve`: the odds calculator as a local web page. The page
//! (`assets/serve/`, embedded) builds a battle from the shipped library or
//! uploaded files; the endpoints ([`api`], docs/serve-api.md) load it as a
//! scenario exactly as the CLI does and play batches, comparisons, tunings,
//! solves and replays with the same functions as `fam batch`,
//! `fam compare`, `fam tune`, `fam solve` and `fam resolve`, so the
//! page's odds are the CLI's.
//!
//! Safe by default: it binds the loopback address unless told otherwise;
//! request bodies and uploads are bounded; runs are bounded in count and
//! time; a client runs one job at a time; nothing a client sends is
//! written to disk; a request that cannot be served is answered with an
//! error, never a panic.

pub mod api;
pub mod battle;
pub mod error;
pub mod games;
pub mod guard;
pub mod jobs;
pub mod net;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::{get, post};

/// The largest request body taken (a battle with its uploaded files).
pub const MAX_BODY_BYTES: usize = 4 << 20;

/// How long a job plays before it stops with the runs it has.
pub const JOB_TIME_LIMIT: Duration = Duration::from_secs(120);

/// Jobs that may run at once, over all clients.
pub const JOB_SLOTS: usize = 2;

/// What every handler shares.
#[derive(Debug)]
pub struct AppState {
    pub jobs: jobs::Jobs,
    /// The Host names answered ([`guard`]).
    pub hosts: guard::Hosts,
    /// The longest replay report written ([`api::MAX_REPLAY_BYTES`]).
    pub replay_bytes: usize,
    /// The game host, when the server keeps games (`--db`).
    pub hosting: Option<games::Hosting>,
}

impl AppState {
    /// A loopback server's state, its jobs stopped after `time_limit`.
    pub fn new(time_limit: Duration) -> AppState {
        AppState::with_hosts(time_limit, guard::Hosts::loopback())
    }

    pub fn with_hosts(time_limit: Duration, hosts: guard::Hosts) -> AppState {
        AppState {
            jobs: jobs::Jobs::new(JOB_SLOTS, time_limit),
            hosts,
            replay_bytes: api::MAX_REPLAY_BYTES,
            hosting: None,
        }
    }

    /// This state, hosting the games of `host`.
    pub fn hosting(mut self, host: Arc<crate::host::Host>) -> AppState {
        self.hosting = Some(games::Hosting {
            host,
            limiter: games::Limiter::default(),
        });
        self
    }
}

const INDEX: &str = include_str!("../../assets/serve/index.html");
const APP_JS: &str = include_str!("../../assets/serve/app.js");
const STYLE: &str = include_str!("../../assets/serve/style.css");

fn asset(kind: &'static str, text: &'static str) -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, kind), (header::CACHE_CONTROL, "no-cache")],
        text,
    )
}

/// Every route of the server.
pub fn router(state: Arc<AppState>) -> Router {
    games::routes(Router::new())
        .route("/", get(|| async { asset("text/html; charset=utf-8", INDEX) }))
        .route(
            "/app.js",
            get(|| async { asset("text/javascript; charset=utf-8", APP_JS) }),
        )
        .route("/style.css", get(|| async { asset("text/css; charset=utf-8", STYLE) }))
        .route("/api/library", get(api::library_list))
        .route("/api/library/{name}", get(api::library_file))
        .route("/api/ships", post(api::ships))
        .route("/api/scenario", post(api::scenario))
        .route("/api/batch", post(api::start_batch))
        .route("/api/compare", post(api::start_compare))
        .route("/api/tune", post(api::start_tune))
        .route("/api/solve", post(api::start_solve))
        .route("/api/replay", post(api::replay))
        .route("/api/jobs/{id}", get(api::job_status).delete(api::job_cancel))
        .fallback(|| async { error::ApiError::not_found("no such page") })
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        // The outermost layer: who is asking is checked before anything.
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&state),
            guard::check_host,
        ))
        .with_state(state)
}

/// Why the server could not start.
#[derive(Debug)]
pub enum ServeError {
    /// The address cannot be bound (in use, not allowed).
    Bind(SocketAddr, std::io::Error),
    /// The runtime could not start, or the server stopped on an error.
    Runtime(std::io::Error),
    /// The game database cannot be opened.
    Games(crate::host::HostError),
}

impl std::fmt::Display for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServeError::Bind(addr, e) => write!(f, "cannot listen on {addr}: {e}"),
            ServeError::Runtime(e) => write!(f, "the server stopped: {e}"),
            ServeError::Games(e) => write!(f, "the game database: {e:?}"),
        }
    }
}

impl std::error::Error for ServeError {}

/// Serves the page on `addr` until the process is stopped, answering the
/// loopback names, `addr` and `allow_hosts` ([`guard::Hosts`]), hosting
/// the games of the database `db` when given; `ready(url)` is called once
/// it listens (the CLI prints the URL and may open a browser).
pub fn run(
    addr: SocketAddr,
    allow_hosts: &[String],
    db: Option<&std::path::Path>,
    ready: impl FnOnce(&str),
) -> Result<(), ServeError> {
    // Exchanges that fell due while the host was down resolve before it
    // listens.
    let host = match db {
        Some(path) => Some(Arc::new(
            crate::host::Host::open(path, crate::host::now()).map_err(ServeError::Games)?,
        )),
        None => None,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_io()
        .enable_time()
        .build()
        .map_err(ServeError::Runtime)?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| ServeError::Bind(addr, e))?;
        let bound = listener.local_addr().map_err(ServeError::Runtime)?;
        ready(&format!("http://{bound}/"));
        let hosts = guard::Hosts::new(addr.ip(), allow_hosts);
        let mut state = AppState::with_hosts(JOB_TIME_LIMIT, hosts);
        if let Some(host) = host {
            tokio::spawn(deadlines(Arc::clone(&host)));
            state = state.hosting(host);
        }
        let app = router(Arc::new(state));
        net::serve(listener, app, net::Limits::default()).await;
        Ok(())
    })
}

/// Resolves, once a second, the hosted Exchanges whose deadline passed.
async fn deadlines(host: Arc<crate::host::Host>) {
    let mut every = tokio::time::interval(Duration::from_secs(1));
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        let h = Arc::clone(&host);
        let done = tokio::task::spawn_blocking(move || h.tick(crate::host::now(), false)).await;
        if let Ok(Err(e)) = done {
            eprintln!("fam serve: a deadline could not be kept: {e:?}");
        }
    }
}
