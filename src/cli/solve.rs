//! `fam solve`: the odds when both sides play their best
//! (docs/doctrine.md, "fam solve").

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::batch::{Progress, RunArgs, batch_options, load_for_batch};
use super::{BAD_INPUT, Example, LoadArgs, eprint_error, note, write_files};
use crate::files::Output;

/// `fam solve --runs`: at least 1, at most [`SOLVE_MAX_RUNS`].
fn parse_solve_runs(s: &str) -> Result<u64, String> {
    let runs: u64 = s.trim().parse().map_err(|_| format!("`{s}` is not a number of runs"))?;
    if runs == 0 || runs > SOLVE_MAX_RUNS {
        return Err(format!("the runs must be from 1 to {SOLVE_MAX_RUNS}"));
    }
    Ok(runs)
}

/// The most fresh runs `fam solve` confirms on.
const SOLVE_MAX_RUNS: u64 = 10_000_000;

/// `--margin`: percentage points, from 0 to 50.
fn parse_margin(s: &str) -> Result<f64, String> {
    let pp: f64 = s
        .trim()
        .trim_end_matches("pp")
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a margin in percentage points (say 2)"))?;
    if !(0.0..=50.0).contains(&pp) {
        return Err(format!("`{s}`: the margin must be from 0 to 50 percentage points"));
    }
    Ok(pp / 100.0)
}

pub(super) const EXAMPLES: &[Example] = &[Example {
    what: "The duel's odds when both commanders play their best:",
    run: &["fam solve scenarios/duel.toml --runs 200"],
}];

#[derive(Debug, Args)]
pub struct SolveArgs {
    /// The scenario file (TOML); its battle must have two sides.
    pub scenario: PathBuf,
    /// Fresh runs that confirm the equilibrium (the search plays half as
    /// many, at least 200; the screen of best responses a tenth, at least
    /// 100).
    #[arg(long, value_name = "N", default_value_t = 1000, value_parser = parse_solve_runs)]
    pub runs: u64,
    /// A best response must gain more than this many percentage points over
    /// the game's value for the search to go on.
    #[arg(long, value_name = "PP", default_value = "2", value_parser = parse_margin)]
    pub margin: f64,
    #[command(flatten)]
    pub run: RunArgs,
    /// Print the result as JSON instead of the table (docs/doctrine.md).
    #[arg(long)]
    pub json: bool,
    /// Write the scenario with the equilibrium's standing orders to FILE
    /// (a pure equilibrium only); `fam batch FILE` then plays those odds.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub load: LoadArgs,
}

pub(super) fn solve(args: &SolveArgs) -> anyhow::Result<ExitCode> {
    let Some(loaded) = load_for_batch(&args.scenario, &[], &args.load) else {
        return Ok(ExitCode::from(BAD_INPUT));
    };
    let opts = crate::solve::Options {
        runs: args.runs,
        margin: args.margin,
        rounds: crate::solve::DEFAULT_ROUNDS,
        finalists: crate::solve::DEFAULT_FINALISTS,
        batch: batch_options(&loaded, &args.run),
    };
    let text = match &args.out {
        // Read before the search, so an unreadable scenario costs nothing.
        Some(_) => match crate::files::read_input(&args.scenario).map(String::from_utf8) {
            Ok(Ok(t)) => Some(t),
            _ => {
                eprint_error(format!("cannot read `{}` as text", args.scenario.display()));
                return Ok(ExitCode::from(BAD_INPUT));
            }
        },
        None => None,
    };
    let progress = Progress::new(None);
    let solved = crate::solve::solve(&loaded, &opts, &|n| progress.advance(n));
    progress.finish();
    let solved = match solved {
        Ok(s) => s,
        Err(e @ crate::solve::SolveError::Sides(_)) => {
            eprint_error(e.to_string());
            return Ok(ExitCode::from(BAD_INPUT));
        }
        Err(crate::solve::SolveError::Batch(e)) => return Err(e.into()),
    };
    let scenario = args.scenario.display().to_string();
    if let (Some(path), Some(text)) = (&args.out, &text) {
        let written = match crate::solve::scenario_with_orders(text, &loaded, &solved) {
            Ok(w) => w,
            Err(e) => {
                eprint_error(format!("not written to `{}`: {e}", path.display()));
                return Ok(ExitCode::from(BAD_INPUT));
            }
        };
        let inputs = solve_inputs(args, &loaded);
        if let Some(code) = write_files(&[Output::new(path, written)], &inputs, None)? {
            return Ok(code);
        }
        if !same_dir(path, &args.scenario)
            && loaded
                .records
                .iter()
                .any(|r| std::path::Path::new(&r.path).is_relative())
        {
            note(format_args!(
                "warning: {} names its ship records relative to {}'s folder, as the scenario does: keep it beside the scenario",
                path.display(),
                args.scenario.display()
            ));
        }
    }
    let shown = if args.json {
        crate::solve::json(&loaded, &scenario, &opts, &solved)
    } else {
        crate::solve::text(&loaded, &scenario, &opts, &solved)
    };
    io::stdout().lock().write_all(shown.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// Whether two files lie in the same folder.
fn same_dir(a: &std::path::Path, b: &std::path::Path) -> bool {
    let dir = |p: &std::path::Path| {
        let parent = p
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(std::path::Path::new("."));
        parent.canonicalize().unwrap_or_else(|_| parent.to_path_buf())
    };
    dir(a) == dir(b)
}

/// The files a solve reads: its scenario and ship records.
fn solve_inputs(args: &SolveArgs, loaded: &crate::orders::Loaded) -> Vec<PathBuf> {
    std::iter::once(args.scenario.clone())
        .chain(loaded.records.iter().map(|r| PathBuf::from(&r.name)))
        .collect()
}
