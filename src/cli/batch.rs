//! `fam batch`, `fam compare`, `fam tune` and `fam merge`: the Monte Carlo
//! commands, their progress bar and their outputs.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use super::shard::{ShardArg, parse_shard, resolve_shard};
use super::{BAD_INPUT, Example, LoadArgs, eprint_diagnostics, no_such, quiet, write_files};
use crate::files::{self, Output};

/// A number of runs, at least 1.
fn parse_runs(s: &str) -> Result<u64, String> {
    let runs: u64 = s.trim().parse().map_err(|_| format!("`{s}` is not a number of runs"))?;
    if runs == 0 {
        return Err("a batch plays at least 1 run".into());
    }
    Ok(runs)
}

/// `fam tune --runs`: 1 to [`TUNE_MAX_RUNS`].
fn parse_tune_runs(s: &str) -> Result<u64, String> {
    let runs = parse_runs(s)?;
    if runs > TUNE_MAX_RUNS {
        return Err(format!("at most {TUNE_MAX_RUNS} runs per finalist"));
    }
    Ok(runs)
}

/// The most runs `fam tune` confirms each finalist on.
const TUNE_MAX_RUNS: u64 = 100_000_000;

/// The runs an `--until-ci` batch plays at most unless `--runs` says.
pub const UNTIL_CI_MAX_RUNS: u64 = 1_000_000;

/// A batch given neither `--runs` nor `--until-ci` plays until every win
/// rate is known within ±1 point (an interval 2 points wide) …
pub const DEFAULT_WIDTH: f64 = 0.02;
/// … or until this many runs.
pub const DEFAULT_MAX_RUNS: u64 = 100_000;

/// An interval width: a fraction (`0.02`) or a percentage (`2%`).
fn parse_width(s: &str) -> Result<f64, String> {
    let (num, scale) = match s.trim().strip_suffix('%') {
        Some(p) => (p, 100.0),
        None => (s.trim(), 1.0),
    };
    let w: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a width (0.02 or 2%)"))?;
    let w = w / scale;
    if !(w > 0.0 && w < 1.0) {
        return Err(format!("`{s}`: the width must be between 0 and 1 (0 % and 100 %)"));
    }
    Ok(w)
}

pub(super) const BATCH_EXAMPLES: &[Example] = &[
    Example {
        what: "Who wins the duel, how often and how sure that is, from 2000 runs on 2 threads:",
        run: &["fam batch scenarios/duel.toml --runs 2000 --threads 2"],
    },
    Example {
        what: "A Markdown summary to paste into a forum, and its picture:",
        run: &["fam batch scenarios/squadron-action.toml --runs 500 --format markdown --plot squadron.png"],
    },
];

pub(super) const COMPARE_EXAMPLES: &[Example] = &[Example {
    what: "Does opening at 40 MU instead of 30 help Ilse? The two on the same run seeds:",
    run: &[
        "mkdir -p mine && sed 's/^mu = 30/mu = 40/' scenarios/duel.toml > mine/duel-at-40.toml",
        "fam compare scenarios/duel.toml mine/duel-at-40.toml --runs 2000",
    ],
}];

pub(super) const TUNE_EXAMPLES: &[Example] = &[Example {
    what: "The standing orders that serve Marek best in the duel, as [doctrine] tables to paste:",
    run: &["fam tune scenarios/duel.toml --side Marek --runs 200"],
}];

pub(super) const MERGE_EXAMPLES: &[Example] = &[Example {
    what: "One batch played as two shards (on two machines, say), then added up:",
    run: &[
        "fam batch scenarios/duel.toml --runs 2000 --shard 1/2 --json > shard-1.json",
        "fam batch scenarios/duel.toml --runs 2000 --shard 2/2 --json > shard-2.json",
        "fam merge shard-1.json shard-2.json",
    ],
}];

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Base seed (default: the scenario's `seed`, else 0); run i is played
    /// with the seed derived from it and i (docs/batch-json.md).
    #[arg(long, value_name = "BASE")]
    pub seed: Option<u64>,
    /// Worker threads (default: the RAYON_NUM_THREADS environment variable
    /// if set, else one per core); results do not depend on it.
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,
    /// Exchanges at most per run, as `fam resolve --exchanges K` (default:
    /// up to the scenario's [victory] Exchange limit, so every run ends in
    /// a decision).
    /// At most 1000, as the scenario's `max_exchanges`: the histogram of
    /// battle lengths is sized by it.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub exchanges: Option<u32>,
}

#[derive(Debug, Args)]
pub struct BatchOutputArgs {
    /// What to print: the text table, a Markdown summary for forums and
    /// chat (at most 80 columns), or JSON (docs/batch-json.md).
    #[arg(long, value_enum, value_name = "FORMAT", conflicts_with = "json")]
    pub format: Option<BatchFormat>,
    /// The same as --format json.
    #[arg(long)]
    pub json: bool,
    /// With the text table: the Units table with every fate and the 95 %
    /// intervals, wider than the 100 columns the table keeps to otherwise.
    #[arg(long)]
    pub wide: bool,
    /// Write units.csv and sides.csv into this directory.
    #[arg(long, value_name = "DIR")]
    pub csv: Option<PathBuf>,
    /// Draw the outcomes, the Units' fates and the Exchange histogram, as
    /// SVG or PNG by the file's extension (`.svg` or `.png`).
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
}

/// What `fam batch` and `fam merge` print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BatchFormat {
    /// The table, with every statistic.
    Text,
    /// A summary in Markdown tables, every line at most 80 characters.
    Markdown,
    /// The result as JSON (docs/batch-json.md), which `fam merge` reads.
    Json,
}

impl BatchOutputArgs {
    fn format(&self) -> BatchFormat {
        match (self.json, self.format) {
            (true, _) => BatchFormat::Json,
            (false, f) => f.unwrap_or(BatchFormat::Text),
        }
    }

    /// The picture's format, from `--plot`'s extension; `Err` says why a
    /// file name is refused (checked before any run is played).
    fn plot_kind(&self) -> Result<Option<crate::batch::plot::Kind>, String> {
        let Some(path) = &self.plot else {
            return Ok(None);
        };
        crate::batch::plot::available().map_err(|why| format!("--plot {}: {why}", path.display()))?;
        let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("svg") => Ok(Some(crate::batch::plot::Kind::Svg)),
            Some("png") => Ok(Some(crate::batch::plot::Kind::Png)),
            _ => Err(format!(
                "--plot {}: the picture is SVG or PNG, named by the extension `.svg` or `.png`",
                path.display()
            )),
        }
    }
}

#[derive(Debug, Args)]
pub struct BatchArgs {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// An orders file with plots (one per commander); may be repeated.
    #[arg(long = "orders", value_name = "FILE")]
    pub orders: Vec<PathBuf>,
    /// Runs to play, at least 1 (with --until-ci: at most this many,
    /// default 1000000). Left out, with no --until-ci: play until every
    /// win rate's 95 % interval is within ±1 point (--until-ci 2%), at most
    /// 100000 runs.
    #[arg(long, value_name = "N", value_parser = parse_runs)]
    pub runs: Option<u64>,
    #[command(flatten)]
    pub run: RunArgs,
    /// Play blocks of 1000 runs until every side's 95 % win-rate interval
    /// is narrower than W (a fraction, 0.02, or a percentage, 2%).
    #[arg(long, value_name = "W", value_parser = parse_width)]
    pub until_ci: Option<f64>,
    /// Play only the K-th of N equal slices of the runs (1-based), to merge
    /// later with `fam merge`. `env/N`: K from the cluster scheduler,
    /// SLURM_ARRAY_TASK_ID (1 to N: `--array=1-N`) or Kubernetes'
    /// JOB_COMPLETION_INDEX (0 to N − 1) (docs/cluster.md).
    #[arg(long, value_name = "K/N", value_parser = parse_shard, conflicts_with = "until_ci", requires = "runs")]
    pub shard: Option<ShardArg>,
    /// Keep the batch's state in FILE, rewritten after every block of 1000
    /// runs; if FILE holds the state of this same batch, resume from it
    /// (the result is the same as an uninterrupted batch).
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<PathBuf>,
    #[command(flatten)]
    pub out: BatchOutputArgs,
    #[command(flatten)]
    pub load: LoadArgs,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The first scenario (A).
    pub a: PathBuf,
    /// The second scenario (B); sides are matched by position, Units by name.
    pub b: PathBuf,
    /// Runs of each scenario (the same run seeds for both), at least 1.
    #[arg(long, value_name = "N", value_parser = parse_runs)]
    pub runs: u64,
    #[command(flatten)]
    pub run: RunArgs,
    /// Print the comparison as JSON (docs/batch-json.md).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub load: LoadArgs,
}

#[derive(Debug, Args)]
pub struct TuneArgs {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// The side (its commander's name, as in [sides]) whose orders to tune
    /// (with --measure: to measure; left out, every side in turn).
    #[arg(long, value_name = "NAME", required_unless_present = "measure")]
    pub side: Option<String>,
    /// An orders file with plots (one per commander); may be repeated.
    #[arg(long = "orders", value_name = "FILE")]
    pub orders: Vec<PathBuf>,
    /// Runs of each finalist on the fresh runs that confirm it (the screen
    /// plays a tenth of them, at least 100; the refinement half).
    #[arg(long, value_name = "N", default_value_t = 1500, value_parser = parse_tune_runs)]
    pub runs: u64,
    /// Finalists to show (not with --measure).
    #[arg(long, value_name = "K", default_value_t = 5, value_parser = clap::value_parser!(u16).range(1..=50), conflicts_with = "measure")]
    pub top: u16,
    /// Measure the default doctrine instead (docs/doctrine.md): play the
    /// documented grid against it on runs 0..N, then search and confirm the
    /// search's best pick on fresh runs.
    #[arg(long)]
    pub measure: bool,
    /// With --measure: play the grid only, without the search.
    #[arg(long, requires = "measure")]
    pub grid_only: bool,
    #[command(flatten)]
    pub run: RunArgs,
    /// Print the result as JSON instead of the table (with --measure: one
    /// document with every side measured).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub load: LoadArgs,
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// JSON results of `fam batch --shard K/N --json`, in any order: every
    /// shard 1 to N of one batch, each once.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub out: BatchOutputArgs,
}

/// Loads a scenario for a batch, printing its problems; `None` on errors.
pub(super) fn load_for_batch(path: &Path, orders: &[PathBuf], load: &LoadArgs) -> Option<crate::orders::Loaded> {
    match crate::orders::load_scenario(path, orders, &load.options()) {
        Ok(l) => {
            for (source, diags) in &l.warnings {
                eprint_diagnostics(source, diags);
            }
            Some(l)
        }
        Err(reports) => {
            for (source, diags) in &reports {
                eprint_diagnostics(source, diags);
            }
            None
        }
    }
}

/// Progress on stderr: a bar appears only when stderr is a terminal, the
/// batch has been running for more than half a second and `--quiet` was
/// not given.
pub(super) struct Progress {
    start: std::time::Instant,
    shown: std::sync::atomic::AtomicBool,
    /// `None` when stderr is not a terminal or with `--quiet`. Drawn nowhere until shown, so
    /// its rate and time estimates count from the start.
    bar: Option<indicatif::ProgressBar>,
}

impl Progress {
    pub(super) fn new(total: Option<u64>) -> Progress {
        use std::io::IsTerminal as _;
        let bar = (io::stderr().is_terminal() && !quiet()).then(|| {
            let hidden = indicatif::ProgressDrawTarget::hidden();
            let (bar, template) = match total {
                Some(t) => (
                    indicatif::ProgressBar::with_draw_target(Some(t), hidden),
                    "{bar:30} {pos}/{len} runs, {rate}, {eta} left",
                ),
                None => (
                    indicatif::ProgressBar::with_draw_target(None, hidden),
                    "{spinner} {pos} runs, {rate}",
                ),
            };
            if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
                bar.set_style(style.with_key(
                    "rate",
                    |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                        let _ = write!(w, "{:.0} runs/s", state.per_sec());
                    },
                ));
            }
            bar
        });
        Progress {
            start: std::time::Instant::now(),
            shown: std::sync::atomic::AtomicBool::new(false),
            bar,
        }
    }

    pub(super) fn advance(&self, n: u64) {
        use std::sync::atomic::Ordering;
        let Some(bar) = &self.bar else { return };
        bar.inc(n);
        if !self.shown.load(Ordering::Relaxed)
            && self.start.elapsed().as_millis() >= 500
            && !self.shown.swap(true, Ordering::Relaxed)
        {
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
    }

    pub(super) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

pub(super) fn batch_options(loaded: &crate::orders::Loaded, run: &RunArgs) -> crate::batch::Options {
    crate::batch::Options::for_scenario(loaded, run.seed, run.exchanges, run.threads.map(usize::from))
}

fn replay_args(orders: &[PathBuf], load: &LoadArgs) -> Vec<String> {
    let mut args = Vec::new();
    for o in orders {
        args.push("--orders".to_string());
        args.push(o.display().to_string());
    }
    if load.inert_unknown_systems {
        args.push("--inert-unknown-systems".to_string());
    }
    args
}

/// The files a batch reads: its scenario, orders and ship records (and its
/// checkpoint, read on a resume).
fn batch_inputs(args: &BatchArgs, loaded: &crate::orders::Loaded) -> Vec<PathBuf> {
    std::iter::once(args.scenario.clone())
        .chain(args.orders.iter().cloned())
        .chain(loaded.records.iter().map(|r| PathBuf::from(&r.name)))
        .chain(args.checkpoint.iter().cloned())
        .collect()
}

/// The output options that can be refused before a run is played: a
/// picture over one of `inputs`, or of neither kind.
fn check_outputs(out: &BatchOutputArgs, inputs: &[PathBuf]) -> Result<(), ExitCode> {
    let plot: Vec<Output> = out.plot.iter().map(|p| Output::new(p, Vec::new())).collect();
    let checked = files::guard(&plot, inputs)
        .map_err(|e| e.to_string())
        .and_then(|()| out.plot_kind().map(|_| ()));
    checked.map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(BAD_INPUT)
    })
}

pub(super) fn batch(args: &BatchArgs) -> anyhow::Result<ExitCode> {
    let shard = match resolve_shard(args.shard) {
        Ok(s) => s,
        Err(code) => return Ok(code),
    };
    let Some(loaded) = load_for_batch(&args.scenario, &args.orders, &args.load) else {
        return Ok(ExitCode::from(BAD_INPUT));
    };
    if let Err(code) = check_outputs(&args.out, &batch_inputs(args, &loaded)) {
        return Ok(code);
    }
    if let Some(path) = &args.checkpoint {
        // The checkpoint is written over and over: never over an input.
        let mut inputs = batch_inputs(args, &loaded);
        inputs.pop();
        if let Err(e) = files::guard(&[Output::new(path, Vec::new())], &inputs) {
            eprintln!("error: --checkpoint: {e}");
            return Ok(ExitCode::from(BAD_INPUT));
        }
    }
    let options = batch_options(&loaded, &args.run);
    // Neither --runs nor --until-ci: until every win rate is known within
    // ±1 point.
    let (until_ci, most) = match (args.until_ci, args.runs) {
        (None, None) => (Some(DEFAULT_WIDTH), DEFAULT_MAX_RUNS),
        (w, _) => (w, UNTIL_CI_MAX_RUNS),
    };
    let (range, total) = match (until_ci, shard) {
        (Some(_), _) => (0..0, args.runs.unwrap_or(most)),
        (None, Some(shard)) => {
            let runs = args.runs.unwrap_or(0);
            (shard.range(runs), runs)
        }
        (None, None) => {
            let runs = args.runs.unwrap_or(0);
            (0..runs, runs)
        }
    };
    let progress = Progress::new(if until_ci.is_some() {
        None
    } else {
        Some(range.end - range.start)
    });
    let tally = match (&args.checkpoint, until_ci) {
        (Some(path), _) => {
            let plan = match until_ci {
                Some(width) => crate::batch::Plan::UntilCi { width, max_runs: total },
                None => crate::batch::Plan::Runs(range.clone()),
            };
            let cp = crate::batch::Checkpoint::at(path);
            crate::batch::run_resumable(&loaded, &options, &plan, &cp, &|n| progress.advance(n)).map(|r| r.tally)
        }
        (None, Some(width)) => crate::batch::run_until_ci(&loaded, &options, width, total, &|n| progress.advance(n)),
        (None, None) => crate::batch::run(&loaded, &options, range.clone(), &|n| progress.advance(n)),
    };
    progress.finish();
    let tally = match tally {
        Err(crate::batch::BatchError::Checkpoint(e)) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(BAD_INPUT));
        }
        t => t?,
    };
    let mut meta = crate::batch::Meta::new(
        &loaded,
        &args.scenario.display().to_string(),
        &options,
        range.start..range.start + tally.runs,
    );
    meta.shard = shard.map(|s| crate::batch::ShardOf {
        index: s.index,
        count: s.count,
        batch_runs: Some(total),
    });
    meta.until_ci = until_ci;
    meta.replay_args = replay_args(&args.orders, &args.load);
    let caveats = crate::caveats::of_battle(&loaded.battle);
    batch_outputs(
        &crate::batch::Report { meta, tally },
        &args.out,
        &batch_inputs(args, &loaded),
        &caveats,
    )
}

/// Prints a report (table or JSON) and writes its CSV and SVG files: all
/// computed first, then written atomically. The text table ends with the
/// `caveats` the odds may hinge on (switches and disputed readings).
fn batch_outputs(
    report: &crate::batch::Report,
    out: &BatchOutputArgs,
    inputs: &[PathBuf],
    caveats: &[String],
) -> anyhow::Result<ExitCode> {
    let mut files: Vec<Output> = Vec::new();
    if let Some(dir) = &out.csv {
        files.push(Output::new(
            dir.join("units.csv"),
            crate::batch::text::units_csv(report),
        ));
        files.push(Output::new(
            dir.join("sides.csv"),
            crate::batch::text::sides_csv(report),
        ));
    }
    let kind = match out.plot_kind() {
        Ok(kind) => kind,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(BAD_INPUT));
        }
    };
    if let (Some(path), Some(kind)) = (&out.plot, kind) {
        match crate::batch::plot::render(report, kind) {
            Ok(bytes) => files.push(Output::new(path, bytes)),
            Err(e) => anyhow::bail!(e),
        }
    }
    if let Some(code) = write_files(&files, inputs, None)? {
        return Ok(code);
    }
    let text = match out.format() {
        BatchFormat::Json => crate::batch::json::render(report),
        BatchFormat::Markdown => crate::batch::markdown::render(report),
        BatchFormat::Text => crate::batch::text::table_with_caveats(report, caveats, out.wide),
    };
    io::stdout().lock().write_all(text.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

pub(super) fn compare(args: &CompareArgs) -> anyhow::Result<ExitCode> {
    let a = load_for_batch(&args.a, &[], &args.load);
    let b = load_for_batch(&args.b, &[], &args.load);
    let (Some(a), Some(b)) = (a, b) else {
        return Ok(ExitCode::from(BAD_INPUT));
    };
    // One base seed for both: A's (from --seed or its scenario), so run i
    // of A and run i of B are paired.
    let options_a = batch_options(&a, &args.run);
    let options_b = crate::batch::Options {
        seed: options_a.seed,
        ..batch_options(&b, &args.run)
    };
    let progress = Progress::new(Some(args.runs.saturating_mul(2)));
    let play = |l, o| crate::batch::run_with_outcomes(l, o, 0..args.runs, &|n| progress.advance(n));
    let played = play(&a, &options_a).and_then(|x| play(&b, &options_b).map(|y| (x, y)));
    progress.finish();
    let ((ta, codes_a), (tb, codes_b)) = match played {
        Ok(both) => both,
        Err(e) => return compare_failed(e),
    };
    let mut ra = crate::batch::Report {
        meta: crate::batch::Meta::new(&a, &args.a.display().to_string(), &options_a, 0..args.runs),
        tally: ta,
    };
    let mut rb = crate::batch::Report {
        meta: crate::batch::Meta::new(&b, &args.b.display().to_string(), &options_b, 0..args.runs),
        tally: tb,
    };
    ra.meta.replay_args = replay_args(&[], &args.load);
    rb.meta.replay_args = replay_args(&[], &args.load);
    let text = if args.json {
        crate::batch::text::compare_json(&ra, &rb, &codes_a, &codes_b)
    } else {
        crate::batch::text::compare_table(&ra, &rb, &codes_a, &codes_b)
    };
    io::stdout().lock().write_all(text.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// A comparison that could not be played: a battle whose winners outcome
/// codes cannot name, or more runs than their codes fit in memory, is bad
/// input (exit 2); a thread pool that cannot start is a failure.
fn compare_failed(e: crate::batch::BatchError) -> anyhow::Result<ExitCode> {
    use crate::batch::BatchError;
    match e {
        BatchError::TooManySides(_) | BatchError::TooManyRuns(_) => {
            eprintln!("error: {e}");
            Ok(ExitCode::from(BAD_INPUT))
        }
        e => Err(e.into()),
    }
}

pub(super) fn tune(args: &TuneArgs) -> anyhow::Result<ExitCode> {
    let Some(loaded) = load_for_batch(&args.scenario, &args.orders, &args.load) else {
        return Ok(ExitCode::from(BAD_INPUT));
    };
    let sides: Vec<usize> = match &args.side {
        Some(name) => match loaded.battle.sides.iter().position(|s| &s.name == name) {
            Some(side) => vec![side],
            None => {
                let names: Vec<&str> = loaded.battle.sides.iter().map(|s| s.name.as_str()).collect();
                return Ok(no_such(&args.scenario, "side", name, &names, "the sides"));
            }
        },
        None => (0..loaded.battle.sides.len()).collect(),
    };
    let scenario = args.scenario.display().to_string();
    if args.measure {
        return measure(args, &loaded, &scenario, &sides);
    }
    let mut text = String::new();
    for side in sides {
        let opts = tune_options(args, &loaded, side);
        let progress = Progress::new(Some(crate::tune::planned_runs(&loaded, &opts)));
        let tuned = crate::tune::search(&loaded, &opts, &|n| progress.advance(n));
        progress.finish();
        let tuned = tuned?;
        text.push_str(&if args.json {
            crate::tune::json(&loaded, &scenario, &opts, &tuned)
        } else {
            crate::tune::text(&loaded, &scenario, &opts, &tuned)
        });
    }
    io::stdout().lock().write_all(text.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

fn tune_options(args: &TuneArgs, loaded: &crate::orders::Loaded, side: usize) -> crate::tune::Options {
    crate::tune::Options {
        side,
        runs: args.runs,
        top: usize::from(args.top),
        batch: batch_options(loaded, &args.run),
    }
}

/// `fam tune --measure`: for each side, the grid against the default and,
/// unless `--grid-only`, the search's pick confirmed on fresh runs.
fn measure(
    args: &TuneArgs,
    loaded: &crate::orders::Loaded,
    scenario: &str,
    sides: &[usize],
) -> anyhow::Result<ExitCode> {
    let mut text = String::new();
    let mut json = Vec::new();
    for &side in sides {
        let opts = tune_options(args, loaded, side);
        let grid = crate::tune::measure_grid_for(&crate::tune::Space::of(loaded, side));
        let planned = crate::tune::measure_planned_runs(loaded, &opts, grid.len(), !args.grid_only);
        let progress = Progress::new(Some(planned));
        let measured = crate::tune::measure(loaded, &opts, &grid, &|n| progress.advance(n)).and_then(|mut m| {
            if !args.grid_only {
                let tuned = crate::tune::search(loaded, &opts, &|n| progress.advance(n))?;
                m.pick = crate::tune::pick(&tuned, side);
            }
            Ok(m)
        });
        progress.finish();
        let m = measured?;
        if args.json {
            json.push(crate::tune::measure_json(loaded, scenario, &opts, &m));
        } else {
            text.push_str(&crate::tune::measure_text(loaded, scenario, &opts, &m, 10));
        }
    }
    if args.json {
        text = crate::tune::measures_json(json);
    }
    io::stdout().lock().write_all(text.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

pub(super) fn merge(args: &MergeArgs) -> anyhow::Result<ExitCode> {
    if let Err(code) = check_outputs(&args.out, &args.files) {
        return Ok(code);
    }
    let mut parts = Vec::new();
    let mut failed = false;
    for path in &args.files {
        let parsed = files::read_input(path)
            .map_err(|e| format!("cannot read: {}", files::reason(&e)))
            .and_then(|b| String::from_utf8(b).map_err(|_| "it is not UTF-8 text".to_string()))
            .and_then(|t| crate::batch::json::parse_file(&t));
        match parsed {
            Ok((r, found)) => {
                if found == crate::batch::digest::Found::Missing {
                    eprintln!(
                        "warning: {}: it has no digest (written by a fam from before digests), so fam cannot tell whether it was changed after it was written; only its counts are checked",
                        path.display()
                    );
                }
                parts.push((path.display().to_string(), r));
            }
            Err(e) => {
                eprintln!("error: {}: {e}", path.display());
                failed = true;
            }
        }
    }
    if failed {
        return Ok(ExitCode::from(BAD_INPUT));
    }
    let report = match crate::batch::json::merge_named(parts) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot merge: {e}");
            return Ok(ExitCode::from(BAD_INPUT));
        }
    };
    batch_outputs(&report, &args.out, &args.files, &[])
}
