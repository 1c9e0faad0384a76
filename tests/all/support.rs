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

/// Checks `actual` against the golden file `NAME.snap` in `dir`, an
/// `insta` snapshot that was read by hand against the rules before it was
/// committed. A difference fails with insta's line diff, and the new output
/// is left beside it as `NAME.snap.new`; `cargo insta review` (or
/// `INSTA_UPDATE=always cargo test`) accepts it, to be read by hand again.
pub fn golden(dir: &Path, name: &str, actual: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(dir);
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(name.to_owned(), actual));
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

/// `p` checked against `b` ([`fam::engine::plot::ExchangePlot::check`]),
/// as the engine plays it: a test's plot is one the engine accepts.
pub fn checked(
    b: &fam::engine::state::Battle,
    p: &fam::engine::plot::ExchangePlot,
) -> fam::engine::checked::CheckedPlot {
    p.clone().check(b).expect("the test's plot passes the engine's check")
}

/// Plays the first Volley of `p` on exactly `faces` (checked: every face
/// used, no other die drawn), recorded.
pub fn scripted(
    b: &mut fam::engine::state::Battle,
    p: &fam::engine::plot::ExchangePlot,
    faces: &[u8],
) -> fam::engine::event::Recorder {
    let p = checked(b, p);
    let mut rec = fam::engine::event::Recorder::default();
    let mut dice = fam::engine::dice::Dice::from_faces(faces);
    fam::engine::volley::run_volley(
        b,
        &p,
        0,
        &mut dice,
        &mut rec,
        &mut fam::engine::volley::Scratch::default(),
    );
    assert_eq!(dice.count_draws(), faces.len() as u64, "dice used: {faces:?}");
    rec
}

/// `text`, a batch result or checkpoint fam wrote and then edited, with its
/// digest made again for what it now holds, as anyone who knows the recipe
/// (docs/batch-json.md, "Digests") could: every other byte is kept. So an
/// edit the digest alone would refuse reaches the checks behind it. `None`
/// when the text does not read as either document or has no digest.
pub fn resealed(text: &str) -> Option<String> {
    use fam::batch::{checkpoint::CheckpointJson, digest, json::BatchJson};
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    let old = value.get("digest")?.as_str()?;
    let new = if value.get("schema")?.as_str()? == "fam-batch-checkpoint" {
        let mut j: CheckpointJson = serde_json::from_str(text).ok()?;
        digest::seal(&mut j);
        j.digest?
    } else {
        let mut j: BatchJson = serde_json::from_str(text).ok()?;
        digest::seal(&mut j);
        j.digest?
    };
    Some(text.replacen(&format!("\"{old}\""), &format!("\"{new}\""), 1))
}
