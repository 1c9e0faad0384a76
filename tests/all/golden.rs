//! Golden tests: `ok/*.gzf` against their model dump (`.dump`), `err/*.gzf`
//! against their rendered diagnostics (`.err`). Each golden file was read
//! by hand against the profiles before it was committed.

use fam::diag::SourceFile;
use fam::gzf::{self, ParseOptions};

use crate::support::{files_with, fixtures, golden};

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
        failures.extend(golden(&path.with_extension("dump"), &dump));
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
        failures.extend(golden(&path.with_extension("err"), &rendered));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
