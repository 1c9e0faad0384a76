//! `fam serve`: the odds calculator in a browser (src/serve).

use std::io::{self, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::process::ExitCode;

use clap::Args;

use super::{BAD_INPUT, Example};

pub(super) const EXAMPLES: &[Example] = &[
    Example {
        what: "The odds calculator on this machine, opened in the browser:",
        run: &["fam serve --open"],
    },
    Example {
        what: "Host play-by-web games kept in games.db; create one at http://127.0.0.1:8787/games/new:",
        run: &["fam serve --db games.db"],
    },
    Example {
        what: "On a network of your own, opened as http://gamebox.lan:8787/ (no authentication: fam warns):",
        run: &["fam serve --bind 0.0.0.0 --allow-host gamebox.lan"],
    },
];

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The port to listen on; 0 picks a free one (the URL says which).
    #[arg(long, value_name = "P", default_value_t = 8787)]
    pub port: u16,
    /// The address to listen on. The default, 127.0.0.1, lets only this
    /// machine in; anything else lets the network use your cores.
    #[arg(long, value_name = "ADDR", default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    pub bind: IpAddr,
    /// Also answer requests that name this host (a name of this machine on
    /// your network, or a reverse proxy's). Repeat for several. Loopback
    /// names and the bound address are always answered; any other Host is
    /// refused, so that no foreign web page can reach the server through
    /// DNS rebinding.
    #[arg(long, value_name = "NAME")]
    pub allow_host: Vec<String>,
    /// Open the page in the default browser once the server listens.
    #[arg(long)]
    pub open: bool,
    /// Host play-by-web games, kept in this SQLite file (made if missing;
    /// docs/host.md). The page to create one is /games/new.
    #[arg(long, value_name = "FILE")]
    pub db: Option<std::path::PathBuf>,
}

pub(super) fn serve(args: &ServeArgs) -> anyhow::Result<ExitCode> {
    let addr = SocketAddr::new(args.bind, args.port);
    let open = args.open;
    if !args.bind.is_loopback() {
        eprintln!(
            "warning: fam serve has no authentication: anyone who can reach {} can run jobs on this machine's cores and read their results. Bind 127.0.0.1 (the default) unless this network is yours alone.",
            args.bind
        );
    }
    let served = crate::serve::run(addr, &args.allow_host, args.db.as_deref(), |url| {
        // The first line names the URL (scripts read it with --port 0).
        let mut out = io::stdout().lock();
        let _ = writeln!(out, "fam serve: {url}");
        let _ = writeln!(out, "Open it in a browser; stop the server with Ctrl-C.");
        let _ = out.flush();
        if open {
            open_browser(url);
        }
    });
    match served {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e @ (crate::serve::ServeError::Bind(..) | crate::serve::ServeError::Games(_))) => {
            eprintln!("error: {e}");
            Ok(ExitCode::from(BAD_INPUT))
        }
        Err(e) => Err(e.into()),
    }
}

/// Asks the desktop to open `url`; says so on stderr when it cannot.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(target_os = "windows") {
        "explorer"
    } else {
        "xdg-open"
    };
    let started = std::process::Command::new(opener)
        .arg(url)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Err(e) = started {
        super::note(format!(
            "note: cannot open a browser with `{opener}` ({e}): open {url} yourself"
        ));
    }
}
