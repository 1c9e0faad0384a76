//! The game host's endpoints (docs/host.md, "The API") and its pages. Each
//! endpoint that needs a token checks it, and its rate, before it reads
//! the body or does any other work; every call into the store runs off
//! the async workers.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::AppState;
use super::error::{ApiError, located};
use crate::diag::SourceFile;
use crate::host::game::{self, Host, HostError, NewGame};
use crate::host::{now, token};

/// Requests a minute one token may make.
pub const PER_TOKEN_PER_MINUTE: u32 = 60;
/// Games created a minute, over all clients.
pub const CREATED_PER_MINUTE: u32 = 20;
/// The most ship record files uploaded with a new game.
pub const MAX_UPLOADED_FILES: usize = 64;
/// Tokens remembered by the rate limiter before the oldest windows go.
const LIMITER_KEYS: usize = 10_000;

/// Requests counted per key over one-minute windows.
#[derive(Debug, Default)]
pub struct Limiter {
    windows: Mutex<BTreeMap<[u8; 32], (i64, u32)>>,
}

impl Limiter {
    /// Counts a request of `key` at `now`; false when over `per_minute`.
    pub fn allow(&self, key: [u8; 32], now: i64, per_minute: u32) -> bool {
        let mut w = self.windows.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let minute = now.div_euclid(60);
        if w.len() >= LIMITER_KEYS && !w.contains_key(&key) {
            w.retain(|_, (m, _)| *m == minute);
            if w.len() >= LIMITER_KEYS {
                return false;
            }
        }
        let e = w.entry(key).or_insert((minute, 0));
        if e.0 != minute {
            *e = (minute, 0);
        }
        e.1 += 1;
        e.1 <= per_minute
    }
}

/// What the host adds to the server's state.
#[derive(Debug)]
pub struct Hosting {
    pub host: Arc<Host>,
    pub limiter: Limiter,
}

impl From<HostError> for ApiError {
    fn from(e: HostError) -> ApiError {
        match e {
            HostError::Input { message, reports } => ApiError::from_reports(message, &reports),
            HostError::Refused(m) => ApiError::refused(m),
            HostError::Unauthorized => ApiError::new_status(
                StatusCode::UNAUTHORIZED,
                "this link is not valid: it was never issued, or the referee has re-issued it",
            ),
            HostError::Forbidden(m) => ApiError::forbidden(m),
            HostError::NotFound(m) => ApiError::not_found(m),
            HostError::Conflict(m) => ApiError::busy(m),
            HostError::Full => ApiError::new_status(
                StatusCode::INSUFFICIENT_STORAGE,
                format!("this host holds {} games, as many as it takes", game::MAX_GAMES),
            ),
            HostError::Store(e) => {
                eprintln!("fam serve: {e}");
                ApiError::failed(format!("the game database failed: {e}"))
            }
            HostError::Failed(m) => {
                eprintln!("fam serve: {m}");
                ApiError::failed(m)
            }
        }
    }
}

fn hosting(state: &AppState) -> Result<&Hosting, ApiError> {
    state
        .hosting
        .as_ref()
        .ok_or_else(|| ApiError::not_found("this server hosts no games (start it with --db FILE)"))
}

/// Runs `f` on the host off the async workers.
async fn blocking<T: Send + 'static>(
    host: &Arc<Host>,
    f: impl FnOnce(&Host) -> Result<T, HostError> + Send + 'static,
) -> Result<T, ApiError> {
    let host = Arc::clone(host);
    tokio::task::spawn_blocking(move || f(&host))
        .await
        .map_err(|_| ApiError::failed("fam failed while serving the game"))?
        .map_err(ApiError::from)
}

fn game_id(id: &str) -> Result<String, ApiError> {
    if token::is_game_id(id) {
        Ok(id.to_string())
    } else {
        Err(ApiError::not_found(format!(
            "no game `{}`",
            id.chars().take(40).collect::<String>()
        )))
    }
}

/// The bearer token, if the request has one.
fn bearer(headers: &HeaderMap) -> Option<String> {
    let v = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let t = v.strip_prefix("Bearer ")?.trim();
    (!t.is_empty() && t.len() <= 128).then(|| t.to_string())
}

/// The holder of the request's token for game `id`, after its rate: the
/// token's hash and one lookup whatever the token.
async fn authorize(state: &AppState, id: &str, headers: &HeaderMap) -> Result<crate::host::store::Holder, ApiError> {
    let hosting = hosting(state)?;
    let t = bearer(headers);
    let key = token::hash(t.as_deref().unwrap_or(""));
    if !hosting.limiter.allow(key, now(), PER_TOKEN_PER_MINUTE) {
        return Err(ApiError::new_status(
            StatusCode::TOO_MANY_REQUESTS,
            format!("more than {PER_TOKEN_PER_MINUTE} requests a minute with this link; wait a minute"),
        ));
    }
    let id = id.to_string();
    blocking(&hosting.host, move |h| h.holder(&id, t.as_deref())).await
}

/// The request's body, read only now (after the token was checked), at
/// most `max` bytes, as UTF-8.
async fn text_body(req: Request, max: usize) -> Result<String, ApiError> {
    let bytes = axum::body::to_bytes(req.into_body(), max)
        .await
        .map_err(|_| ApiError::too_large(format!("the request is larger than {} KiB", max >> 10)))?;
    String::from_utf8(bytes.to_vec()).map_err(|_| ApiError::bad_request("the body is not UTF-8 text"))
}

fn json_body<T: for<'de> Deserialize<'de>>(text: &str) -> Result<T, ApiError> {
    serde_json::from_str(text).map_err(|e| ApiError::bad_request(format!("the JSON body: {e}")))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Upload {
    name: String,
    text: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateBody {
    scenario: Upload,
    #[serde(default)]
    files: Vec<Upload>,
    #[serde(default)]
    seed: Option<String>,
    #[serde(default)]
    deadline: Option<String>,
}

#[derive(Debug, Serialize)]
struct CommanderLink {
    side: usize,
    name: String,
    token: String,
}

/// `90s`, `10m`, `24h`, `3d`: seconds, from 1 s to 30 days.
fn deadline_seconds(text: &str) -> Result<u64, ApiError> {
    let d = humantime::parse_duration(text.trim()).map_err(|e| {
        ApiError::refused(format!(
            "deadline `{text}`: {e} (a time such as 90s, 10m, 24h or 3d; none: when every plot is in)"
        ))
    })?;
    let s = d.as_secs();
    if s == 0 || s > game::MAX_DEADLINE_SECONDS {
        return Err(ApiError::refused(format!(
            "deadline `{text}`: from 1 s to {} days",
            game::MAX_DEADLINE_SECONDS / 86_400
        )));
    }
    Ok(s)
}

fn new_game(body: CreateBody) -> Result<NewGame, ApiError> {
    let max = crate::serve::battle::MAX_FILE_BYTES;
    if body.files.len() > MAX_UPLOADED_FILES {
        return Err(ApiError::refused(format!(
            "at most {MAX_UPLOADED_FILES} ship record files with a game"
        )));
    }
    for f in std::iter::once(&body.scenario).chain(&body.files) {
        if f.text.len() > max {
            return Err(ApiError::too_large(format!(
                "{}: a file holds at most {} KiB",
                f.name,
                max >> 10
            )));
        }
        if f.name.is_empty() || f.name.len() > 200 || f.name.contains(['/', '\\']) {
            return Err(ApiError::bad_request("a file name without folders, at most 200 bytes"));
        }
    }
    let seed = match body.seed.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(s) => Some(
            s.parse::<u64>()
                .map_err(|_| ApiError::refused(format!("seed `{s}`: a whole number from 0 to 18446744073709551615")))?,
        ),
    };
    let deadline_seconds = match body.deadline.as_deref().map(str::trim) {
        None | Some("") | Some("none") => None,
        Some(d) => Some(deadline_seconds(d)?),
    };
    Ok(NewGame {
        scenario: SourceFile::new(body.scenario.name, body.scenario.text),
        files: body
            .files
            .into_iter()
            .map(|f| SourceFile::new(f.name, f.text))
            .collect(),
        seed,
        deadline_seconds,
    })
}

/// `POST /api/games`
pub async fn create(State(state): State<Arc<AppState>>, req: Request) -> Result<Response, ApiError> {
    let hosting = hosting(&state)?;
    if !hosting.limiter.allow([0; 32], now(), CREATED_PER_MINUTE) {
        return Err(ApiError::new_status(
            StatusCode::TOO_MANY_REQUESTS,
            format!("more than {CREATED_PER_MINUTE} games created this minute; wait a minute"),
        ));
    }
    let text = text_body(req, crate::serve::MAX_BODY_BYTES).await?;
    let new = new_game(json_body(&text)?)?;
    let created = blocking(&hosting.host, move |h| h.create(new, now())).await?;
    let commanders: Vec<CommanderLink> = created
        .commanders
        .into_iter()
        .enumerate()
        .map(|(side, (name, token))| CommanderLink { side, name, token })
        .collect();
    let page = format!("/games/{}", created.id);
    Ok((
        StatusCode::CREATED,
        axum::Json(json!({
            "id": created.id,
            "referee": created.referee,
            "commanders": commanders,
            "page": page,
        })),
    )
        .into_response())
}

/// `GET /api/games/ID`: the public display.
pub async fn display(State(state): State<Arc<AppState>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let id = game_id(&id)?;
    let d = blocking(&hosting(&state)?.host, move |h| h.display(&id)).await?;
    Ok(axum::Json(d).into_response())
}

/// `GET /api/games/ID/me`
pub async fn me(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let id = game_id(&id)?;
    let holder = authorize(&state, &id, &headers).await?;
    let mine = blocking(&hosting(&state)?.host, move |h| h.mine(&holder)).await?;
    let form = match (&mine.side, &mine.battle) {
        (Some((s, _)), Some(b)) => Some(crate::host::view::form(b, *s)),
        _ => None,
    };
    let template_plot = mine
        .template
        .as_deref()
        .and_then(|t| toml::from_str::<toml::Table>(t).ok())
        .and_then(|t| t.get("plot").cloned());
    let plots: Vec<_> = mine
        .plots
        .iter()
        .map(|(side, name, submitted)| json!({ "side": side, "name": name, "submitted": submitted }))
        .collect();
    Ok(axum::Json(json!({
        "role": if mine.side.is_some() { "commander" } else { "referee" },
        "side": mine.side.as_ref().map(|s| s.0),
        "side_name": mine.side.as_ref().map(|s| s.1.clone()),
        "exchange": mine.game.exchange,
        "status": mine.game.status.key(),
        "template": mine.template,
        "template_plot": template_plot,
        "plot": mine.plot,
        "form": form,
        "plots": plots,
    }))
    .into_response())
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct JoinBody {
    name: String,
}

/// `POST /api/games/ID/join`
pub async fn join(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    req: Request,
) -> Result<Response, ApiError> {
    let id = game_id(&id)?;
    let holder = authorize(&state, &id, &headers).await?;
    let body: JoinBody = json_body(&text_body(req, 4 << 10).await?)?;
    let d = blocking(&hosting(&state)?.host, move |h| h.join(&holder, &body.name, now())).await?;
    Ok(axum::Json(d).into_response())
}

/// `PUT /api/games/ID/plot`: the orders TOML.
pub async fn submit(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    req: Request,
) -> Result<Response, ApiError> {
    let id = game_id(&id)?;
    let holder = authorize(&state, &id, &headers).await?;
    let text = text_body(req, game::MAX_PLOT_BYTES).await?;
    let s = blocking(&hosting(&state)?.host, move |h| h.submit(&holder, text, now())).await?;
    let warnings: Vec<_> = s.warnings.iter().flat_map(|(f, d)| located(f, d)).collect();
    Ok(axum::Json(json!({
        "accepted": true,
        "exchange": s.exchange,
        "warnings": warnings,
        "resolved": s.resolved,
    }))
    .into_response())
}

/// `GET /api/games/ID/plots/SIDE`
pub async fn plot_of(
    State(state): State<Arc<AppState>>,
    Path((id, side)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let id = game_id(&id)?;
    let holder = authorize(&state, &id, &headers).await?;
    let side: usize = side
        .parse()
        .map_err(|_| ApiError::not_found("a side is named by its number (0, 1 …)"))?;
    let (exchange, plot) = blocking(&hosting(&state)?.host, move |h| h.plot_of(&holder, side)).await?;
    Ok(axum::Json(json!({
        "side": plot.side,
        "exchange": exchange,
        "text": plot.text,
        "submitted_at": crate::host::view::rfc3339(plot.submitted_at),
    }))
    .into_response())
}

/// `POST /api/games/ID/resolve`
pub async fn resolve(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let id = game_id(&id)?;
    let holder = authorize(&state, &id, &headers).await?;
    let d = blocking(&hosting(&state)?.host, move |h| h.resolve_now(&holder, now())).await?;
    Ok(axum::Json(d).into_response())
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct EndBody {
    #[serde(default)]
    reason: String,
}

/// `POST /api/games/ID/end`
pub async fn end(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    req: Request,
) -> Result<Response, ApiError> {
    let id = game_id(&id)?;
    let holder = authorize(&state, &id, &headers).await?;
    let text = text_body(req, 4 << 10).await?;
    let body: EndBody = if text.trim().is_empty() {
        EndBody::default()
    } else {
        json_body(&text)?
    };
    let d = blocking(&hosting(&state)?.host, move |h| h.end(&holder, &body.reason)).await?;
    Ok(axum::Json(d).into_response())
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReissueBody {
    side: usize,
}

/// `POST /api/games/ID/reissue`
pub async fn reissue(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    req: Request,
) -> Result<Response, ApiError> {
    let id = game_id(&id)?;
    let holder = authorize(&state, &id, &headers).await?;
    let body: ReissueBody = json_body(&text_body(req, 4 << 10).await?)?;
    let side = body.side;
    let token = blocking(&hosting(&state)?.host, move |h| h.reissue(&holder, side)).await?;
    Ok(axum::Json(json!({ "side": side, "token": token })).into_response())
}

/// `GET /api/games/ID/turns/K.tar`
pub async fn turn_tar(
    State(state): State<Arc<AppState>>,
    Path((id, file)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let id = game_id(&id)?;
    let holder = authorize(&state, &id, &headers).await?;
    let k: u32 = file
        .strip_suffix(".tar")
        .and_then(|k| k.parse().ok())
        .ok_or_else(|| ApiError::not_found("a turn directory is K.tar, K an Exchange"))?;
    let files = blocking(&hosting(&state)?.host, move |h| h.turn_dir(&holder, k)).await?;
    let bytes = crate::host::feed::tar(k, &files).map_err(|e| ApiError::failed(e.to_string()))?;
    Ok((
        [
            (header::CONTENT_TYPE, "application/x-tar".to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{id}-exchange-{k}.tar\""),
            ),
        ],
        Body::from(bytes),
    )
        .into_response())
}

/// `GET /games/ID/feed.atom`
pub async fn feed(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let id = game_id(&id)?;
    let d = blocking(&hosting(&state)?.host, move |h| h.feed(&id)).await?;
    // The Host was checked by the guard: it names this server.
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("localhost");
    let proto = headers
        .get("x-forwarded-proto")
        .and_then(|h| h.to_str().ok())
        .filter(|p| *p == "https")
        .unwrap_or("http");
    let text = crate::host::feed::atom(&d, &format!("{proto}://{host}"));
    Ok(([(header::CONTENT_TYPE, "application/atom+xml; charset=utf-8")], text).into_response())
}

const GAME_HTML: &str = include_str!("../../assets/host/game.html");
const NEW_HTML: &str = include_str!("../../assets/host/new.html");
const GAME_JS: &str = include_str!("../../assets/host/game.js");
const NEW_JS: &str = include_str!("../../assets/host/new.js");
const HOST_CSS: &str = include_str!("../../assets/host/host.css");

fn page(kind: &'static str, text: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "no-cache"),
            // A link's token is in the fragment; no page of the host sends
            // its address to another site.
            (header::REFERRER_POLICY, "no-referrer"),
        ],
        text,
    )
        .into_response()
}

/// `GET /games/ID`: the game's page (one page for every game and role).
pub async fn game_page(Path(id): Path<String>) -> Result<Response, ApiError> {
    game_id(&id)?;
    Ok(page("text/html; charset=utf-8", GAME_HTML))
}

/// `GET /games/new`
pub async fn new_page() -> Response {
    page("text/html; charset=utf-8", NEW_HTML)
}

pub async fn game_js() -> Response {
    page("text/javascript; charset=utf-8", GAME_JS)
}

pub async fn new_js() -> Response {
    page("text/javascript; charset=utf-8", NEW_JS)
}

pub async fn host_css() -> Response {
    page("text/css; charset=utf-8", HOST_CSS)
}

/// The host's routes, added to the server's.
pub fn routes(r: axum::Router<Arc<AppState>>) -> axum::Router<Arc<AppState>> {
    use axum::routing::{get, post, put};
    r.route("/api/games", post(create))
        .route("/api/games/{id}", get(display))
        .route("/api/games/{id}/me", get(me))
        .route("/api/games/{id}/join", post(join))
        .route("/api/games/{id}/plot", put(submit))
        .route("/api/games/{id}/plots/{side}", get(plot_of))
        .route("/api/games/{id}/resolve", post(resolve))
        .route("/api/games/{id}/end", post(end))
        .route("/api/games/{id}/reissue", post(reissue))
        .route("/api/games/{id}/turns/{file}", get(turn_tar))
        .route("/games/new", get(new_page))
        .route("/games/{id}", get(game_page))
        .route("/games/{id}/feed.atom", get(feed))
        .route("/host/game.js", get(game_js))
        .route("/host/new.js", get(new_js))
        .route("/host/host.css", get(host_css))
}
