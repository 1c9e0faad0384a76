//! `fam serve` under load, through real sockets: idle and half-sent
//! connections are bounded and cannot shut out a page, a request's
//! headers have a time limit, and the server stays small and answers
//! `/api/library` promptly while it is flooded with connections, maximal
//! replays and attribute-heavy uploads.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use fam::serve::{AppState, net, router};
use serde_json::{Value, json};

/// A server in this process with these connection limits; its address.
fn in_process(limits: net::Limits) -> SocketAddr {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime");
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a port");
            tx.send(listener.local_addr().expect("an address")).expect("told");
            let app = router(Arc::new(AppState::new(Duration::from_secs(120))));
            net::serve(listener, app, limits).await;
        });
    });
    rx.recv().expect("the server's address")
}

/// A connection that sent part of a request's headers and nothing more.
fn half_sent(addr: SocketAddr) -> TcpStream {
    let mut s = TcpStream::connect(addr).expect("connects");
    s.write_all(b"GET /api/library HTTP/1.1\r\nHo").expect("writes");
    s
}

/// One whole GET; the status line, the body and how long it took.
fn get(addr: SocketAddr, path: &str) -> (String, String, Duration) {
    let began = Instant::now();
    let mut s = TcpStream::connect(addr).expect("connects");
    s.set_read_timeout(Some(Duration::from_secs(30))).expect("a timeout");
    write!(s, "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").expect("writes");
    let mut answer = String::new();
    s.read_to_string(&mut answer).expect("an answer");
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    (
        head.lines().next().unwrap_or("").to_string(),
        body.to_string(),
        began.elapsed(),
    )
}

/// One whole POST of JSON; the status code and the body.
fn post(addr: SocketAddr, path: &str, body: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).expect("connects");
    s.set_read_timeout(Some(Duration::from_secs(300))).expect("a timeout");
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .expect("writes");
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    let code = answer.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, b)| b).to_string();
    (code, body)
}

/// Whether the server has closed `s` (it reads the end, or a reset)
/// within `wait`.
fn closed_within(s: &mut TcpStream, wait: Duration) -> bool {
    s.set_read_timeout(Some(wait)).expect("a timeout");
    let mut buf = [0u8; 512];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return true,
            // A 408 or 400 answer before the close is fine.
            Ok(_) => {}
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                return false;
            }
            Err(_) => return true,
        }
    }
}

#[test]
fn half_sent_connections_are_bounded_in_number_and_time_and_cannot_shut_out_a_page() {
    let addr = in_process(net::Limits {
        connections: 16,
        header_time: Duration::from_millis(500),
        answer_time: Duration::from_secs(10),
    });
    let mut idle: Vec<TcpStream> = (0..64).map(|_| half_sent(addr)).collect();
    // Four times as many as the server holds, and a page still gets in.
    let (status, body, took) = get(addr, "/api/library");
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");
    assert!(body.contains("\"files\""), "{body}");
    assert!(took < Duration::from_secs(1), "{took:?}");
    // Every half-sent connection is closed: the oldest to make room, the
    // rest when their time to send the headers is up.
    for (i, s) in idle.iter_mut().enumerate() {
        assert!(closed_within(s, Duration::from_secs(3)), "connection {i} still open");
    }
    // A connection that sends nothing at all is closed too.
    let mut silent = TcpStream::connect(addr).expect("connects");
    let began = Instant::now();
    assert!(closed_within(&mut silent, Duration::from_secs(3)));
    assert!(began.elapsed() >= Duration::from_millis(400), "{:?}", began.elapsed());
}

/// Peak resident memory of a process, in bytes (Linux).
fn peak_memory(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The largest battle the page takes (256 Units), far apart so that it
/// lasts, as a replay of every Exchange the server allows.
fn maximal_replay() -> String {
    let formation = |name: &str, design: &str, n: usize| json!({"name": name, "units": vec![design; n]});
    json!({
        "battle": {
            "title": "Maximal",
            "files": [{"name": "meridian-compact.gzf"}, {"name": "kestrel-reach.gzf"}],
            "sides": [
                {"name": "Ilse", "formations": [formation("I1", "MCS Clear Heading", 100), formation("I2", "MCS Clear Heading", 28)]},
                {"name": "Marek", "formations": [formation("M1", "KRD Long Watch", 100), formation("M2", "KRD Long Watch", 28)]}
            ],
            "start_range": 5000,
            "victory": {"max_exchanges": 1000}
        },
        "seed": 1,
        "exchanges": 1000
    })
    .to_string()
}

/// An FTJava upload of one element with as many attributes as 1 MiB holds.
fn attribute_heavy_upload() -> String {
    let mut xml = String::from("<Ship");
    let mut i = 0;
    while xml.len() < (1 << 20) - 64 {
        xml.push_str(&format!(" a{i}=\"\""));
        i += 1;
    }
    xml.push_str("/>");
    json!({"name": "heavy.xml", "text": xml}).to_string()
}

/// The siege, on the binary: 1 000 idle half-sent connections, 50
/// maximal replays and 20 attribute-heavy uploads at once, while a page
/// asks for the library every quarter second: every answer is a result or
/// a refusal (never a server error), the library answers within a second
/// throughout, and the server stays under 200 MB.
#[test]
fn fam_serve_stays_small_and_answers_under_a_siege() {
    let (mut child, addr) = start_serve(&[], std::process::Stdio::null());
    let idle: Vec<TcpStream> = (0..1000).map(|_| half_sent(addr)).collect();
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watcher = {
        let done = Arc::clone(&done);
        std::thread::spawn(move || {
            let mut slowest = Duration::ZERO;
            let mut asked = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) || asked < 4 {
                let (status, _, took) = get(addr, "/api/library");
                assert!(status.starts_with("HTTP/1.1 200"), "{status}");
                slowest = slowest.max(took);
                asked += 1;
                std::thread::sleep(Duration::from_millis(250));
            }
            slowest
        })
    };
    let replay = Arc::new(maximal_replay());
    let upload = Arc::new(attribute_heavy_upload());
    let mut load = Vec::new();
    for i in 0..70 {
        let (path, body) = if i < 50 {
            ("/api/replay", Arc::clone(&replay))
        } else {
            ("/api/ships", Arc::clone(&upload))
        };
        load.push(std::thread::spawn(move || (path, post(addr, path, &body))));
    }
    let mut replayed = 0;
    for handle in load {
        let (path, (code, body)) = handle.join().expect("a client");
        assert!(
            (200..500).contains(&code),
            "{path}: {code}: {}",
            &body[..body.len().min(300)]
        );
        if path == "/api/replay" && code == 200 {
            let v: Value = serde_json::from_str(&body).expect("JSON");
            assert!(
                v["stopped"].is_string(),
                "a maximal replay is cut short: {}",
                v["exchanges"]
            );
            replayed += 1;
        }
        if path == "/api/ships" {
            assert!(code == 422 || code == 413, "{code}: {}", &body[..body.len().min(300)]);
        }
    }
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let slowest = watcher.join().expect("the watcher");
    let peak = peak_memory(child.id());
    let _ = child.kill();
    let _ = child.wait();
    drop(idle);
    eprintln!(
        "siege: {replayed} replays ran, the library answered within {slowest:?}, peak memory {} MB",
        peak.map_or(0, |p| p >> 20)
    );
    assert!(replayed >= 1, "some replays ran");
    assert!(slowest < Duration::from_secs(1), "the library took {slowest:?}");
    if let Some(peak) = peak {
        assert!(peak < 200 << 20, "peak memory {} MB", peak >> 20);
    }
}

/// `fam serve --port 0` with `args`, once it listens; the address its
/// first line names.
fn start_serve(args: &[&str], stderr: std::process::Stdio) -> (std::process::Child, SocketAddr) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_fam"))
        .args(["serve", "--port", "0"])
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("fam serve starts");
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("a line");
    let addr = first
        .trim()
        .strip_prefix("fam serve: http://")
        .and_then(|a| a.strip_suffix('/'))
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("{first}"));
    (child, addr)
}

/// What `fam serve --bind ADDR` prints on stderr until it is stopped.
fn serve_stderr(bind: &str) -> String {
    let (mut child, _) = start_serve(&["--bind", bind], std::process::Stdio::piped());
    let _ = child.kill();
    let mut err = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err)
        .expect("stderr");
    let _ = child.wait();
    err
}

#[test]
fn a_server_bound_beyond_loopback_warns_that_it_has_no_authentication() {
    let err = serve_stderr("0.0.0.0");
    assert!(err.starts_with("warning: fam serve has no authentication"), "{err}");
    assert!(err.contains("0.0.0.0"), "{err}");
    assert_eq!(serve_stderr("127.0.0.1"), "", "no warning on loopback");
}
