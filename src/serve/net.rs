//! The server's connections: a bounded number held at once, each given a
//! limited time to send its request's headers and to be answered.
//!
//! When every place is taken, a new connection takes the place of the
//! oldest one that has no request in progress (a client that opened a
//! connection and sends nothing, or sends its headers a byte at a time,
//! or a browser's idle keep-alive, which simply reconnects): so a flood of
//! idle or half-sent connections cannot shut out a page, and costs one
//! place each, never a file descriptor each without end.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::response::IntoResponse;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::Notify;
use tower::ServiceExt;

use super::error::ApiError;

/// The connection limits (docs/limits.md).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Connections held at once.
    pub connections: usize,
    /// From the connection (or the end of the last answer) to the end of
    /// a request's headers.
    pub header_time: Duration,
    /// From the end of the headers to the answer (a request's body and
    /// its work: a replay's time limit is within it).
    pub answer_time: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            connections: 256,
            header_time: Duration::from_secs(10),
            answer_time: super::JOB_TIME_LIMIT + Duration::from_secs(60),
        }
    }
}

/// One held connection.
#[derive(Debug, Default)]
struct Conn {
    /// Requests in progress on it.
    busy: AtomicUsize,
    /// Told when another connection takes its place.
    evicted: Notify,
}

/// Every held connection, by the order they came in.
#[derive(Debug, Default)]
struct Held {
    next: u64,
    conns: BTreeMap<u64, Arc<Conn>>,
}

#[derive(Debug)]
struct Registry {
    held: Mutex<Held>,
    cap: usize,
}

impl Registry {
    fn held(&self) -> MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A place for a new connection: a free one, or the oldest idle
    /// connection's (told to close). None when every held connection is
    /// answering a request.
    fn admit(&self) -> Option<(u64, Arc<Conn>)> {
        let mut held = self.held();
        if held.conns.len() >= self.cap {
            let idle = held
                .conns
                .iter()
                .find(|(_, c)| c.busy.load(Ordering::Acquire) == 0)
                .map(|(id, _)| *id)?;
            if let Some(old) = held.conns.remove(&idle) {
                old.evicted.notify_one();
            }
        }
        let id = held.next;
        held.next += 1;
        let conn = Arc::new(Conn::default());
        held.conns.insert(id, Arc::clone(&conn));
        Some((id, conn))
    }

    fn leave(&self, id: u64) {
        self.held().conns.remove(&id);
    }
}

/// Marks a connection busy while a request is answered.
struct Busy(Arc<Conn>);

impl Busy {
    fn new(conn: &Arc<Conn>) -> Busy {
        conn.busy.fetch_add(1, Ordering::AcqRel);
        Busy(Arc::clone(conn))
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.busy.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Accepts connections on `listener` and answers them with `app` until
/// the process stops.
pub async fn serve(listener: TcpListener, app: Router, limits: Limits) {
    let registry = Arc::new(Registry {
        held: Mutex::new(Held::default()),
        cap: limits.connections.max(1),
    });
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(_) => {
                // Out of file descriptors, or a connection reset before it
                // was taken: wait a moment rather than spin.
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Some((id, conn)) = registry.admit() else {
            // Every place answers a request: this one is closed at once.
            continue;
        };
        let registry = Arc::clone(&registry);
        let app = app.clone();
        tokio::spawn(async move {
            answer(stream, app, &conn, limits).await;
            registry.leave(id);
        });
    }
}

/// Answers one connection's requests until it closes, is too slow, or is
/// told its place is taken.
async fn answer(stream: tokio::net::TcpStream, app: Router, conn: &Arc<Conn>, limits: Limits) {
    let held = Arc::clone(conn);
    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
        let busy = Busy::new(&held);
        let app = app.clone();
        async move {
            let answered = tokio::time::timeout(limits.answer_time, app.oneshot(request.map(Body::new))).await;
            drop(busy);
            Ok::<_, std::convert::Infallible>(match answered {
                Ok(Ok(response)) => response,
                Ok(Err(never)) => match never {},
                Err(_) => ApiError::new_status(
                    StatusCode::REQUEST_TIMEOUT,
                    "the request took longer than the server allows",
                )
                .into_response(),
            })
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(limits.header_time);
    let connection = builder.serve_connection(TokioIo::new(stream), service);
    tokio::select! {
        _ = connection => {}
        () = conn.evicted.notified() => {}
    }
}
