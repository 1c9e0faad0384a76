//! `fam generate`: reads the ship library, asks `generate` for a battle,
//! checks it as `fam check` would and writes it (docs/generate.md).

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use super::{BAD_INPUT, DIAGNOSTIC_LIMIT, eprint_error, write_files};
use crate::diag::SourceFile;
use crate::files::{self, Output};
use crate::generate::{self, Generated, Kind, Request, Source};
use crate::gzf::{self, ParseOptions};

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
    /// Print nothing on success.
    #[arg(long)]
    pub quiet: bool,
}

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
    };
    let generated = match generate::generate(&library, &request) {
        Ok(g) => g,
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
    if !args.quiet {
        print_summary(&args.out, &generated, args.points)?;
    }
    Ok(ExitCode::SUCCESS)
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
    // The file name alone: the battle is the same wherever it is written.
    let name = args.out.file_name().map_or_else(|| args.out.clone(), PathBuf::from);
    line.push_str(&format!(" --out {}", name.display()));
    line
}

/// The library's files, parsed, and the paths read; `None` when any has
/// an error (printed).
fn read_library(paths: &[PathBuf]) -> Option<(Vec<Source>, Vec<PathBuf>)> {
    if paths.is_empty() {
        let built_in = crate::serve::library::FILES
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
    if !diagnostics.is_empty() {
        eprint!("{}", source.render(&diagnostics, DIAGNOSTIC_LIMIT));
    }
    if diagnostics.iter().any(crate::diag::Diagnostic::is_error) {
        return None;
    }
    let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
    Some(Source { name, file })
}

/// The battle must pass fam's checks before it is written: a failure here
/// is fam's own fault (exit 1), with what the checks said.
fn check_generated(out: &Path, generated: &Generated) -> anyhow::Result<()> {
    let scenario = SourceFile::new(out.display().to_string(), generated.scenario.as_str());
    let records: Vec<SourceFile> = generated
        .records
        .iter()
        .map(|(name, text)| SourceFile::new(name.clone(), text.as_str()))
        .collect();
    if let Err(reports) = crate::orders::load_scenario_text(scenario, &records, &ParseOptions::default()) {
        for (file, diags) in &reports {
            eprint!("{}", file.render(diags, DIAGNOSTIC_LIMIT));
        }
        anyhow::bail!("the generated battle does not pass fam's checks");
    }
    Ok(())
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
