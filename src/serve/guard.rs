//! Who may ask: the server answers only requests whose `Host` names it
//! (a loopback name, the address it is bound to, or a name the operator
//! added with `--allow-host`), before any other work. A page on a foreign
//! site whose name an attacker re-points at this machine (DNS rebinding)
//! sends its own name as the Host, so it is refused, though its requests
//! would otherwise count as same-origin.

use std::net::IpAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::error::ApiError;

/// The names and addresses the server answers to.
#[derive(Debug, Clone)]
pub struct Hosts {
    /// The address the server listens on.
    bound: IpAddr,
    /// Names added by the operator, lowercase, without a trailing dot.
    names: Vec<String>,
}

impl Hosts {
    /// The hosts of a server bound to `bound`, with the names the operator
    /// added.
    pub fn new(bound: IpAddr, names: &[String]) -> Hosts {
        Hosts {
            bound,
            names: names.iter().map(|n| normal(n).to_ascii_lowercase()).collect(),
        }
    }

    /// Loopback only: the default server's.
    pub fn loopback() -> Hosts {
        Hosts::new(IpAddr::V4(std::net::Ipv4Addr::LOCALHOST), &[])
    }

    /// Whether a request with this `Host` header value is answered.
    /// Loopback names and addresses always are; the bound address is; a
    /// server bound to every address (`0.0.0.0`, `::`) answers any address
    /// literal (a browser sends an address as the Host only when the page
    /// itself was loaded from that address, which no rebinding can fake);
    /// any other name only when added.
    pub fn allows(&self, host: &str) -> bool {
        let name = normal(strip_port(host));
        if name.is_empty() {
            return false;
        }
        if name == "localhost" || name.ends_with(".localhost") {
            return true;
        }
        let literal = name.strip_prefix('[').and_then(|n| n.strip_suffix(']')).unwrap_or(name);
        if let Ok(ip) = literal.parse::<IpAddr>() {
            return ip.is_loopback() || ip == self.bound || self.bound.is_unspecified();
        }
        self.names.iter().any(|n| n == name)
    }
}

/// A host name as compared: without a trailing dot, lowercase (ASCII;
/// other names are compared as given).
fn normal(name: &str) -> &str {
    name.strip_suffix('.').unwrap_or(name)
}

/// `name:port` → `name`; `[v6]:port` → `[v6]`; a bare IPv6 address is
/// left whole.
fn strip_port(host: &str) -> &str {
    if host.starts_with('[') {
        return host.find(']').map_or(host, |end| &host[..=end]);
    }
    match host.rsplit_once(':') {
        Some((name, port)) if !name.contains(':') && port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    }
}

/// The middleware: refuses (403) a request whose Host the server does not
/// answer to, before its body is read or anything else is done.
pub async fn check_host(State(app): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .map(str::to_ascii_lowercase);
    match host {
        Some(h) if app.hosts.allows(&h) => next.run(request).await,
        Some(h) => ApiError::forbidden(format!(
            "this server does not answer to the host `{}`: open it as http://localhost:PORT/ (or start it with `--allow-host NAME`)",
            h.chars().take(100).collect::<String>()
        ))
        .into_response(),
        None => ApiError::bad_request("a request needs a Host header").into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_names_and_the_bound_address_are_answered_others_only_when_added() {
        let lan: IpAddr = "192.168.1.20".parse().unwrap();
        let hosts = Hosts::new(lan, &["Fam.Example.".to_string()]);
        for ok in [
            "localhost",
            "localhost:8787",
            "app.localhost:1",
            "127.0.0.1:8787",
            "[::1]:8787",
            "192.168.1.20:8787",
            "fam.example",
            "fam.example.:80",
        ] {
            assert!(hosts.allows(ok), "{ok}");
        }
        for refused in [
            "evil.example",
            "evil.example:8787",
            "localhost.evil.example",
            "192.168.1.21:8787",
            "",
            ":8787",
        ] {
            assert!(!hosts.allows(refused), "{refused}");
        }
        let any = Hosts::new("0.0.0.0".parse().unwrap(), &[]);
        assert!(any.allows("10.0.0.7:8787"));
        assert!(any.allows("[fe80::1]:8787"));
        assert!(!any.allows("evil.example"));
    }
}
