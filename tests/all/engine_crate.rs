//! The engine crate stays pure: its manifest names only the seeded random
//! source, and its code reaches for no file, socket, clock, thread or
//! environment. ARCHITECTURE.md ("The engine crate") promises both.

use std::path::{Path, PathBuf};

fn engine_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/fam-engine")
}

/// What the engine may depend on, and nothing else: the dice need `rand`'s
/// traits and ChaCha.
const ALLOWED: &[&str] = &["rand", "rand_chacha"];

#[test]
fn the_engine_manifest_names_only_the_random_source() {
    let text = std::fs::read_to_string(engine_dir().join("Cargo.toml")).unwrap();
    let manifest: toml::Table = text.parse().unwrap();
    let deps = manifest["dependencies"].as_table().unwrap();
    let mut names: Vec<&str> = deps.keys().map(String::as_str).collect();
    names.sort_unstable();
    for name in &names {
        assert!(
            ALLOWED.contains(name),
            "the engine crate depends on {name}, which it may not"
        );
    }
    for table in ["build-dependencies", "features", "target"] {
        assert!(!manifest.contains_key(table), "the engine crate has [{table}]");
    }
    // `rand`'s default features would bring in the operating system's
    // random source and a thread-local generator.
    let rand = deps["rand"].as_table().expect("rand with its features spelt out");
    assert_eq!(rand.get("default-features").and_then(|v| v.as_bool()), Some(false));
}

/// Paths of `std` that reach outside the process's own memory.
const IMPURE: &[&str] = &[
    "std::fs",
    "std::net",
    "std::thread",
    "std::time",
    "std::env",
    "std::io",
    "std::process",
    "std::os",
    "println!",
    "eprintln!",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn the_engine_code_touches_no_file_clock_or_thread() {
    let mut files = Vec::new();
    rust_files(&engine_dir().join("src"), &mut files);
    assert!(files.len() > 40, "the engine's files were not found");
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for word in IMPURE.iter().filter(|w| line.contains(*w)) {
                found.push(format!("{}:{}: {word}", file.display(), n + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "impure code in the engine crate:\n{}",
        found.join("\n")
    );
}
