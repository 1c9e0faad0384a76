//! Command-line interface: arguments → library calls → output → exit code.
//!
//! Exit codes: 0 success, 1 failure (for example an output file could not be
//! written), 2 bad input or usage. Output files are written atomically, and
//! nothing is written when any input has an error.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::diag::{Diagnostic, Severity, SourceFile};
use crate::files::{self, Output};
use crate::gzf::{self, GzfFile, ParseOptions};

/// Most diagnostics shown for one file.
const DIAGNOSTIC_LIMIT: usize = 50;

#[derive(Debug, Parser)]
#[command(
    name = "fam",
    version,
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
    Check(CheckArgs),
    /// Ship record sheets: show them, or rewrite them canonically.
    #[command(subcommand)]
    Ssd(SsdCommand),
    /// Resolve one Exchange of a scenario: print the report; optionally write
    /// the event log and the updated records.
    Resolve(ResolveArgs),
    /// Play a scenario many times from derived seeds: who wins, how often
    /// and how sure that is, what becomes of each Unit (docs/batch-json.md).
    Batch(BatchArgs),
    /// Batch two scenarios (say, one battle with two refits) with the same
    /// seeds and show them side by side with the differences.
    Compare(CompareArgs),
    /// Search the standing orders that serve one side best: every candidate
    /// played on the same seeds, the best confirmed on fresh runs and
    /// written as [doctrine] tables to paste (docs/doctrine.md, "fam tune").
    Tune(TuneArgs),
    /// Add up the JSON results of a batch's shards (`fam batch --shard K/N
    /// --json`): the same result as one run of the whole batch.
    Merge(MergeArgs),
    /// Import ship records (and games with their orders) written by other
    /// tools: FTJava XML to GZF and scenario TOML (docs/import.md).
    #[command(subcommand)]
    Import(ImportCommand),
    /// Export ship records for other tools: GZF to FTJava XML (docs/import.md).
    #[command(subcommand)]
    Export(ExportCommand),
    /// Print a shell completion script (README, "Install").
    Completions(CompletionsArgs),
    /// Print the man page, or write one per command to a directory.
    Man(ManArgs),
}

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
pub struct ResolveArgs {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// An orders file with plots (one per commander); may be repeated.
    #[arg(long = "orders", value_name = "FILE")]
    pub orders: Vec<PathBuf>,
    /// The battle seed (overrides the scenario's `seed`); Exchange k is
    /// played with a seed derived from it and k (Exchange 1: the seed itself).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Play up to this many Exchanges, stopping at a decision ([victory]).
    /// Formations without an explicit plot (and every Formation after the
    /// first Exchange) follow their standing orders or the default doctrine.
    /// At most 1000, as the scenario's `max_exchanges`.
    #[arg(long, default_value_t = 1, value_name = "K", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub exchanges: u32,
    /// With --exchanges: every Exchange in full detail, not only a summary.
    #[arg(long)]
    pub detail: bool,
    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Write the event log (JSON Lines, docs/events.md) to this file.
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// Write the updated ship records (GZF) and `state.toml` (ranges and
    /// statuses for the next Exchange) into this directory.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Let the outputs replace files this command read (the scenario, orders
    /// and ship records): advance a turn directory in place. Without it, an
    /// output that names an input is refused.
    #[arg(long, requires = "out")]
    pub in_place: bool,
    #[command(flatten)]
    pub load: LoadArgs,
}

/// Report format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Plain text.
    Text,
    /// Markdown, for forums and mail.
    Markdown,
    /// The result as JSON (docs/result-json.md) instead of the report.
    Json,
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

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// GZF files to check; `.toml` files are checked as scenarios or orders
    /// files (with the records and scenario they name).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Treat breaches of the design rules (hull boxes, rows, crew factors,
    /// mass budget) as errors instead of warnings.
    #[arg(long)]
    pub strict: bool,
    /// Print one JSON document with every problem and a summary per file
    /// (docs/check-json.md) instead of the text; the exit code is the same.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub load: LoadArgs,
}

#[derive(Debug, Subcommand)]
pub enum SsdCommand {
    /// Print a ship as a readable record sheet.
    Show(ShowArgs),
    /// Rewrite GZF files in canonical form.
    Fmt(FmtArgs),
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// A GZF file.
    pub file: PathBuf,
    /// Show only this ship (default: every ship in the file).
    #[arg(long)]
    pub ship: Option<String>,
    #[command(flatten)]
    pub load: LoadArgs,
}

#[derive(Debug, Args)]
pub struct FmtArgs {
    /// GZF files to rewrite.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Rewrite the files themselves.
    #[arg(long, conflicts_with = "out")]
    pub in_place: bool,
    /// Write the rewritten files into this directory (same file names).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub load: LoadArgs,
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
    match cli.command {
        Command::Check(args) => check(&args),
        Command::Ssd(SsdCommand::Show(args)) => show(&args),
        Command::Ssd(SsdCommand::Fmt(args)) => fmt(&args),
        Command::Resolve(args) => resolve(&args),
        Command::Batch(args) => batch(&args),
        Command::Compare(args) => compare(&args),
        Command::Tune(args) => tune(&args),
        Command::Merge(args) => merge(&args),
        Command::Import(ImportCommand::Ftjava(args)) => import_ftjava(&args),
        Command::Export(ExportCommand::Ftjava(args)) => export_ftjava(&args),
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

fn resolve(args: &ResolveArgs) -> anyhow::Result<ExitCode> {
    let mut loaded = match crate::orders::load_scenario(&args.scenario, &args.orders, &args.load.options()) {
        Ok(l) => l,
        Err(reports) => {
            for (source, diags) in &reports {
                eprint!("{}", source.render(diags, DIAGNOSTIC_LIMIT));
            }
            return Ok(ExitCode::from(BAD_INPUT));
        }
    };
    for (source, diags) in &loaded.warnings {
        eprint!("{}", source.render(diags, DIAGNOSTIC_LIMIT));
    }
    let Some(seed) = args.seed.or(loaded.seed) else {
        eprintln!(
            "error: {}: no seed: write `seed = N` in the scenario or pass --seed N (results are reproducible only from a seed)",
            loaded.scenario
        );
        return Ok(ExitCode::from(BAD_INPUT));
    };
    // Explicit plots first; then standing orders; then, in a battle of
    // several Exchanges, the default doctrine (a single Exchange leaves a
    // Formation with neither unplotted: readings E3).
    // The one rule `fam batch` plays too (`resolve::battle_plot`).
    use crate::engine::doctrine::PlotSource;
    let first = crate::resolve::battle_plot(&loaded, &loaded.battle, 0, args.exchanges);
    for (f, source) in first.sources.iter().enumerate() {
        let what = match source {
            PlotSource::Explicit => continue,
            PlotSource::StandingOrders => "it follows its standing orders",
            PlotSource::DefaultDoctrine => "it follows the default doctrine (docs/doctrine.md)",
            PlotSource::NoPlot if loaded.battle.formation_active(f) => {
                "it puts its thrust into Speed, maintains and does not fire"
            }
            PlotSource::NoPlot => continue,
        };
        eprintln!(
            "note: Formation `{}` has no plot: {what}",
            loaded.battle.formations[f].name
        );
    }
    let header = crate::report::Header {
        title: loaded.title.clone().unwrap_or_else(|| loaded.scenario.clone()),
        seed: crate::engine::victory::exchange_seed(seed, loaded.exchange),
        exchange: loaded.exchange,
    };
    let style = match args.format {
        Format::Text | Format::Json => crate::report::Style::Text,
        Format::Markdown => crate::report::Style::Markdown,
    };
    // One path for every run: a battle of one Exchange is a single resolve.
    let resolved = if args.exchanges > 1 || args.format == Format::Json {
        let b = crate::resolve::resolve_battle(
            &header,
            seed,
            &loaded.battle,
            &first,
            &loaded.victory,
            args.exchanges,
            style,
            args.detail,
            &|b| crate::resolve::battle_plot(&loaded, b, 1, args.exchanges),
        );
        crate::resolve::Resolved {
            report: if args.format == Format::Json { b.json } else { b.report },
            log: b.log,
            battle: b.battle,
            state: b.state,
        }
    } else {
        let mut r = crate::resolve::resolve(&header, &loaded.battle, &first.plot, style);
        if first.sources.iter().any(|s| s.generated()) {
            let account = crate::report::plot_account(&loaded.battle, &first.sources, &first.choices);
            r.report = crate::resolve::with_plot_sources(&r.report, &account);
        }
        r
    };
    // Everything is computed before anything is written.
    let mut outputs: Vec<Output> = Vec::new();
    if let Some(log) = &args.log {
        outputs.push(Output::new(log, resolved.log.clone()));
    }
    if let Some(dir) = &args.out {
        loaded.write_back(&resolved.battle);
        let mut names = std::collections::BTreeSet::new();
        for record in &loaded.records {
            let name = Path::new(&record.path).file_name().unwrap_or_default().to_os_string();
            if !names.insert(name.clone()) || name == "state.toml" {
                eprintln!(
                    "error: two records would be written to {} in {}",
                    name.to_string_lossy(),
                    dir.display()
                );
                return Ok(ExitCode::from(BAD_INPUT));
            }
            outputs.push(Output::new(dir.join(name), gzf::write(&record.file)));
        }
        outputs.push(Output::new(dir.join("state.toml"), resolved.state.clone()));
        // The play-by-mail cycle: the next Exchange's scenario and one
        // editable orders template per commander.
        let gzf_names: Vec<String> = loaded
            .records
            .iter()
            .map(|r| {
                Path::new(&r.path)
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        let next_exchange = header.exchange + resolved_exchanges(&resolved, &header);
        let next = crate::orders::write::NextScenario {
            title: &header.title,
            exchange: next_exchange,
            seed,
            gzf: &gzf_names,
            victory: &loaded.victory,
        };
        // Standing orders carry over to the next Exchange where they were
        // given: the scenario's in the next scenario, a commander's in that
        // commander's orders file (they stay as secret as the plots).
        let standing = |keep: &dyn Fn(usize, Option<&str>) -> bool| -> String {
            let only: Vec<_> = (0..loaded.doctrine.len())
                .map(|f| {
                    let from = loaded.doctrine_sources.get(f).and_then(Option::as_deref);
                    loaded.doctrine[f].clone().filter(|_| keep(f, from))
                })
                .collect();
            crate::orders::doctrine::doctrine_toml(&resolved.battle, &only)
        };
        let mut next_text = crate::orders::write::scenario_toml(&resolved.battle, &next);
        next_text.push_str(&standing(&|_, from| from == Some(loaded.scenario.as_str())));
        outputs.push(Output::new(dir.join("scenario.toml"), next_text));
        // The template: what the automated commander would play next, so
        // that orders sent back unedited play just that.
        let (template, sources) = crate::orders::write::template(&resolved.battle, &loaded.doctrine);
        for (s, side) in resolved.battle.sides.iter().enumerate() {
            let mine: Vec<usize> = (0..resolved.battle.formations.len())
                .filter(|f| resolved.battle.formations[*f].side == s)
                .collect();
            let name = format!("orders-{}.toml", file_slug(&side.name));
            if !names.insert(name.clone().into()) {
                eprintln!("error: two commanders' orders would be written to {name}");
                return Ok(ExitCode::from(BAD_INPUT));
            }
            let mut text = crate::orders::write::template_toml(
                &resolved.battle,
                &template,
                &sources,
                &mine,
                &side.name,
                "scenario.toml",
            );
            let own = standing(&|f, from| {
                resolved.battle.formations[f].side == s && from.is_some_and(|x| x != loaded.scenario)
            });
            if !own.is_empty() {
                text.push_str("\n# Standing orders: a Formation without a plot above follows them.\n");
                text.push_str(&own);
            }
            outputs.push(Output::new(dir.join(name), text));
        }
    }
    // Every file read is an input: the scenario, the orders and each ship
    // record it loaded (unless the user asked to advance in place).
    let inputs: Vec<PathBuf> = if args.in_place {
        Vec::new()
    } else {
        std::iter::once(args.scenario.clone())
            .chain(args.orders.iter().cloned())
            .chain(loaded.records.iter().map(|r| PathBuf::from(&r.name)))
            .collect()
    };
    if let Some(code) = write_files(&outputs, &inputs, Some("to advance the turn over its own files"))? {
        return Ok(code);
    }
    io::stdout().lock().write_all(resolved.report.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// The Exchanges a resolve played (1 for a single Exchange).
fn resolved_exchanges(resolved: &crate::resolve::Resolved, header: &crate::report::Header) -> u32 {
    // The state file names the last Exchange played.
    let _ = header;
    resolved
        .state
        .lines()
        .find_map(|l| l.strip_prefix("exchange = ").and_then(|n| n.parse::<u32>().ok()))
        .map_or(1, |last| last + 1 - header.exchange)
}

/// A commander's name as part of a file name.
fn file_slug(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() { "side".to_string() } else { s }
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
                if !l.parsed.diagnostics.is_empty() {
                    eprint!("{}", l.source.render(&l.parsed.diagnostics, DIAGNOSTIC_LIMIT));
                }
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

/// What `fam check` found in one of the files it was given: the problems in
/// it and in the files it names, and its summary line.
struct CheckedFile {
    name: String,
    reports: Vec<crate::orders::Report>,
    summary: String,
    failed: bool,
}

fn check(args: &CheckArgs) -> anyhow::Result<ExitCode> {
    let options = args.load.options();
    let mut stdout = io::stdout().lock();
    let mut checked = Vec::new();
    for path in &args.files {
        let c = check_file(path, args.strict, &options);
        if !args.json {
            for (source, diags) in &c.reports {
                eprint!("{}", source.render(diags, DIAGNOSTIC_LIMIT));
            }
            writeln!(stdout, "{}", c.summary)?;
        }
        checked.push(c);
    }
    if args.json {
        writeln!(stdout, "{}", check_json(&checked))?;
    }
    Ok(if checked.iter().any(|c| c.failed) {
        ExitCode::from(BAD_INPUT)
    } else {
        ExitCode::SUCCESS
    })
}

/// Checks one file: a `.toml` as a scenario or orders file, anything else
/// as GZF records (with the design rules, as errors when `strict`).
fn check_file(path: &Path, strict: bool, options: &ParseOptions) -> CheckedFile {
    let name = path.display().to_string();
    if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("toml")) {
        let c = crate::orders::check_path(path, options);
        return CheckedFile {
            name,
            reports: c.reports,
            summary: c.summary,
            failed: c.failed,
        };
    }
    let loaded = match load(path, options) {
        Ok(l) => l,
        Err(msg) => {
            return CheckedFile {
                reports: vec![(SourceFile::new(name.as_str(), ""), vec![Diagnostic::file_error(msg)])],
                summary: format!("{name}: 1 error, 0 warnings"),
                name,
                failed: true,
            };
        }
    };
    let mut diags = loaded.parsed.diagnostics.clone();
    let mut design = gzf::design::check(&loaded.parsed.file, &loaded.parsed.spans);
    if strict {
        for d in &mut design {
            d.severity = Severity::Error;
        }
    }
    diags.extend(design);
    diags.sort_by_key(|d| d.span.start);
    let errors = diags.iter().filter(|d| d.is_error()).count();
    let warnings = diags.len() - errors;
    let summary = summary(&loaded.source.name, &loaded.parsed.file, errors, warnings);
    let reports = if diags.is_empty() {
        Vec::new()
    } else {
        vec![(loaded.source, diags)]
    };
    CheckedFile {
        name,
        reports,
        summary,
        failed: errors > 0,
    }
}

/// `fam check --json`: one document with every file checked and every
/// problem found (docs/check-json.md).
fn check_json(checked: &[CheckedFile]) -> String {
    #[derive(serde::Serialize)]
    struct File<'a> {
        file: &'a str,
        ok: bool,
        errors: usize,
        warnings: usize,
        summary: &'a str,
        diagnostics: Vec<crate::diag::JsonDiagnostic<'a>>,
    }
    #[derive(serde::Serialize)]
    struct Document<'a> {
        version: u32,
        ok: bool,
        errors: usize,
        warnings: usize,
        files: Vec<File<'a>>,
    }
    let files: Vec<File> = checked
        .iter()
        .map(|c| {
            let diagnostics: Vec<_> = c
                .reports
                .iter()
                .flat_map(|(source, diags)| diags.iter().map(|d| source.json(d)))
                .collect();
            let errors = diagnostics.iter().filter(|d| d.severity == "error").count();
            File {
                file: &c.name,
                ok: !c.failed,
                errors,
                warnings: diagnostics.len() - errors,
                summary: &c.summary,
                diagnostics,
            }
        })
        .collect();
    let doc = Document {
        version: 1,
        ok: checked.iter().all(|c| !c.failed),
        errors: files.iter().map(|f| f.errors).sum(),
        warnings: files.iter().map(|f| f.warnings).sum(),
        files,
    };
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}

fn summary(name: &str, file: &GzfFile, errors: usize, warnings: usize) -> String {
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    if errors > 0 {
        return format!("{name}: {}, {}", plural(errors, "error"), plural(warnings, "warning"));
    }
    let ships = file.ships().count();
    let bases = file.bases().count();
    let mut parts = vec![file.profile.to_string(), plural(ships, "ship")];
    if bases > 0 {
        parts.push(plural(bases, "base"));
    }
    if warnings > 0 {
        parts.push(plural(warnings, "warning"));
    }
    format!("{name}: ok ({})", parts.join(", "))
}

fn show(args: &ShowArgs) -> anyhow::Result<ExitCode> {
    let Some(files) = load_all(std::slice::from_ref(&args.file), &args.load.options()) else {
        return Ok(ExitCode::from(BAD_INPUT));
    };
    let (path, file) = &files[0];
    let ships: Vec<_> = match &args.ship {
        Some(name) => match file.ship(name) {
            Some(s) => vec![s],
            None => {
                let known: Vec<_> = file.ships().map(|s| s.name.as_str()).collect();
                return Ok(no_such(path, "ship named", name, &known, "ships in the file"));
            }
        },
        None => file.ships().collect(),
    };
    let mut stdout = io::stdout().lock();
    for (i, ship) in ships.iter().enumerate() {
        if i > 0 {
            writeln!(stdout)?;
        }
        write!(stdout, "{}", crate::sheet::ship_sheet(ship, file.profile))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn fmt(args: &FmtArgs) -> anyhow::Result<ExitCode> {
    let Some(files) = load_all(&args.files, &args.load.options()) else {
        return Ok(ExitCode::from(BAD_INPUT));
    };
    if !args.in_place && args.out.is_none() {
        if files.len() != 1 {
            eprintln!("error: several files need --in-place or --out DIR (standard output takes one file)");
            return Ok(ExitCode::from(BAD_INPUT));
        }
        io::stdout().lock().write_all(gzf::write(&files[0].1).as_bytes())?;
        return Ok(ExitCode::SUCCESS);
    }
    let outputs: Vec<Output> = files
        .iter()
        .map(|(path, file)| {
            let target = match &args.out {
                Some(dir) => dir.join(path.file_name().unwrap_or_default()),
                None => path.clone(),
            };
            Output::new(target, gzf::write(file))
        })
        .collect();
    // `--in-place` rewrites the inputs; `--out` never does.
    let inputs: Vec<PathBuf> = if args.in_place {
        Vec::new()
    } else {
        files.iter().map(|(p, _)| p.clone()).collect()
    };
    if let Some(code) = write_files(&outputs, &inputs, Some("without --out to rewrite the files themselves"))? {
        return Ok(code);
    }
    Ok(ExitCode::SUCCESS)
}

/// Diagnostics rendered for a file, for tests and library users.
pub fn render(source: &SourceFile, diagnostics: &[Diagnostic]) -> String {
    source.render(diagnostics, DIAGNOSTIC_LIMIT)
}

// ---- FTJava: `fam import ftjava`, `fam export ftjava` ----------------------

#[derive(Debug, Subcommand)]
pub enum ImportCommand {
    /// FTJava `Ship` files and `GameEngine` documents → GZF records (FB1),
    /// and for a game of two or more sides a scenario whose plots come from
    /// the ships' `FM.Orders`. Writes DIR/NAME.gzf (and DIR/NAME.toml) per
    /// input; nothing is written if any input has an error.
    Ftjava(ImportFtjavaArgs),
}

#[derive(Debug, Subcommand)]
pub enum ExportCommand {
    /// A GZF record → FTJava XML: one ship as a `Ship` document, several
    /// (with fighter groups and the game's name) as a `GameEngine` document.
    Ftjava(ExportFtjavaArgs),
}

#[derive(Debug, Args)]
pub struct ImportFtjavaArgs {
    /// FTJava XML files (`Ship` or `GameEngine` documents).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// The directory to write the records (and scenarios) into.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Leave out elements fam has no mapping for (a warning each) instead
    /// of refusing the file.
    #[arg(long)]
    pub skip_unmapped: bool,
}

#[derive(Debug, Args)]
pub struct ExportFtjavaArgs {
    /// A GZF file (FB1 profile).
    pub file: PathBuf,
    /// Export only this ship (as a `Ship` document).
    #[arg(long)]
    pub ship: Option<String>,
    /// Write DIR/NAME.xml instead of standard output.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Leave out systems FTJava has no element for (a warning each) instead
    /// of refusing the record.
    #[arg(long)]
    pub skip_unmapped: bool,
    #[command(flatten)]
    pub load: LoadArgs,
}

fn import_ftjava(args: &ImportFtjavaArgs) -> anyhow::Result<ExitCode> {
    let options = crate::ftjava::Options {
        skip_unmapped: args.skip_unmapped,
    };
    let mut outputs: Vec<Output> = Vec::new();
    let mut summaries: Vec<String> = Vec::new();
    let mut failed = false;
    for path in &args.files {
        let bytes = match files::read_input(path) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("error: cannot read `{}`: {}", path.display(), files::reason(&e));
                failed = true;
                continue;
            }
        };
        let source = SourceFile::from_bytes(path.display().to_string(), &bytes);
        let imported = crate::ftjava::import(&source, &options);
        if !imported.diagnostics.is_empty() {
            eprint!("{}", source.render(&imported.diagnostics, DIAGNOSTIC_LIMIT));
        }
        if imported.has_errors() {
            failed = true;
            continue;
        }
        if !imported.ignored.is_empty() {
            eprintln!(
                "note: {}: left out, having no place in GZF or F&M: {}",
                source.name,
                imported.ignored.join("; ")
            );
        }
        let stem = path.file_stem().unwrap_or_default().to_string_lossy().into_owned();
        let gzf_name = format!("{stem}.gzf");
        let gzf_path = args.out.join(&gzf_name);
        let gzf_text = gzf::write(&imported.gzf);
        let load = ParseOptions {
            inert_unknown_systems: imported.inert > 0,
        };
        // What was written must read back as it was meant.
        let check = gzf::parse(&gzf_text, &load);
        if check.has_errors() {
            let written = SourceFile::new(gzf_path.display().to_string(), gzf_text.as_str());
            eprint!("{}", written.render(&check.diagnostics, DIAGNOSTIC_LIMIT));
            anyhow::bail!("the record imported from {} does not read back", source.name);
        }
        if imported.inert > 0 {
            eprintln!(
                "note: {}: {} system(s) fam has no rules for were imported as inert systems; load {} with --inert-unknown-systems",
                source.name,
                imported.inert,
                gzf_path.display()
            );
        }
        let ships = imported.gzf.ships().count();
        let mut summary = format!(
            "{}: {ships} ship{} -> {}",
            source.name,
            if ships == 1 { "" } else { "s" },
            gzf_path.display()
        );
        outputs.push(Output::new(&gzf_path, gzf_text.clone()));
        if let Some(scenario) = &imported.scenario {
            let toml_path = args.out.join(format!("{stem}.toml"));
            let text = scenario.to_toml(&source.name, &gzf_name);
            let scenario_source = SourceFile::new(toml_path.display().to_string(), text.as_str());
            let mut read = |p: &str| -> Result<SourceFile, String> {
                if p == gzf_name {
                    Ok(SourceFile::new(gzf_path.display().to_string(), gzf_text.as_str()))
                } else {
                    Err(format!("{p} is not part of this import"))
                }
            };
            match crate::orders::build(scenario_source, Vec::new(), &mut read, &load) {
                Ok(loaded) => {
                    for (file, diags) in &loaded.warnings {
                        eprint!("{}", file.render(diags, DIAGNOSTIC_LIMIT));
                    }
                }
                Err(reports) => {
                    for (file, diags) in &reports {
                        eprint!("{}", file.render(diags, DIAGNOSTIC_LIMIT));
                    }
                    anyhow::bail!("the scenario imported from {} does not pass fam's checks", source.name);
                }
            }
            let _ = write!(summary, " and scenario {}", toml_path.display());
            outputs.push(Output::new(toml_path, text));
        }
        summaries.push(summary);
    }
    if failed {
        return Ok(ExitCode::from(BAD_INPUT));
    }
    if let Some(code) = write_files(&outputs, &args.files, None)? {
        return Ok(code);
    }
    let mut stdout = io::stdout().lock();
    for s in &summaries {
        writeln!(stdout, "{s}")?;
    }
    Ok(ExitCode::SUCCESS)
}

fn export_ftjava(args: &ExportFtjavaArgs) -> anyhow::Result<ExitCode> {
    let loaded = match load(&args.file, &args.load.options()) {
        Ok(l) => l,
        Err(msg) => {
            eprintln!("error: {msg}");
            return Ok(ExitCode::from(BAD_INPUT));
        }
    };
    if !loaded.parsed.diagnostics.is_empty() {
        eprint!("{}", loaded.source.render(&loaded.parsed.diagnostics, DIAGNOSTIC_LIMIT));
    }
    if loaded.parsed.has_errors() {
        return Ok(ExitCode::from(BAD_INPUT));
    }
    let file = &loaded.parsed.file;
    let ship = match &args.ship {
        None => None,
        Some(name) => {
            let wanted = |s: &gzf::Ship| s.name.eq_ignore_ascii_case(name);
            match file
                .items
                .iter()
                .position(|i| matches!(i, gzf::Item::Ship(s) if wanted(s)))
            {
                Some(i) => Some(i),
                None => {
                    let known: Vec<_> = file.ships().map(|s| s.name.as_str()).collect();
                    return Ok(no_such(&args.file, "ship named", name, &known, "ships in the file"));
                }
            }
        }
    };
    let stem = args.file.file_stem().unwrap_or_default().to_string_lossy().into_owned();
    let request = crate::ftjava::export::Request {
        text: &loaded.source.text,
        file,
        spans: &loaded.parsed.spans,
        ship,
        title: &stem,
        skip_unmapped: args.skip_unmapped,
    };
    let exported = crate::ftjava::export::export(&request);
    if !exported.diagnostics.is_empty() {
        eprint!("{}", loaded.source.render(&exported.diagnostics, DIAGNOSTIC_LIMIT));
    }
    if exported.diagnostics.iter().any(Diagnostic::is_error) {
        return Ok(ExitCode::from(BAD_INPUT));
    }
    for note in &exported.notes {
        eprintln!("note: {}: {note}", loaded.source.name);
    }
    match &args.out {
        None => io::stdout().lock().write_all(exported.xml.as_bytes())?,
        Some(dir) => {
            let name = match &args.ship {
                Some(ship) => format!("{}.xml", file_slug(ship)),
                None => format!("{stem}.xml"),
            };
            let outputs = [Output::new(dir.join(name), exported.xml)];
            if let Some(code) = write_files(&outputs, std::slice::from_ref(&args.file), None)? {
                return Ok(code);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

// ---- Batches: `fam batch`, `fam compare`, `fam merge` ----------------------

/// `--shard K/N`: the K-th (1-based) of N equal slices of the runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl Shard {
    /// The run indices of this shard of a batch of `runs` runs
    /// ([`crate::batch::shard_range`]): the N shards tile `0..runs` exactly.
    pub fn range(self, runs: u64) -> std::ops::Range<u64> {
        crate::batch::shard_range(self.index, self.count, runs)
    }
}

/// `--shard`: `K/N`, or `env/N` (K read from a cluster scheduler's
/// environment when the batch starts: [`shard_from_env`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShardArg {
    Fixed(Shard),
    Env { count: u64 },
}

pub fn parse_shard(s: &str) -> Result<ShardArg, String> {
    let (k, n) = s.split_once('/').ok_or("expected K/N (for example 2/8) or env/N")?;
    let count: u64 = n.trim().parse().map_err(|_| format!("`{n}` is not a shard count"))?;
    if count == 0 {
        return Err("N must be at least 1".into());
    }
    if k.trim() == "env" {
        return Ok(ShardArg::Env { count });
    }
    let index: u64 = k
        .trim()
        .parse()
        .map_err(|_| format!("`{k}` is not a shard number (K/N, or env/N)"))?;
    if index == 0 || index > count {
        return Err(format!("shard {index}/{count}: K must be 1 to N"));
    }
    Ok(ShardArg::Fixed(Shard { index, count }))
}

/// SLURM job arrays: the task's id, taken as K (submit with `--array=1-N`).
pub const SLURM_TASK: &str = "SLURM_ARRAY_TASK_ID";
/// SLURM job arrays: the number of tasks, which must be N when set.
pub const SLURM_COUNT: &str = "SLURM_ARRAY_TASK_COUNT";
/// SLURM job arrays: the lowest and highest task ids, within 1 to N when set.
pub const SLURM_MIN: &str = "SLURM_ARRAY_TASK_MIN";
pub const SLURM_MAX: &str = "SLURM_ARRAY_TASK_MAX";
/// Kubernetes Indexed Jobs: the completion index, 0-based (K − 1).
pub const K8S_INDEX: &str = "JOB_COMPLETION_INDEX";

/// Shard K of `count` from a scheduler's environment (`--shard env/N`):
/// `SLURM_ARRAY_TASK_ID` is K itself (1-based: `--array=1-N`), checked
/// against `SLURM_ARRAY_TASK_COUNT`, `…_MIN` and `…_MAX` when they are set
/// (an array of ids 0 to N − 1 is refused by every task, not only task 0,
/// which would leave shard N unplayed); `JOB_COMPLETION_INDEX`
/// is K − 1 (0-based, as Kubernetes counts). When both are set they must
/// name the same shard. `var` looks a variable up (`None`: not set), so
/// that this reads no environment itself. Returns the shard and where it
/// came from (`SLURM_ARRAY_TASK_ID=3`), or why there is none.
pub fn shard_from_env(count: u64, var: &dyn Fn(&str) -> Option<String>) -> Result<(Shard, String), String> {
    let number = |name: &str| -> Result<Option<u64>, String> {
        match var(name) {
            None => Ok(None),
            Some(v) => v
                .trim()
                .parse::<u64>()
                .map(Some)
                .map_err(|_| format!("{name}=`{v}` is not a whole number")),
        }
    };
    let slurm = match number(SLURM_TASK)? {
        None => None,
        Some(0) => {
            return Err(format!(
                "{SLURM_TASK}=0, but shards are numbered from 1: submit the array as --array=1-{count}"
            ));
        }
        Some(id) if id > count => {
            return Err(format!(
                "{SLURM_TASK}={id} is not a shard of {count} (1 to {count}: submit the array as --array=1-{count})"
            ));
        }
        Some(id) => {
            slurm_array(count, &number)?;
            Some(id)
        }
    };
    let k8s = match number(K8S_INDEX)? {
        None => None,
        Some(i) if i >= count => {
            return Err(format!(
                "{K8S_INDEX}={i} is not a shard of {count} (0 to {}: set the Job's completions to {count})",
                count - 1
            ));
        }
        Some(i) => Some(i + 1),
    };
    let shard = |index| Shard { index, count };
    match (slurm, k8s) {
        (Some(a), Some(b)) if a != b => Err(format!(
            "{SLURM_TASK}={a} and {K8S_INDEX}={} name different shards ({a} and {b} of {count})",
            b - 1
        )),
        (Some(a), _) => Ok((shard(a), format!("{SLURM_TASK}={a}"))),
        (None, Some(b)) => Ok((shard(b), format!("{K8S_INDEX}={}", b - 1))),
        (None, None) => Err(format!(
            "neither {SLURM_TASK} nor {K8S_INDEX} is set (outside a SLURM array or a Kubernetes Indexed Job, pass --shard K/{count})"
        )),
    }
}

/// The SLURM array a task belongs to is ids 1 to `count`, as far as its
/// variables say.
fn slurm_array(count: u64, number: &dyn Fn(&str) -> Result<Option<u64>, String>) -> Result<(), String> {
    let submit = format!("submit the array as --array=1-{count}");
    if let Some(tasks) = number(SLURM_COUNT)?
        && tasks != count
    {
        return Err(format!(
            "{SLURM_COUNT}={tasks}, but the batch is cut into {count} shards: {submit} (rerun one shard with --shard K/{count})"
        ));
    }
    if let Some(0) = number(SLURM_MIN)? {
        return Err(format!("{SLURM_MIN}=0, but shards are numbered from 1: {submit}"));
    }
    match number(SLURM_MAX)? {
        Some(max) if max > count => Err(format!(
            "{SLURM_MAX}={max}, but there are only {count} shards: {submit}"
        )),
        _ => Ok(()),
    }
}

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

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Base seed (default: the scenario's `seed`, else 0); run i is played
    /// with the seed derived from it and i (docs/batch-json.md).
    #[arg(long, value_name = "BASE")]
    pub seed: Option<u64>,
    /// Worker threads (default: one per core); results do not depend on it.
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
    /// default 1000000).
    #[arg(long, value_name = "N", required_unless_present = "until_ci", value_parser = parse_runs)]
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
    #[arg(long, value_name = "K/N", value_parser = parse_shard, conflicts_with = "until_ci")]
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
    /// Play the documented grid of the default doctrine's measure against
    /// the default instead of searching (docs/doctrine.md).
    #[arg(long)]
    pub measure: bool,
    #[command(flatten)]
    pub run: RunArgs,
    /// Print the result as JSON instead of the table (not with --measure).
    #[arg(long, conflicts_with = "measure")]
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
fn load_for_batch(path: &Path, orders: &[PathBuf], load: &LoadArgs) -> Option<crate::orders::Loaded> {
    match crate::orders::load_scenario(path, orders, &load.options()) {
        Ok(l) => {
            for (source, diags) in &l.warnings {
                eprint!("{}", source.render(diags, DIAGNOSTIC_LIMIT));
            }
            Some(l)
        }
        Err(reports) => {
            for (source, diags) in &reports {
                eprint!("{}", source.render(diags, DIAGNOSTIC_LIMIT));
            }
            None
        }
    }
}

/// Progress on stderr: a bar appears only when stderr is a terminal and the
/// batch has been running for more than half a second.
struct Progress {
    start: std::time::Instant,
    shown: std::sync::atomic::AtomicBool,
    /// `None` when stderr is not a terminal. Drawn nowhere until shown, so
    /// its rate and time estimates count from the start.
    bar: Option<indicatif::ProgressBar>,
}

impl Progress {
    fn new(total: Option<u64>) -> Progress {
        use std::io::IsTerminal as _;
        let bar = io::stderr().is_terminal().then(|| {
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

    fn advance(&self, n: u64) {
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

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

fn batch_options(loaded: &crate::orders::Loaded, run: &RunArgs) -> crate::batch::Options {
    crate::batch::Options {
        seed: run.seed.or(loaded.seed).unwrap_or(0),
        exchanges: run.exchanges.unwrap_or_else(|| crate::batch::default_exchanges(loaded)),
        threads: run.threads.map(usize::from),
    }
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

/// The shard a batch plays: `--shard K/N` as given, `--shard env/N` from
/// the scheduler's variables (noted on stderr); `Err` after printing why
/// the environment names no shard.
fn resolve_shard(arg: Option<ShardArg>) -> Result<Option<Shard>, ExitCode> {
    match arg {
        None => Ok(None),
        Some(ShardArg::Fixed(s)) => Ok(Some(s)),
        Some(ShardArg::Env { count }) => {
            let var = |name: &str| std::env::var_os(name).map(|v| v.to_string_lossy().into_owned());
            match shard_from_env(count, &var) {
                Ok((s, from)) => {
                    eprintln!("note: playing shard {}/{count} ({from})", s.index);
                    Ok(Some(s))
                }
                Err(e) => {
                    eprintln!("error: --shard env/{count}: {e}");
                    Err(ExitCode::from(BAD_INPUT))
                }
            }
        }
    }
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

fn batch(args: &BatchArgs) -> anyhow::Result<ExitCode> {
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
    let (range, total) = match (args.until_ci, shard) {
        (Some(_), _) => (0..0, args.runs.unwrap_or(UNTIL_CI_MAX_RUNS)),
        (None, Some(shard)) => {
            let runs = args.runs.unwrap_or(0);
            (shard.range(runs), runs)
        }
        (None, None) => {
            let runs = args.runs.unwrap_or(0);
            (0..runs, runs)
        }
    };
    let progress = Progress::new(if args.until_ci.is_some() {
        None
    } else {
        Some(range.end - range.start)
    });
    let tally = match (&args.checkpoint, args.until_ci) {
        (Some(path), _) => {
            let plan = match args.until_ci {
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
    meta.until_ci = args.until_ci;
    meta.replay_args = replay_args(&args.orders, &args.load);
    batch_outputs(
        &crate::batch::Report { meta, tally },
        &args.out,
        &batch_inputs(args, &loaded),
    )
}

/// Prints a report (table or JSON) and writes its CSV and SVG files: all
/// computed first, then written atomically.
fn batch_outputs(report: &crate::batch::Report, out: &BatchOutputArgs, inputs: &[PathBuf]) -> anyhow::Result<ExitCode> {
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
        BatchFormat::Text => crate::batch::text::table(report),
    };
    io::stdout().lock().write_all(text.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

fn compare(args: &CompareArgs) -> anyhow::Result<ExitCode> {
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

fn tune(args: &TuneArgs) -> anyhow::Result<ExitCode> {
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
    let mut text = String::new();
    for side in sides {
        let opts = crate::tune::Options {
            side,
            runs: args.runs,
            top: usize::from(args.top),
            batch: batch_options(&loaded, &args.run),
        };
        if args.measure {
            let grid = crate::tune::measure_grid();
            let progress = Progress::new(Some((grid.len() as u64 + 1).saturating_mul(opts.runs)));
            let m = crate::tune::measure(&loaded, &opts, &grid, &|n| progress.advance(n));
            progress.finish();
            text.push_str(&crate::tune::measure_text(&loaded, &scenario, &opts, &m?, 10));
        } else {
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
    }
    io::stdout().lock().write_all(text.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

fn merge(args: &MergeArgs) -> anyhow::Result<ExitCode> {
    if let Err(code) = check_outputs(&args.out, &args.files) {
        return Ok(code);
    }
    let mut parts = Vec::new();
    let mut failed = false;
    for path in &args.files {
        let parsed = files::read_input(path)
            .map_err(|e| format!("cannot read: {}", files::reason(&e)))
            .and_then(|b| String::from_utf8(b).map_err(|_| "it is not UTF-8 text".to_string()))
            .and_then(|t| crate::batch::json::parse(&t));
        match parsed {
            Ok(r) => parts.push((path.display().to_string(), r)),
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
    batch_outputs(&report, &args.out, &args.files)
}
