//! `fam generate`: reads the ship library, asks `generate` for a battle,
//! checks it as `fam check` would and writes it (docs/generate.md).

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use super::{BAD_INPUT, Example, eprint_error, write_files};
use crate::diag::SourceFile;
use crate::files::{self, Output};
use crate::generate::contest::{self, ContestError, Contested, Odds};
use crate::generate::{self, Generated, Kind, Request, Source};
use crate::gzf::{self, ParseOptions};

pub(super) const EXAMPLES: &[Example] = &[
    Example {
        what: "A battle of about 1200 points a side, then its odds:",
        run: &[
            "fam generate --points 1200 --seed 7 --out practice.toml",
            "fam batch practice.toml --runs 500",
        ],
    },
    Example {
        what: "A raid on a base, written without a word:",
        run: &["fam generate --points 1500 --seed 2 --kinds bases --quiet --out raid.toml"],
    },
];

#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// Points a side (each side within 10 % of it, and within 5 % of the
    /// other).
    #[arg(long, value_name = "N")]
    pub points: u32,
    /// The seed every choice is drawn from: the same library and arguments
    /// give the same files.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub seed: u64,
    /// Ship records to draw from: a directory (its `.gzf` and FTJava `.xml`
    /// files) or a file; repeat for more. Default: the shipped library
    /// (`ssd/`, built into fam).
    #[arg(long, value_name = "DIR_OR_FILE")]
    pub library: Vec<PathBuf>,
    /// What the battle holds, comma-separated: carriers, missiles,
    /// kinetic, plasma (the ships are of one of these, and each appears),
    /// bases (one side defends a base). Default: any mix.
    #[arg(long, value_name = "KINDS", value_delimiter = ',', value_parser = parse_kind)]
    pub kinds: Vec<Kind>,
    /// The scenario to write; its records go beside it as STEM.fb1.gzf
    /// (and STEM.ft2.gzf).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Runs of the contest check: each battle drawn is played this many
    /// times by the default doctrine and kept only when both sides have a
    /// chance (docs/generate.md). 0 turns the check off.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_CONTEST_RUNS,
          value_parser = clap::value_parser!(u64).range(0..=MAX_CONTEST_RUNS))]
    pub contest_runs: u64,
    /// Worker threads of the contest check (default: the RAYON_NUM_THREADS
    /// environment variable if set, else one per core); the battle written
    /// does not depend on it.
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,
}

/// Runs of the contest check unless `--contest-runs` says otherwise.
pub const DEFAULT_CONTEST_RUNS: u64 = 64;
/// The most `--contest-runs`: a check, not a study.
pub const MAX_CONTEST_RUNS: u64 = 100_000;

fn parse_kind(s: &str) -> Result<Kind, String> {
    Kind::parse(s).ok_or_else(|| {
        let names: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
        format!("no kind `{s}`; the kinds are {}", names.join(", "))
    })
}

pub(super) fn generate(args: &GenerateArgs) -> anyhow::Result<ExitCode> {
    let (library, inputs) = match read_library(&args.library) {
        Some(l) => l,
        None => return Ok(ExitCode::from(BAD_INPUT)),
    };
    let stem = args.out.file_stem().unwrap_or_default().to_string_lossy().into_owned();
    let request = Request {
        points: args.points,
        seed: args.seed,
        kinds: args.kinds.clone(),
        stem,
        command: command_line(args),
        attempt: 0,
    };
    let (generated, contested) = match draw(args, &library, &request)? {
        Ok(d) => d,
        Err(e) => {
            eprint_error(e.to_string());
            return Ok(ExitCode::from(BAD_INPUT));
        }
    };
    check_generated(&args.out, &generated)?;
    let dir = args.out.parent().unwrap_or(Path::new(""));
    let mut outputs = vec![Output::new(&args.out, generated.scenario.clone())];
    outputs.extend(
        generated
            .records
            .iter()
            .map(|(name, text)| Output::new(dir.join(name), text.clone())),
    );
    if let Some(code) = write_files(&outputs, &inputs, None)? {
        return Ok(code);
    }
    // `--quiet` (global): nothing at all on success.
    if !super::quiet() {
        print_summary(&args.out, &generated, args.points)?;
        if let Some(kept) = &contested {
            print_contest(kept)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The battle to write: the first drawn with `--contest-runs 0`, else the
/// one the contest check keeps, with what it measured. The inner error is
/// the user's (exit 2), the outer fam's own.
fn draw(
    args: &GenerateArgs,
    library: &[Source],
    request: &Request,
) -> anyhow::Result<Result<(Generated, Option<Contested>), generate::Error>> {
    if args.contest_runs == 0 {
        return Ok(generate::generate(library, request).map(|generated| (generated, None)));
    }
    let threads = args.threads.map(usize::from);
    match contest::generate_contest(library, request, |g| measure(&args.out, g, args.contest_runs, threads)) {
        Ok(kept) => Ok(Ok((kept.generated.clone(), Some(kept)))),
        Err(ContestError::Generate(e)) => Ok(Err(e)),
        Err(ContestError::Measure(e)) => Err(e),
    }
}

/// Plays a drawn battle `runs` times with the default doctrine, from the
/// scenario's own seed (so `fam batch` of the file plays the same runs).
/// A battle that fails fam's checks is fam's own fault (exit 1).
fn measure(out: &Path, generated: &Generated, runs: u64, threads: Option<usize>) -> anyhow::Result<Odds> {
    let loaded = check_generated(out, generated)?;
    let options = crate::batch::Options::for_scenario(&loaded, None, None, threads);
    let tally = crate::batch::run(&loaded, &options, 0..runs, &|_| {})
        .map_err(|e| anyhow::anyhow!("the contest check could not play the battle: {e}"))?;
    let wins = |s: usize| tally.sides.get(s).map_or(0, |t| t.wins);
    Ok(Odds {
        runs: tally.runs,
        wins: [wins(0), wins(1)],
        draws: tally.draws + tally.undecided,
        limit_draws: exchange_limit_draws(&tally.decided_by) + tally.undecided,
    })
}

/// The runs `Tally::decided_by` counts as decided by the Exchange limit
/// (always draws).
fn exchange_limit_draws(decided_by: &[u64]) -> u64 {
    let at = crate::batch::tally::REASONS.iter().position(|r| *r == "exchange_limit");
    at.and_then(|i| decided_by.get(i)).copied().unwrap_or(0)
}

fn print_contest(kept: &Contested) -> io::Result<()> {
    let mut stdout = io::stdout().lock();
    for line in contest::header_lines(kept) {
        writeln!(stdout, "{line}")?;
    }
    Ok(())
}

/// The command line as given, for the scenario's header (`--out` by its
/// file name).
fn command_line(args: &GenerateArgs) -> String {
    let mut line = format!("fam generate --points {} --seed {}", args.points, args.seed);
    for l in &args.library {
        line.push_str(&format!(" --library {}", l.display()));
    }
    if !args.kinds.is_empty() {
        let kinds: Vec<&str> = args.kinds.iter().map(|k| k.name()).collect();
        line.push_str(&format!(" --kinds {}", kinds.join(",")));
    }
    if args.contest_runs != DEFAULT_CONTEST_RUNS {
        line.push_str(&format!(" --contest-runs {}", args.contest_runs));
    }
    // The file name alone: the battle is the same wherever it is written.
    let name = args.out.file_name().map_or_else(|| args.out.clone(), PathBuf::from);
    line.push_str(&format!(" --out {}", name.display()));
    line
}

/// The library's files, parsed, and the paths read; `None` when any has
/// an error (printed).
fn read_library(paths: &[PathBuf]) -> Option<(Vec<Source>, Vec<PathBuf>)> {
    if paths.is_empty() {
        let built_in = crate::library::FILES
            .iter()
            .map(|(name, text)| Source {
                name: (*name).to_string(),
                file: gzf::parse(text, &ParseOptions::default()).file,
            })
            .collect();
        return Some((built_in, Vec::new()));
    }
    let mut files_read = Vec::new();
    for path in paths {
        if path.is_dir() {
            match record_files(path) {
                Ok(found) if !found.is_empty() => files_read.extend(found),
                Ok(_) => {
                    eprint_error(format!(
                        "`{}` holds no ship records (.gzf or FTJava .xml files)",
                        path.display()
                    ));
                    return None;
                }
                Err(e) => {
                    eprint_error(format!("cannot read `{}`: {}", path.display(), files::reason(&e)));
                    return None;
                }
            }
        } else {
            files_read.push(path.clone());
        }
    }
    let mut sources = Vec::new();
    let mut failed = false;
    for path in &files_read {
        match read_source(path) {
            Some(s) => sources.push(s),
            None => failed = true,
        }
    }
    (!failed).then_some((sources, files_read))
}

/// The `.gzf` and `.xml` files of a directory, sorted by name.
fn record_files(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        if path.is_file() && matches!(ext.as_deref(), Some("gzf" | "xml")) {
            found.push(path);
        }
    }
    found.sort();
    Ok(found)
}

/// One library file: GZF, or FTJava XML for a `.xml` name. Problems are
/// printed; `None` on an error.
fn read_source(path: &Path) -> Option<Source> {
    let bytes = match files::read_input(path) {
        Ok(b) => b,
        Err(e) => {
            eprint_error(format!("cannot read `{}`: {}", path.display(), files::reason(&e)));
            return None;
        }
    };
    let source = SourceFile::from_bytes(path.display().to_string(), &bytes);
    let xml = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("xml"));
    let (file, diagnostics) = if xml {
        let imported = crate::ftjava::import(&source, &crate::ftjava::Options::default());
        (imported.gzf, imported.diagnostics)
    } else {
        let parsed = gzf::parse(&source.text, &ParseOptions::default());
        (parsed.file, parsed.diagnostics)
    };
    super::eprint_diagnostics(&source, &diagnostics);
    if diagnostics.iter().any(crate::diag::Diagnostic::is_error) {
        return None;
    }
    let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
    Some(Source { name, file })
}

/// The battle must pass fam's checks before it is played or written: a
/// failure here is fam's own fault (exit 1), with what the checks said.
fn check_generated(out: &Path, generated: &Generated) -> anyhow::Result<crate::orders::Loaded> {
    let scenario = SourceFile::new(out.display().to_string(), generated.scenario.as_str());
    let records: Vec<SourceFile> = generated
        .records
        .iter()
        .map(|(name, text)| SourceFile::new(name.clone(), text.as_str()))
        .collect();
    match crate::orders::load_scenario_text(scenario, &records, &ParseOptions::default()) {
        Ok(loaded) => Ok(loaded),
        Err(reports) => {
            for (file, diags) in &reports {
                super::eprint_diagnostics(file, diags);
            }
            anyhow::bail!("the generated battle does not pass fam's checks")
        }
    }
}

fn print_summary(out: &Path, generated: &Generated, points: u32) -> io::Result<()> {
    let mut stdout = io::stdout().lock();
    writeln!(stdout, "{}: {points} points a side asked", out.display())?;
    for side in &generated.sides {
        writeln!(
            stdout,
            "{}: {} points from {}",
            side.commander,
            side.points,
            side.navies.join(" and ")
        )?;
        for (formation, units) in &side.formations {
            let listed: Vec<String> = units.iter().map(|(n, p)| format!("{n} ({p})")).collect();
            writeln!(stdout, "  {formation}: {}", listed.join(", "))?;
        }
    }
    Ok(())
}
