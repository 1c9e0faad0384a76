//! `fam game`: a game hosted by `fam serve --db` (docs/host.md), from the
//! command line: create one from a scenario on disk, submit a commander's
//! orders, read the public display. Plain HTTP over hyper.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use serde_json::{Value, json};

use super::{BAD_INPUT, Example, LoadArgs, eprint_diagnostics, eprint_error};

const NEW: Example = Example {
    what: "Create a game of the duel on a host, each Exchange due within a day; prints the links:",
    run: &["fam game new scenarios/duel.toml --url http://127.0.0.1:8787/ --deadline 24h"],
};

const SUBMIT: Example = Example {
    what: "Submit Marek's orders with his link (the token after # is the secret):",
    run: &["fam game submit http://127.0.0.1:8787/games/0123456789abcdef#TOKEN orders-Marek.toml"],
};

const STATUS: Example = Example {
    what: "Who has plotted, the deadline, the ranges and the last report:",
    run: &["fam game status http://127.0.0.1:8787/games/0123456789abcdef"],
};

pub(super) const EXAMPLES: &[Example] = &[NEW, SUBMIT, STATUS];

#[derive(Debug, Subcommand)]
pub enum GameCommand {
    /// Create a game from a scenario and its ship records; prints the
    /// referee's link and one link per commander.
    #[command(after_help = super::examples(&[NEW]))]
    New(GameNewArgs),
    /// Submit a commander's orders (TOML) for the Exchange being plotted.
    #[command(after_help = super::examples(&[SUBMIT]))]
    Submit(GameSubmitArgs),
    /// Print a game's public display: sides, who has plotted, the deadline,
    /// the ranges and the last report.
    #[command(after_help = super::examples(&[STATUS]))]
    Status(GameStatusArgs),
}

#[derive(Debug, Args)]
pub struct GameNewArgs {
    /// The scenario (TOML); its ship records are sent with it.
    pub scenario: PathBuf,
    /// The host: the address `fam serve --db` printed.
    #[arg(long, value_name = "URL")]
    pub url: String,
    /// The game seed; without it the host draws one from the operating
    /// system's random source.
    #[arg(long)]
    pub seed: Option<u64>,
    /// The time each Exchange allows (`90s`, `10m`, `24h`, `3d`); without
    /// it an Exchange resolves when every plot is in (or the referee says).
    #[arg(long, value_name = "TIME")]
    pub deadline: Option<String>,
    #[command(flatten)]
    pub load: LoadArgs,
}

#[derive(Debug, Args)]
pub struct GameSubmitArgs {
    /// The commander's link (`http://HOST/games/ID#TOKEN`).
    pub link: String,
    /// The orders file.
    pub orders: PathBuf,
    /// The token, when the link has none after `#`.
    #[arg(long)]
    pub token: Option<String>,
}

#[derive(Debug, Args)]
pub struct GameStatusArgs {
    /// The game's page (`http://HOST/games/ID`; a token after `#` is not sent).
    pub link: String,
}

pub(super) fn game(command: &GameCommand) -> anyhow::Result<ExitCode> {
    match command {
        GameCommand::New(args) => new(args),
        GameCommand::Submit(args) => submit(args),
        GameCommand::Status(args) => status(args),
    }
}

/// A host's address split into what a request needs.
struct Host {
    /// `host:port`.
    authority: String,
    /// The path up to the host's root, without a trailing `/`.
    base: String,
}

/// A link's parts: the host, the game id and the token after `#`.
struct Link {
    host: Host,
    game: String,
    token: Option<String>,
}

fn host_of(url: &str) -> Result<Host, String> {
    let rest = match url.split_once("://") {
        Some(("http", rest)) => rest,
        Some(("https", _)) => {
            return Err(format!(
                "{url}: fam game speaks plain HTTP; run it on the host's machine against its loopback address, or through an SSH tunnel to it"
            ));
        }
        _ => return Err(format!("{url}: a host's address begins with http://")),
    };
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    if authority.is_empty() {
        return Err(format!("{url}: no host in the address"));
    }
    Ok(Host {
        authority: authority.to_string(),
        base: path.trim_end_matches('/').to_string(),
    })
}

fn link_of(link: &str) -> Result<Link, String> {
    let (url, token) = match link.split_once('#') {
        Some((u, t)) if !t.is_empty() => (u, Some(t.to_string())),
        Some((u, _)) => (u, None),
        None => (link, None),
    };
    let mut host = host_of(url)?;
    let Some((base, game)) = host.base.rsplit_once("games/") else {
        return Err(format!("{link}: a game's link is http://HOST/games/ID"));
    };
    let game = game.trim_end_matches('/').to_string();
    host.base = base.trim_end_matches('/').to_string();
    Ok(Link { host, game, token })
}

/// One request to the host: the status and the body.
fn request(host: &Host, method: &str, path: &str, token: Option<&str>, body: String) -> Result<(u16, String), String> {
    let uri = if host.base.is_empty() {
        path.to_string()
    } else {
        format!("/{}{path}", host.base)
    };
    let mut req = axum::http::Request::builder()
        .method(method)
        .uri(&uri)
        .header("host", &host.authority)
        .header(
            "content-type",
            if method == "PUT" {
                "text/plain"
            } else {
                "application/json"
            },
        );
    if let Some(t) = token {
        req = req.header("authorization", format!("Bearer {t}"));
    }
    let req = req
        .body(http_body_util::Full::new(axum::body::Bytes::from(body)))
        .map_err(|e| e.to_string())?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(async {
        use http_body_util::BodyExt;
        let fail = |e: &dyn std::fmt::Display| format!("http://{}: {e}", host.authority);
        let stream = tokio::time::timeout(
            std::time::Duration::from_secs(30),
            tokio::net::TcpStream::connect(&host.authority),
        )
        .await
        .map_err(|e| fail(&e))?
        .map_err(|e| fail(&e))?;
        let (mut sender, conn) = hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .map_err(|e| fail(&e))?;
        tokio::spawn(conn);
        let answer = tokio::time::timeout(std::time::Duration::from_secs(180), sender.send_request(req))
            .await
            .map_err(|e| fail(&e))?
            .map_err(|e| fail(&e))?;
        let status = answer.status().as_u16();
        let limited = http_body_util::Limited::new(answer.into_body(), 64 << 20);
        let bytes = limited.collect().await.map_err(|e| fail(&e))?.to_bytes();
        Ok((status, String::from_utf8_lossy(&bytes).into_owned()))
    })
}

/// A link given on the command line, or exit 2 after saying what is wrong.
fn parse_link(link: &str) -> Result<Link, ExitCode> {
    link_of(link).map_err(|e| {
        eprint_error(e);
        ExitCode::from(BAD_INPUT)
    })
}

/// One request that must be answered `want`: the answer's body, or the
/// exit code after the reason (1 when the host cannot be reached, else
/// the refusal's; [`refused`]).
fn call(
    host: &Host,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: String,
    want: u16,
) -> Result<String, ExitCode> {
    match request(host, method, path, token, body) {
        Ok((status, answer)) if status == want => Ok(answer),
        Ok((status, answer)) => Err(refused(status, &answer)),
        Err(e) => {
            eprint_error(e);
            Err(ExitCode::FAILURE)
        }
    }
}

/// Prints the host's refusal (its message, and fam's diagnostics as the
/// CLI renders them); exit 2 for a refusal, 1 for a failure.
fn refused(status: u16, body: &str) -> ExitCode {
    let v: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    let message = v["error"]["message"].as_str().unwrap_or(body);
    eprint_error(format!("the host answered {status}: {message}"));
    if let Some(rendered) = v["error"]["rendered"].as_str() {
        eprint!("{rendered}");
    }
    ExitCode::from(if status >= 500 { 1 } else { BAD_INPUT })
}

fn new(args: &GameNewArgs) -> anyhow::Result<ExitCode> {
    let host = match host_of(&args.url) {
        Ok(h) => h,
        Err(e) => {
            eprint_error(e);
            return Ok(ExitCode::from(BAD_INPUT));
        }
    };
    // Checked here first, as `fam check` would, so that a refusal names
    // the files on this machine.
    let loaded = match crate::orders::load_scenario(&args.scenario, &[], &args.load.options()) {
        Ok(l) => l,
        Err(reports) => {
            for (source, diags) in &reports {
                eprint_diagnostics(source, diags);
            }
            return Ok(ExitCode::from(BAD_INPUT));
        }
    };
    let scenario = crate::files::read_input(&args.scenario)?;
    let mut files = Vec::new();
    for r in &loaded.records {
        let text = crate::files::read_input(std::path::Path::new(&r.name))?;
        files.push(json!({
            "name": crate::turn::record_name(&r.path),
            "text": String::from_utf8_lossy(&text),
        }));
    }
    let name = crate::turn::record_name(&args.scenario.to_string_lossy());
    let body = json!({
        "scenario": { "name": name, "text": String::from_utf8_lossy(&scenario) },
        "files": files,
        "seed": args.seed.map(|s| s.to_string()),
        "deadline": args.deadline,
    });
    let answer = match call(&host, "POST", "/api/games", None, body.to_string(), 201) {
        Ok(a) => a,
        Err(code) => return Ok(code),
    };
    let v: Value = serde_json::from_str(&answer)?;
    let page = format!(
        "http://{}{}/games/{}",
        host.authority,
        if host.base.is_empty() {
            String::new()
        } else {
            format!("/{}", host.base)
        },
        v["id"].as_str().unwrap_or("")
    );
    let mut out = io::stdout().lock();
    writeln!(out, "game: {page}")?;
    writeln!(out, "referee: {page}#{}", v["referee"].as_str().unwrap_or(""))?;
    for c in v["commanders"].as_array().into_iter().flatten() {
        writeln!(
            out,
            "{}: {page}#{}",
            c["name"].as_str().unwrap_or(""),
            c["token"].as_str().unwrap_or("")
        )?;
    }
    writeln!(out, "Send each commander their own link; the links are shown only now.")?;
    Ok(ExitCode::SUCCESS)
}

fn submit(args: &GameSubmitArgs) -> anyhow::Result<ExitCode> {
    let link = match parse_link(&args.link) {
        Ok(l) => l,
        Err(code) => return Ok(code),
    };
    let Some(token) = args.token.clone().or(link.token) else {
        eprint_error(format!(
            "{}: no token: give the whole link (with the part after #) or --token",
            args.link
        ));
        return Ok(ExitCode::from(BAD_INPUT));
    };
    let text = match crate::files::read_input(&args.orders) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => {
            eprint_error(format!("{}: {}", args.orders.display(), crate::files::reason(&e)));
            return Ok(ExitCode::from(BAD_INPUT));
        }
    };
    let path = format!("/api/games/{}/plot", link.game);
    let answer = match call(&link.host, "PUT", &path, Some(&token), text, 200) {
        Ok(a) => a,
        Err(code) => return Ok(code),
    };
    let v: Value = serde_json::from_str(&answer)?;
    let mut out = io::stdout().lock();
    let exchange = v["exchange"].as_u64().unwrap_or(0);
    if v["resolved"] == true {
        writeln!(
            out,
            "Orders for Exchange {exchange} taken; every plot was in, and the Exchange is resolved."
        )?;
    } else {
        writeln!(
            out,
            "Orders for Exchange {exchange} taken; they may be replaced until the Exchange resolves."
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

fn status(args: &GameStatusArgs) -> anyhow::Result<ExitCode> {
    let link = match parse_link(&args.link) {
        Ok(l) => l,
        Err(code) => return Ok(code),
    };
    let path = format!("/api/games/{}", link.game);
    let answer = match call(&link.host, "GET", &path, None, String::new(), 200) {
        Ok(a) => a,
        Err(code) => return Ok(code),
    };
    let d: Value = serde_json::from_str(&answer)?;
    let mut out = io::stdout().lock();
    writeln!(out, "{}", d["title"].as_str().unwrap_or(""))?;
    let state = match d["status"].as_str() {
        Some("signup") => "in signup".to_string(),
        Some("progress") => format!("in progress: plotting Exchange {}", d["exchange"]),
        _ => format!("completed: {}", d["outcome"].as_str().unwrap_or("")),
    };
    writeln!(out, "{state}")?;
    if let Some(deadline) = d["deadline"].as_str() {
        writeln!(out, "deadline: {deadline}")?;
    }
    for s in d["sides"].as_array().into_iter().flatten() {
        writeln!(
            out,
            "  {} ({}): {}",
            s["name"].as_str().unwrap_or(""),
            s["commander"].as_str().unwrap_or("no commander yet"),
            if s["submitted"] == true {
                "plotted"
            } else {
                "not plotted"
            }
        )?;
    }
    for r in d["state"]["ranges"].as_array().into_iter().flatten() {
        writeln!(
            out,
            "  {} – {}: {} MU",
            r["between"][0].as_str().unwrap_or(""),
            r["between"][1].as_str().unwrap_or(""),
            r["mu"]
        )?;
    }
    if let Some(last) = d["turns"].as_array().and_then(|t| t.last()) {
        writeln!(out)?;
        write!(out, "{}", last["report"].as_str().unwrap_or(""))?;
    }
    Ok(ExitCode::SUCCESS)
}
