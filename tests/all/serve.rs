//! `fam serve`'s HTTP API (docs/serve-api.md): every endpoint, its answers
//! checked against the CLI on the same scenario and seed, and its refusals
//! of bad uploads, oversized requests and impossible battles.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use fam::serve::{AppState, router};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

use crate::support::{fam, repo};

/// A server's state and a runtime to call it on.
struct Server {
    state: Arc<AppState>,
    rt: tokio::runtime::Runtime,
}

impl Server {
    fn new() -> Server {
        Server::with_limit(Duration::from_secs(120))
    }

    fn with_limit(limit: Duration) -> Server {
        Server::with_state(AppState::new(limit))
    }

    fn with_state(state: AppState) -> Server {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()
            .expect("a runtime");
        Server {
            state: Arc::new(state),
            rt,
        }
    }

    /// Sends a request; the status, the content type and the body.
    fn call(&self, method: Method, uri: &str, client: &str, body: Vec<u8>) -> (StatusCode, String, Vec<u8>) {
        self.call_as(Some("localhost:8787"), method, uri, client, body)
    }

    /// [`Server::call`] naming `host` as the Host (none: no Host header).
    fn call_as(
        &self,
        host: Option<&str>,
        method: Method,
        uri: &str,
        client: &str,
        body: Vec<u8>,
    ) -> (StatusCode, String, Vec<u8>) {
        let mut req = Request::builder().method(method).uri(uri);
        if let Some(host) = host {
            req = req.header("host", host);
        }
        let req = req
            .header("content-type", "application/json")
            .header("x-fam-client", client)
            .body(Body::from(body))
            .expect("a request");
        let app = router(Arc::clone(&self.state));
        self.rt.block_on(async {
            let res = app.oneshot(req).await.expect("an answer");
            let status = res.status();
            let kind = res
                .headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_string();
            let bytes = res.into_body().collect().await.expect("a body").to_bytes().to_vec();
            (status, kind, bytes)
        })
    }

    fn get(&self, uri: &str) -> (StatusCode, Value) {
        let (s, _, b) = self.call(Method::GET, uri, "t", Vec::new());
        (s, serde_json::from_slice(&b).unwrap_or(Value::Null))
    }

    fn post(&self, uri: &str, client: &str, body: &Value) -> (StatusCode, Value) {
        let (s, _, b) = self.call(Method::POST, uri, client, body.to_string().into_bytes());
        (s, serde_json::from_slice(&b).unwrap_or(Value::Null))
    }

    /// Polls a job until it has ended.
    fn wait(&self, id: &str) -> Value {
        for _ in 0..6000 {
            let (s, v) = self.get(&format!("/api/jobs/{id}"));
            assert_eq!(s, StatusCode::OK, "{v}");
            if v["state"] != "running" {
                return v;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("job {id} still running after two minutes");
    }

    /// Starts a job and waits for its end.
    fn job(&self, uri: &str, client: &str, body: &Value) -> Value {
        let (s, v) = self.post(uri, client, body);
        assert_eq!(s, StatusCode::ACCEPTED, "{v}");
        self.wait(v["job"].as_str().expect("a job id"))
    }
}

/// A duel from the library: one Meridian cruiser against one Kestrel
/// cruiser, the Kestrel side on standing orders.
fn duel() -> Value {
    json!({
        "title": "Duel from the page",
        "files": [{"name": "meridian-compact.gzf"}, {"name": "kestrel-reach.gzf"}],
        "sides": [
            {"name": "Ilse", "formations": [{"name": "Heading", "units": ["MCS Clear Heading"]}]},
            {"name": "Marek", "formations": [{"name": "Watch", "units": ["KRD Long Watch"],
              "doctrine": {"target": "nearest", "maneuver": {"hold": 30}, "evasion": "max", "pd": "auto"}}]}
        ],
        "start_range": 30,
        "victory": {"max_exchanges": 8, "morale": 50}
    })
}

/// Writes the scenario the API gives for `battle` and its files into a
/// fresh directory, as a user saving the page's downloads would.
fn save_scenario(server: &Server, battle: &Value) -> tempfile::TempDir {
    let (s, v) = server.post("/api/scenario", "t", battle);
    assert_eq!(s, StatusCode::OK, "{v}");
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("scenario.toml"), v["toml"].as_str().expect("toml")).expect("write");
    for f in v["files"].as_array().expect("files") {
        let name = f["name"].as_str().expect("name");
        std::fs::write(dir.path().join(name), f["text"].as_str().expect("text")).expect("write");
    }
    dir
}

fn fam_in(dir: &std::path::Path, args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fam"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("fam runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn the_library_is_every_shipped_file_with_its_ships() {
    let server = Server::new();
    let (s, v) = server.get("/api/library");
    assert_eq!(s, StatusCode::OK);
    let listed: Vec<&str> = v["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| f["name"].as_str().expect("name"))
        .collect();
    let mut on_disk: Vec<String> = std::fs::read_dir(repo().join("ssd"))
        .expect("ssd/")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".gzf"))
        .collect();
    on_disk.sort();
    assert_eq!(listed, on_disk, "the embedded library is ssd/");
    for f in v["files"].as_array().expect("files") {
        let name = f["name"].as_str().expect("name");
        let text = std::fs::read_to_string(repo().join("ssd").join(name)).expect("read");
        let ships = text.lines().filter(|l| l.starts_with("Ship:")).count();
        let listed_ships = f["ships"]
            .as_array()
            .expect("ships")
            .iter()
            .filter(|e| e["kind"] == "ship")
            .count();
        assert_eq!(listed_ships, ships, "{name}: every Ship block is listed");
        let (s, kind, body) = server.call(Method::GET, &format!("/api/library/{name}"), "t", Vec::new());
        assert_eq!(s, StatusCode::OK);
        assert!(kind.starts_with("text/plain"), "{kind}");
        assert_eq!(
            String::from_utf8(body).expect("UTF-8"),
            text,
            "{name}: the download is the file"
        );
    }
    let heading = &v["files"][4]["ships"];
    let clear = heading
        .as_array()
        .expect("ships")
        .iter()
        .find(|e| e["name"] == "MCS Clear Heading")
        .expect("MCS Clear Heading is listed");
    assert_eq!(clear["thrust"], 6);
    assert_eq!(server.get("/api/library/nothing.gzf").0, StatusCode::NOT_FOUND);
}

#[test]
fn the_page_and_its_scripts_are_served() {
    let server = Server::new();
    for (uri, kind) in [
        ("/", "text/html"),
        ("/app.js", "text/javascript"),
        ("/style.css", "text/css"),
    ] {
        let (s, k, body) = server.call(Method::GET, uri, "t", Vec::new());
        assert_eq!(s, StatusCode::OK, "{uri}");
        assert!(k.starts_with(kind), "{uri}: {k}");
        assert!(!body.is_empty(), "{uri}");
    }
    let (s, v) = server.get("/no/such/page");
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert!(v["error"]["message"].is_string());
}

#[test]
fn a_batch_on_the_page_is_fam_batch_on_the_scenario_it_downloads() {
    let server = Server::new();
    let battle = duel();
    let (s, v) = server.post("/api/batch", "a", &json!({"battle": battle, "runs": 300, "seed": 11}));
    assert_eq!(s, StatusCode::ACCEPTED, "{v}");
    let id = v["job"].as_str().expect("a job id").to_string();
    let done = server.wait(&id);
    assert_eq!(done["state"], "done", "{done}");
    assert_eq!(done["done"], 300);
    let dir = save_scenario(&server, &battle);
    let cli = fam_in(
        dir.path(),
        &["batch", "scenario.toml", "--runs", "300", "--seed", "11", "--json"],
    );
    // The job's answer holds the CLI's JSON byte for byte: its key order
    // and every digit of every number (not parsed and written again).
    let (s, _, raw) = server.call(Method::GET, &format!("/api/jobs/{id}"), "a", Vec::new());
    assert_eq!(s, StatusCode::OK);
    let raw = String::from_utf8(raw).expect("UTF-8");
    assert!(
        raw.contains(&format!("\"batch\":{}", cli.trim_end())),
        "the page's batch is `fam batch --json` verbatim"
    );
    let cli: Value = serde_json::from_str(&cli).expect("JSON");
    assert_eq!(
        done["result"]["batch"], cli,
        "the page's batch is the CLI's, field for field"
    );
    let table = fam_in(dir.path(), &["batch", "scenario.toml", "--runs", "300", "--seed", "11"]);
    assert_eq!(done["result"]["table"], table.as_str());
    assert_eq!(
        done["result"]["command"],
        "fam batch scenario.toml --runs 300 --seed 11"
    );
    // What the odds hinge on, shown above them: the table's notes on idle
    // weapons and its caveats, every one and nothing else.
    let notes: Vec<&str> = done["result"]["notes"]
        .as_array()
        .expect("notes")
        .iter()
        .map(|n| n.as_str().expect("a note"))
        .collect();
    let from_table: Vec<&str> = table
        .lines()
        .filter(|l| l.starts_with("Note: "))
        .chain(
            table
                .lines()
                .skip_while(|l| !l.starts_with("The odds may hinge"))
                .skip(1)
                .map(str::trim),
        )
        .collect();
    assert_eq!(notes, from_table);
    let svg = done["result"]["svg"].as_str().expect("a picture");
    assert!(svg.starts_with("<svg"), "{}", &svg[..40.min(svg.len())]);
}

/// Three destroyers against a battleship, built on the page with its +
/// button (a design listed three times in one Formation): the scenario it
/// downloads counts them, and the CLI on it gives the page's numbers.
#[test]
fn several_of_one_design_on_the_page_are_a_count_the_cli_plays_the_same() {
    let server = Server::new();
    let battle = json!({
        "title": "Three against one",
        "files": [{"name": "meridian-compact.gzf"}, {"name": "kestrel-reach.gzf"}],
        "sides": [
            {"name": "Ilse", "formations": [{"name": "Tin Cans",
              "units": ["KRD Ridge Warden", "KRD Ridge Warden", "KRD Ridge Warden"]}]},
            {"name": "Marek", "formations": [{"name": "Line", "units": ["MCS Sovereign Bearing"]}]}
        ],
        "start_range": 30,
        "victory": {"max_exchanges": 8, "morale": 50}
    });
    let done = server.job("/api/batch", "a", &json!({"battle": battle, "runs": 200, "seed": 5}));
    assert_eq!(done["state"], "done", "{done}");
    let dir = save_scenario(&server, &battle);
    let toml = std::fs::read_to_string(dir.path().join("scenario.toml")).expect("read");
    assert!(
        toml.contains(r#""Tin Cans" = [{ ship = "KRD Ridge Warden", count = 3 }]"#),
        "{toml}"
    );
    let cli = fam_in(
        dir.path(),
        &["batch", "scenario.toml", "--runs", "200", "--seed", "5", "--json"],
    );
    let cli: Value = serde_json::from_str(&cli).expect("JSON");
    assert_eq!(done["result"]["batch"], cli);
    let units: Vec<&str> = cli["units"]
        .as_array()
        .expect("units")
        .iter()
        .map(|u| u["name"].as_str().expect("a name"))
        .collect();
    assert_eq!(
        units,
        [
            "KRD Ridge Warden",
            "KRD Ridge Warden 2",
            "KRD Ridge Warden 3",
            "MCS Sovereign Bearing"
        ]
    );
    assert_eq!(cli["sides"][0]["points"], 399);
}

#[test]
fn the_scenario_toml_names_its_files_beside_it_and_keeps_odd_names_intact() {
    let server = Server::new();
    let mut battle = duel();
    // Names TOML would misread unquoted: spaces, quotes, dots, a backslash.
    battle["sides"][0]["name"] = json!("Adm. \"Ilse\" \\ Varga");
    battle["sides"][0]["formations"][0]["name"] = json!("Line.1 [a]");
    battle["ranges"] = json!([{"between": ["Line.1 [a]", "Watch"], "mu": 12}]);
    let (s, v) = server.post("/api/scenario", "t", &battle);
    assert_eq!(s, StatusCode::OK, "{v}");
    let toml = v["toml"].as_str().expect("toml");
    assert!(
        toml.contains("gzf = [\"meridian-compact.gzf\", \"kestrel-reach.gzf\"]"),
        "{toml}"
    );
    let dir = save_scenario(&server, &battle);
    let out = fam(&["check", &dir.path().join("scenario.toml").display().to_string()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report = fam_in(dir.path(), &["resolve", "scenario.toml", "--seed", "3"]);
    assert!(report.contains("Line.1 [a]"), "{report}");
    assert!(report.contains("Adm. \"Ilse\" \\ Varga"), "{report}");
    assert!(
        toml.contains("[[range]]\nbetween = [\"Line.1 [a]\", \"Watch\"]\nmu = 12\n"),
        "{toml}"
    );
}

#[test]
fn a_battle_fam_refuses_comes_back_with_positioned_errors() {
    let server = Server::new();
    let mut battle = duel();
    battle["sides"][1]["formations"][0]["units"] = json!(["KRD Long Wach"]);
    let (s, v) = server.post("/api/scenario", "t", &battle);
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    let d = &v["error"]["diagnostics"][0];
    assert_eq!(d["file"], "scenario.toml");
    // The name is on the `Watch = [...]` line of [formations].
    let (_, tv) = server.post("/api/scenario", "t", &duel());
    let toml = tv["toml"].as_str().expect("toml");
    let line = toml
        .lines()
        .position(|l| l.starts_with("Watch = "))
        .expect("Watch line")
        + 1;
    assert_eq!(d["line"], line, "{v}");
    assert_eq!(d["column"], "Watch = [".len() + 1, "at the name's opening quote: {v}");
    let rendered = v["error"]["rendered"].as_str().expect("rendered");
    assert!(rendered.contains("KRD Long Wach"), "{rendered}");
    assert!(
        rendered.contains("KRD Long Watch"),
        "the nearest name is suggested: {rendered}"
    );

    let mut unknown = duel();
    unknown["files"][1] = json!({"name": "no-such-fleet.gzf"});
    let (s, v) = server.post("/api/scenario", "t", &unknown);
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        v["error"]["message"]
            .as_str()
            .expect("message")
            .contains("no-such-fleet.gzf")
    );

    // Each diagnostic names the part of the page's battle to change.
    let mut places = duel();
    places["sides"][1]["formations"][0]["units"] = json!([]);
    places["victory"]["max_exchanges"] = json!(0);
    places["sides"][1]["formations"][0]["doctrine"]["maneuver"] = json!("sideways");
    let (s, v) = server.post("/api/scenario", "t", &places);
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    let mut named: Vec<&str> = v["error"]["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| d["place"].as_str().expect("a place"))
        .collect();
    named.sort_unstable();
    assert_eq!(
        named,
        ["doctrine/1/0/maneuver", "formation/1/0", "victory.max_exchanges"],
        "{v}"
    );

    let mut twice = duel();
    twice["sides"][1]["formations"][0]["units"] = json!(["MCS Clear Heading"]);
    assert_eq!(
        server.post("/api/scenario", "t", &twice).0,
        StatusCode::UNPROCESSABLE_ENTITY
    );
}

#[test]
fn uploads_are_read_or_imported_and_bad_ones_say_where() {
    let server = Server::new();
    let gzf = std::fs::read_to_string(repo().join("ssd/vakar-raiders.gzf")).expect("read");
    let (s, v) = server.post("/api/ships", "t", &json!({"name": "raiders.gzf", "text": gzf}));
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["file"]["name"], "raiders.gzf");
    assert_eq!(v["file"]["text"], gzf.as_str());
    assert!(!v["ships"].as_array().expect("ships").is_empty());

    let xml = std::fs::read_to_string(crate::support::fixtures("ftjava").join("osprey.xml")).expect("read");
    let (s, v) = server.post("/api/ships", "t", &json!({"name": "osprey.xml", "text": xml}));
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["file"]["name"], "osprey.gzf", "an FTJava ship becomes a GZF file");
    let text = v["file"]["text"].as_str().expect("GZF text");
    assert!(text.contains("Ship:"), "{text}");

    // A GZF error two lines down: line and column of the bad value.
    let bad = "Profile:          FB1\n\nShip:             Broken\nMass:             heavy\n";
    let (s, v) = server.post("/api/ships", "t", &json!({"name": "broken.gzf", "text": bad}));
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    let d = v["error"]["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .find(|d| d["line"] == 4)
        .unwrap_or_else(|| panic!("an error on line 4: {v}"));
    assert_eq!(d["file"], "broken.gzf");
    assert_eq!(d["column"], 19, "{d}");
    assert!(
        v["error"]["rendered"]
            .as_str()
            .expect("rendered")
            .contains("broken.gzf:4:19"),
        "{v}"
    );

    let malformed =
        std::fs::read_to_string(crate::support::fixtures("ftjava").join("err-malformed.xml")).expect("read");
    let (s, v) = server.post("/api/ships", "t", &json!({"name": "m.xml", "text": malformed}));
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert!(
        v["error"]["diagnostics"][0]["line"].as_u64().is_some_and(|l| l >= 1),
        "{v}"
    );

    let (s, _) = server.post("/api/ships", "t", &json!({"name": "../../etc/passwd", "text": "x"}));
    assert_eq!(s, StatusCode::BAD_REQUEST, "a name with folders is refused");
}

#[test]
fn oversized_and_malformed_requests_are_refused_with_a_reason() {
    let server = Server::new();
    // An upload over 1 MiB, inside the request limit.
    let big = "x".repeat((1 << 20) + 1);
    let (s, v) = server.post("/api/ships", "t", &json!({"name": "big.gzf", "text": big}));
    assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE, "{v}");
    // A request over 4 MiB.
    let huge = "x".repeat(5 << 20);
    let (s, v) = server.post("/api/ships", "t", &json!({"name": "huge.gzf", "text": huge}));
    assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE, "{v}");
    assert!(
        v["error"]["message"].as_str().expect("message").contains("4 MiB"),
        "{v}"
    );
    // Not JSON, the wrong shape, an unknown key, a negative range.
    let (s, _, body) = server.call(Method::POST, "/api/batch", "t", b"{runs: ".to_vec());
    assert_eq!(s, StatusCode::BAD_REQUEST, "{}", String::from_utf8_lossy(&body));
    let (s, _) = server.post("/api/batch", "t", &json!({"battle": duel()}));
    assert_eq!(s, StatusCode::BAD_REQUEST);
    let (s, _) = server.post("/api/batch", "t", &json!({"battle": duel(), "runs": 10, "speed": 3}));
    assert_eq!(s, StatusCode::BAD_REQUEST);
    let mut negative = duel();
    negative["start_range"] = json!(-5);
    assert_eq!(server.post("/api/scenario", "t", &negative).0, StatusCode::BAD_REQUEST);
    // Runs out of bounds, too many files and Units, an overlong name.
    for runs in [0_u64, 100_001, u64::MAX] {
        let (s, v) = server.post("/api/batch", "t", &json!({"battle": duel(), "runs": runs}));
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{runs}: {v}");
    }
    let mut files = duel();
    files["files"] = json!(
        (0..17)
            .map(|i| json!({"name": format!("f{i}.gzf"), "text": ""}))
            .collect::<Vec<_>>()
    );
    assert_eq!(
        server.post("/api/scenario", "t", &files).0,
        StatusCode::UNPROCESSABLE_ENTITY
    );
    let mut units = duel();
    units["sides"][0]["formations"][0]["units"] = json!(vec!["MCS Clear Heading"; 257]);
    assert_eq!(
        server.post("/api/scenario", "t", &units).0,
        StatusCode::UNPROCESSABLE_ENTITY
    );
    let mut long = duel();
    long["title"] = json!("t".repeat(201));
    assert_eq!(
        server.post("/api/scenario", "t", &long).0,
        StatusCode::UNPROCESSABLE_ENTITY
    );
    // Not UTF-8.
    let (s, _, _) = server.call(Method::POST, "/api/scenario", "t", vec![0xff, 0xfe, 0x00]);
    assert_eq!(s, StatusCode::BAD_REQUEST);
}

#[test]
fn a_client_runs_one_job_at_a_time_and_can_cancel_it() {
    let server = Server::new();
    let body = json!({"battle": duel(), "runs": 100_000, "seed": 5});
    let (s, v) = server.post("/api/batch", "busy", &body);
    assert_eq!(s, StatusCode::ACCEPTED, "{v}");
    let id = v["job"].as_str().expect("job").to_string();
    let (s, v) = server.post("/api/batch", "busy", &body);
    assert_eq!(s, StatusCode::CONFLICT, "{v}");
    let (s, _, body) = server.call(Method::DELETE, &format!("/api/jobs/{id}"), "busy", Vec::new());
    assert_eq!(s, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
    let ended = server.wait(&id);
    assert_eq!(ended["state"], "cancelled", "{ended}");
    let played = ended["result"]["batch"]["runs"].as_u64().unwrap_or(0);
    assert!(played < 100_000, "it stopped early: {played}");
    // The runs it played are a prefix of the batch: fam batch on as many
    // runs gives the same odds.
    if played > 0 {
        let dir = save_scenario(&server, &duel());
        let cli = fam_in(
            dir.path(),
            &[
                "batch",
                "scenario.toml",
                "--runs",
                &played.to_string(),
                "--seed",
                "5",
                "--json",
            ],
        );
        let cli: Value = serde_json::from_str(&cli).expect("JSON");
        assert_eq!(ended["result"]["batch"], cli);
    }
    // Once it has ended the client may start another.
    let (s, v) = server.post("/api/batch", "busy", &json!({"battle": duel(), "runs": 10}));
    assert_eq!(s, StatusCode::ACCEPTED, "{v}");
    server.wait(v["job"].as_str().expect("job"));
    assert_eq!(server.get("/api/jobs/0123").0, StatusCode::NOT_FOUND);
    let (s, _, _) = server.call(Method::DELETE, "/api/jobs/0123", "busy", Vec::new());
    assert_eq!(s, StatusCode::NOT_FOUND);
}

#[test]
fn a_job_past_its_time_limit_stops_with_the_runs_it_played() {
    let server = Server::with_limit(Duration::ZERO);
    let done = server.job(
        "/api/batch",
        "slow",
        &json!({"battle": duel(), "runs": 100_000, "seed": 2}),
    );
    assert_eq!(done["state"], "done", "{done}");
    assert_eq!(done["stopped"], "time");
    let played = done["result"]["batch"]["runs"].as_u64().expect("runs");
    assert!(played > 0 && played < 100_000, "{played}");
}

#[test]
fn a_replay_is_fam_resolve_of_that_seed() {
    let server = Server::new();
    let battle = duel();
    let done = server.job("/api/batch", "r", &json!({"battle": battle, "runs": 50, "seed": 9}));
    let longest = &done["result"]["batch"]["notable_seeds"]["longest"];
    let seed = longest["seed"].as_u64().expect("a notable seed");
    let (s, v) = server.post("/api/replay", "r", &json!({"battle": battle, "seed": seed}));
    assert_eq!(s, StatusCode::OK, "{v}");
    let dir = save_scenario(&server, &battle);
    let k = done["result"]["batch"]["exchanges_cap"]
        .as_u64()
        .or_else(|| {
            longest["command"]
                .as_str()
                .and_then(|c| c.rsplit(' ').next()?.parse().ok())
        })
        .expect("the Exchange cap");
    let cli = fam_in(
        dir.path(),
        &[
            "resolve",
            "scenario.toml",
            "--seed",
            &seed.to_string(),
            "--exchanges",
            &k.to_string(),
            "--detail",
        ],
    );
    assert_eq!(v["report"], cli.as_str());
    assert_eq!(
        v["command"],
        format!("fam resolve scenario.toml --seed {seed} --exchanges {k} --detail").as_str()
    );
    let (s, _) = server.post(
        "/api/replay",
        "r",
        &json!({"battle": battle, "seed": 1, "exchanges": 0}),
    );
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
}

#[test]
fn compare_and_tune_are_the_clis() {
    let server = Server::new();
    let a = duel();
    let mut b = duel();
    b["start_range"] = json!(12);
    let done = server.job("/api/compare", "c", &json!({"a": a, "b": b, "runs": 200, "seed": 4}));
    assert_eq!(done["state"], "done", "{done}");
    let da = save_scenario(&server, &a);
    let db = save_scenario(&server, &b);
    std::fs::copy(db.path().join("scenario.toml"), da.path().join("b.toml")).expect("copy");
    std::fs::rename(da.path().join("scenario.toml"), da.path().join("a.toml")).expect("rename");
    let cli = fam_in(
        da.path(),
        &["compare", "a.toml", "b.toml", "--runs", "200", "--seed", "4", "--json"],
    );
    let cli: Value = serde_json::from_str(&cli).expect("JSON");
    assert_eq!(done["result"]["json"], cli);

    let done = server.job(
        "/api/tune",
        "c",
        &json!({"battle": a, "side": "Marek", "runs": 100, "seed": 4}),
    );
    assert_eq!(done["state"], "done", "{done}");
    let dir = save_scenario(&server, &a);
    let cli = fam_in(
        dir.path(),
        &[
            "tune",
            "scenario.toml",
            "--side",
            "Marek",
            "--runs",
            "100",
            "--seed",
            "4",
            "--json",
        ],
    );
    let cli: Value = serde_json::from_str(&cli).expect("JSON");
    assert_eq!(done["result"]["json"], cli);
    // `best`: the first finalist's orders for Marek's Formation, as the
    // page's battle takes them; written back as a scenario they are the
    // finalist's `[doctrine]` table, line for line.
    let best = &done["result"]["best"];
    assert_eq!(
        best.as_object().expect("best").keys().collect::<Vec<_>>(),
        ["Watch"],
        "{best}"
    );
    let mut tuned = a.clone();
    tuned["sides"][1]["formations"][0]["doctrine"] = best["Watch"].clone();
    let (_, written) = server.post("/api/scenario", "t", &tuned);
    let toml = written["toml"].as_str().expect("toml");
    let table = &toml[toml.find("[doctrine.Watch]").expect("the table")..];
    let finalist = cli["finalists"][0]["doctrine"].as_str().expect("doctrine");
    let lines = |t: &str| {
        let mut l: Vec<String> = t.lines().filter(|l| !l.is_empty()).map(str::to_string).collect();
        l.sort();
        l
    };
    assert_eq!(lines(table), lines(finalist), "{table}\nagainst\n{finalist}");

    let (s, v) = server.post("/api/tune", "c", &json!({"battle": a, "side": "Nobody", "runs": 100}));
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(v["error"]["message"].as_str().expect("message").contains("Ilse"), "{v}");
}

#[test]
fn both_sides_at_their_best_is_fam_solve() {
    let server = Server::new();
    let a = duel();
    let done = server.job("/api/solve", "s", &json!({"battle": a, "runs": 50, "seed": 4}));
    assert_eq!(done["state"], "done", "{done}");
    assert_eq!(done["kind"], "solve");
    // The bar ends where the runs did: its total grew with the search.
    assert!(done["done"].as_u64() <= done["total"].as_u64(), "{done}");
    let dir = save_scenario(&server, &a);
    let args = ["solve", "scenario.toml", "--runs", "50", "--seed", "4"];
    // The text is the CLI's, byte for byte: the same options, the same answer
    // (a third solve, the CLI's JSON of it, would only cost CI time; the JSON
    // is the same answer's other rendering, read in tests/all/solve.rs).
    assert_eq!(done["result"]["text"], fam_in(dir.path(), &args));
    let json = &done["result"]["json"];
    let sides = json["sides"].as_array().expect("sides");
    assert_eq!(sides.len(), 2, "{json}");
    for side in sides {
        let gain = side["best_deviation"]["gain"]["mean"].as_f64().expect("gain");
        let shown = format!("{:+.1} pp", 100.0 * gain);
        assert!(
            done["result"]["text"].as_str().expect("text").contains(&shown),
            "{shown}"
        );
    }
    assert_eq!(
        done["result"]["command"],
        "fam solve scenario.toml --runs 50 --seed 4 --margin 2"
    );

    // Runs and margin out of bounds, an unknown key, a third side.
    for runs in [0_u64, 2_001] {
        let (s, v) = server.post("/api/solve", "s", &json!({"battle": duel(), "runs": runs}));
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{runs}: {v}");
        assert!(v["error"]["message"].as_str().expect("message").contains("runs"), "{v}");
    }
    let (s, v) = server.post("/api/solve", "s", &json!({"battle": duel(), "runs": 100, "margin": 60}));
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    let (s, v) = server.post(
        "/api/solve",
        "s",
        &json!({"battle": duel(), "runs": 100, "side": "Ilse"}),
    );
    assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");
    assert!(v["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{v}");
    let mut three = duel();
    three["sides"]
        .as_array_mut()
        .expect("sides")
        .push(json!({"name": "Third", "formations": [{"name": "Tide", "units": ["MCS Unhurried Tide"]}]}));
    let (s, v) = server.post("/api/solve", "s", &json!({"battle": three, "runs": 100}));
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert!(
        v["error"]["message"].as_str().expect("message").contains("two sides"),
        "{v}"
    );
}

#[test]
fn a_solve_stops_when_cancelled_or_out_of_time() {
    let server = Server::with_limit(Duration::ZERO);
    let done = server.job(
        "/api/solve",
        "slow",
        &json!({"battle": duel(), "runs": 2000, "seed": 1}),
    );
    assert_eq!(done["state"], "done", "{done}");
    assert_eq!(done["stopped"], "time");
    assert_eq!(done["result"], Value::Null);

    let server = Server::new();
    let (s, v) = server.post(
        "/api/solve",
        "busy",
        &json!({"battle": duel(), "runs": 2000, "seed": 1}),
    );
    assert_eq!(s, StatusCode::ACCEPTED, "{v}");
    let id = v["job"].as_str().expect("job").to_string();
    let (s, v) = server.post(
        "/api/tune",
        "busy",
        &json!({"battle": duel(), "side": "Ilse", "runs": 100}),
    );
    assert_eq!(s, StatusCode::CONFLICT, "{v}");
    let (s, _, _) = server.call(Method::DELETE, &format!("/api/jobs/{id}"), "busy", Vec::new());
    assert_eq!(s, StatusCode::OK);
    let ended = server.wait(&id);
    assert_eq!(ended["state"], "cancelled", "{ended}");
    assert_eq!(ended["result"], Value::Null);
    assert!(ended["done"].as_u64() < ended["total"].as_u64(), "{ended}");
}

#[test]
fn fam_serve_prints_its_url_and_serves_the_page_there() {
    use std::io::{BufRead, BufReader, Read, Write};
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_fam"))
        .args(["serve", "--port", "0"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("fam serve starts");
    let mut first = String::new();
    let stdout = child.stdout.take().expect("stdout");
    BufReader::new(stdout).read_line(&mut first).expect("a line");
    let url = first
        .trim()
        .strip_prefix("fam serve: ")
        .unwrap_or_else(|| panic!("{first}"));
    let addr = url
        .strip_prefix("http://")
        .and_then(|a| a.strip_suffix('/'))
        .unwrap_or_else(|| panic!("{url}"));
    assert!(addr.starts_with("127.0.0.1:"), "loopback by default: {addr}");
    let mut stream = std::net::TcpStream::connect(addr).expect("connects");
    write!(stream, "GET / HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").expect("request");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("answer");
    let _ = child.kill();
    let _ = child.wait();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(
        answer.contains("<!doctype html>") || answer.contains("<!DOCTYPE html>"),
        "{answer}"
    );
}

#[test]
fn fam_serve_on_a_port_in_use_says_so_and_exits_2() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let port = taken.local_addr().expect("address").port().to_string();
    let out = fam(&["serve", "--port", &port]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("cannot listen on 127.0.0.1:{port}")), "{err}");
}

/// The page offers every `[rules]` switch a scenario takes, each with its
/// default: the keys and defaults of the page's `SWITCHES` are those of the
/// table in docs/orders.md (and `strike_colours`, documented beside it).
#[test]
fn the_page_offers_every_rule_switch_with_its_default() {
    let docs = std::fs::read_to_string(repo().join("docs/orders.md")).expect("docs/orders.md");
    let table = docs
        .split("### Rule switches")
        .nth(1)
        .and_then(|t| t.split("###").next())
        .expect("the rule switches table");
    let mut documented: Vec<(String, String)> = table
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let key = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
            let default = cells.get(2)?.trim_matches('`').trim_matches('"');
            Some((key.to_string(), default.to_string()))
        })
        .collect();
    documented.push(("strike_colours".into(), "false".into()));
    documented.sort();
    let js = std::fs::read_to_string(repo().join("assets/serve/app.js")).expect("app.js");
    let list = js
        .split("const SWITCHES = [")
        .nth(1)
        .and_then(|t| t.split("\n];").next())
        .expect("the page's SWITCHES");
    let mut offered: Vec<(String, String)> = list
        .lines()
        .filter_map(|l| {
            let rest = l.trim().strip_prefix("['")?;
            let (key, rest) = rest.split_once("', ")?;
            let default = rest.split(',').next()?.trim_matches('\'');
            Some((key.to_string(), default.to_string()))
        })
        .collect();
    offered.sort();
    assert_eq!(offered, documented);
    // Every switch is one the scenario reader takes at its default.
    let mut battle = duel();
    battle["rules"] = documented
        .iter()
        .map(|(k, d)| {
            let v = match d.as_str() {
                "true" => json!(true),
                "false" => json!(false),
                s => json!(s),
            };
            (k.clone(), v)
        })
        .collect::<serde_json::Map<_, _>>()
        .into();
    let (s, v) = Server::new().post("/api/scenario", "t", &battle);
    assert_eq!(s, StatusCode::OK, "{v}");
}

/// A replay is bounded like any job: it takes one of the server's two
/// slots and the client's one, stops at the job time limit, and writes no
/// more than the server's report limit, saying so in the report and the
/// answer (a replay of a big battle for 1 000 Exchanges once answered
/// 961 MB and held the server for 11 minutes).
#[test]
fn a_replay_is_a_bounded_job() {
    let battle = duel();
    let replay = json!({"battle": battle, "seed": 3, "exchanges": 8});
    // The report limit: the replay stops after the Exchange that reaches it.
    let mut small = AppState::new(Duration::from_secs(120));
    small.replay_bytes = 2048;
    let server = Server::with_state(small);
    let (s, v) = server.post("/api/replay", "r", &replay);
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["stopped"], "size", "{v}");
    let played = v["exchanges"].as_u64().expect("exchanges");
    assert!((1..8).contains(&played), "{played}");
    let report = v["report"].as_str().expect("report");
    assert!(
        report.ends_with(&format!(
            "The replay stops after {played} of 8 Exchanges: its report reached the server's limit of 2 KiB. `fam resolve scenario.toml --seed 3 --exchanges 8 --detail` plays it all.\n"
        )),
        "{report}"
    );
    // What it did play is fam resolve's report of those Exchanges.
    let dir = save_scenario(&server, &battle);
    let cli = fam_in(
        dir.path(),
        &[
            "resolve",
            "scenario.toml",
            "--seed",
            "3",
            "--exchanges",
            "8",
            "--detail",
        ],
    );
    let played_part = report.split("\nResult\n------").next().unwrap_or_default();
    assert!(cli.starts_with(played_part), "{played_part}");
    assert!(cli.len() > played_part.len() + 100, "the CLI plays on");
    // The time limit stops it after its first Exchange.
    let (s, v) = Server::with_limit(Duration::ZERO).post("/api/replay", "r", &replay);
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(
        (v["stopped"].as_str(), v["exchanges"].as_u64()),
        (Some("time"), Some(1)),
        "{v}"
    );
    // A slot: not while this client runs a job, nor while two others fill
    // the server's slots.
    let server = Server::new();
    let long = json!({"battle": duel(), "runs": 100_000, "seed": 5});
    let (s, a) = server.post("/api/batch", "a", &long);
    assert_eq!(s, StatusCode::ACCEPTED, "{a}");
    assert_eq!(server.post("/api/replay", "a", &replay).0, StatusCode::CONFLICT);
    let (s, b) = server.post("/api/batch", "b", &long);
    assert_eq!(s, StatusCode::ACCEPTED, "{b}");
    let (s, v) = server.post("/api/replay", "c", &replay);
    assert_eq!(s, StatusCode::CONFLICT, "{v}");
    for job in [&a, &b] {
        let id = job["job"].as_str().expect("job");
        server.call(Method::DELETE, &format!("/api/jobs/{id}"), "x", Vec::new());
        server.wait(id);
    }
    let (s, v) = server.post("/api/replay", "c", &replay);
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["stopped"], Value::Null, "{v}");
}

/// A request must name this server as its Host: a page on a foreign name
/// re-pointed at this machine (DNS rebinding) is refused before anything
/// is done, so it can neither start a job nor hold a slot.
#[test]
fn a_request_for_another_host_is_refused_before_any_work() {
    let server = Server::new();
    let batch = json!({"battle": duel(), "runs": 100_000, "seed": 1})
        .to_string()
        .into_bytes();
    for host in [
        Some("evil.example"),
        Some("evil.example:8787"),
        Some("localhost.evil.example"),
        None,
    ] {
        let (s, _, body) = server.call_as(host, Method::POST, "/api/batch", "h", batch.clone());
        let v: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let expected = if host.is_some() {
            StatusCode::FORBIDDEN
        } else {
            StatusCode::BAD_REQUEST
        };
        assert_eq!(s, expected, "{host:?}: {v}");
        assert!(v["error"]["message"].is_string(), "{v}");
        let (s, _, _) = server.call_as(host, Method::GET, "/", "h", Vec::new());
        assert_eq!(s, expected, "{host:?}: the page too");
    }
    // Nothing ran: the same client may start a job at once.
    for host in ["localhost:8787", "127.0.0.1:8787", "[::1]:8787"] {
        let (s, _, body) = server.call_as(Some(host), Method::GET, "/api/library", "h", Vec::new());
        assert_eq!(s, StatusCode::OK, "{host}: {}", String::from_utf8_lossy(&body));
    }
    let (s, _, body) = server.call(Method::POST, "/api/batch", "h", batch);
    assert_eq!(s, StatusCode::ACCEPTED, "{}", String::from_utf8_lossy(&body));
    let v: Value = serde_json::from_slice(&body).expect("JSON");
    let id = v["job"].as_str().expect("job");
    server.call(Method::DELETE, &format!("/api/jobs/{id}"), "h", Vec::new());
    server.wait(id);
}

/// An upload with thousands of problems answers a hundred and says how
/// many more there are: a small answer whatever the file (a 200 KB file
/// once answered 4.8 MB). An FTJava import's own list (its first hundred
/// and its line counting the rest) passes whole; a GZF file's is cut by the
/// server, which counts the rest.
#[test]
fn a_refusal_lists_at_most_a_hundred_problems_and_counts_the_rest() {
    let server = Server::new();
    let refused = |name: &str, text: &str| -> Vec<Value> {
        let (s, _, body) = server.call(
            Method::POST,
            "/api/ships",
            "t",
            json!({"name": name, "text": text}).to_string().into_bytes(),
        );
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{name}");
        assert!(body.len() < 128 * 1024, "{name}: {} bytes", body.len());
        let v: Value = serde_json::from_slice(&body).expect("JSON");
        v["error"]["diagnostics"].as_array().expect("diagnostics").clone()
    };
    let coils: String = (0..2000)
        .map(|i| format!("<WarpCoil xSSD=\"{i}\" ySSD=\"1\"/>"))
        .collect();
    let xml = format!(
        "<Ship><Name>Odd</Name><ClassName>Odd</ClassName><Mass>20</Mass><MainDrive type=\"Standard\" initialThrust=\"6\"/><Hull value=\"20\" type=\"Average\"/><Weapons>{coils}</Weapons></Ship>"
    );
    let import = fam::ftjava::import(
        &fam::diag::SourceFile::new("odd.xml", xml.clone()),
        &fam::ftjava::Options::default(),
    )
    .diagnostics;
    let listed = refused("odd.xml", &xml);
    assert_eq!(listed.len(), import.len(), "the import's whole list");
    assert_eq!(listed.len(), 101);
    let last = listed[100]["message"].as_str().expect("message");
    assert_eq!(last, import[100].message, "its last line counts the rest");
    // A GZF record with 3 000 bad boxes: the first hundred and a count.
    let gzf = std::fs::read_to_string(crate::support::repo().join("ssd/kestrel-reach.gzf"))
        .expect("a shipped file")
        .replacen(
            "Damage-Track:     O O O *",
            &format!("Damage-Track:     {}", vec!["Q"; 3000].join(" ")),
            1,
        );
    let all = fam::gzf::parse(&gzf, &fam::gzf::ParseOptions::default())
        .diagnostics
        .len();
    assert!(all >= 3000, "{all}");
    let listed = refused("bad.gzf", &gzf);
    assert_eq!(listed.len(), 102);
    assert_eq!(listed[101]["severity"], "note");
    assert_eq!(
        listed[101]["message"],
        format!(
            "and {} more problems in this file (fam's command line lists them all)",
            all - 101
        )
        .as_str()
    );
}
