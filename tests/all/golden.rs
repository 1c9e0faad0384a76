//! Golden tests: `ok/*.gzf` against their model dump (`NAME.dump.snap`),
//! `err/*.gzf` against their rendered diagnostics (`NAME.err.snap`), as
//! `insta` snapshots. Each golden file was read by hand against the
//! profiles before it was committed.

use fam::diag::SourceFile;
use fam::gzf::{self, ParseOptions};

use crate::support::{files_with, fixtures, golden};

/// `NAME.KIND` for the fixture `NAME.gzf`.
fn snapshot_name(path: &std::path::Path, kind: &str) -> String {
    format!("{}.{kind}", path.file_stem().unwrap().to_string_lossy())
}

fn options_for(path: &std::path::Path) -> ParseOptions {
    ParseOptions {
        inert_unknown_systems: path.to_string_lossy().contains("inert"),
    }
}

#[test]
fn valid_files_give_the_expected_model() {
    let mut failures = Vec::new();
    for path in files_with(&fixtures("ok"), "gzf") {
        let bytes = std::fs::read(&path).unwrap();
        let source = SourceFile::from_bytes(path.file_name().unwrap().to_string_lossy(), &bytes);
        let parsed = gzf::parse(&source.text, &options_for(&path));
        let errors: Vec<_> = parsed.diagnostics.iter().filter(|d| d.is_error()).cloned().collect();
        if !errors.is_empty() {
            failures.push(format!(
                "{} has errors:\n{}",
                path.display(),
                source.render(&errors, 20)
            ));
            continue;
        }
        let dump = format!("{:#?}\n", parsed.file);
        golden(&fixtures("ok"), &snapshot_name(&path, "dump"), &dump);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn invalid_files_give_the_expected_positioned_errors() {
    let mut failures = Vec::new();
    let files = files_with(&fixtures("err"), "gzf");
    assert!(files.len() >= 10, "the malformed corpus is missing");
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let source = SourceFile::from_bytes(path.file_name().unwrap().to_string_lossy(), &bytes);
        let parsed = gzf::parse(&source.text, &options_for(&path));
        if !parsed.has_errors() {
            failures.push(format!("{} parsed without errors", path.display()));
            continue;
        }
        let rendered = source.render(&parsed.diagnostics, 50);
        golden(&fixtures("err"), &snapshot_name(&path, "err"), &rendered);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
