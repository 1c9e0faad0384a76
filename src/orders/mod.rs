//! Scenario and orders files (TOML) → a validated battle and plot.
//!
//! A scenario names the GZF records to load, the sides, Formations and
//! Units, the starting ranges, the seed and the rule switches, and may carry
//! plots; orders files (one per commander) carry only plots. The format is
//! described in `docs/orders.md`.
//!
//! Everything is checked before any die is rolled, and every problem is
//! reported with its file, line and column. The core, [`build`], is pure: it
//! reads GZF records through a closure, so tests need no files.
//! [`load_scenario`] and [`check_path`] are the thin file-reading shells the
//! command line uses.

mod bases;
mod check;
mod counts;
pub mod doctrine;
mod keys;
mod loaded;
pub mod mix;
mod raw;
pub mod toml_out;
pub mod write;

use std::path::{Path, PathBuf};

use crate::diag::{Diagnostic, SourceFile};
use crate::gzf::ParseOptions;

pub use crate::engine::state::MAX_RANGE_MU;
pub use check::{DEFAULT_START_RANGE, MAX_BATTLE_UNITS, MAX_FORMATION_UNITS, MAX_RECORD_FILES};
pub use loaded::{Loaded, Origin, Record, Report};
pub use raw::is_scenario_text;

/// The pure core: checks a scenario and its orders files and builds the
/// battle and plot.
///
/// `read_gzf` gets each path as written in the scenario's `gzf` list and
/// returns the file (named as it should appear in messages) or why it could
/// not be read. Plots may sit in the scenario and in the orders files; each
/// Formation is plotted at most once.
///
/// On success, warnings are in [`Loaded::warnings`]. On failure, every file
/// with a problem (scenario, orders or GZF) comes back with all its
/// diagnostics, errors and warnings, in file order.
pub fn build(
    scenario: SourceFile,
    orders: Vec<SourceFile>,
    read_gzf: &mut dyn FnMut(&str) -> Result<SourceFile, String>,
    options: &ParseOptions,
) -> Result<Loaded, Vec<Report>> {
    check::build(
        scenario,
        orders.into_iter().map(|o| (o, Vec::new())).collect(),
        read_gzf,
        options,
    )
}

fn read_source(path: &Path) -> Result<SourceFile, Report> {
    match crate::files::read_input(path) {
        Ok(bytes) => Ok(SourceFile::from_bytes(path.display().to_string(), &bytes)),
        Err(e) => Err((
            SourceFile::new(path.display().to_string(), ""),
            vec![Diagnostic::file_error(format!(
                "cannot read `{}`: {}",
                path.display(),
                crate::files::reason(&e)
            ))],
        )),
    }
}

/// Why the GZF file `written` (as the scenario lists it, found at `full`)
/// cannot be read, with the file the user may have meant when it is missing.
fn gzf_read_error(written: &str, full: &Path, e: &std::io::Error) -> String {
    let mut why = crate::files::reason(e);
    if e.kind() == std::io::ErrorKind::NotFound
        && let Some(meant) = near_file(full)
    {
        let shown = Path::new(written).with_file_name(meant);
        why.push_str(&format!("; did you mean `{}`?", shown.display()));
    }
    why
}

/// A file beside `path` whose name `path`'s misspells, if there is one.
fn near_file(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    // Directory order is the file system's: sorted, a tie goes the same way every time.
    names.sort();
    crate::suggest::closest(name, names.iter().map(String::as_str)).map(str::to_string)
}

/// The scenario an orders file names with `scenario = "…"`, resolved from
/// the orders file's directory.
fn referenced_scenario(orders_path: &Path, text: &str) -> Option<(PathBuf, std::ops::Range<usize>, String)> {
    let r = raw::scenario_reference(text)?;
    let dir = orders_path.parent().unwrap_or(Path::new(""));
    Some((dir.join(r.get_ref()), r.span(), r.into_inner()))
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// Reads a scenario, its GZF records (paths relative to the scenario) and
/// the given orders files, and checks them all (see [`build`]).
///
/// An orders file that names its scenario (`scenario = "…"`) must name this one.
pub fn load_scenario(path: &Path, extra_orders: &[PathBuf], options: &ParseOptions) -> Result<Loaded, Vec<Report>> {
    let mut unreadable = Vec::new();
    let scenario = read_source(path).map_err(|r| vec![r])?;
    if !is_scenario_text(&scenario.text) {
        return Err(vec![not_a_scenario(scenario)]);
    }
    let mut orders = Vec::new();
    for o in extra_orders {
        match read_source(o) {
            Err(r) => unreadable.push(r),
            Ok(source) => {
                if let Some((target, span, written)) = referenced_scenario(o, &source.text)
                    && !same_file(&target, path)
                {
                    // Plots for another battle: checked against this one,
                    // they would only add errors that follow from this.
                    let d = Diagnostic::error(
                        span,
                        format!(
                            "this orders file is for scenario `{written}`, not for `{}`",
                            path.display()
                        ),
                        format!("scenario = the path of {}", path.display()),
                    );
                    unreadable.push((source, vec![d]));
                    continue;
                }
                orders.push((source, Vec::new()));
            }
        }
    }
    let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
    let mut read_gzf = |p: &str| -> Result<SourceFile, String> {
        let full = dir.join(p);
        crate::files::read_input(&full)
            .map(|bytes| SourceFile::from_bytes(full.display().to_string(), &bytes))
            .map_err(|e| gzf_read_error(p, &full, &e))
    };
    let result = check::build(scenario, orders, &mut read_gzf, options);
    if unreadable.is_empty() {
        return result;
    }
    let mut reports = unreadable;
    if let Err(r) = result {
        reports.extend(r);
    }
    Err(reports)
}

/// Checks a scenario held in memory, as [`load_scenario`] checks one on
/// disk: `files` are its GZF records by the names its `gzf` key gives them.
/// Nothing is read from or written to disk (`fam serve` loads the battles
/// its page builds this way); a name `files` lacks is an error at that name.
pub fn load_scenario_text(
    scenario: SourceFile,
    files: &[SourceFile],
    options: &ParseOptions,
) -> Result<Loaded, Vec<Report>> {
    if !is_scenario_text(&scenario.text) {
        return Err(vec![not_a_scenario(scenario)]);
    }
    let mut read_gzf = |p: &str| -> Result<SourceFile, String> {
        files.iter().find(|f| f.name == p).cloned().ok_or_else(|| {
            let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
            format!("no such file among this battle's files ({})", names.join(", "))
        })
    };
    check::build(scenario, Vec::new(), &mut read_gzf, options)
}

/// A file with only the keys of an orders file (`commander`, `scenario`,
/// `plot`, `doctrine`) given where a scenario is wanted: one error saying
/// so, not one per missing scenario key.
fn not_a_scenario(source: SourceFile) -> Report {
    let d = Diagnostic::error(
        0..0,
        "this is an orders file, not a scenario: it has none of a scenario's `gzf`, `[sides]` and `[formations]`",
        "a scenario (docs/orders.md), or give this file with --orders after its scenario",
    )
    .with_help("fam resolve SCENARIO.toml --orders THIS.toml");
    (source, vec![d])
}

/// What `fam check` says about one TOML file.
#[derive(Debug, Clone)]
pub struct Checked {
    /// Files with problems (the file itself, its scenario, orders or records).
    pub reports: Vec<Report>,
    /// One line for standard output.
    pub summary: String,
    /// Any error in any of the files.
    pub failed: bool,
}

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

fn counts(reports: &[Report]) -> (usize, usize) {
    let errors = reports.iter().flat_map(|r| &r.1).filter(|d| d.is_error()).count();
    let all = reports.iter().map(|r| r.1.len()).sum::<usize>();
    (errors, all - errors)
}

/// Checks a scenario or an orders file.
///
/// A scenario is checked with its records and its own plots. An orders file
/// that names its scenario (`scenario = "…"`) is checked against it; one
/// that does not can only be checked for its form, which a warning says.
pub fn check_path(path: &Path, options: &ParseOptions) -> Checked {
    let name = path.display().to_string();
    let source = match read_source(path) {
        Ok(s) => s,
        Err(r) => {
            return Checked {
                reports: vec![r],
                summary: format!("{name}: 1 error, 0 warnings"),
                failed: true,
            };
        }
    };
    let (result, against) = if is_scenario_text(&source.text) {
        (load_scenario(path, &[], options), None)
    } else if let Some((scenario, span, written)) = referenced_scenario(path, &source.text) {
        if let Err(e) = crate::files::read_input(&scenario) {
            // One error, where the scenario is named.
            let d = Diagnostic::error(
                span,
                format!("cannot read the scenario `{written}`: {}", crate::files::reason(&e)),
                format!(
                    "the path of its scenario, relative to this file ({})",
                    scenario.display()
                ),
            );
            return Checked {
                reports: vec![(source, vec![d])],
                summary: format!("{name}: 1 error, 0 warnings"),
                failed: true,
            };
        }
        let r = load_scenario(&scenario, &[path.to_path_buf()], options);
        (r, Some(scenario))
    } else {
        return check_form_only(&name, source);
    };
    match result {
        Err(reports) => {
            let (errors, warnings) = counts(&reports);
            Checked {
                summary: format!("{name}: {}, {}", plural(errors, "error"), plural(warnings, "warning")),
                reports,
                failed: true,
            }
        }
        Ok(loaded) => loaded_summary(&name, loaded, against.as_deref()),
    }
}

/// An orders file that names no scenario: only its form is checked, and a
/// warning says so.
fn check_form_only(name: &str, source: SourceFile) -> Checked {
    let mut diags = Vec::new();
    let raw = raw::orders(&source.text, &mut diags);
    if let Some(raw) = raw {
        diags.push(
            Diagnostic::warning(
                0..0,
                "this orders file names no scenario, so only its form was checked",
                "scenario = \"PATH/TO/SCENARIO.toml\"",
            )
            .with_help(
                "add `scenario = \"…\"` to check names, thrust and systems; `fam resolve` takes it only with --orders after its scenario",
            ),
        );
        let reports = vec![(source, diags)];
        let (errors, warnings) = counts(&reports);
        let summary = if errors > 0 {
            format!("{name}: {}, {}", plural(errors, "error"), plural(warnings, "warning"))
        } else {
            format!(
                "{name}: ok (orders, {} plotted, not checked against a scenario)",
                plural(raw.plots.len(), "Formation")
            )
        };
        return Checked {
            reports,
            summary,
            failed: errors > 0,
        };
    }
    let reports = vec![(source, diags)];
    let (errors, warnings) = counts(&reports);
    Checked {
        reports,
        summary: format!("{name}: {}, {}", plural(errors, "error"), plural(warnings, "warning")),
        failed: true,
    }
}

/// The summary of a scenario, or of orders checked against one, that loaded.
fn loaded_summary(name: &str, loaded: Loaded, against: Option<&Path>) -> Checked {
    let (_, warnings) = counts(&loaded.warnings);
    let mut parts = match against {
        None => scenario_parts(&loaded),
        Some(scenario) => orders_parts(&loaded, name, scenario),
    };
    if warnings > 0 {
        parts.push(plural(warnings, "warning"));
    }
    Checked {
        summary: format!("{name}: ok ({})", parts.join(", ")),
        reports: loaded.warnings,
        failed: false,
    }
}

/// What a loaded scenario holds: sides, Formations, Units, plots and
/// standing orders.
fn scenario_parts(loaded: &Loaded) -> Vec<String> {
    let b = &loaded.battle;
    let plotted = loaded.plot.formations.iter().filter(|p| p.is_some()).count();
    let standing = loaded.doctrine.iter().filter(|d| d.is_some()).count();
    let mut parts = vec![
        "scenario".to_string(),
        plural(b.sides.len(), "side"),
        plural(b.formations.len(), "Formation"),
        plural(b.units.len(), "Unit"),
        format!("plots for {plotted} of {}", b.formations.len()),
    ];
    if standing > 0 {
        parts.push(format!("standing orders for {standing}"));
    }
    let points = b.side_points();
    let sides: Vec<String> = b
        .sides
        .iter()
        .zip(&points)
        .map(|(s, p)| format!("{} {p}", s.name))
        .collect();
    parts.push(format!("points {}", sides.join(" against ")));
    parts
}

/// What the orders file `name` gave the `scenario` it was checked against.
fn orders_parts(loaded: &Loaded, name: &str, scenario: &Path) -> Vec<String> {
    let mine = loaded
        .plot_sources
        .iter()
        .filter(|s| s.as_deref() == Some(name))
        .count();
    let standing = loaded
        .doctrine_sources
        .iter()
        .filter(|s| s.as_deref() == Some(name))
        .count();
    let mut parts = vec!["orders".to_string(), format!("{} plotted", plural(mine, "Formation"))];
    if standing > 0 {
        parts.push(format!("standing orders for {standing}"));
    }
    parts.push(format!("checked against {}", scenario.display()));
    parts
}
