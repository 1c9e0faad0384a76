//! The endpoints of `fam serve` (docs/serve-api.md): each reads its JSON,
//! loads the battle as `fam batch` would, and answers JSON or an
//! [`ApiError`].

use std::sync::Arc;

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::AppState;
use super::battle::{Battle, MAX_FILE_BYTES, SCENARIO_NAME};
use super::error::{ApiError, located};
use super::jobs::{Job, Status, in_blocks, outcome};
use crate::batch::{self, BatchError, Report};
use crate::diag::SourceFile;
use crate::library;
use crate::orders::Loaded;
use crate::resolve::{Bounds, Cut};

/// The most runs a batch or a comparison plays.
pub const MAX_RUNS: u64 = 100_000;
/// The most confirming runs a tuning plays per finalist.
pub const MAX_TUNE_RUNS: u64 = 2_000;
/// The most fresh runs a solve confirms its equilibrium on.
pub const MAX_SOLVE_RUNS: u64 = 2_000;

/// The JSON body, or a 400 saying what is wrong with it (a 413 when the
/// body limit refused it).
fn body<T>(parsed: Result<Json<T>, JsonRejection>) -> Result<T, ApiError> {
    match parsed {
        Ok(Json(v)) => Ok(v),
        Err(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => Err(ApiError::too_large(format!(
            "the request is larger than the server takes ({} MiB)",
            super::MAX_BODY_BYTES >> 20
        ))),
        Err(e) => Err(ApiError::bad_request(e.body_text())),
    }
}

/// The page's id for its tab (`X-Fam-Client`), which holds one job at a time.
fn client(headers: &HeaderMap) -> String {
    headers
        .get("x-fam-client")
        .and_then(|v| v.to_str().ok())
        .map(|s| s.chars().take(64).collect())
        .unwrap_or_else(|| "anonymous".to_string())
}

pub async fn library_list() -> Json<Value> {
    Json(json!({ "files": library::list() }))
}

pub async fn library_file(Path(name): Path<String>) -> Result<Response, ApiError> {
    let text = library::text(&name).ok_or_else(|| ApiError::not_found(format!("no library file `{name}`")))?;
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response())
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Upload {
    name: String,
    text: String,
}

/// Reads an uploaded GZF file, or imports an FTJava XML one to GZF.
pub async fn ships(parsed: Result<Json<Upload>, JsonRejection>) -> Result<Json<Value>, ApiError> {
    let up = body(parsed)?;
    if up.text.len() > MAX_FILE_BYTES {
        return Err(ApiError::too_large(format!(
            "{}: a file holds at most {} KiB",
            up.name,
            MAX_FILE_BYTES / 1024
        )));
    }
    let name = up.name.trim().to_string();
    if name.is_empty() || name.len() > super::battle::MAX_NAME_BYTES || name.contains(['/', '\\']) {
        return Err(ApiError::bad_request("a file name without folders, at most 200 bytes"));
    }
    tokio::task::spawn_blocking(move || read_upload(&name, up.text))
        .await
        .map_err(|_| ApiError::failed("fam failed while reading the file"))?
        .map(Json)
}

fn read_upload(name: &str, text: String) -> Result<Value, ApiError> {
    let source = SourceFile::new(name, text);
    let is_xml = name.to_ascii_lowercase().ends_with(".xml") || source.text.trim_start().starts_with('<');
    let (gzf_name, gzf_text, warnings) = if is_xml {
        let imported = crate::ftjava::import(&source, &crate::ftjava::Options::default());
        if imported.has_errors() {
            return Err(ApiError::from_reports(
                format!("{name}: fam cannot import this FTJava file"),
                &[(source, imported.diagnostics)],
            ));
        }
        let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
        let gzf = crate::gzf::write(&imported.gzf);
        (format!("{stem}.gzf"), gzf, located(&source, &imported.diagnostics))
    } else {
        let parsed = crate::gzf::parse(&source.text, &crate::gzf::ParseOptions::default());
        if parsed.diagnostics.iter().any(crate::diag::Diagnostic::is_error) {
            return Err(ApiError::from_reports(
                format!("{name}: fam cannot read this GZF file"),
                &[(source, parsed.diagnostics)],
            ));
        }
        let warnings = located(&source, &parsed.diagnostics);
        (name.to_string(), source.text, warnings)
    };
    let parsed = crate::gzf::parse(&gzf_text, &crate::gzf::ParseOptions::default());
    Ok(json!({
        "file": { "name": gzf_name, "text": gzf_text },
        "ships": library::entries(&parsed.file),
        "warnings": warnings,
    }))
}

/// Loads a battle off the async threads.
async fn load(battle: Battle) -> Result<(Battle, Loaded), ApiError> {
    tokio::task::spawn_blocking(move || battle.load().map(|l| (battle, l)))
        .await
        .map_err(|_| ApiError::failed("fam failed while loading the battle"))?
}

fn warnings(loaded: &Loaded) -> Vec<super::error::Located> {
    loaded.warnings.iter().flat_map(|(s, d)| located(s, d)).collect()
}

/// The battle as a scenario TOML and its files, once fam has accepted it.
pub async fn scenario(parsed: Result<Json<Battle>, JsonRejection>) -> Result<Json<Value>, ApiError> {
    let (battle, loaded) = load(body(parsed)?).await?;
    let files: Vec<Value> = battle
        .sources()
        .into_iter()
        .map(|s| json!({ "name": s.name, "text": s.text }))
        .collect();
    Ok(Json(json!({
        "toml": super::battle::to_toml(&battle),
        "files": files,
        "warnings": warnings(&loaded),
    })))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BatchRequest {
    battle: Battle,
    runs: u64,
    #[serde(default)]
    seed: Option<u64>,
}

fn check_runs(runs: u64, max: u64) -> Result<(), ApiError> {
    if runs == 0 || runs > max {
        return Err(ApiError::refused(format!("runs: from 1 to {max}")));
    }
    Ok(())
}

fn accepted(id: String) -> Response {
    (StatusCode::ACCEPTED, Json(json!({ "job": id }))).into_response()
}

pub async fn start_batch(
    State(app): State<Arc<AppState>>,
    headers: HeaderMap,
    parsed: Result<Json<BatchRequest>, JsonRejection>,
) -> Result<Response, ApiError> {
    let req = body(parsed)?;
    check_runs(req.runs, MAX_RUNS)?;
    let (_, loaded) = load(req.battle).await?;
    let opts = batch::Options::for_scenario(&loaded, req.seed, None, None);
    let runs = req.runs;
    let id = app.jobs.start(&client(&headers), "batch", runs, move |job| {
        play_batch(job, &loaded, &opts, runs)
    })?;
    Ok(accepted(id))
}

fn batch_failed(e: BatchError) -> ApiError {
    match e {
        BatchError::TooManySides(_) | BatchError::TooManyRuns(_) => ApiError::refused(e.to_string()),
        e => ApiError::failed(e.to_string()),
    }
}

/// Plays the batch in blocks; its result, of the runs played.
fn play_batch(job: &Job, loaded: &Loaded, opts: &batch::Options, runs: u64) -> super::jobs::Outcome {
    let mut total = batch::Tally::new(&loaded.battle, opts.exchanges);
    in_blocks(job, runs, |block| {
        let counted = batch::run(loaded, opts, block, &|n| job.advance(n))?;
        let _ = total.merge(&counted);
        Ok(())
    })
    .map_err(batch_failed)?;
    if total.runs == 0 {
        return Ok(None);
    }
    let played = total.runs;
    let report = Report {
        meta: batch::Meta::new(loaded, SCENARIO_NAME, opts, 0..played),
        tally: total,
    };
    batch_result(loaded, &report, opts.seed).map(Some)
}

/// JSON text fam wrote, passed on byte for byte (not parsed and written
/// again, which could reorder its keys).
fn verbatim(text: String) -> Result<Box<RawValue>, ApiError> {
    RawValue::from_string(text).map_err(|e| ApiError::failed(format!("fam wrote JSON it cannot read back: {e}")))
}

#[derive(Serialize)]
struct BatchResult {
    batch: Box<RawValue>,
    notes: Vec<String>,
    table: String,
    markdown: String,
    svg: Option<String>,
    command: String,
}

/// A batch's result: the JSON `fam batch --json` prints, the text table
/// with its caveats, the Markdown summary and the `--plot` picture.
fn batch_result(loaded: &Loaded, report: &Report, seed: u64) -> Result<Box<RawValue>, ApiError> {
    let caveats = crate::caveats::of_battle(&loaded.battle);
    let table = batch::text::table_with_caveats(report, &caveats, false);
    let svg = batch::plot::render(report, batch::plot::Kind::Svg)
        .ok()
        .and_then(|b| String::from_utf8(b).ok());
    // What the odds hinge on, for the page to show above them: weapons the
    // commanders left idle, switched rules and disputed readings.
    let mut notes = batch::text::idle_notes(report);
    notes.extend(caveats);
    outcome(&BatchResult {
        batch: verbatim(batch::json::render(report))?,
        notes,
        table,
        markdown: batch::markdown::render(report),
        svg,
        command: format!("fam batch {SCENARIO_NAME} --runs {} --seed {seed}", report.tally.runs),
    })
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompareRequest {
    a: Battle,
    b: Battle,
    runs: u64,
    #[serde(default)]
    seed: Option<u64>,
}

pub async fn start_compare(
    State(app): State<Arc<AppState>>,
    headers: HeaderMap,
    parsed: Result<Json<CompareRequest>, JsonRejection>,
) -> Result<Response, ApiError> {
    let req = body(parsed)?;
    check_runs(req.runs, MAX_RUNS)?;
    let (_, a) = load(req.a).await?;
    let (_, b) = load(req.b).await?;
    // One base seed for both, so run i of A and run i of B pair up.
    let opts_a = batch::Options::for_scenario(&a, req.seed, None, None);
    let opts_b = batch::Options {
        seed: opts_a.seed,
        ..batch::Options::for_scenario(&b, None, None, None)
    };
    let runs = req.runs;
    let id = app.jobs.start(&client(&headers), "compare", runs * 2, move |job| {
        play_compare(job, [(&a, &opts_a), (&b, &opts_b)], runs)
    })?;
    Ok(accepted(id))
}

/// Plays both battles block by block on the same runs; `fam compare`'s
/// table and JSON of the runs played.
fn play_compare(job: &Job, both: [(&Loaded, &batch::Options); 2], runs: u64) -> super::jobs::Outcome {
    let mut tallies = both.map(|(l, o)| batch::Tally::new(&l.battle, o.exchanges));
    let mut codes: [Vec<u8>; 2] = [Vec::new(), Vec::new()];
    let played = in_blocks(job, runs, |block| {
        for (i, (l, o)) in both.iter().enumerate() {
            let (t, c) = batch::run_with_outcomes(l, o, block.clone(), &|n| job.advance(n))?;
            let _ = tallies[i].merge(&t);
            codes[i].extend_from_slice(&c);
        }
        Ok(())
    })
    .map_err(batch_failed)?;
    if played == 0 {
        return Ok(None);
    }
    let [ta, tb] = tallies;
    let [(la, oa), (lb, ob)] = both;
    let ra = Report {
        meta: batch::Meta::new(la, "a.toml", oa, 0..played),
        tally: ta,
    };
    let rb = Report {
        meta: batch::Meta::new(lb, "b.toml", ob, 0..played),
        tally: tb,
    };
    #[derive(Serialize)]
    struct Compared {
        text: String,
        json: Box<RawValue>,
    }
    outcome(&Compared {
        text: batch::text::compare_table(&ra, &rb, &codes[0], &codes[1]),
        json: verbatim(batch::text::compare_json(&ra, &rb, &codes[0], &codes[1]))?,
    })
    .map(Some)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TuneRequest {
    battle: Battle,
    side: String,
    runs: u64,
    #[serde(default)]
    seed: Option<u64>,
}

pub async fn start_tune(
    State(app): State<Arc<AppState>>,
    headers: HeaderMap,
    parsed: Result<Json<TuneRequest>, JsonRejection>,
) -> Result<Response, ApiError> {
    let req = body(parsed)?;
    check_runs(req.runs, MAX_TUNE_RUNS)?;
    let (_, loaded) = load(req.battle).await?;
    let Some(side) = loaded.battle.sides.iter().position(|s| s.name == req.side) else {
        let names: Vec<&str> = loaded.battle.sides.iter().map(|s| s.name.as_str()).collect();
        return Err(ApiError::refused(format!(
            "no side `{}` in this battle (its sides: {})",
            req.side,
            names.join(", ")
        )));
    };
    let opts = crate::tune::Options {
        side,
        runs: req.runs,
        top: 5,
        batch: batch::Options::for_scenario(&loaded, req.seed, None, None),
    };
    let total = crate::tune::planned_runs(&loaded, &opts);
    let id = app.jobs.start(
        &client(&headers),
        "tune",
        total,
        move |job| match crate::tune::search_until(&loaded, &opts, &|n| job.advance(n), job.stop_flag()) {
            Ok(t) => tune_result(&loaded, &opts, &t).map(Some),
            Err(BatchError::Cancelled) => Ok(None),
            Err(e) => Err(batch_failed(e)),
        },
    )?;
    Ok(accepted(id))
}

#[derive(Serialize)]
struct Tuned {
    text: String,
    json: Box<RawValue>,
    best: Value,
}

/// `fam tune`'s text and JSON, and the best finalist's orders for the page.
fn tune_result(
    loaded: &Loaded,
    opts: &crate::tune::Options,
    t: &crate::tune::Tuned,
) -> Result<Box<RawValue>, ApiError> {
    let text = crate::tune::json(loaded, SCENARIO_NAME, opts, t);
    let best = best_orders(&serde_json::from_str(&text).unwrap_or(Value::Null));
    outcome(&Tuned {
        text: crate::tune::text(loaded, SCENARIO_NAME, opts, t),
        json: verbatim(text)?,
        best,
    })
}

/// The best finalist's standing orders as the page's battle takes them: each
/// Formation of the tuned side by name, with its `[doctrine]` table as JSON
/// (what "Use these orders" puts into the form). `null` when there is none.
fn best_orders(tuned: &Value) -> Value {
    let tables = tuned["finalists"][0]["doctrine"].as_str().unwrap_or_default();
    toml::from_str::<toml::Table>(tables)
        .ok()
        .and_then(|mut t| t.remove("doctrine"))
        .and_then(|d| serde_json::to_value(d).ok())
        .unwrap_or(Value::Null)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SolveRequest {
    battle: Battle,
    runs: u64,
    #[serde(default)]
    seed: Option<u64>,
    /// Percentage points, as `fam solve --margin`.
    #[serde(default)]
    margin: Option<f64>,
}

/// The margin as a fraction, from `margin` percentage points (default
/// `fam solve`'s).
fn solve_margin(margin: Option<f64>) -> Result<f64, ApiError> {
    match margin {
        None => Ok(crate::solve::DEFAULT_MARGIN),
        Some(pp) if (0.0..=50.0).contains(&pp) => Ok(pp / 100.0),
        Some(_) => Err(ApiError::refused("margin: from 0 to 50 percentage points")),
    }
}

/// Both sides' standing orders at an equilibrium of the battle, as
/// `fam solve` finds them.
pub async fn start_solve(
    State(app): State<Arc<AppState>>,
    headers: HeaderMap,
    parsed: Result<Json<SolveRequest>, JsonRejection>,
) -> Result<Response, ApiError> {
    let req = body(parsed)?;
    check_runs(req.runs, MAX_SOLVE_RUNS)?;
    let margin = solve_margin(req.margin)?;
    let (_, loaded) = load(req.battle).await?;
    let sides = loaded.battle.sides.len();
    if sides != 2 {
        return Err(ApiError::refused(crate::solve::SolveError::Sides(sides).to_string()));
    }
    let opts = crate::solve::Options {
        runs: req.runs,
        margin,
        rounds: crate::solve::DEFAULT_ROUNDS,
        finalists: crate::solve::DEFAULT_FINALISTS,
        batch: batch::Options::for_scenario(&loaded, req.seed, None, None),
    };
    let total = crate::solve::planned_runs(&loaded, &opts);
    let id = app.jobs.start(&client(&headers), "solve", total, move |job| {
        play_solve(job, &loaded, &opts)
    })?;
    Ok(accepted(id))
}

/// Plays the solve; its text and JSON as `fam solve` prints them, or none
/// when it was stopped.
fn play_solve(job: &Job, loaded: &Loaded, opts: &crate::solve::Options) -> super::jobs::Outcome {
    // The solve's length is known only as it goes: the bar's total grows
    // by a round whenever the runs reach it.
    let round = crate::solve::round_runs(loaded, opts).max(1);
    let progress = |n: u64| {
        job.advance(n);
        job.grow_total(round);
    };
    match crate::solve::solve_until(loaded, opts, &progress, job.stop_flag()) {
        Ok(s) => {
            #[derive(Serialize)]
            struct Solved {
                text: String,
                json: Box<RawValue>,
                command: String,
            }
            outcome(&Solved {
                text: crate::solve::text(loaded, SCENARIO_NAME, opts, &s),
                json: verbatim(crate::solve::json(loaded, SCENARIO_NAME, opts, &s))?,
                command: format!(
                    "fam solve {SCENARIO_NAME} --runs {} --seed {} --margin {}",
                    opts.runs,
                    opts.batch.seed,
                    (opts.margin * 1e4).round() / 100.0
                ),
            })
            .map(Some)
        }
        Err(crate::solve::SolveError::Batch(BatchError::Cancelled)) => Ok(None),
        Err(crate::solve::SolveError::Batch(e)) => Err(batch_failed(e)),
        Err(e @ crate::solve::SolveError::Sides(_)) => Err(ApiError::refused(e.to_string())),
    }
}

pub async fn job_status(State(app): State<Arc<AppState>>, Path(id): Path<String>) -> Result<Json<Status>, ApiError> {
    let job = app
        .jobs
        .get(&id)
        .ok_or_else(|| ApiError::not_found(format!("no job `{id}`")))?;
    Ok(Json(job.status()))
}

pub async fn job_cancel(State(app): State<Arc<AppState>>, Path(id): Path<String>) -> Result<Json<Status>, ApiError> {
    let job = app
        .jobs
        .cancel(&id)
        .ok_or_else(|| ApiError::not_found(format!("no job `{id}`")))?;
    Ok(Json(job.status()))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplayRequest {
    battle: Battle,
    seed: u64,
    #[serde(default)]
    exchanges: Option<u32>,
}

/// The longest replay report the server writes: it plays no Exchange
/// after the one that reaches it (a 256-Unit battle writes about 1 MB an
/// Exchange).
pub const MAX_REPLAY_BYTES: usize = 8 << 20;

/// One run replayed by its seed, every Exchange in full: what
/// `fam resolve scenario.toml --seed S --exchanges K --detail` prints. A
/// replay is a job like a batch: it takes one of the server's slots (and
/// the client's one), and stops at the job time limit or once its report
/// reaches [`MAX_REPLAY_BYTES`], saying so.
pub async fn replay(
    State(app): State<Arc<AppState>>,
    headers: HeaderMap,
    parsed: Result<Json<ReplayRequest>, JsonRejection>,
) -> Result<Response, ApiError> {
    let req = body(parsed)?;
    if let Some(k) = req.exchanges
        && !(1..=batch::MAX_EXCHANGES).contains(&k)
    {
        return Err(ApiError::refused(format!(
            "exchanges: from 1 to {}",
            batch::MAX_EXCHANGES
        )));
    }
    let seed = req.seed;
    let replay_bytes = app.replay_bytes;
    // The slot first, then the battle is loaded in it: a replay refused
    // for want of a slot costs nothing.
    let id = app.jobs.start(
        &client(&headers),
        "replay",
        u64::from(req.exchanges.unwrap_or(0)),
        move |job| {
            let loaded = req.battle.load()?;
            let count = req.exchanges.unwrap_or_else(|| batch::default_exchanges(&loaded));
            job.total.store(u64::from(count), std::sync::atomic::Ordering::Relaxed);
            replayed(job, &loaded, seed, count, replay_bytes).map(Some)
        },
    )?;
    let job = app
        .jobs
        .get(&id)
        .ok_or_else(|| ApiError::failed("the replay's job was lost"))?;
    job.ended().await;
    match job.result()? {
        Some(answer) => Ok(([(header::CONTENT_TYPE, "application/json")], answer.get().to_string()).into_response()),
        None => Err(ApiError::failed("the replay ended without a report")),
    }
}

/// A size in MiB when it is whole ones, else in KiB.
fn size(bytes: usize) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{} KiB", bytes >> 10)
    }
}

#[derive(Serialize)]
struct Replayed {
    report: String,
    command: String,
    /// Exchanges played.
    exchanges: u32,
    /// `"size"` or `"time"` when a bound cut the replay short.
    stopped: Option<&'static str>,
}

/// The replay's answer: its report (with a last line saying so when a
/// bound cut it short), the command that plays it all, the Exchanges it
/// played.
fn replayed(job: &Job, loaded: &Loaded, seed: u64, count: u32, max_bytes: usize) -> Result<Box<RawValue>, ApiError> {
    let (report, played, cut) = replay_report(job, loaded, seed, count, max_bytes);
    let command = format!("fam resolve {SCENARIO_NAME} --seed {seed} --exchanges {count} --detail");
    let report = match cut {
        None => report,
        Some(c) => format!(
            "{report}\nThe replay stops after {played} of {count} Exchanges: {}. `{command}` plays it all.\n",
            match c {
                Cut::Size => format!("its report reached the server's limit of {}", size(max_bytes)),
                Cut::Stopped => "it reached the server's time limit".to_string(),
            }
        ),
    };
    outcome(&Replayed {
        report,
        command,
        exchanges: played,
        stopped: cut.map(|c| match c {
            Cut::Size => "size",
            Cut::Stopped => "time",
        }),
    })
}

/// The replay's report, the Exchanges it played and what cut it short.
fn replay_report(job: &Job, loaded: &Loaded, seed: u64, count: u32, max_bytes: usize) -> (String, u32, Option<Cut>) {
    // The option of each `[[mix.SIDE]]` this seed draws, as the batch run.
    let drawn = Loaded {
        doctrine: loaded.drawn_doctrine(seed),
        mixes: Vec::new(),
        ..loaded.clone()
    };
    let loaded = &drawn;
    let first = crate::resolve::battle_plot(loaded, &loaded.battle, 0, count);
    let stop = || {
        job.advance(1);
        job.stopping()
    };
    let played = crate::resolve::resolve_battle_within(
        &crate::resolve::first_header(loaded, seed),
        seed,
        &loaded.battle,
        &first,
        &loaded.victory,
        count,
        crate::report::Style::Text,
        true,
        &|b| crate::resolve::battle_plot(loaded, b, 1, count),
        &Bounds {
            report_bytes: max_bytes,
            stop: &stop,
        },
    );
    (played.report, played.exchanges, played.cut)
}
