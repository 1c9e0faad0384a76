//! The game host (`fam serve --db`, docs/host.md): who may do what, one
//! resolution for two submissions that complete the set, turns that
//! replay byte for byte with `fam resolve`, and nothing lost when the
//! server is killed at random moments.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use fam::host::Host;
use fam::host::game::NewGame;
use fam::serve::{AppState, router};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

use crate::support::repo;

fn duel_text() -> String {
    std::fs::read_to_string(repo().join("scenarios/duel.toml")).expect("the duel")
}

/// The duel far apart and long: nothing can reach, nothing decides it
/// before Exchange 1000.
fn long_duel_text() -> String {
    duel_text().replace("mu = 30", "mu = 5000").replacen(
        "seed = 1\n",
        "seed = 1\n\n[victory]\nmax_exchanges = 1000\n",
        1,
    )
}

/// A host on a fresh database, called in process.
struct Hosted {
    state: Arc<AppState>,
    rt: tokio::runtime::Runtime,
    _dir: tempfile::TempDir,
}

impl Hosted {
    fn new() -> Hosted {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let host = Host::open(&dir.path().join("games.db"), 0).expect("the database opens");
        let state = AppState::new(Duration::from_secs(60)).hosting(Arc::new(host));
        Hosted {
            state: Arc::new(state),
            rt: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime"),
            _dir: dir,
        }
    }

    fn host(&self) -> &Host {
        &self.state.hosting.as_ref().expect("hosting").host
    }

    /// The status and body of a request with `token` as its bearer.
    fn call(&self, method: Method, uri: &str, token: Option<&str>, body: &str) -> (StatusCode, Vec<u8>) {
        let mut req = Request::builder().method(method).uri(uri).header("host", "localhost");
        if let Some(t) = token {
            req = req.header("authorization", format!("Bearer {t}"));
        }
        let req = req.body(Body::from(body.to_string())).expect("a request");
        let app = router(Arc::clone(&self.state));
        self.rt.block_on(async {
            let res = app.oneshot(req).await.expect("an answer");
            let status = res.status();
            (
                status,
                res.into_body().collect().await.expect("a body").to_bytes().to_vec(),
            )
        })
    }

    fn json(&self, method: Method, uri: &str, token: Option<&str>, body: &str) -> (StatusCode, Value) {
        let (s, b) = self.call(method, uri, token, body);
        (s, serde_json::from_slice(&b).unwrap_or(Value::Null))
    }
}

/// A created game: its id, the referee's token and each side's token.
struct Game {
    id: String,
    referee: String,
    sides: Vec<String>,
}

fn create(h: &Hosted, scenario: &str, deadline: Option<&str>) -> Game {
    let body = json!({
        "scenario": { "name": "duel.toml", "text": scenario },
        "seed": "42",
        "deadline": deadline,
    });
    let (s, v) = h.json(Method::POST, "/api/games", None, &body.to_string());
    assert_eq!(s, StatusCode::CREATED, "{v}");
    Game {
        id: v["id"].as_str().expect("an id").to_string(),
        referee: v["referee"].as_str().expect("a referee token").to_string(),
        sides: v["commanders"]
            .as_array()
            .expect("commanders")
            .iter()
            .map(|c| c["token"].as_str().expect("a token").to_string())
            .collect(),
    }
}

fn join_all(h: &Hosted, g: &Game) {
    for (i, t) in g.sides.iter().enumerate() {
        let (s, v) = h.json(
            Method::POST,
            &format!("/api/games/{}/join", g.id),
            Some(t),
            &json!({ "name": format!("Player {i}") }).to_string(),
        );
        assert_eq!(s, StatusCode::OK, "{v}");
    }
}

fn template(h: &Hosted, g: &Game, side: usize) -> String {
    let (s, v) = h.json(
        Method::GET,
        &format!("/api/games/{}/me", g.id),
        Some(&g.sides[side]),
        "",
    );
    assert_eq!(s, StatusCode::OK, "{v}");
    v["template"].as_str().expect("a template").to_string()
}

fn message(v: &Value) -> String {
    v["error"]["message"].as_str().unwrap_or("").to_string()
}

#[test]
fn a_commander_cannot_read_or_plot_for_the_other_side_nor_act_as_referee() {
    let h = Hosted::new();
    let g = create(&h, &duel_text(), None);
    join_all(&h, &g);
    let id = &g.id;
    let ilse = template(&h, &g, 0);
    let (s, v) = h.json(Method::PUT, &format!("/api/games/{id}/plot"), Some(&g.sides[0]), &ilse);
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["resolved"], false);

    // Marek cannot read Ilse's plot before the Exchange resolves.
    let (s, v) = h.json(Method::GET, &format!("/api/games/{id}/plots/0"), Some(&g.sides[1]), "");
    assert_eq!(s, StatusCode::FORBIDDEN, "{v}");
    assert!(message(&v).contains("only their own plot"), "{v}");
    // Ilse reads her own; the referee reads it too.
    for t in [&g.sides[0], &g.referee] {
        let (s, v) = h.json(Method::GET, &format!("/api/games/{id}/plots/0"), Some(t), "");
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(v["text"].as_str(), Some(ilse.as_str()));
    }
    // Nor does the public display or Marek's own view show it.
    let (_, display) = h.json(Method::GET, &format!("/api/games/{id}"), None, "");
    assert!(!display.to_string().contains("primary"), "{display}");
    let (_, mine) = h.json(Method::GET, &format!("/api/games/{id}/me"), Some(&g.sides[1]), "");
    assert!(mine["plot"].is_null(), "{mine}");
    assert_eq!(display["sides"][0]["submitted"], true);
    assert_eq!(display["sides"][1]["submitted"], false);

    // Marek cannot submit Ilse's orders.
    let (s, v) = h.json(Method::PUT, &format!("/api/games/{id}/plot"), Some(&g.sides[1]), &ilse);
    assert_eq!(s, StatusCode::FORBIDDEN, "{v}");
    assert!(message(&v).contains("for commander `Ilse`"), "{v}");
    // Orders without a commander that plot Ilse's Formation are refused
    // with the CLI's positioned diagnostic.
    let bare = ilse.replace("commander = \"Ilse\"", "commander = \"Marek\"");
    let (s, v) = h.json(Method::PUT, &format!("/api/games/{id}/plot"), Some(&g.sides[1]), &bare);
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert!(v["error"]["diagnostics"][0]["line"].as_u64().unwrap_or(0) > 0, "{v}");

    // Referee actions are refused to a commander, each with a reason.
    for (path, body) in [("resolve", ""), ("end", "{}"), ("reissue", "{\"side\": 0}")] {
        let (s, v) = h.json(
            Method::POST,
            &format!("/api/games/{id}/{path}"),
            Some(&g.sides[1]),
            body,
        );
        assert_eq!(s, StatusCode::FORBIDDEN, "{path}: {v}");
        assert!(message(&v).contains("referee"), "{path}: {v}");
    }
    // And the referee does not plot.
    let (s, v) = h.json(Method::PUT, &format!("/api/games/{id}/plot"), Some(&g.referee), &ilse);
    assert_eq!(s, StatusCode::FORBIDDEN, "{v}");
    assert_eq!(h.host().display(id).expect("the display").turns.len(), 0);
}

#[test]
fn a_guessed_or_revoked_token_is_refused_and_a_reissued_one_works() {
    let h = Hosted::new();
    let g = create(&h, &duel_text(), None);
    let id = &g.id;
    let guessed = "0".repeat(64);
    for t in [None, Some(guessed.as_str()), Some("short")] {
        let (s, v) = h.json(Method::GET, &format!("/api/games/{id}/me"), t, "");
        assert_eq!(s, StatusCode::UNAUTHORIZED, "{t:?}: {v}");
    }
    // Another game's token is refused for this one.
    let other = create(&h, &duel_text(), None);
    let (s, v) = h.json(Method::GET, &format!("/api/games/{id}/me"), Some(&other.referee), "");
    assert_eq!(s, StatusCode::FORBIDDEN, "{v}");

    let (s, v) = h.json(
        Method::POST,
        &format!("/api/games/{id}/reissue"),
        Some(&g.referee),
        "{\"side\": 1}",
    );
    assert_eq!(s, StatusCode::OK, "{v}");
    let fresh = v["token"].as_str().expect("a token").to_string();
    assert_ne!(fresh, g.sides[1]);
    let (s, _) = h.json(Method::GET, &format!("/api/games/{id}/me"), Some(&g.sides[1]), "");
    assert_eq!(s, StatusCode::UNAUTHORIZED, "the old link stops working");
    let (s, v) = h.json(Method::GET, &format!("/api/games/{id}/me"), Some(&fresh), "");
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["side_name"], "Marek");
    // The database keeps no token, only hashes.
    let db = std::fs::read(h._dir.path().join("games.db")).unwrap_or_default();
    let wal = std::fs::read(h._dir.path().join("games.db-wal")).unwrap_or_default();
    for t in [&g.referee, &fresh, &g.sides[0]] {
        let needle = t.as_bytes();
        assert!(
            !db.windows(needle.len()).any(|w| w == needle),
            "a token in the database"
        );
        assert!(
            !wal.windows(needle.len()).any(|w| w == needle),
            "a token in the journal"
        );
    }
}

#[test]
fn two_submissions_completing_the_set_at_once_resolve_the_exchange_once() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("games.db");
    // Two hosts on one file (two connections), each taking one side's plot
    // at the same moment.
    let a = Host::open(&path, 0).expect("opens");
    let created = a
        .create(
            NewGame {
                scenario: fam::diag::SourceFile::new("duel.toml", long_duel_text()),
                files: Vec::new(),
                seed: Some(9),
                deadline_seconds: None,
            },
            0,
        )
        .expect("a game");
    let holders: Vec<_> = created
        .commanders
        .iter()
        .map(|(_, t)| a.holder(&created.id, Some(t)).expect("a holder"))
        .collect();
    for (i, hd) in holders.iter().enumerate() {
        a.join(hd, &format!("P{i}"), 0).expect("joins");
    }
    let hosts = [Arc::new(a), Arc::new(Host::open(&path, 0).expect("opens again"))];
    for round in 0..5 {
        let mine = hosts[0].mine(&holders[0]).expect("mine");
        let k = mine.game.exchange;
        let barrier = Arc::new(Barrier::new(2));
        let done: Vec<_> = (0..2)
            .map(|s| {
                let host = Arc::clone(&hosts[s]);
                let holder = holders[s].clone();
                let barrier = Arc::clone(&barrier);
                let text = host.mine(&holder).expect("mine").template.expect("a template");
                std::thread::spawn(move || {
                    barrier.wait();
                    host.submit(&holder, text, 0).expect("accepted")
                })
            })
            .collect();
        let results: Vec<_> = done.into_iter().map(|t| t.join().expect("no panic")).collect();
        assert_eq!(
            results.iter().filter(|r| r.resolved).count(),
            1,
            "round {round}: one of the two resolves"
        );
        assert!(results.iter().all(|r| r.exchange == k));
        let d = hosts[1].display(&created.id).expect("display");
        assert_eq!(d.turns.len(), round + 1, "one turn more");
        assert_eq!(d.exchange, k + 1);
    }
}

/// Extracts a tar archive into `dir`.
fn untar(bytes: &[u8], dir: &Path) {
    tar::Archive::new(bytes).unpack(dir).expect("the archive unpacks");
}

/// `fam resolve` in `dir` on its scenario and orders, with `--out next`:
/// its report and log and the next turn's files.
fn replay(dir: &Path, sides: &[&str]) -> (Vec<u8>, Vec<u8>) {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_fam"));
    cmd.current_dir(dir).args(["resolve", "scenario.toml"]);
    for s in sides {
        cmd.args(["--orders", &format!("orders-{s}.toml")]);
    }
    let out = cmd
        .args(["--log", "log.replayed", "--out", "next"])
        .output()
        .expect("fam runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    (out.stdout, std::fs::read(dir.join("log.replayed")).expect("the log"))
}

/// A scenario without its `seed` line.
fn unseeded(text: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with("seed = "))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every resolved turn of a game replays with `fam resolve` byte for byte,
/// and the next turn's files are what `fam resolve --out` writes, but for
/// the turn seed.
fn assert_replays(tar_of: &dyn Fn(u32) -> Vec<u8>, turns: u32, first: u32) {
    for k in first..first + turns {
        let dir = tempfile::tempdir().expect("a temporary directory");
        untar(&tar_of(k), dir.path());
        let turn = dir.path().join(format!("exchange-{k}"));
        let (report, log) = replay(&turn, &["Ilse", "Marek"]);
        assert_eq!(
            report,
            std::fs::read(turn.join("report.txt")).expect("report"),
            "Exchange {k}"
        );
        assert_eq!(log, std::fs::read(turn.join("log.jsonl")).expect("log"), "Exchange {k}");
        let next_dir = tempfile::tempdir().expect("a temporary directory");
        untar(&tar_of(k + 1), next_dir.path());
        let next = next_dir.path().join(format!("exchange-{}", k + 1));
        let written = turn.join("next");
        for name in [
            "scenario.toml",
            "meridian-compact.gzf",
            "kestrel-reach.gzf",
            "state.toml",
        ] {
            let ours = std::fs::read_to_string(next.join(name)).expect("the host's file");
            let cli = std::fs::read_to_string(written.join(name)).expect("the CLI's file");
            assert_eq!(unseeded(&ours), unseeded(&cli), "Exchange {} {name}", k + 1);
        }
    }
}

#[test]
fn a_game_resolves_when_all_are_in_at_the_deadline_and_replays_with_fam_resolve() {
    let h = Hosted::new();
    let g = create(&h, &duel_text(), Some("1h"));
    // Signup first: plots wait.
    let early = template(&h, &g, 0);
    let (s, v) = h.json(
        Method::PUT,
        &format!("/api/games/{}/plot", g.id),
        Some(&g.sides[0]),
        &early,
    );
    assert_eq!(s, StatusCode::CONFLICT, "{v}");
    join_all(&h, &g);
    let (_, d) = h.json(Method::GET, &format!("/api/games/{}", g.id), None, "");
    assert_eq!(d["status"], "progress");
    assert!(d["deadline"].is_string(), "{d}");
    // Exchange 1: both in.
    for side in 0..2 {
        let text = template(&h, &g, side)
            .replace("evasion = 0", "evasion = 1")
            .replace("speed = 6", "speed = 5");
        let (s, v) = h.json(
            Method::PUT,
            &format!("/api/games/{}/plot", g.id),
            Some(&g.sides[side]),
            &text,
        );
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(v["resolved"], side == 1);
    }
    // Exchange 2: one in, then the deadline passes (the host's clock is
    // asked with a time an hour and more on).
    let text = template(&h, &g, 1);
    let (s, _) = h.json(
        Method::PUT,
        &format!("/api/games/{}/plot", g.id),
        Some(&g.sides[1]),
        &text,
    );
    assert_eq!(s, StatusCode::OK);
    assert_eq!(h.host().tick(fam::host::now() + 3_700, false).expect("ticks"), 1);
    let d = h.host().display(&g.id).expect("display");
    assert_eq!(d.turns.len(), 2);
    assert_eq!(d.turns[0].trigger, "all plots in");
    assert_eq!(d.turns[1].trigger, "deadline");
    assert_eq!(d.turns[1].templates_played, vec!["Ilse".to_string()]);
    let tar_of = |k: u32| {
        let (s, b) = h.call(
            Method::GET,
            &format!("/api/games/{}/turns/{k}.tar", g.id),
            Some(&g.sides[0]),
            "",
        );
        assert_eq!(s, StatusCode::OK);
        b
    };
    assert_replays(&tar_of, 2, 1);
    // The feed has both Exchanges.
    let (s, feed) = h.call(Method::GET, &format!("/games/{}/feed.atom", g.id), None, "");
    assert_eq!(s, StatusCode::OK);
    let feed = String::from_utf8(feed).expect("text");
    assert!(feed.contains("Exchange 2 resolved (deadline)") && feed.contains("Exchange 1 resolved"));
    // The turn being plotted is given without its seed.
    let dir = tempfile::tempdir().expect("a temporary directory");
    untar(&tar_of(3), dir.path());
    let scenario = std::fs::read_to_string(dir.path().join("exchange-3/scenario.toml")).expect("scenario");
    assert!(!scenario.contains("seed ="), "{scenario}");
}

/// One HTTP/1.1 exchange over a fresh connection: the status and body, or
/// `None` when the connection failed (the server was killed).
fn http(addr: SocketAddr, method: &str, path: &str, token: Option<&str>, body: &str) -> Option<(u16, String)> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(2)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(20))).ok()?;
    let auth = token
        .map(|t| format!("authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nhost: localhost\r\n{auth}content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).ok()?;
    let mut out = Vec::new();
    s.read_to_end(&mut out).ok()?;
    let text = String::from_utf8_lossy(&out).into_owned();
    let status = text.split(' ').nth(1)?.parse().ok()?;
    let body = text.split_once("\r\n\r\n")?.1.to_string();
    Some((status, body))
}

/// `fam serve --db PATH` on `port`, once it listens.
fn start(db: &Path, port: u16) -> std::process::Child {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_fam"))
        .args(["serve", "--port", &port.to_string(), "--db"])
        .arg(db)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("fam serve starts");
    let mut first = [0u8; 11];
    let _ = child.stdout.as_mut().expect("stdout").read_exact(&mut first);
    child
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

#[test]
fn killed_at_random_moments_the_host_loses_no_acknowledged_plot_and_resolves_each_exchange_once() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let db = dir.path().join("games.db");
    let port = free_port();
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().expect("an address");
    let server = Arc::new(Mutex::new(start(&db, port)));
    // Set up a long game (nothing decides it) through the server.
    let body = json!({ "scenario": { "name": "duel.toml", "text": long_duel_text() }, "seed": "7" });
    let created: Value = loop {
        if let Some((201, b)) = http(addr, "POST", "/api/games", None, &body.to_string()) {
            break serde_json::from_str(&b).expect("json");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let id = created["id"].as_str().expect("id").to_string();
    let tokens: Vec<String> = (0..2)
        .map(|s| created["commanders"][s]["token"].as_str().expect("token").to_string())
        .collect();
    // The client: 200 acknowledged submissions, each carrying its number,
    // retried until acknowledged; after each failure it asks the display
    // which plots are in, as a player reloading the page would.
    let acknowledged: Arc<Mutex<Vec<(u32, usize, u32)>>> = Arc::default();
    let client = {
        let acknowledged = Arc::clone(&acknowledged);
        let tokens = tokens.clone();
        let id = id.clone();
        std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(240);
            for (s, t) in tokens.iter().enumerate() {
                while http(
                    addr,
                    "POST",
                    &format!("/api/games/{id}/join"),
                    Some(t),
                    &format!("{{\"name\":\"P{s}\"}}"),
                )
                .is_none_or(|(c, _)| c != 200)
                {
                    std::thread::sleep(Duration::from_millis(10));
                }
            }
            let mut n = 0u32;
            while n < 200 {
                assert!(Instant::now() < deadline, "the client took too long");
                let Some((200, d)) = http(addr, "GET", &format!("/api/games/{id}"), None, "") else {
                    std::thread::sleep(Duration::from_millis(10));
                    continue;
                };
                let d: Value = serde_json::from_str(&d).expect("json");
                let k = d["exchange"].as_u64().expect("exchange") as u32;
                let side = usize::from(d["sides"][0]["submitted"] == true);
                let Some((200, me)) = http(addr, "GET", &format!("/api/games/{id}/me"), Some(&tokens[side]), "") else {
                    continue;
                };
                let me: Value = serde_json::from_str(&me).expect("json");
                if me["exchange"].as_u64() != Some(u64::from(k)) {
                    continue;
                }
                // Both keep the range: nothing decides the battle.
                let (commander, mine, theirs) = [("Ilse", "Heading", "Watch"), ("Marek", "Watch", "Heading")][side];
                let text = format!(
                    "commander = \"{commander}\"\n[[plot.{mine}.volley]]\nspeed = 6\nevasion = 0\nprimary = {{ maintain = \"{theirs}\" }}\n# submission {n}\n"
                );
                match http(
                    addr,
                    "PUT",
                    &format!("/api/games/{id}/plot"),
                    Some(&tokens[side]),
                    &text,
                ) {
                    Some((200, ack)) => {
                        let ack: Value = serde_json::from_str(&ack).expect("json");
                        assert_eq!(ack["exchange"].as_u64(), Some(u64::from(k)));
                        acknowledged.lock().expect("lock").push((k, side, n));
                        n += 1;
                    }
                    Some((code, body)) => panic!("submission {n} refused: {code} {body}"),
                    None => {}
                }
            }
        })
    };
    // The killer: SIGKILL at pseudo-random moments (a fixed sequence), a
    // restart on the same file each time.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut kills = 0;
    while !client.is_finished() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        std::thread::sleep(Duration::from_millis(20 + x % 180));
        let mut s = server.lock().expect("lock");
        s.kill().expect("SIGKILL");
        s.wait().expect("reaped");
        kills += 1;
        *s = start(&db, port);
    }
    client.join().expect("the client finished");
    assert!(kills >= 3, "the server was killed {kills} times");
    {
        let mut s = server.lock().expect("lock");
        s.kill().expect("SIGKILL");
        s.wait().expect("reaped");
    }
    // Every acknowledged plot is the one its Exchange played (the last
    // acknowledged one of its side), or is kept for the Exchange being
    // plotted; each Exchange was resolved once, in order.
    let acks = acknowledged.lock().expect("lock").clone();
    assert_eq!(acks.len(), 200);
    let host = Host::open(&db, 0).expect("the database opens");
    let d = host.display(&id).expect("the display");
    let resolved_by_acks = acks.iter().filter(|a| a.1 == 1).count();
    assert!(
        d.turns.len() >= resolved_by_acks,
        "{} turns, {resolved_by_acks}",
        d.turns.len()
    );
    for (i, t) in d.turns.iter().enumerate() {
        assert_eq!(t.exchange, i as u32 + 1, "each Exchange once, in order");
    }
    let referee_token = created["referee"].as_str().expect("referee");
    let referee = host.holder(&id, Some(referee_token)).expect("holder");
    for (k, side, n) in &acks {
        let last = acks.iter().filter(|a| a.0 == *k && a.1 == *side).map(|a| a.2).max();
        if last != Some(*n) {
            continue;
        }
        let marker = format!("# submission {n}\n");
        if (*k as usize) <= d.turns.len() {
            let files = host.turn_dir(&referee, *k).expect("the turn");
            let name = if *side == 0 {
                "orders-Ilse.toml"
            } else {
                "orders-Marek.toml"
            };
            let orders = &files.iter().find(|f| f.0 == name).expect("orders").1;
            assert!(orders.ends_with(&marker), "Exchange {k} side {side} played {orders:?}");
        } else {
            let (_, plot) = host.plot_of(&referee, *side).expect("the plot is kept");
            assert!(plot.text.ends_with(&marker));
        }
    }
    let tar_of = |k: u32| fam::host::feed::tar(k, &host.turn_dir(&referee, k).expect("turn")).expect("tar");
    assert_replays(&tar_of, 3.min(d.turns.len() as u32), 1);
}

#[test]
fn fam_game_creates_submits_and_reads_a_game_on_a_host() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let port = free_port();
    let mut server = start(&dir.path().join("games.db"), port);
    let url = format!("http://127.0.0.1:{port}/");
    let fam = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_fam"))
            .args(args)
            .current_dir(dir.path())
            .output()
            .expect("fam runs")
    };
    let scenario = repo().join("scenarios/duel.toml");
    let out = fam(&[
        "game",
        "new",
        scenario.to_str().expect("a path"),
        "--url",
        &url,
        "--seed",
        "5",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let links = String::from_utf8(out.stdout).expect("text");
    let link = |who: &str| {
        links
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{who}: ")))
            .unwrap_or_else(|| panic!("{who} in {links}"))
            .to_string()
    };
    let (ilse, marek) = (link("Ilse"), link("Marek"));
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().expect("an address");
    let (game, ilse_token) = ilse
        .strip_prefix(&format!("{url}games/"))
        .and_then(|r| r.split_once('#'))
        .expect("a game link");
    let marek_token = marek.split_once('#').expect("a token").1;
    for (t, n) in [(ilse_token, "Ann"), (marek_token, "Bob")] {
        let joined = http(
            addr,
            "POST",
            &format!("/api/games/{game}/join"),
            Some(t),
            &format!("{{\"name\":\"{n}\"}}"),
        );
        assert_eq!(joined.map(|j| j.0), Some(200));
    }
    let (_, me) = http(addr, "GET", &format!("/api/games/{game}/me"), Some(ilse_token), "").expect("me");
    let me: Value = serde_json::from_str(&me).expect("json");
    std::fs::write(
        dir.path().join("orders-Ilse.toml"),
        me["template"].as_str().expect("template"),
    )
    .expect("written");
    // Marek's link cannot submit Ilse's orders: exit 2 and the reason.
    let out = fam(&["game", "submit", &marek, "orders-Ilse.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("your link is `Marek`'s"));
    let out = fam(&["game", "submit", &ilse, "orders-Ilse.toml"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Orders for Exchange 1 taken"));
    let out = fam(&["game", "status", &format!("{url}games/{game}")]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Ilse (Ann): plotted") && text.contains("Marek (Bob): not plotted"),
        "{text}"
    );
    // A link to no host fails (exit 1), https is refused by name (exit 2).
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(
        fam(&["game", "status", &format!("{url}games/{game}")]).status.code(),
        Some(1)
    );
    let out = fam(&["game", "status", "https://example.org/games/0123456789abcdef"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("plain HTTP"));
}
