//! Jobs: batches, comparisons, tunings and solves the page starts, each on its own
//! thread, one at a time per client, stoppable, bounded in time.
//!
//! A batch is played in blocks of runs whose tallies add up exactly
//! ([`crate::batch::Tally::merge`]), so a finished job's result is the one
//! `fam batch` prints for the same scenario, runs and seed, and a stopped
//! one is that of the runs it played.

use std::collections::VecDeque;
use std::hash::BuildHasher;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::value::RawValue;

use super::error::ApiError;

/// Finished jobs kept for their results, oldest dropped first.
const KEEP: usize = 32;

/// How a job ended, or that it has not.
#[derive(Debug, Clone)]
pub enum State {
    Running,
    /// Played to the end, or until the time limit (`stopped`).
    Done {
        result: Option<Box<RawValue>>,
        stopped: Option<&'static str>,
    },
    /// Stopped by its client; a batch keeps the runs it played.
    Cancelled {
        result: Option<Box<RawValue>>,
    },
    Failed(ApiError),
}

/// One job.
#[derive(Debug)]
pub struct Job {
    pub kind: &'static str,
    client: String,
    /// Runs played so far, and in all.
    pub done: AtomicU64,
    pub total: AtomicU64,
    /// Set to stop the job before its next block of runs.
    stop: AtomicBool,
    /// Set with `stop` when the time limit stopped it.
    timed_out: AtomicBool,
    started: Instant,
    limit: Duration,
    state: Mutex<State>,
    /// Told once the job has ended.
    end: tokio::sync::Notify,
}

impl Job {
    /// Waits until the job has ended (for a request that answers with its
    /// result, as a replay).
    pub async fn ended(&self) {
        loop {
            let told = self.end.notified();
            tokio::pin!(told);
            told.as_mut().enable();
            if !self.running() {
                return;
            }
            told.await;
        }
    }

    /// An ended job's result, or why it has none.
    pub fn result(&self) -> Result<Option<Box<RawValue>>, ApiError> {
        match &*self.state() {
            State::Running => Err(ApiError::failed("the job has not ended")),
            State::Done { result, .. } | State::Cancelled { result } => Ok(result.clone()),
            State::Failed(e) => Err(e.clone()),
        }
    }

    /// Counts `n` runs played; past the time limit, asks the job to stop.
    pub fn advance(&self, n: u64) {
        self.done.fetch_add(n, Ordering::Relaxed);
        if self.started.elapsed() > self.limit && !self.stop.swap(true, Ordering::Relaxed) {
            self.timed_out.store(true, Ordering::Relaxed);
        }
    }

    /// Raises the total by `step` when the runs played have reached it:
    /// for a job whose length is known only as it goes (a solve).
    pub fn grow_total(&self, step: u64) {
        let done = self.done.load(Ordering::Relaxed);
        let _ = self.total.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |t| {
            (done >= t).then_some(done + step)
        });
    }

    /// Whether the job should stop before its next block.
    pub fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// The flag [`crate::tune::search_until`] and
    /// [`crate::solve::solve_until`] watch.
    pub fn stop_flag(&self) -> &AtomicBool {
        &self.stop
    }

    /// Whether the time limit, not the client, stopped it.
    pub fn timed_out(&self) -> bool {
        self.timed_out.load(Ordering::Relaxed)
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn running(&self) -> bool {
        matches!(*self.state(), State::Running)
    }

    /// The job as `GET /api/jobs/{id}` shows it. A result is the JSON its
    /// work wrote, passed on byte for byte: the `batch` of a batch is what
    /// `fam batch --json` prints, numbers and key order alike.
    pub fn status(&self) -> Status {
        let (state, result, error, stopped) = match &*self.state() {
            State::Running => ("running", None, None, None),
            State::Done { result, stopped } => ("done", result.clone(), None, *stopped),
            State::Cancelled { result } => ("cancelled", result.clone(), None, None),
            State::Failed(e) => ("failed", None, Some(e.clone()), None),
        };
        Status {
            kind: self.kind,
            state,
            done: self.done.load(Ordering::Relaxed),
            total: self.total.load(Ordering::Relaxed),
            stopped,
            error,
            result,
        }
    }
}

/// A job as `GET /api/jobs/{id}` answers it (docs/serve-api.md).
#[derive(Debug, Serialize)]
pub struct Status {
    pub kind: &'static str,
    pub state: &'static str,
    pub done: u64,
    pub total: u64,
    pub stopped: Option<&'static str>,
    pub error: Option<ApiError>,
    pub result: Option<Box<RawValue>>,
}

/// What a job's work returns: its result as JSON text, or why it has none.
pub type Outcome = Result<Option<Box<RawValue>>, ApiError>;

/// A job's result as the JSON text it is kept and answered as.
pub fn outcome<T: Serialize>(result: &T) -> Result<Box<RawValue>, ApiError> {
    serde_json::value::to_raw_value(result).map_err(|e| ApiError::failed(format!("cannot write the result: {e}")))
}

/// The server's jobs.
#[derive(Debug)]
pub struct Jobs {
    inner: Mutex<Inner>,
    /// Jobs that may run at once (each uses every core).
    slots: usize,
    limit: Duration,
}

#[derive(Debug, Default)]
struct Inner {
    seq: u64,
    jobs: VecDeque<(String, Arc<Job>)>,
}

impl Jobs {
    pub fn new(slots: usize, limit: Duration) -> Jobs {
        Jobs {
            inner: Mutex::new(Inner::default()),
            slots: slots.max(1),
            limit,
        }
    }

    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Starts `work` on its own thread for `client`, unless that client
    /// already runs a job or every slot is taken. Returns the job's id.
    pub fn start<F>(&self, client: &str, kind: &'static str, total: u64, work: F) -> Result<String, ApiError>
    where
        F: FnOnce(&Job) -> Outcome + Send + 'static,
    {
        let mut inner = self.inner();
        let running: Vec<&Arc<Job>> = inner.jobs.iter().map(|(_, j)| j).filter(|j| j.running()).collect();
        if running.iter().any(|j| j.client == client) {
            return Err(ApiError::busy(
                "this page already runs a job: wait for it or cancel it first",
            ));
        }
        if running.len() >= self.slots {
            return Err(ApiError::busy("the server is busy with other jobs: try again shortly"));
        }
        inner.seq += 1;
        // Not guessable from another tab: the sequence number hashed with
        // this process's random keys.
        let id = format!(
            "{:016x}{:04x}",
            std::collections::hash_map::RandomState::new().hash_one(inner.seq),
            inner.seq & 0xffff
        );
        let job = Arc::new(Job {
            kind,
            client: client.to_string(),
            done: AtomicU64::new(0),
            total: AtomicU64::new(total),
            stop: AtomicBool::new(false),
            timed_out: AtomicBool::new(false),
            started: Instant::now(),
            limit: self.limit,
            state: Mutex::new(State::Running),
            end: tokio::sync::Notify::new(),
        });
        let worker = Arc::clone(&job);
        let spawned = std::thread::Builder::new()
            .name(format!("fam-serve-{kind}"))
            .spawn(move || finish(&worker, work));
        if let Err(e) = spawned {
            return Err(ApiError::failed(format!("cannot start a worker thread: {e}")));
        }
        inner.jobs.push_back((id.clone(), job));
        while inner.jobs.len() > KEEP {
            match inner.jobs.iter().position(|(_, j)| !j.running()) {
                Some(i) => {
                    inner.jobs.remove(i);
                }
                None => break,
            }
        }
        Ok(id)
    }

    /// A job by id.
    pub fn get(&self, id: &str) -> Option<Arc<Job>> {
        self.inner()
            .jobs
            .iter()
            .find(|(i, _)| i == id)
            .map(|(_, j)| Arc::clone(j))
    }

    /// Asks a job to stop; its state says when it has.
    pub fn cancel(&self, id: &str) -> Option<Arc<Job>> {
        let job = self.get(id)?;
        job.stop.store(true, Ordering::Relaxed);
        Some(job)
    }
}

/// Runs `work` and records how it ended; a panic in it fails the job
/// instead of leaving it running for ever.
fn finish<F>(job: &Job, work: F)
where
    F: FnOnce(&Job) -> Outcome,
{
    let ended = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(job)));
    let state = match ended {
        Err(_) => State::Failed(ApiError::failed(
            "fam failed while playing this job (an internal error)",
        )),
        Ok(Err(e)) => State::Failed(e),
        Ok(Ok(result)) if job.stopping() && !job.timed_out() => State::Cancelled { result },
        Ok(Ok(result)) => State::Done {
            result,
            stopped: job.timed_out().then_some("time"),
        },
    };
    *job.state() = state;
    job.end.notify_waiters();
}

/// Plays `runs` in blocks of increasing start, calling `play` on each,
/// until they are done or the job is asked to stop. Returns the runs
/// played: always a prefix `0..n`.
pub fn in_blocks<E>(job: &Job, runs: u64, mut play: impl FnMut(Range<u64>) -> Result<(), E>) -> Result<u64, E> {
    // Two chunks a core: every core busy, and a stop heard within a
    // fraction of a second; longer blocks only for very long batches.
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get) as u64;
    let block = (crate::batch::CHUNK * 2 * cores).max(runs / 200);
    let mut next = 0;
    while next < runs && !job.stopping() {
        let end = (next + block).min(runs);
        play(next..end)?;
        next = end;
    }
    Ok(next)
}
