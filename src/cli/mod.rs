//! Command-line interface: arguments → library calls → output → exit code.
//!
//! Exit codes: 0 success, 1 failure (for example an output file could not be
//! written), 2 bad input or usage. Output files are written atomically, and
//! nothing is written when any input has an error.
//!
//! This module holds the command line itself (`Cli`, `Command`), `main`
//! and `run`, and what every command shares (loading records, writing
//! outputs, refusing a name). Each group of commands has its own file:
//! `check` (`check`, `ssd show`, `ssd fmt`), `resolve`, `batch` (`batch`,
//! `compare`, `tune`, `merge`), `shard` (`--shard K/N` and `env/N`) and
//! `ftjava` (`import`, `export`).

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::diag::{Diagnostic, SourceFile};
use crate::files::{self, Output};
use crate::gzf::{self, GzfFile, ParseOptions};

mod batch;
mod check;
mod ftjava;
#[cfg(feature = "serve")]
mod game;
mod generate;
mod resolve;
#[cfg(feature = "serve")]
mod serve;
mod shard;
mod solve;

pub use batch::{
    BatchArgs, BatchFormat, BatchOutputArgs, CompareArgs, MergeArgs, RunArgs, TuneArgs, UNTIL_CI_MAX_RUNS,
};
pub use check::{CheckArgs, FmtArgs, ShowArgs, SsdCommand};
pub use ftjava::{ExportCommand, ExportFtjavaArgs, ImportCommand, ImportFtjavaArgs};
#[cfg(feature = "serve")]
pub use game::{GameCommand, GameNewArgs, GameStatusArgs, GameSubmitArgs};
pub use generate::GenerateArgs;
pub use resolve::{Format, ResolveArgs};
#[cfg(feature = "serve")]
pub use serve::ServeArgs;
pub use shard::{
    K8S_INDEX, SLURM_COUNT, SLURM_MAX, SLURM_MIN, SLURM_TASK, Shard, ShardArg, parse_shard, shard_from_env,
};
pub use solve::SolveArgs;

/// Most diagnostics shown for one file.
const DIAGNOSTIC_LIMIT: usize = 50;

#[derive(Debug, Parser)]
#[command(
    name = "fam",
    version,
    // Help is wrapped to the terminal's width (off a terminal: COLUMNS,
    // else 100) and never wider than 100 columns, which stay readable on
    // a wide terminal and in a file or pager. Subcommands inherit it.
    max_term_width = HELP_WIDTH,
    after_help = examples(EXAMPLES),
    about = "Resolve Full Thrust battles with the Fire and Maneuver rules",
    long_about = "Resolve Full Thrust battles with the Fire and Maneuver rules.\n\n\
        Ship records in GZF files and scenarios and orders in TOML go in; a seeded, \
        deterministic engine plays Exchanges of three Volleys, and a report, an event \
        log and the next turn's files come out. The same inputs and seed give the same \
        bytes on any machine. Exit codes: 0 success, 1 failure while doing the job, \
        2 bad input or usage."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Colour diagnostics: `auto` on a terminal unless NO_COLOR is set.
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Print no progress bar and no notes or warnings on standard error,
    /// only errors (`fam generate`: nothing at all on success). Results on
    /// standard output and the exit code are the same.
    #[arg(long, short, global = true)]
    pub quiet: bool,
}

/// The widest help fam prints, in columns.
const HELP_WIDTH: usize = 100;

/// One example of a command's help: what it does, and the command lines
/// (run in order from the repository's top directory, where `scenarios/`
/// and `ssd/` are; the tests run each one).
#[derive(Debug, Clone, Copy)]
pub struct Example {
    pub what: &'static str,
    pub run: &'static [&'static str],
}

/// The "Examples:" section after a command's help: each example's line
/// of explanation as a shell comment, then its command lines, so that the
/// whole section can be pasted into a shell. The heading is styled as
/// clap's own.
fn examples(examples: &[Example]) -> clap::builder::StyledStr {
    let header = clap::builder::styling::Styles::default().get_header().to_owned();
    let mut text = format!("{header}Examples:{header:#}\n");
    for (i, example) in examples.iter().enumerate() {
        if i > 0 {
            text.push('\n');
        }
        text.push_str(&format!("  # {}\n", example.what));
        for line in example.run {
            text.push_str(&format!("  {line}\n"));
        }
    }
    text.into()
}

const EXAMPLES: &[Example] = &[
    Example {
        what: "Resolve the shipped duel to a decision, at most 10 Exchanges:",
        run: &["fam resolve scenarios/duel.toml --exchanges 10"],
    },
    Example {
        what: "Who wins it, and how often, from 2000 battles:",
        run: &["fam batch scenarios/duel.toml --runs 2000"],
    },
];

/// `--quiet`: set by [`run`] for the command it runs.
static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether `--quiet` asked for errors only on standard error.
fn quiet() -> bool {
    QUIET.load(std::sync::atomic::Ordering::Relaxed)
}

/// Prints a note or warning (a whole line, `note: …`) on standard error,
/// unless `--quiet`.
fn note(line: impl std::fmt::Display) {
    if !quiet() {
        eprintln!("{line}");
    }
}

/// Prints a file's diagnostics on standard error: all of them, or with
/// `--quiet` its errors only.
fn eprint_diagnostics(source: &SourceFile, diagnostics: &[Diagnostic]) {
    eprint_diagnostics_within(source, diagnostics, DIAGNOSTIC_LIMIT);
}

/// [`eprint_diagnostics`], the first `limit` of them.
fn eprint_diagnostics_within(source: &SourceFile, diagnostics: &[Diagnostic], limit: usize) {
    if quiet() {
        let errors: Vec<Diagnostic> = diagnostics.iter().filter(|d| d.is_error()).cloned().collect();
        if !errors.is_empty() {
            eprint!("{}", source.render(&errors, limit));
        }
    } else if !diagnostics.is_empty() {
        eprint!("{}", source.render(diagnostics, limit));
    }
}

/// When diagnostics are coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless the environment asks for none (`NO_COLOR`,
    /// `TERM=dumb`).
    Auto,
    /// Always (ANSI escapes even into a pipe or file).
    Always,
    /// Never.
    Never,
}

impl ColorChoice {
    /// Whether standard error gets colour. `NO_COLOR` counts when set and
    /// not empty (no-color.org).
    fn wanted(self) -> bool {
        use std::io::IsTerminal as _;
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
                let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
                !no_color && !dumb && io::stderr().is_terminal()
            }
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Validate GZF ship records and scenario/orders files (`.toml`), listing
    /// every problem (exit 2 if any).
    #[command(after_help = examples(check::CHECK_EXAMPLES))]
    Check(CheckArgs),
    /// Ship record sheets: show them, or rewrite them canonically.
    #[command(subcommand, after_help = examples(check::SSD_EXAMPLES))]
    Ssd(SsdCommand),
    /// Resolve one Exchange of a scenario: print the report; optionally write
    /// the event log and the updated records.
    #[command(after_help = examples(resolve::EXAMPLES))]
    Resolve(ResolveArgs),
    /// Play a scenario many times from derived seeds: who wins, how often
    /// and how sure that is, what becomes of each Unit (docs/batch-json.md).
    #[command(after_help = examples(batch::BATCH_EXAMPLES))]
    Batch(BatchArgs),
    /// Batch two scenarios (say, one battle with two refits) with the same
    /// seeds and show them side by side with the differences.
    #[command(after_help = examples(batch::COMPARE_EXAMPLES))]
    Compare(CompareArgs),
    /// Search the standing orders that serve one side best: every candidate
    /// played on the same seeds, the best confirmed on fresh runs and
    /// written as [doctrine] tables to paste (docs/doctrine.md, "fam tune").
    #[command(after_help = examples(batch::TUNE_EXAMPLES))]
    Tune(TuneArgs),
    /// The odds when both sides play their best: standing orders from which
    /// neither side gains by switching, found on common seeds and confirmed
    /// on fresh runs (docs/doctrine.md, "fam solve").
    #[command(after_help = examples(solve::EXAMPLES))]
    Solve(SolveArgs),
    /// Add up the JSON results of a batch's shards (`fam batch --shard K/N
    /// --json`): the same result as one run of the whole batch.
    #[command(after_help = examples(batch::MERGE_EXAMPLES))]
    Merge(MergeArgs),
    /// The odds calculator in a browser: a local page that builds a battle
    /// from the ship library or your files, plays it, replays its runs and
    /// shares it as a link (README, "The odds calculator in a browser").
    #[cfg(feature = "serve")]
    #[command(after_help = examples(serve::EXAMPLES))]
    Serve(ServeArgs),
    /// A game hosted by `fam serve --db`: create one from a scenario, submit
    /// a commander's orders, read its display (README, "Play by web").
    #[cfg(feature = "serve")]
    #[command(subcommand, after_help = examples(game::EXAMPLES))]
    Game(GameCommand),
    /// Import ship records (and games with their orders) written by other
    /// tools: FTJava XML to GZF and scenario TOML (docs/import.md).
    #[command(subcommand, after_help = examples(ftjava::IMPORT_EXAMPLES))]
    Import(ImportCommand),
    /// Export ship records for other tools: GZF to FTJava XML (docs/import.md).
    #[command(subcommand, after_help = examples(ftjava::EXPORT_EXAMPLES))]
    Export(ExportCommand),
    /// Write a random, points-balanced battle from the ship library: a
    /// scenario and its records, the same for the same seed (docs/generate.md).
    #[command(after_help = examples(generate::EXAMPLES))]
    Generate(GenerateArgs),
    /// Print a shell completion script (README, "Install").
    #[command(after_help = examples(COMPLETIONS_EXAMPLES))]
    Completions(CompletionsArgs),
    /// Print the man page, or write one per command to a directory.
    #[command(after_help = examples(MAN_EXAMPLES))]
    Man(ManArgs),
}

const COMPLETIONS_EXAMPLES: &[Example] = &[
    Example {
        what: "Completion for bash, to load with `source fam.bash` (README, \"Install\"):",
        run: &["fam completions bash > fam.bash"],
    },
    Example {
        what: "Completion for zsh, as `_fam` in a directory of your fpath:",
        run: &["fam completions zsh > _fam"],
    },
];

const MAN_EXAMPLES: &[Example] = &[
    Example {
        what: "A page per command into man1/ (then `man -l man1/fam-batch.1`):",
        run: &["fam man --out man1/"],
    },
    Example {
        what: "The main page alone:",
        run: &["fam man > fam.1"],
    },
];

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell: bash, elvish, fish, powershell or zsh.
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write `fam.1` and a page per command (`fam-resolve.1`,
    /// `fam-ssd-show.1` …) into DIR instead of printing `fam.1`.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct LoadArgs {
    /// Load systems fam does not know as inert systems instead of refusing
    /// them (they do nothing but still count for threshold checks).
    #[arg(long)]
    pub inert_unknown_systems: bool,
}

impl LoadArgs {
    fn options(&self) -> ParseOptions {
        ParseOptions {
            inert_unknown_systems: self.inert_unknown_systems,
        }
    }
}

/// Entry point of the binary.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    crate::diag::set_color(cli.color.wanted());
    match run(cli) {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            match e.downcast_ref::<io::Error>() {
                // Files are written through `files`, whose errors name them:
                // a bare I/O error is standard output's.
                Some(io) => eprintln!("fam: cannot write to standard output: {}", files::reason(io)),
                None => eprintln!("fam: {e:#}"),
            }
            ExitCode::from(1)
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.downcast_ref::<io::Error>()
        .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
}

/// Runs a parsed command line; returns the exit code.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    QUIET.store(cli.quiet, std::sync::atomic::Ordering::Relaxed);
    match cli.command {
        Command::Check(args) => check::check(&args),
        Command::Ssd(SsdCommand::Show(args)) => check::show(&args),
        Command::Ssd(SsdCommand::Fmt(args)) => check::fmt(&args),
        Command::Resolve(args) => resolve::resolve(&args),
        Command::Batch(args) => batch::batch(&args),
        Command::Compare(args) => batch::compare(&args),
        Command::Tune(args) => batch::tune(&args),
        Command::Solve(args) => solve::solve(&args),
        Command::Merge(args) => batch::merge(&args),
        #[cfg(feature = "serve")]
        Command::Serve(args) => serve::serve(&args),
        #[cfg(feature = "serve")]
        Command::Game(command) => game::game(&command),
        Command::Import(ImportCommand::Ftjava(args)) => ftjava::import_ftjava(&args),
        Command::Export(ExportCommand::Ftjava(args)) => ftjava::export_ftjava(&args),
        Command::Generate(args) => generate::generate(&args),
        Command::Completions(args) => completions(&args),
        Command::Man(args) => man(&args),
    }
}

fn completions(args: &CompletionsArgs) -> anyhow::Result<ExitCode> {
    use clap::CommandFactory;
    let script = crate::manual::completions(Cli::command(), args.shell, "fam");
    io::stdout().lock().write_all(&script)?;
    Ok(ExitCode::SUCCESS)
}

fn man(args: &ManArgs) -> anyhow::Result<ExitCode> {
    use clap::CommandFactory;
    let Some(dir) = &args.out else {
        io::stdout()
            .lock()
            .write_all(&crate::manual::man_page(Cli::command())?)?;
        return Ok(ExitCode::SUCCESS);
    };
    let pages = crate::manual::man_pages(Cli::command(), dir)?;
    Ok(write_files(&pages, &[], None)?.unwrap_or(ExitCode::SUCCESS))
}

/// Refuses outputs that would overwrite one of `inputs` (exit 2, `Some`),
/// then writes them all or none ([`files::write_all`]; a failure is exit 1).
/// `in_place` names the flag that would allow it, where there is one.
fn write_files(outputs: &[Output], inputs: &[PathBuf], in_place: Option<&str>) -> anyhow::Result<Option<ExitCode>> {
    if let Err(e) = files::guard(outputs, inputs) {
        match in_place {
            Some(how) => eprint_error(format!("{e}, or pass --in-place {how}")),
            None => eprint_error(e.to_string()),
        }
        return Ok(Some(ExitCode::from(BAD_INPUT)));
    }
    files::write_all(outputs)?;
    Ok(None)
}

const BAD_INPUT: u8 = 2;

/// Refuses a name given on the command line that `path` does not hold
/// (`no ship named `X``), with `did you mean` or the few there are; exit 2.
fn no_such(path: &Path, what: &str, name: &str, known: &[&str], listed: &str) -> ExitCode {
    match crate::suggest::help(name, known, listed) {
        Some(help) => eprintln!("error: {}: no {what} `{name}`; {help}", path.display()),
        None => eprintln!("error: {}: no {what} `{name}`", path.display()),
    }
    ExitCode::from(BAD_INPUT)
}

/// Prints an error that has no place in a file (`error: …`), coloured as
/// the diagnostics are.
fn eprint_error(message: impl Into<String>) {
    let d = Diagnostic::file_error(message);
    eprint!("{}", SourceFile::new("", "").render(&[d], 1));
}

/// A loaded file: its text (for rendering) and what was parsed.
struct Loaded {
    source: SourceFile,
    parsed: gzf::Parsed,
}

fn load(path: &Path, options: &ParseOptions) -> Result<Loaded, String> {
    let bytes =
        files::read_input(path).map_err(|e| format!("cannot read `{}`: {}", path.display(), files::reason(&e)))?;
    let source = SourceFile::from_bytes(path.display().to_string(), &bytes);
    let parsed = gzf::parse(&source.text, options);
    Ok(Loaded { source, parsed })
}

/// Loads files, printing their problems. Returns the files if none has errors.
fn load_all(paths: &[PathBuf], options: &ParseOptions) -> Option<Vec<(PathBuf, GzfFile)>> {
    let mut out = Vec::new();
    let mut failed = false;
    for path in paths {
        match load(path, options) {
            Err(msg) => {
                eprint_error(msg);
                failed = true;
            }
            Ok(l) => {
                eprint_diagnostics(&l.source, &l.parsed.diagnostics);
                if l.parsed.has_errors() {
                    failed = true;
                } else {
                    out.push((path.clone(), l.parsed.file));
                }
            }
        }
    }
    (!failed).then_some(out)
}

/// Diagnostics rendered for a file, for tests and library users.
pub fn render(source: &SourceFile, diagnostics: &[Diagnostic]) -> String {
    source.render(diagnostics, DIAGNOSTIC_LIMIT)
}
