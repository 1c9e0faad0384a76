//! Monte Carlo batches: the same scenario played many times from derived
//! seeds, counted into fixed-size integer tallies ([`Tally`]), and the
//! statistics, tables, JSON, CSV and pictures made from them.
//!
//! * Run `i` (0-based) of a batch with base seed `B` is the battle `fam
//!   resolve SCENARIO --seed run_seed(B, i) --exchanges K` plays: the same
//!   plots ([`battle_plot`]), the same Exchange seeds
//!   ([`exchange_seed`]), the same victory checks ([`decide`]), with nothing
//!   recorded (the `()` sink).
//! * The runs are cut into chunks of at most [`CHUNK`] (fewer when the
//!   runs are few, so that every thread gets several: [`chunk_len`]);
//!   one worker a thread of the rayon pool takes the next chunk until none
//!   is left ([`on_workers`]), each with its own working [`Battle`] (reset with
//!   [`Battle::reset_to`]) and [`Scratch`], counting into its own [`Tally`];
//!   tallies are added up. Integer addition and "lowest run index" are
//!   associative and commutative, so the result is the same for any thread
//!   count, split or merge order, machine, or sharding.
//! * Memory is flat in the number of runs: a tally's size is fixed by the
//!   scenario (histograms over Exchanges `1..=K`, hull boxes and points).
//!
//! This is the only module that knows about threads.

pub mod checkpoint;
pub mod digest;
#[cfg(feature = "plots")]
mod draw;
pub mod idle;
pub mod json;
pub mod markdown;
pub mod plot;
pub mod shards;
pub mod stats;
pub mod tally;
pub mod text;

use std::ops::Range;

use rayon::prelude::*;

use crate::engine::checked::CheckedPlot;
use crate::engine::dice::Dice;
use crate::engine::doctrine::plan::PlanMemo;
use crate::engine::doctrine::{PlotSource, PlotWork};
use crate::engine::state::Battle;
use crate::engine::victory::{Outcome, decide, exchange_seed, side_masses};
use crate::engine::volley::{Scratch, run_exchange};
use crate::orders::Loaded;
use crate::resolve::{battle_plot, battle_plot_into_with};

pub use checkpoint::Checkpoint;
pub use idle::WeaponInfo;
pub use stats::{Histogram, MeanStats, Paired, newcombe, paired_difference, wilson};
pub use tally::{Fate, RunResult, Tally};

/// The most runs handed to a worker at a time (also the granularity of
/// progress).
pub const CHUNK: u64 = 64;

/// Chunks each thread of the pool gets at least, when the runs allow: a
/// thread that drew the long battles does not keep the others waiting.
const CHUNKS_PER_THREAD: u64 = 8;

/// Runs in a chunk of a batch of `runs` runs on the current pool: at most
/// [`CHUNK`], and few enough that each thread gets at least
/// [`CHUNKS_PER_THREAD`] chunks when there are that many runs (a batch of
/// 100 long battles on 8 cores is 100 chunks of one, not two of 64). The
/// tally and the outcome codes do not depend on it.
fn chunk_len(runs: u64) -> u64 {
    let threads = u64::try_from(rayon::current_num_threads()).unwrap_or(1).max(1);
    (runs / threads.saturating_mul(CHUNKS_PER_THREAD)).clamp(1, CHUNK)
}

/// Outcome code of one run ([`run_with_outcomes`]): the winning side's
/// index, or `DRAW`, or [`UNDECIDED`]. Side indices stay below it: a battle
/// of 254 sides or more is refused ([`BatchError::TooManySides`]).
pub const DRAW: u8 = 254;
/// Outcome code of a run that reached the Exchange cap without a decision.
pub const UNDECIDED: u8 = 255;

/// The largest Exchange cap: `--exchanges` and a scenario's
/// `max_exchanges` are at most this, so a batch file whose cap is larger was
/// not written by fam.
pub const MAX_EXCHANGES: u32 = 1000;

/// Runs per block with `--until-ci`: the stopping rule is checked after
/// every block, so the same width and seed always stop at the same count.
pub const CI_BLOCK: u64 = 1000;

/// The seed of run `run` (0-based) of a batch with base seed `base`: output
/// number `run + 1` of the SplitMix64 generator seeded with `base`, that is
/// the SplitMix64 finaliser of `base + (run + 1) · 0x9E3779B97F4A7C15`
/// (wrapping). Unlike [`exchange_seed`], run 0 does not use the base itself.
pub fn run_seed(base: u64, run: u64) -> u64 {
    crate::engine::dice::splitmix64(base, run.wrapping_add(1))
}

/// How to run a batch.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Base seed: run `i` is played with [`run_seed`]`(seed, i)`.
    pub seed: u64,
    /// Exchanges at most per run (`fam resolve --exchanges K`); a run that
    /// reaches it undecided counts as undecided.
    pub exchanges: u32,
    /// Worker threads; `None`: one per core.
    pub threads: Option<usize>,
}

impl Options {
    /// The options of `fam batch` on `loaded`: the seed given, else the
    /// scenario's, else 0; the Exchanges given, else [`default_exchanges`].
    pub fn for_scenario(loaded: &Loaded, seed: Option<u64>, exchanges: Option<u32>, threads: Option<usize>) -> Options {
        Options {
            seed: seed.or(loaded.seed).unwrap_or(0),
            exchanges: exchanges.unwrap_or_else(|| default_exchanges(loaded)),
            threads,
        }
    }
}

/// Exchanges that take a scenario to its `[victory]` Exchange limit (so
/// every run ends in a decision), at least 1.
pub fn default_exchanges(loaded: &Loaded) -> u32 {
    (loaded.victory.max_exchanges + 1)
        .saturating_sub(loaded.exchange)
        .max(1)
}

/// A 64-bit FNV-1a fingerprint of everything that decides a scenario's
/// runs (battle, plots, standing orders, victory rules, first Exchange), as
/// 16 hex digits: merged shards must share it. The plots are read as
/// plots (`ExchangePlot`), whatever type holds them.
pub fn fingerprint(loaded: &Loaded) -> String {
    let plot: &crate::engine::plot::ExchangePlot = &loaded.plot;
    let mut text = format!(
        "{:?}|{:?}|{:?}|{:?}|{}",
        loaded.battle, plot, loaded.doctrine, loaded.victory, loaded.exchange
    );
    // Only scenarios with mixes add them: every other fingerprint stays.
    if !loaded.mixes.is_empty() {
        text.push_str(&format!("|{:?}", loaded.mixes));
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    format!("{h:016x}")
}

/// What a batch was, besides its tallies: enough to render every output
/// and to check that shards belong together.
#[derive(Debug, Clone, PartialEq)]
pub struct Meta {
    /// The fam version that played the runs (shards must agree).
    pub fam_version: String,
    /// The scenario path as given on the command line.
    pub scenario: String,
    pub title: String,
    /// [`fingerprint`] of the scenario.
    pub fingerprint: String,
    pub seed: u64,
    /// The scenario's `exchange` (the first Exchange each run plays).
    pub first_exchange: u32,
    /// Exchanges at most per run.
    pub exchanges: u32,
    /// Run indices played: `[start, end)`.
    pub range: [u64; 2],
    /// `--shard K/N`: which slice of a batch this is.
    pub shard: Option<ShardOf>,
    /// `--until-ci W`.
    pub until_ci: Option<f64>,
    /// Commanders' names, by side id.
    pub sides: Vec<String>,
    pub units: Vec<UnitInfo>,
    /// The weapons the batch follows (`tally::tracked_weapons`), as the
    /// outputs name them; empty in a batch file written before fam counted
    /// weapon use.
    pub weapons: Vec<WeaponInfo>,
    /// Arguments `fam resolve` needs besides the scenario, the seed and
    /// `--exchanges` to replay a run (orders files, load options).
    pub replay_args: Vec<String>,
}

/// Which slice of a whole batch a report holds (`--shard K/N`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardOf {
    /// K, 1-based.
    pub index: u64,
    /// N.
    pub count: u64,
    /// The runs of the whole batch (`--runs`), whose slice K of N this is;
    /// `None` in a file written before fam recorded it.
    pub batch_runs: Option<u64>,
}

impl ShardOf {
    /// The run indices this shard plays ([`shard_range`]), when the whole
    /// batch's runs are known.
    pub fn range(&self) -> Option<Range<u64>> {
        self.batch_runs.map(|runs| shard_range(self.index, self.count, runs))
    }
}

/// The run indices of shard `index` (1-based) of `count` of a batch of
/// `runs` runs: from `⌊runs·(K−1)/N⌋` to `⌊runs·K/N⌋`, so the N shards tile
/// `0..runs` exactly and differ in size by at most one run, for any `runs`
/// and N up to 2^64 − 1. A shard outside `1..=N` is taken as the nearest
/// one (`count` 0 as 1).
pub fn shard_range(index: u64, count: u64, runs: u64) -> Range<u64> {
    let count = count.max(1);
    let k = index.clamp(1, count);
    slice_point(runs, k - 1, count)..slice_point(runs, k, count)
}

/// `⌊runs·k/count⌋` for `k ≤ count`, computed in 128 bits: the product
/// does not fit in 64, the quotient is at most `runs`.
fn slice_point(runs: u64, k: u64, count: u64) -> u64 {
    let at = u128::from(runs) * u128::from(k) / u128::from(count);
    u64::try_from(at).unwrap_or(runs)
}

/// A Unit as the outputs name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitInfo {
    pub name: String,
    pub side: usize,
    pub formation: String,
    /// Hull boxes left at the start.
    pub hull: u32,
    pub points: u32,
}

impl Meta {
    /// Each side's points as fielded: its Units' points added up
    /// (`engine::state::Battle::side_points`).
    pub fn side_points(&self) -> Vec<u32> {
        let mut out = vec![0u32; self.sides.len()];
        for u in &self.units {
            if let Some(p) = out.get_mut(u.side) {
                *p = p.saturating_add(u.points);
            }
        }
        out
    }

    /// "Ilse 399 points against Marek 590": each side's points as fielded.
    pub fn points_line(&self) -> String {
        let parts: Vec<String> = self
            .sides
            .iter()
            .zip(self.side_points())
            .map(|(name, p)| format!("{name} {p}"))
            .collect();
        format!("Points: {}", parts.join(" against "))
    }

    /// The description of a batch of `loaded` (read from `scenario`).
    pub fn new(loaded: &Loaded, scenario: &str, options: &Options, range: Range<u64>) -> Meta {
        let b = &loaded.battle;
        Meta {
            fam_version: env!("CARGO_PKG_VERSION").to_string(),
            scenario: scenario.to_string(),
            title: loaded.title.clone().unwrap_or_else(|| loaded.scenario.clone()),
            fingerprint: fingerprint(loaded),
            seed: options.seed,
            first_exchange: loaded.exchange,
            exchanges: options.exchanges,
            range: [range.start, range.end],
            shard: None,
            until_ci: None,
            sides: b.sides.iter().map(|s| s.name.clone()).collect(),
            units: b
                .units
                .iter()
                .map(|u| UnitInfo {
                    name: u.name.clone(),
                    side: u.side,
                    formation: b.formations[u.formation].name.clone(),
                    hull: crate::batch::tally::hull_or_craft(u),
                    points: u.points,
                })
                .collect(),
            weapons: idle::weapon_infos(loaded, options.exchanges),
            replay_args: Vec::new(),
        }
    }

    /// The command that replays the run with seed `seed`.
    pub fn replay(&self, seed: u64) -> String {
        let mut parts = vec!["fam".to_string(), "resolve".to_string(), shell_quote(&self.scenario)];
        parts.extend(self.replay_args.iter().map(|a| shell_quote(a)));
        parts.push(format!("--seed {seed}"));
        parts.push(format!("--exchanges {}", self.exchanges));
        parts.join(" ")
    }
}

/// A word for a POSIX shell: as it is when it needs no quoting.
pub fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | '=' | ':' | ',' | '+' | '@'));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// A batch's description and tallies: what every output is made from.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub meta: Meta,
    pub tally: Tally,
}

/// How one run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunSummary {
    pub run: u64,
    pub seed: u64,
    /// `None`: the Exchange cap was reached with no decision.
    pub outcome: Option<Outcome>,
    pub exchanges: u32,
    /// Dice rolled over the whole battle.
    pub dice: u64,
}

/// One worker: a working battle and scratch memory reused for every run it
/// plays, and the tally it counts into.
pub struct Worker<'a> {
    loaded: &'a Loaded,
    options: &'a Options,
    /// The plots of the first Exchange: the same for every run, since they
    /// depend only on the starting state.
    first_plot: &'a CheckedPlot,
    battle: Battle,
    scratch: Scratch,
    /// The plots of Exchanges after the first, rewritten in place.
    plot: CheckedPlot,
    sources: Vec<PlotSource>,
    plot_work: PlotWork,
    start_mass: Vec<u32>,
    /// With `[[mix.SIDE]]` mixes: each combination of options' standing
    /// orders and first plots, prepared once, so that a run only picks one
    /// ([`crate::orders::mix::combination`]); empty without mixes.
    mixed: Vec<(Vec<Option<crate::engine::doctrine::Doctrine>>, CheckedPlot)>,
    pub tally: Tally,
}

impl<'a> Worker<'a> {
    pub fn new(loaded: &'a Loaded, options: &'a Options, first_plot: &'a CheckedPlot) -> Worker<'a> {
        Worker::with_memo(loaded, options, first_plot, PlanMemo::default())
    }

    /// A worker whose commander starts from what `memo` kept ([`Memos`]).
    fn with_memo(loaded: &'a Loaded, options: &'a Options, first_plot: &'a CheckedPlot, memo: PlanMemo) -> Worker<'a> {
        Worker {
            loaded,
            options,
            first_plot,
            battle: loaded.battle.clone(),
            scratch: Scratch::default(),
            plot: CheckedPlot::default(),
            sources: Vec::new(),
            plot_work: PlotWork::with_memo(memo),
            start_mass: side_masses(&loaded.battle),
            mixed: mixed_plots(loaded, options),
            tally: Tally::new(&loaded.battle, options.exchanges),
        }
    }

    /// Plays run `run` and counts it. After the first few runs this
    /// allocates nothing: the plots of later Exchanges are written into the
    /// worker's own plot memory ([`battle_plot_into_with`]).
    pub fn run(&mut self, run: u64) -> RunSummary {
        let seed = run_seed(self.options.seed, run);
        let combination = (!self.mixed.is_empty()).then(|| crate::orders::mix::combination(&self.loaded.mixes, seed));
        self.battle.reset_to(&self.loaded.battle);
        self.scratch.clear_damage_dealt(self.loaded.battle.sides.len());
        self.scratch.clear_weapon_use(&self.loaded.battle);
        let mut outcome = None;
        let mut played = 0;
        let mut dice_count = 0;
        for i in 0..self.options.exchanges.max(1) {
            let k = self.loaded.exchange + i;
            let (doctrine, first) = match combination.and_then(|c| self.mixed.get(c)) {
                Some((d, p)) => (d.as_slice(), p),
                None => (self.loaded.doctrine.as_slice(), self.first_plot),
            };
            let plot = if i == 0 {
                first
            } else {
                let (loaded, count) = (self.loaded, self.options.exchanges);
                battle_plot_into_with(
                    loaded,
                    doctrine,
                    &self.battle,
                    i,
                    count,
                    &mut self.plot,
                    &mut self.sources,
                    &mut self.plot_work,
                );
                &self.plot
            };
            let mut dice = Dice::new(exchange_seed(seed, k));
            run_exchange(&mut self.battle, plot, &mut dice, &mut (), &mut self.scratch);
            dice_count += dice.count_draws();
            played += 1;
            outcome = decide(&self.battle, &self.start_mass, &self.loaded.victory, k);
            if outcome.is_some() {
                break;
            }
        }
        self.tally.record(
            &self.loaded.battle,
            &self.battle,
            RunResult {
                run,
                outcome: outcome.as_ref(),
                exchanges: played,
                dice: dice_count,
                damage: self.scratch.damage_dealt(),
                weapons: self.scratch.weapon_use(),
            },
        );
        RunSummary {
            run,
            seed,
            outcome,
            exchanges: played,
            dice: dice_count,
        }
    }

    /// The working battle as the last run left it.
    pub fn battle(&self) -> &Battle {
        &self.battle
    }
}

/// Each combination of the scenario's mixes: its standing orders and its
/// first Exchange's plots (none without mixes).
fn mixed_plots(
    loaded: &Loaded,
    options: &Options,
) -> Vec<(Vec<Option<crate::engine::doctrine::Doctrine>>, CheckedPlot)> {
    if loaded.mixes.is_empty() {
        return Vec::new();
    }
    (0..crate::orders::mix::combinations(&loaded.mixes))
        .map(|c| {
            let doctrine = crate::orders::mix::doctrines(&loaded.doctrine, &loaded.mixes, c);
            let mut l = Loaded {
                doctrine,
                ..loaded.clone()
            };
            let plot = first_plot(&l, options);
            (std::mem::take(&mut l.doctrine), plot)
        })
        .collect()
}

/// The plots of a batch's first Exchange (computed once).
pub fn first_plot(loaded: &Loaded, options: &Options) -> CheckedPlot {
    battle_plot(loaded, &loaded.battle, 0, options.exchanges).plot
}

/// Why a batch could not run.
#[derive(Debug)]
pub enum BatchError {
    /// The thread pool could not be built.
    Threads(String),
    /// The checkpoint file belongs to another batch or is damaged (bad
    /// input).
    Checkpoint(String),
    /// The checkpoint cannot be written (a failure, not bad input).
    CheckpointWrite(String),
    /// [`run_with_outcomes`]: a battle of this many sides has winners that
    /// an outcome code cannot name (at most 253 sides, [`DRAW`] − 1).
    TooManySides(usize),
    /// [`run_with_outcomes`]: one code per run does not fit in memory.
    TooManyRuns(u64),
    /// Stopped on request before the end (`fam serve`'s Cancel button).
    Cancelled,
}

impl std::fmt::Display for BatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BatchError::Threads(e) => write!(f, "cannot start the worker threads: {e}"),
            BatchError::Checkpoint(e) | BatchError::CheckpointWrite(e) => write!(f, "{e}"),
            BatchError::TooManySides(n) => write!(
                f,
                "a battle of {n} sides cannot be compared run by run (at most {} sides)",
                DRAW - 1
            ),
            BatchError::TooManyRuns(n) => write!(f, "cannot keep the outcomes of {n} runs in memory"),
            BatchError::Cancelled => write!(f, "stopped on request before the end"),
        }
    }
}

impl std::error::Error for BatchError {}

/// Plays runs `runs` (indices, so a shard plays its own slice of the whole
/// batch) on `options.threads` threads. `progress(n)` is called from the
/// workers after every chunk with the runs it finished.
pub fn run(
    loaded: &Loaded,
    options: &Options,
    runs: Range<u64>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Tally, BatchError> {
    let first = first_plot(loaded, options);
    in_pool(options, || play(loaded, options, &first, runs, progress))
}

/// Plays runs `runs` as [`run`] does (the same tally, for any thread
/// count) and also returns each run's outcome code in run order: element
/// `j` is run `runs.start + j`, the index of the side that won it, [`DRAW`]
/// or [`UNDECIDED`]. Two batches played with the same base seed pair up run
/// by run ([`paired_wins`]). The codes take one byte per run, allocated
/// before the first run; workers write their chunk's codes in place.
pub fn run_with_outcomes(
    loaded: &Loaded,
    options: &Options,
    runs: Range<u64>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(Tally, Vec<u8>), BatchError> {
    run_with_outcomes_keeping(loaded, options, runs, progress, &Memos::default())
}

/// The commander's memos of plans ([`PlanMemo`]) handed from one batch to
/// the next: a search that plays many batches of one battle (`fam tune`,
/// `fam solve`) makes each worker's memo once, where a fresh worker would
/// make megabytes of it again for every candidate, costing the search
/// nearly as much in clearing memory as in playing. What a memo keeps
/// changes no plan (it is a speed-up only), so which batch a memo goes to
/// changes no result. Only batches of one battle may share them: the plan
/// keys leave out the rules' tables.
#[derive(Debug, Default)]
pub struct Memos(std::sync::Mutex<Vec<PlanMemo>>);

impl Memos {
    fn take(&self) -> PlanMemo {
        self.0.lock().ok().and_then(|mut m| m.pop()).unwrap_or_default()
    }

    fn give(&self, memo: PlanMemo) {
        if let Ok(mut m) = self.0.lock() {
            m.push(memo);
        }
    }
}

/// [`run_with_outcomes`] whose workers take their memos from `memos` and
/// give them back when done.
pub fn run_with_outcomes_keeping(
    loaded: &Loaded,
    options: &Options,
    runs: Range<u64>,
    progress: &(dyn Fn(u64) + Sync),
    memos: &Memos,
) -> Result<(Tally, Vec<u8>), BatchError> {
    let sides = loaded.battle.sides.len();
    if sides >= usize::from(DRAW) {
        return Err(BatchError::TooManySides(sides));
    }
    let mut codes = outcome_buffer(runs.end.saturating_sub(runs.start))?;
    let first = first_plot(loaded, options);
    let tally = in_pool(options, || {
        play_coded(loaded, options, &first, runs.start, &mut codes, progress, memos)
    })?;
    Ok((tally, codes))
}

/// `count` outcome codes, all [`UNDECIDED`] until played; an error rather
/// than an abort when they do not fit in memory.
fn outcome_buffer(count: u64) -> Result<Vec<u8>, BatchError> {
    let len = usize::try_from(count).map_err(|_| BatchError::TooManyRuns(count))?;
    let mut codes = Vec::new();
    codes
        .try_reserve_exact(len)
        .map_err(|_| BatchError::TooManyRuns(count))?;
    codes.resize(len, UNDECIDED);
    Ok(codes)
}

/// The code of a run's outcome. A winner whose index does not fit below
/// [`DRAW`] cannot occur ([`run_with_outcomes`] refuses such battles); it
/// would read as undecided rather than as another side.
pub fn outcome_code(outcome: Option<&Outcome>) -> u8 {
    match outcome {
        Some(Outcome::Winner { side, .. }) => u8::try_from(*side).ok().filter(|s| *s < DRAW).unwrap_or(UNDECIDED),
        Some(Outcome::Draw { .. }) => DRAW,
        None => UNDECIDED,
    }
}

/// How often outcome `code` (a side's index, or [`DRAW`]) came up in run
/// `i` of both batches, of A only and of B only, over the runs the two
/// code lists share (the shorter one's length): the 2×2 table of paired
/// runs that [`paired_difference`] reads.
pub fn paired_wins(a: &[u8], b: &[u8], side: u8) -> Paired {
    let mut p = Paired::default();
    for (x, y) in a.iter().zip(b) {
        p.n += 1;
        match (*x == side, *y == side) {
            (true, true) => p.both += 1,
            (true, false) => p.only_a += 1,
            (false, true) => p.only_b += 1,
            (false, false) => {}
        }
    }
    p
}

/// Runs `work` on a pool of `options.threads` threads (the global pool,
/// one thread per core, when `None`). A caller that plays many small
/// batches (`fam solve`) builds the pool once here and gives the batches
/// inside `threads: None`, which play on it.
pub fn in_pool<T: Send>(options: &Options, work: impl FnOnce() -> T + Send) -> Result<T, BatchError> {
    match options.threads {
        None => Ok(work()),
        Some(t) => rayon::ThreadPoolBuilder::new()
            .num_threads(t.max(1))
            .build()
            .map_err(|e| BatchError::Threads(e.to_string()))
            .map(|pool| pool.install(work)),
    }
}

/// The parallel loop: chunks of [`chunk_len`] runs to workers, tallies
/// added.
fn play(
    loaded: &Loaded,
    options: &Options,
    first: &CheckedPlot,
    runs: Range<u64>,
    progress: &(dyn Fn(u64) + Sync),
) -> Tally {
    let len = chunk_len(runs.end.saturating_sub(runs.start));
    let chunks = runs.end.saturating_sub(runs.start).div_ceil(len);
    let chunks = (0..chunks).map(|c| chunk(&runs, len, c));
    on_workers(loaded, options, first, chunks, &Memos::default(), |w, (lo, hi)| {
        for i in lo..hi {
            w.run(i);
        }
        progress(hi - lo);
    })
}

/// One [`Worker`] for each thread of the pool that finds work, each taking
/// the next of `chunks` and playing it with `play` until none is left (a
/// thread that drew long battles takes fewer chunks), and the workers'
/// tallies added. One worker a thread: its working battle and its memos of
/// plans and fire are made once (or taken from `memos`, and given back
/// after) and stay warm for every chunk it plays.
fn on_workers<C: Send>(
    loaded: &Loaded,
    options: &Options,
    first: &CheckedPlot,
    chunks: impl Iterator<Item = C> + Send,
    memos: &Memos,
    play: impl Fn(&mut Worker, C) + Sync,
) -> Tally {
    let queue = std::sync::Mutex::new(chunks);
    // The lock is held only to take a chunk, never while one is played: a
    // poisoned queue cannot happen, and would only end the taking.
    let next = || queue.lock().ok().and_then(|mut q| q.next());
    (0..rayon::current_num_threads())
        .into_par_iter()
        .filter_map(|_| {
            let mut worker: Option<Worker> = None;
            while let Some(c) = next() {
                let make = || Worker::with_memo(loaded, options, first, memos.take());
                play(worker.get_or_insert_with(make), c);
            }
            worker.map(|mut w| {
                memos.give(w.plot_work.take_memo());
                w.tally
            })
        })
        .reduce(
            || Tally::new(&loaded.battle, options.exchanges),
            |mut a, b| {
                // Same scenario and cap on both sides: cannot fail.
                let _ = a.merge(&b);
                a
            },
        )
}

/// Chunk `c` of `runs` in chunks of `len`: runs `lo..hi`, at most `len`
/// of them, all among `runs` (near the top of the run indices too: nothing
/// is added past `runs.end`).
fn chunk(runs: &Range<u64>, len: u64, c: u64) -> (u64, u64) {
    let lo = runs.start.saturating_add(c.saturating_mul(len)).min(runs.end);
    (lo, lo + (runs.end - lo).min(len))
}

/// The block of at most `len` runs that starts at `next` and ends no later
/// than `end`.
fn block_from(next: u64, len: u64, end: u64) -> Range<u64> {
    let next = next.min(end);
    next..next + (end - next).min(len)
}

/// [`play`] that also writes each run's outcome code: `codes[j]` is run
/// `start + j`. Chunks of the code list are chunks of runs, so the codes and
/// the tally do not depend on which worker played which chunk.
fn play_coded(
    loaded: &Loaded,
    options: &Options,
    first: &CheckedPlot,
    start: u64,
    codes: &mut [u8],
    progress: &(dyn Fn(u64) + Sync),
    memos: &Memos,
) -> Tally {
    // usize to u64 widens, and a chunk is at most CHUNK long: no run index
    // is lost either way.
    let len = chunk_len(codes.len() as u64);
    let chunks = codes.chunks_mut(len as usize).enumerate();
    on_workers(loaded, options, first, chunks, memos, |w, (c, slots)| {
        let lo = start + c as u64 * len;
        // Slots first: the run counter is never stepped past the last.
        for (slot, run) in slots.iter_mut().zip(lo..) {
            *slot = outcome_code(w.run(run).outcome.as_ref());
        }
        progress(slots.len() as u64);
    })
}

/// Width of the widest win-rate interval (the stopping rule of `--until-ci`).
pub fn widest_win_interval(tally: &Tally) -> f64 {
    tally
        .sides
        .iter()
        .map(|s| {
            let [lo, hi] = wilson(s.wins, tally.runs);
            hi - lo
        })
        .fold(0.0, f64::max)
}

/// Plays blocks of [`CI_BLOCK`] runs (0.., then the next block, …) until
/// every side's win-rate interval is narrower than `width`, or `max_runs`
/// runs were played (rounded up to a whole block). Deterministic: the same
/// width, seed and scenario always stop after the same number of runs.
pub fn run_until_ci(
    loaded: &Loaded,
    options: &Options,
    width: f64,
    max_runs: u64,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Tally, BatchError> {
    let first = first_plot(loaded, options);
    in_pool(options, || {
        let mut total = Tally::new(&loaded.battle, options.exchanges);
        loop {
            let block = block_from(total.runs, CI_BLOCK, u64::MAX);
            if block.is_empty() {
                return total;
            }
            let counted = play(loaded, options, &first, block, progress);
            let _ = total.merge(&counted);
            if widest_win_interval(&total) < width || total.runs >= max_runs {
                return total;
            }
        }
    })
}

/// What a resumable batch plays.
#[derive(Debug, Clone, PartialEq)]
pub enum Plan {
    /// These run indices (a whole batch or a shard).
    Runs(Range<u64>),
    /// Blocks of [`CI_BLOCK`] runs from run 0, as [`run_until_ci`].
    UntilCi { width: f64, max_runs: u64 },
}

/// The state a resumable batch ends in.
#[derive(Debug, Clone, PartialEq)]
pub struct Resumed {
    /// The runs counted so far (all of them when `complete`).
    pub tally: Tally,
    /// The run the batch resumed from, when a checkpoint was found.
    pub resumed_from: Option<u64>,
    /// False when it stopped early ([`Checkpoint::max_blocks`]).
    pub complete: bool,
}

/// The identity a checkpoint of this batch carries.
pub fn checkpoint_identity(loaded: &Loaded, options: &Options, plan: &Plan) -> checkpoint::Identity {
    let (range, until_ci) = match plan {
        Plan::Runs(r) => ([r.start, r.end], None),
        Plan::UntilCi { width, max_runs } => ([0, *max_runs], Some(*width)),
    };
    checkpoint::Identity {
        fam_version: env!("CARGO_PKG_VERSION").to_string(),
        fingerprint: fingerprint(loaded),
        seed: options.seed,
        exchanges: options.exchanges,
        range,
        until_ci,
    }
}

/// Plays `plan` in blocks, writing the tallies and the next run index to
/// the checkpoint file after every block; if the file already holds a
/// checkpoint of this same batch (scenario, seed, Exchange cap, runs,
/// stopping rule, fam version), it starts from there instead of run 0. A
/// checkpoint of another batch is refused ([`BatchError::Checkpoint`]).
/// Because tallies add up exactly, the result is the same as [`run`] or
/// [`run_until_ci`] however often the batch was interrupted and resumed.
pub fn run_resumable(
    loaded: &Loaded,
    options: &Options,
    plan: &Plan,
    cp: &Checkpoint,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Resumed, BatchError> {
    let id = checkpoint_identity(loaded, options, plan);
    let empty = Tally::new(&loaded.battle, options.exchanges);
    let start = match plan {
        Plan::Runs(r) => r.start,
        Plan::UntilCi { .. } => 0,
    };
    let unit_sides: Vec<usize> = loaded.battle.units.iter().map(|u| u.side).collect();
    let found = checkpoint::load(&cp.path, &id, &empty, &unit_sides).map_err(BatchError::Checkpoint)?;
    let resumed_from = found.as_ref().map(|(next, _)| *next);
    let (mut next, mut total) = found.unwrap_or((start, empty));
    if next > start {
        progress(next - start);
    }
    let first = first_plot(loaded, options);
    in_pool(options, || {
        let mut blocks = 0;
        loop {
            let block = match plan {
                Plan::Runs(r) => block_from(next, cp.block.max(1), r.end),
                Plan::UntilCi { width, max_runs } => {
                    let done = total.runs > 0 && (widest_win_interval(&total) < *width || total.runs >= *max_runs);
                    if done {
                        next..next
                    } else {
                        block_from(next, CI_BLOCK, u64::MAX)
                    }
                }
            };
            if block.is_empty() {
                return Ok(Resumed {
                    tally: total,
                    resumed_from,
                    complete: true,
                });
            }
            if cp.max_blocks.is_some_and(|m| blocks >= m) {
                return Ok(Resumed {
                    tally: total,
                    resumed_from,
                    complete: false,
                });
            }
            next = block.end;
            let counted = play(loaded, options, &first, block, progress);
            let _ = total.merge(&counted);
            checkpoint::save(&cp.path, &id, next, &total).map_err(BatchError::CheckpointWrite)?;
            blocks += 1;
        }
    })?
}
