//! `fam import ftjava` and `fam export ftjava`.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};

use std::fmt::Write as _;

use super::{BAD_INPUT, DIAGNOSTIC_LIMIT, Example, LoadArgs, eprint_diagnostics, load, no_such, note, write_files};
use crate::diag::Diagnostic;
use crate::diag::SourceFile;
use crate::files::{self, Output};
use crate::gzf::{self, ParseOptions};
use crate::turn::file_slug;

pub(super) const IMPORT_EXAMPLES: &[Example] = &[Example {
    what: "Ships sent to FTJava, then read back as GZF records into fleet/:",
    run: &[
        "fam export ftjava ssd/kestrel-reach.gzf --out kestrel-xml/",
        "fam import ftjava kestrel-xml/*.xml --out fleet/",
    ],
}];

pub(super) const EXPORT_EXAMPLES: &[Example] = &[
    Example {
        what: "One ship as an FTJava Ship document:",
        run: &["fam export ftjava ssd/kestrel-reach.gzf --ship \"KRD Ninefold Gale\" > ninefold-gale.xml"],
    },
    Example {
        what: "Every ship of a file as one GameEngine document in kestrel-xml/:",
        run: &["fam export ftjava ssd/kestrel-reach.gzf --out kestrel-xml/"],
    },
];

#[derive(Debug, Subcommand)]
pub enum ImportCommand {
    /// FTJava `Ship` files and `GameEngine` documents → GZF records (FB1),
    /// and for a game of two or more sides a scenario whose plots come from
    /// the ships' `FM.Orders`. Writes DIR/NAME.gzf (and DIR/NAME.toml) per
    /// input; nothing is written if any input has an error.
    #[command(after_help = super::examples(IMPORT_EXAMPLES))]
    Ftjava(ImportFtjavaArgs),
}

#[derive(Debug, Subcommand)]
pub enum ExportCommand {
    /// A GZF record → FTJava XML: one ship as a `Ship` document, several
    /// (with fighter groups and the game's name) as a `GameEngine` document.
    #[command(after_help = super::examples(EXPORT_EXAMPLES))]
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

pub(super) fn import_ftjava(args: &ImportFtjavaArgs) -> anyhow::Result<ExitCode> {
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
        // The import lists at most `ftjava::limits::DIAGNOSTICS` and then a
        // line counting the rest: shown whole.
        super::eprint_diagnostics_within(&source, &imported.diagnostics, usize::MAX);
        if imported.has_errors() {
            failed = true;
            continue;
        }
        if !imported.ignored.is_empty() {
            note(format_args!(
                "note: {}: left out, having no place in GZF or F&M: {}",
                source.name,
                imported.ignored.join("; ")
            ));
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
            note(format_args!(
                "note: {}: {} system(s) fam has no rules for were imported as inert systems; load {} with --inert-unknown-systems",
                source.name,
                imported.inert,
                gzf_path.display()
            ));
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
                        eprint_diagnostics(file, diags);
                    }
                }
                Err(reports) => {
                    for (file, diags) in &reports {
                        eprint_diagnostics(file, diags);
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

pub(super) fn export_ftjava(args: &ExportFtjavaArgs) -> anyhow::Result<ExitCode> {
    let loaded = match load(&args.file, &args.load.options()) {
        Ok(l) => l,
        Err(msg) => {
            eprintln!("error: {msg}");
            return Ok(ExitCode::from(BAD_INPUT));
        }
    };
    eprint_diagnostics(&loaded.source, &loaded.parsed.diagnostics);
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
    eprint_diagnostics(&loaded.source, &exported.diagnostics);
    if exported.diagnostics.iter().any(Diagnostic::is_error) {
        return Ok(ExitCode::from(BAD_INPUT));
    }
    for line in &exported.notes {
        note(format_args!("note: {}: {line}", loaded.source.name));
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
