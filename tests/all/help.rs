//! `--help` as a reader meets it: wrapped to the terminal within 100
//! columns, examples on every command that run as written on the shipped
//! files, the thread count's environment variable named; and `--quiet`,
//! which leaves only errors on standard error.
//!
//! The commands are enumerated from the clap definition itself, so a new
//! command is held to the same rules without editing this file.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use clap::CommandFactory as _;

use crate::support::{repo, text};

/// The widest help line off a terminal, whatever COLUMNS says.
const MOST_COLUMNS: usize = 100;

/// Commands whose examples are parsed but not run: `fam serve` serves
/// until it is stopped; `fam game` talks to such a server.
const NOT_RUN: [&str; 2] = ["serve", "game"];

/// Every command of the clap definition as the words that name it: `[]`
/// for `fam` itself, `["ssd", "show"]` for `fam ssd show`.
fn commands() -> Vec<Vec<String>> {
    fn walk(cmd: &clap::Command, path: &[String], out: &mut Vec<Vec<String>>) {
        out.push(path.to_vec());
        for sub in cmd.get_subcommands() {
            let mut p = path.to_vec();
            p.push(sub.get_name().to_owned());
            walk(sub, &p, out);
        }
    }
    let mut out = Vec::new();
    walk(&fam::cli::Cli::command(), &[], &mut out);
    assert!(out.len() >= 15, "the clap definition was not walked: {out:?}");
    out
}

/// The clap definition of one command.
fn definition(path: &[String]) -> clap::Command {
    let mut cmd = fam::cli::Cli::command();
    for word in path {
        cmd = cmd
            .find_subcommand(word)
            .unwrap_or_else(|| panic!("no subcommand {word}"))
            .clone();
    }
    cmd
}

/// `fam PATH… FLAG` off a terminal with COLUMNS as given (or unset).
fn help(path: &[String], flag: &str, columns: Option<&str>) -> String {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fam"));
    cmd.args(path).arg(flag).current_dir(repo());
    match columns {
        Some(c) => cmd.env("COLUMNS", c),
        None => cmd.env_remove("COLUMNS"),
    };
    let out = cmd.output().expect("run fam");
    assert!(out.status.success(), "fam {path:?} {flag}: {}", text(&out.stderr));
    assert!(out.stderr.is_empty(), "fam {path:?} {flag}: {}", text(&out.stderr));
    let help = text(&out.stdout);
    assert!(help.contains("Usage:"), "fam {path:?} {flag}:\n{help}");
    help
}

fn width(line: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(line)
}

#[test]
fn every_help_keeps_within_100_columns_and_follows_a_narrower_terminal() {
    let mut too_wide = Vec::new();
    for path in commands() {
        for flag in ["-h", "--help"] {
            // Unset, COLUMNS is 100 by default; a wide terminal still gets
            // at most 100; a narrow one gets its own width.
            for (columns, most) in [(None, MOST_COLUMNS), (Some("250"), MOST_COLUMNS), (Some("72"), 72)] {
                let help = help(&path, flag, columns);
                for line in help.lines().filter(|l| width(l) > most) {
                    too_wide.push(format!(
                        "fam {} {flag} (COLUMNS={columns:?}): {} columns: {line}",
                        path.join(" "),
                        width(line)
                    ));
                }
            }
        }
    }
    assert!(too_wide.is_empty(), "{}", too_wide.join("\n"));
    // Wrapped, not cut: the long help of `fam batch` still says all of
    // `--runs`, across lines.
    let batch = help(&["batch".to_owned()], "--help", None);
    let joined = batch.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        joined.contains("play until every win rate's 95 % interval is within ±1 point"),
        "{batch}"
    );
}

/// The example lines of a help text: what follows its `Examples:` line,
/// comments (`# …`) and blank lines left out.
fn example_lines(help: &str) -> Option<Vec<String>> {
    let mut lines = help.lines();
    lines.find(|l| l.trim_end() == "Examples:")?;
    Some(
        lines
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_owned)
            .collect(),
    )
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create scratch directory");
    for entry in std::fs::read_dir(from).expect("read directory") {
        let path = entry.expect("directory entry").path();
        if path.is_file() {
            std::fs::copy(&path, to.join(path.file_name().expect("file name"))).expect("copy file");
        }
    }
}

/// `sh -c line` in `dir`, with the built fam first on the PATH.
fn sh(dir: &Path, line: &str) -> Output {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_fam"));
    let mut paths = vec![bin.parent().expect("binary directory").to_path_buf()];
    paths.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    Command::new("sh")
        .arg("-c")
        .arg(line)
        .current_dir(dir)
        .env("PATH", std::env::join_paths(paths).expect("PATH"))
        .env_remove("COLUMNS")
        .output()
        .expect("run sh")
}

/// Every command's help (short and long) ends with examples that name the
/// command, and each example, line by line, succeeds as a reader would
/// type it in a copy of the repository's `scenarios/` and `ssd/` (a fresh
/// copy a command, as a reader of one help page starts from the shipped
/// files).
#[test]
fn every_command_has_examples_that_run_on_the_shipped_files() {
    let mut failures = Vec::new();
    let mut ran = 0;
    for path in commands() {
        let name = format!("fam {}", path.join(" ")).trim_end().to_owned();
        let short = example_lines(&help(&path, "-h", None));
        let long = example_lines(&help(&path, "--help", None));
        assert_eq!(short, long, "{name}: -h and --help show other examples");
        let Some(lines) = long else {
            failures.push(format!("{name}: no Examples section"));
            continue;
        };
        if path.first().is_some_and(|w| NOT_RUN.contains(&w.as_str())) {
            // A server runs until stopped: its examples must parse.
            for line in &lines {
                let words: Vec<&str> = line.split_whitespace().collect();
                if let Err(e) = <fam::cli::Cli as clap::Parser>::try_parse_from(&words) {
                    failures.push(format!("{name}: `{line}` does not parse: {e}"));
                }
            }
            continue;
        }
        if !lines.iter().any(|l| l.starts_with(&format!("{name} ")) || *l == name) {
            failures.push(format!("{name}: no example runs `{name}`: {lines:?}"));
        }
        let scratch = tempfile::tempdir().expect("scratch directory");
        for dir in ["scenarios", "ssd"] {
            copy_dir(&repo().join(dir), &scratch.path().join(dir));
        }
        for line in &lines {
            let out = sh(scratch.path(), line);
            ran += 1;
            if !out.status.success() {
                failures.push(format!(
                    "{name}: `{line}` failed ({}):\n{}",
                    out.status,
                    text(&out.stderr)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(ran >= 20, "only {ran} example lines were run");
}

#[test]
fn commands_with_worker_threads_name_rayon_num_threads_in_their_help() {
    let mut threaded = Vec::new();
    for path in commands() {
        let cmd = definition(&path);
        if cmd.get_arguments().any(|a| a.get_long() == Some("threads")) {
            let help = help(&path, "--help", None);
            let joined = help.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                joined.contains("RAYON_NUM_THREADS environment variable if set"),
                "fam {}:\n{help}",
                path.join(" ")
            );
            threaded.push(path.join(" "));
        }
    }
    // batch, compare, tune, solve and generate play on worker threads.
    for command in ["batch", "compare", "tune", "solve", "generate"] {
        assert!(threaded.iter().any(|c| c == command), "{command}: {threaded:?}");
    }
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    assert!(readme.contains("RAYON_NUM_THREADS"), "the README does not name it");
}

// ---- --quiet ----------------------------------------------------------------

/// fam in the repository with `vars` set and no scheduler variable.
fn fam_with(args: &[&str], vars: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fam"));
    cmd.args(args).current_dir(repo());
    for v in [
        "SLURM_ARRAY_TASK_ID",
        "SLURM_ARRAY_TASK_COUNT",
        "SLURM_ARRAY_TASK_MIN",
        "SLURM_ARRAY_TASK_MAX",
    ] {
        cmd.env_remove(v);
    }
    cmd.env_remove("JOB_COMPLETION_INDEX");
    for (k, v) in vars {
        cmd.env(k, v);
    }
    cmd.output().expect("run fam")
}

/// The duel, written into `dir` with its records named by absolute paths,
/// edited by `edit`.
fn duel_in(dir: &Path, name: &str, edit: impl Fn(String) -> String) -> String {
    let duel = std::fs::read_to_string(repo().join("scenarios/duel.toml")).unwrap();
    let ssd = format!("{}/", repo().join("ssd").display());
    let path = dir.join(name);
    std::fs::write(&path, edit(duel.replace("../ssd/", &ssd))).unwrap();
    path.display().to_string()
}

/// Runs `args` with and without `--quiet` (and `-q`): the notes and
/// warnings it prints without are gone with it, standard output and the
/// exit code the same. Returns the standard error without `--quiet`.
fn quiet_silences(args: &[&str], vars: &[(&str, &str)]) -> String {
    let loud = fam_with(args, vars);
    for flag in ["--quiet", "-q"] {
        let mut with = args.to_vec();
        with.push(flag);
        let quiet = fam_with(&with, vars);
        assert!(quiet.stderr.is_empty(), "{with:?}: {}", text(&quiet.stderr));
        assert_eq!(quiet.status.code(), loud.status.code(), "{with:?}");
        assert_eq!(text(&quiet.stdout), text(&loud.stdout), "{with:?}");
    }
    assert!(loud.status.success(), "{args:?}: {}", text(&loud.stderr));
    text(&loud.stderr)
}

#[test]
fn quiet_leaves_nothing_but_errors_on_standard_error() {
    let dir = tempfile::tempdir().unwrap();
    // The duel as shipped has nothing to say off a terminal, with or without.
    let said = quiet_silences(&["batch", "scenarios/duel.toml", "--runs", "50"], &[]);
    assert_eq!(said, "");
    // A Fire Control with a target and no weapons is a warning …
    let no_weapons = |t: String| t.replacen("weapons = [9, 10] }", "weapons = [] }", 1);
    let warned = duel_in(dir.path(), "warned.toml", no_weapons);
    let said = quiet_silences(&["batch", &warned, "--runs", "50"], &[]);
    assert!(said.contains("warning: this Fire Control"), "{said}");
    // … the shard a scheduler names is a note …
    let said = quiet_silences(
        &["batch", "scenarios/duel.toml", "--runs", "50", "--shard", "env/2"],
        &[("SLURM_ARRAY_TASK_ID", "1")],
    );
    assert!(said.contains("note: playing shard 1/2"), "{said}");
    // … and so is a Formation that fam plots for.
    let said = quiet_silences(&["resolve", "scenarios/standing-orders.toml"], &[]);
    assert!(said.contains("note: Formation `Salvo` has no plot"), "{said}");
    // Errors are still printed, and only they: the warning goes, the
    // unknown ship stays.
    let broken = duel_in(dir.path(), "broken.toml", |t| {
        no_weapons(t).replace("Watch = [\"KRD Long Watch\"]", "Watch = [\"KRD Long Wach\"]")
    });
    for args in [vec!["batch", &broken, "--runs", "5"], vec!["resolve", &broken]] {
        let loud = fam_with(&args, &[]);
        let mut with = args.clone();
        with.push("--quiet");
        let quiet = fam_with(&with, &[]);
        assert_eq!(
            (loud.status.code(), quiet.status.code()),
            (Some(2), Some(2)),
            "{args:?}"
        );
        let (loud, quiet) = (text(&loud.stderr), text(&quiet.stderr));
        assert!(loud.contains("warning:") && loud.contains("error:"), "{loud}");
        assert!(quiet.contains("error:") && quiet.contains("KRD Long Wach"), "{quiet}");
        assert!(!quiet.contains("warning"), "{quiet}");
    }
    let missing = fam_with(&["--quiet", "check", "no/such/file.gzf"], &[]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("cannot read `no/such/file.gzf`"));
}

/// On a terminal a batch that runs for more than half a second draws a
/// progress bar on standard error; `--quiet` draws none. `script` (from
/// util-linux) gives the batch a terminal; the batch is stopped after a
/// second and a half, long past the bar's first drawing (`timeout`'s exit
/// status 124 says it was still playing then).
#[cfg(target_os = "linux")]
#[test]
fn quiet_draws_no_progress_bar_on_a_terminal() {
    let on_terminal = |quiet: &str| -> String {
        let line = format!(
            "timeout --foreground -s INT 1.5 {} batch scenarios/duel.toml --runs 100000000 --threads 1 {quiet}",
            env!("CARGO_BIN_EXE_fam")
        );
        let out = Command::new("script")
            .args(["-q", "-e", "-c", &line, "/dev/null"])
            .current_dir(repo())
            .env_remove("NO_COLOR")
            .output()
            .expect("`script` (util-linux) gives the batch a terminal");
        let shown = text(&out.stdout);
        assert_eq!(out.status.code(), Some(124), "{line}: {shown}");
        shown
    };
    let loud = on_terminal("");
    assert!(loud.contains("runs/s"), "no progress bar on a terminal: {loud:?}");
    let quiet = on_terminal("--quiet");
    assert!(!quiet.contains("runs/s"), "{quiet:?}");
}
