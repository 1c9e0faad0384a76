//! The README's examples, run as a reader would type them.
//!
//! Every fenced `sh` block is run line by line with `sh -c`, in README
//! order, in one scratch directory holding copies of `scenarios/` and
//! `ssd/`, with the built `fam` first on `PATH`; each line must succeed.
//! A `console` block holds `$ COMMAND` lines, each followed by the output
//! it must print exactly, where a line `...` stands for any number of
//! lines. A block right after the line `<!-- not run: REASON -->` is left
//! out (installing, writing into the reader's home directory); one right
//! after `<!-- file: NAME -->` is written to NAME (the scenario a reader is
//! told to save), for the blocks after it. No example may write into
//! `scenarios/` or `ssd/`, where the tests read every file.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{repo, text};

const NOT_RUN: &str = "<!-- not run:";
const FILE: &str = "<!-- file: ";

#[derive(Debug, PartialEq)]
enum Kind {
    Shell,
    Console,
    /// A file to save under this name.
    File(String),
}

/// A fenced block: its kind, the README line of its first body line, and
/// its body lines.
#[derive(Debug)]
struct Block {
    kind: Kind,
    first_line: usize,
    lines: Vec<String>,
}

fn blocks(readme: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut lines = readme.lines().enumerate().peekable();
    let mut skip_next = false;
    let mut save_as: Option<String> = None;
    while let Some((_, line)) = lines.next() {
        if line.starts_with(NOT_RUN) {
            skip_next = true;
            continue;
        }
        if let Some(name) = line.strip_prefix(FILE).and_then(|r| r.strip_suffix(" -->")) {
            save_as = Some(name.trim().to_string());
            continue;
        }
        let Some(info) = line.strip_prefix("```") else {
            continue;
        };
        let kind = match (info.trim(), save_as.take()) {
            (_, Some(name)) => Some(Kind::File(name)),
            ("sh", None) => Some(Kind::Shell),
            ("console", None) => Some(Kind::Console),
            _ => None,
        };
        let first_line = lines.peek().map_or(0, |(i, _)| i + 1);
        let body: Vec<String> = lines
            .by_ref()
            .map(|(_, l)| l)
            .take_while(|l| !l.starts_with("```"))
            .map(str::to_owned)
            .collect();
        if let Some(kind) = kind
            && !std::mem::take(&mut skip_next)
        {
            out.push(Block {
                kind,
                first_line,
                lines: body,
            });
        }
    }
    out
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

struct Shell {
    dir: PathBuf,
    path_var: std::ffi::OsString,
}

impl Shell {
    fn new(dir: &Path) -> Shell {
        let bin = PathBuf::from(env!("CARGO_BIN_EXE_fam"));
        let mut paths = vec![bin.parent().expect("binary directory").to_path_buf()];
        paths.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
        Shell {
            dir: dir.to_path_buf(),
            path_var: std::env::join_paths(paths).expect("PATH"),
        }
    }

    fn run(&self, command: &str) -> std::process::Output {
        Command::new("sh")
            .arg("-c")
            .arg(command)
            .current_dir(&self.dir)
            .env("PATH", &self.path_var)
            .env_remove("NO_COLOR")
            .output()
            .expect("run sh")
    }
}

/// Does `actual` match `expected`, where an expected line `...` matches any
/// run of lines (none included)?
fn matches(expected: &[&str], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((&"...", rest)) => (0..=actual.len()).any(|skip| matches(rest, &actual[skip..])),
        Some((line, rest)) => actual.first() == Some(line) && matches(rest, &actual[1..]),
    }
}

/// `$ COMMAND` lines with the lines expected after each.
fn console_steps(block: &Block) -> Vec<(usize, String, Vec<&str>)> {
    let mut steps: Vec<(usize, String, Vec<&str>)> = Vec::new();
    for (i, line) in block.lines.iter().enumerate() {
        match line.strip_prefix("$ ") {
            Some(command) => steps.push((block.first_line + i, command.to_owned(), Vec::new())),
            None => steps
                .last_mut()
                .unwrap_or_else(|| panic!("README line {}: output before any `$ ` command", block.first_line + i))
                .2
                .push(line),
        }
    }
    steps
}

fn run_block(shell: &Shell, block: &Block, failures: &mut Vec<String>) {
    match &block.kind {
        Kind::File(name) => {
            let mut body = block.lines.join("\n");
            body.push('\n');
            std::fs::write(shell.dir.join(name), body).expect("save the README's file");
        }
        Kind::Shell => {
            for (i, line) in block.lines.iter().enumerate() {
                if line.trim().is_empty() {
                    continue;
                }
                let out = shell.run(line);
                if !out.status.success() {
                    failures.push(format!(
                        "README line {}: `{line}` failed ({}):\n{}",
                        block.first_line + i,
                        out.status,
                        text(&out.stderr)
                    ));
                }
            }
        }
        Kind::Console => {
            for (line_no, command, expected) in console_steps(block) {
                let out = shell.run(&command);
                let stdout = text(&out.stdout);
                let actual: Vec<&str> = stdout.lines().collect();
                if !out.status.success() || !matches(&expected, &actual) {
                    failures.push(format!(
                        "README line {line_no}: `{command}` ({}) printed\n{stdout}{}\nwhere the README shows\n{}",
                        out.status,
                        text(&out.stderr),
                        expected.join("\n")
                    ));
                }
            }
        }
    }
}

#[test]
fn every_readme_example_runs_as_written() {
    let readme = std::fs::read_to_string(repo().join("README.md")).expect("README.md");
    let blocks = blocks(&readme);
    assert!(
        blocks.iter().filter(|b| b.kind == Kind::Shell).count() >= 3,
        "the README's examples were not found: {blocks:?}"
    );
    let scratch = tempfile::tempdir().expect("scratch directory");
    for dir in ["scenarios", "ssd"] {
        copy_dir(&repo().join(dir), &scratch.path().join(dir));
    }
    let listing = |dir: &str| {
        let mut names: Vec<_> = std::fs::read_dir(scratch.path().join(dir))
            .expect("read directory")
            .map(|e| e.expect("entry").file_name())
            .collect();
        names.sort();
        names
    };
    let before = [listing("scenarios"), listing("ssd")];
    let shell = Shell::new(scratch.path());
    let mut failures = Vec::new();
    for block in &blocks {
        run_block(&shell, block, &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // What the examples write goes beside, not into the folders the tests
    // read (a scenario written into scenarios/ is one the pins lack).
    assert_eq!([listing("scenarios"), listing("ssd")], before);
}

#[test]
fn a_console_sample_allows_elided_lines_but_nothing_else() {
    assert!(matches(&["a", "...", "d"], &["a", "b", "c", "d"]));
    assert!(matches(&["a", "...", "b"], &["a", "b"]));
    assert!(!matches(&["a", "...", "d"], &["a", "b", "c"]));
    assert!(!matches(&["a", "b"], &["a", "b", "c"]));
    let readme =
        "text\n<!-- not run: installs -->\n```sh\ncargo install\n```\n```sh\nfam check x\n```\n```text\nno\n```\n";
    let found = blocks(readme);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].lines, ["fam check x"]);
    assert_eq!(found[0].first_line, 7);
}
