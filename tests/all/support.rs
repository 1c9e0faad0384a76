//! Shared helpers: paths, golden-file comparison, running the binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixtures(dir: &str) -> PathBuf {
    repo().join("tests/fixtures").join(dir)
}

/// Files with extension `ext` in `dir`, sorted.
pub fn files_with(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    out.sort();
    out
}

/// Compares `actual` with the golden file; `FAM_BLESS=1` rewrites it.
/// Returns a description of the mismatch, if any.
pub fn golden(path: &Path, actual: &str) -> Option<String> {
    if std::env::var_os("FAM_BLESS").is_some() {
        std::fs::write(path, actual).expect("write golden file");
        return None;
    }
    let expected = std::fs::read_to_string(path).unwrap_or_default();
    (expected != actual).then(|| {
        format!(
            "{} differs from the output (FAM_BLESS=1 rewrites it after a check by hand)\n--- expected\n{expected}\n--- actual\n{actual}",
            path.display()
        )
    })
}

pub fn fam(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fam"))
        .args(args)
        .current_dir(repo())
        .output()
        .expect("run fam")
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Every diagnostic of a refused or warned build as
/// `file:line:col: error|warning: message`.
pub fn diagnostic_lines(reports: &[fam::orders::Report]) -> Vec<String> {
    let mut out = Vec::new();
    for (source, diags) in reports {
        for d in diags {
            let (line, col) = source.line_col(d.span.start);
            let sev = if d.is_error() { "error" } else { "warning" };
            out.push(format!("{}:{line}:{col}: {sev}: {}", source.name, d.message));
        }
    }
    out
}
