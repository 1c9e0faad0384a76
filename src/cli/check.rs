//! `fam check` (text and `--json`), `fam ssd show` and `fam ssd fmt`.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};

use super::{BAD_INPUT, Example, LoadArgs, eprint_diagnostics, load, load_all, no_such, write_files};
use crate::diag::{Diagnostic, Severity, SourceFile};
use crate::files::Output;
use crate::gzf::{self, GzfFile, ParseOptions};

pub(super) const CHECK_EXAMPLES: &[Example] = &[
    Example {
        what: "Check a scenario, its plots and the ship records it names:",
        run: &["fam check scenarios/duel.toml"],
    },
    Example {
        what: "Check ship records, design-rule breaches counted as errors:",
        run: &["fam check --strict ssd/*.gzf"],
    },
];

pub(super) const SSD_EXAMPLES: &[Example] = &[
    Example {
        what: "One ship's record sheet:",
        run: &["fam ssd show ssd/kestrel-reach.gzf --ship \"KRD Ninefold Gale\""],
    },
    Example {
        what: "Records rewritten in canonical form into tidy/ (the files read stay as they are):",
        run: &["fam ssd fmt --out tidy/ ssd/kestrel-reach.gzf"],
    },
];

const SHOW_EXAMPLES: &[Example] = &[
    Example {
        what: "One ship's record sheet:",
        run: &["fam ssd show ssd/kestrel-reach.gzf --ship \"KRD Ninefold Gale\""],
    },
    Example {
        what: "Every ship of a file:",
        run: &["fam ssd show ssd/meridian-compact.gzf"],
    },
];

const FMT_EXAMPLES: &[Example] = &[
    Example {
        what: "A file in canonical form, on standard output:",
        run: &["fam ssd fmt ssd/kestrel-reach.gzf"],
    },
    Example {
        what: "Every record file rewritten into tidy/ (the files read stay as they are):",
        run: &["fam ssd fmt --out tidy/ ssd/*.gzf"],
    },
];

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
    #[command(after_help = super::examples(SHOW_EXAMPLES))]
    Show(ShowArgs),
    /// Rewrite GZF files in canonical form.
    #[command(after_help = super::examples(FMT_EXAMPLES))]
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

/// What `fam check` found in one of the files it was given: the problems in
/// it and in the files it names, and its summary line.
struct CheckedFile {
    name: String,
    reports: Vec<crate::orders::Report>,
    summary: String,
    failed: bool,
}

pub(super) fn check(args: &CheckArgs) -> anyhow::Result<ExitCode> {
    let options = args.load.options();
    let mut stdout = io::stdout().lock();
    let mut checked = Vec::new();
    for path in &args.files {
        let c = check_file(path, args.strict, &options);
        if !args.json {
            for (source, diags) in &c.reports {
                eprint_diagnostics(source, diags);
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

pub(super) fn show(args: &ShowArgs) -> anyhow::Result<ExitCode> {
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

pub(super) fn fmt(args: &FmtArgs) -> anyhow::Result<ExitCode> {
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
