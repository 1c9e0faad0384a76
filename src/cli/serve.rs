//! `fam serve`: the odds calculator in a browser (src/serve).

use std::io::{self, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::process::ExitCode;

use clap::Args;

use super::BAD_INPUT;

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The port to listen on; 0 picks a free one (the URL says which).
    #[arg(long, value_name = "P", default_value_t = 8787)]
    pub port: u16,
    /// The address to listen on. The default, 127.0.0.1, lets only this
    /// machine in; anything else lets the network use your cores.
    #[arg(long, value_name = "ADDR", default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    pub bind: IpAddr,
    /// Open the page in the default browser once the server listens.
    #[arg(long)]
    pub open: bool,
}

pub(super) fn serve(args: &ServeArgs) -> anyhow::Result<ExitCode> {
    let addr = SocketAddr::new(args.bind, args.port);
    let open = args.open;
    let served = crate::serve::run(addr, |url| {
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
        Err(e @ crate::serve::ServeError::Bind(..)) => {
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
        eprintln!("note: cannot open a browser with `{opener}` ({e}): open {url} yourself");
    }
}
