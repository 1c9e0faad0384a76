//! docs/gzf.md: its example files read without a problem, pass `fam check`,
//! and are in the form `fam ssd fmt` writes, so the document cannot drift
//! from the reader and the writer.

use fam::gzf::{self, ParseOptions, Profile};

use crate::support::{fam, repo, text};

/// The fenced ```gzf blocks of a Markdown text.
fn gzf_blocks(markdown: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match &mut current {
            None if line.trim_end() == "```gzf" => current = Some(String::new()),
            None => {}
            Some(_) if line.trim_end() == "```" => out.extend(current.take()),
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
        }
    }
    assert!(current.is_none(), "an unclosed ```gzf block");
    out
}

#[test]
fn the_examples_in_docs_gzf_read_cleanly_and_are_canonical() {
    let doc = std::fs::read_to_string(repo().join("docs/gzf.md")).unwrap();
    let blocks = gzf_blocks(&doc);
    let profiles: Vec<Profile> = blocks
        .iter()
        .map(|b| gzf::parse(b, &ParseOptions::default()).file.profile)
        .collect();
    assert_eq!(profiles, [Profile::Fb1, Profile::Ft2], "one example per profile");
    let dir = tempfile::tempdir().unwrap();
    for (k, block) in blocks.iter().enumerate() {
        let parsed = gzf::parse(block, &ParseOptions::default());
        assert!(
            parsed.diagnostics.is_empty(),
            "example {}: {:?}",
            k + 1,
            parsed.diagnostics
        );
        assert!(parsed.file.ships().count() == 1, "example {} has one ship", k + 1);
        assert_eq!(&gzf::write(&parsed.file), block, "example {} is not canonical", k + 1);
        // The design checks of `fam check` pass too.
        let path = dir.path().join(format!("example{k}.gzf"));
        std::fs::write(&path, block).unwrap();
        let o = fam(&["check", "--strict", path.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "example {}: {}", k + 1, text(&o.stderr));
    }
}

#[test]
fn the_damaged_file_in_docs_gzf_gives_the_errors_it_shows() {
    let doc = std::fs::read_to_string(repo().join("docs/gzf.md")).unwrap();
    let start = doc
        .find("```text\nProfile: FB1\n\nShip: Broken Reed")
        .expect("the damaged example");
    let body = &doc[start + "```text\n".len()..];
    let broken = &body[..body.find("```").unwrap()];
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("broken.gzf"), broken).unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_fam"))
        .args(["check", "broken.gzf"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    // Each error block the document shows is in fam's output as shown.
    let rest = &body[body.find("```").unwrap() + 3..];
    let shown_start = rest.find("```text\n").unwrap() + "```text\n".len();
    let shown = &rest[shown_start..];
    let shown = &shown[..shown.find("```").unwrap()];
    for block in shown.split("\n\n") {
        assert!(
            err.contains(block.trim_end()),
            "not in fam's output:\n{block}\n--- output:\n{err}"
        );
    }
}
