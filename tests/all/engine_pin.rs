//! The engine pinned by its results: for every shipped scenario, the batch
//! JSON of 100 runs from one seed, on one thread and on four. The numbers
//! are not a rules check (the rules are checked against exact
//! probabilities elsewhere); they are the engine's answer as it stood when
//! it was pinned, so that a rewrite for speed (or a crate upgrade under the
//! dice) that changes any run of any scenario fails here. Changing a pin
//! is a new version of the engine's results, to be said in the change log.

use fam::batch::{self, Options, json};
use fam::gzf::ParseOptions;

use crate::support::{fixtures, golden, repo};

const RUNS: u64 = 100;

fn scenarios() -> Vec<std::path::PathBuf> {
    let mut all: Vec<_> = std::fs::read_dir(repo().join("scenarios"))
        .expect("scenarios/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    all.sort();
    all
}

/// The batch JSON of `RUNS` runs of a scenario, without the fam version
/// (a release changes it, not the results) and the digest (which covers
/// the fam version), one top-level field a line.
fn pinned_json(path: &std::path::Path, threads: usize) -> String {
    let loaded = fam::orders::load_scenario(path, &[], &ParseOptions::default())
        .unwrap_or_else(|_| panic!("{} loads", path.display()));
    let options = Options {
        seed: 7,
        exchanges: batch::default_exchanges(&loaded),
        threads: Some(threads),
    };
    let tally = batch::run(&loaded, &options, 0..RUNS, &|_| {}).expect("batch");
    let name = format!("scenarios/{}", path.file_name().unwrap().to_string_lossy());
    let meta = batch::Meta::new(&loaded, &name, &options, 0..RUNS);
    let text = json::render(&batch::Report { meta, tally });
    let mut value: serde_json::Value = serde_json::from_str(&text).expect("batch JSON");
    let object = value.as_object_mut().expect("an object");
    object.remove("fam_version");
    object.remove("digest");
    // One top-level field a line: a change shows where it is, and the pins
    // stay small.
    object.iter().map(|(key, v)| format!("{key}: {v}\n")).collect()
}

#[test]
fn every_shipped_scenario_gives_its_pinned_batch_on_one_thread_and_on_four() {
    let all = scenarios();
    assert!(all.len() >= 10, "the shipped scenarios are found");
    for path in all {
        let one = pinned_json(&path, 1);
        assert_eq!(one, pinned_json(&path, 4), "{}: threads change nothing", path.display());
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        golden(&fixtures("pins"), &format!("{stem}.batch"), &one);
    }
}
