//! Several ships of one design: `{ ship = "NAME", count = N }` fields N
//! Units, each with its own damage, exactly as if the N records had been
//! written out by hand; the next Exchange's files keep them apart; wrong
//! counts are refused at their place.

use std::fs;
use std::path::Path;

use crate::support::{fam, repo, text};

/// A scratch folder holding `scenario` (as `battle.toml`) and copies of the
/// named library files.
fn battle(dir: &Path, scenario: &str, files: &[&str]) -> std::path::PathBuf {
    for f in files {
        fs::copy(repo().join("ssd").join(f), dir.join(f)).unwrap();
    }
    let path = dir.join("battle.toml");
    fs::write(&path, scenario).unwrap();
    path
}

const THREE: &str = r#"title = "Three destroyers against a battleship"
gzf = ["meridian-compact.gzf", "kestrel-reach.gzf"]
start_range = 30
seed = 11

[sides]
Ilse = ["Tin Cans"]
Marek = ["Battle Line"]

[formations]
"Tin Cans" = [{ ship = "KRD Ridge Warden", count = 3 }]
"Battle Line" = ["MCS Sovereign Bearing"]
"#;

/// The Units' names of a batch's JSON, of one side or (`None`) all.
fn unit_names(json: &serde_json::Value, side: Option<u64>) -> Vec<String> {
    json["units"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| side.is_none_or(|s| u["side"] == s))
        .map(|u| u["name"].as_str().unwrap().to_string())
        .collect()
}

fn batch_json(path: &Path, runs: &str) -> serde_json::Value {
    let out = fam(&["batch", path.to_str().unwrap(), "--runs", runs, "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_str(&text(&out.stdout)).unwrap()
}

#[test]
fn a_count_of_three_fields_three_units_named_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = battle(dir.path(), THREE, &["meridian-compact.gzf", "kestrel-reach.gzf"]);
    let json = batch_json(&path, "60");
    let names = unit_names(&json, Some(0));
    assert_eq!(names, ["KRD Ridge Warden", "KRD Ridge Warden 2", "KRD Ridge Warden 3"]);
    // The side's points are the three Tors' (133 each, ssd/README.md).
    assert_eq!(json["sides"][0]["points"], 399);
    assert_eq!(json["sides"][1]["points"], 590);
    // Each has its own damage: the three are not one Unit reported thrice.
    let hulls: Vec<String> = json["units"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["side"] == 0)
        .map(|u| u["hull_damage"]["histogram"].to_string())
        .collect();
    assert!(hulls[0] != hulls[1] || hulls[1] != hulls[2], "{hulls:?}");
    // The text report's Units table lists the three.
    let out = fam(&["batch", path.to_str().unwrap(), "--runs", "20"]);
    let report = text(&out.stdout);
    for name in &names {
        assert!(
            report.lines().any(|l| l.starts_with(name.as_str())),
            "{name} in\n{report}"
        );
    }
}

/// The records a count makes, written out by hand: the design's block
/// copied under each name.
fn with_copies(gzf: &str, design: &str, names: &[&str]) -> String {
    let start = gzf.find(&format!("Ship:             {design}\n")).unwrap();
    let end = gzf[start + 1..]
        .find("\nShip:")
        .map_or(gzf.len(), |e| start + 1 + e + 1);
    let block = &gzf[start..end];
    let mut out = gzf.to_string();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    for n in names {
        out.push('\n');
        out.push_str(&block.replacen(design, n, 1));
    }
    out
}

#[test]
fn a_count_plays_the_same_runs_as_the_copies_written_out_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let counted = battle(dir.path(), THREE, &["meridian-compact.gzf", "kestrel-reach.gzf"]);
    let by_count = batch_json(&counted, "150");

    let hand = tempfile::tempdir().unwrap();
    fs::copy(
        repo().join("ssd/meridian-compact.gzf"),
        hand.path().join("meridian-compact.gzf"),
    )
    .unwrap();
    let kestrel = fs::read_to_string(repo().join("ssd/kestrel-reach.gzf")).unwrap();
    fs::write(
        hand.path().join("kestrel-reach.gzf"),
        with_copies(
            &kestrel,
            "KRD Ridge Warden",
            &["KRD Ridge Warden 2", "KRD Ridge Warden 3"],
        ),
    )
    .unwrap();
    let listed = THREE.replace(
        r#"[{ ship = "KRD Ridge Warden", count = 3 }]"#,
        r#"["KRD Ridge Warden", "KRD Ridge Warden 2", "KRD Ridge Warden 3"]"#,
    );
    let path = hand.path().join("battle.toml");
    fs::write(&path, listed).unwrap();
    let by_hand = batch_json(&path, "150");
    for key in ["sides", "draws", "units", "weapons", "exchanges", "decided_by"] {
        assert_eq!(by_count[key], by_hand[key], "{key}");
    }
}

#[test]
fn the_next_exchange_lists_each_unit_with_a_record_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let path = battle(dir.path(), THREE, &["meridian-compact.gzf", "kestrel-reach.gzf"]);
    let out_dir = dir.path().join("turn2");
    let out = fam(&[
        "resolve",
        path.to_str().unwrap(),
        "--exchanges",
        "2",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let scenario = fs::read_to_string(out_dir.join("scenario.toml")).unwrap();
    assert!(
        scenario.contains(r#""Tin Cans" = ["KRD Ridge Warden", "KRD Ridge Warden 2", "KRD Ridge Warden 3"]"#),
        "{scenario}"
    );
    let records = fs::read_to_string(out_dir.join("kestrel-reach.gzf")).unwrap();
    for n in ["KRD Ridge Warden\n", "KRD Ridge Warden 2\n", "KRD Ridge Warden 3\n"] {
        assert_eq!(records.matches(&format!("Ship:             {n}")).count(), 1, "{n}");
    }
    let check = fam(&["check", out_dir.join("scenario.toml").to_str().unwrap()]);
    assert!(check.status.success(), "{}", text(&check.stderr));
    // Each side's points: three Tors at 133 (ssd/README.md) against the
    // Astrolabe's 590.
    assert!(
        text(&check.stdout).contains("points Ilse 399 against Marek 590"),
        "{}",
        text(&check.stdout)
    );
}

#[test]
fn a_carrier_counted_brings_its_own_groups() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = r#"gzf = ["meridian-compact.gzf", "tessaly-carriers.gzf"]
start_range = 30
[sides]
A = ["Kilns"]
B = ["Line"]
[formations]
Kilns = [{ ship = "TFP Ember Kiln", count = 2 }]
Line = ["MCS Sovereign Bearing"]
"#;
    let path = battle(dir.path(), scenario, &["meridian-compact.gzf", "tessaly-carriers.gzf"]);
    let json = batch_json(&path, "5");
    let names = unit_names(&json, None);
    // The Kiln's attack group has a block of its own naming the Kiln: the
    // copy's is numbered like the ship and flies with the copy.
    for group in ["Cinder Flight", "Cinder Flight 2", "TFP Ember Kiln 2/14"] {
        assert!(names.iter().any(|n| n == group), "{group} in {names:?}");
    }
}

#[test]
fn a_name_already_loaded_is_skipped_and_a_listed_design_keeps_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let kestrel = fs::read_to_string(repo().join("ssd/kestrel-reach.gzf")).unwrap();
    // A ship named like the second copy is already in the records.
    fs::write(
        dir.path().join("kestrel-reach.gzf"),
        with_copies(&kestrel, "KRD Ridge Warden", &["KRD Ridge Warden 2"]),
    )
    .unwrap();
    fs::copy(
        repo().join("ssd/meridian-compact.gzf"),
        dir.path().join("meridian-compact.gzf"),
    )
    .unwrap();
    let scenario = THREE.replace(
        r#"[{ ship = "KRD Ridge Warden", count = 3 }]"#,
        r#"["KRD Ridge Warden", { ship = "KRD Ridge Warden", count = 2 }]"#,
    );
    let path = dir.path().join("battle.toml");
    fs::write(&path, scenario).unwrap();
    let json = batch_json(&path, "5");
    let names = unit_names(&json, Some(0));
    assert_eq!(names, ["KRD Ridge Warden", "KRD Ridge Warden 3", "KRD Ridge Warden 4"]);
}

#[test]
fn wrong_counts_are_refused_at_their_place() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = r#"gzf = ["meridian-compact.gzf", "tessaly-carriers.gzf"]
[sides]
A = ["Kilns"]
B = ["Line"]
[formations]
Kilns = [{ ship = "TFP Ember Kiln", count = 0 }, { ship = "Cinder Flight", count = 2 }]
Line = [{ ship = "MCS Sovereign Bearing", count = 101 }, { ship = "MCS Sovereign Bearng", count = 2 }, { ship = "MCS Small Hours", count = 2, crew = 3 }]
"#;
    let path = battle(dir.path(), scenario, &["meridian-compact.gzf", "tessaly-carriers.gzf"]);
    let out = fam(&["check", path.to_str().unwrap(), "--color", "never"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    for want in [
        "a count of 0: a Formation fields 1 to 100 Units\n",
        "battle.toml:6:45\n",
        "`Cinder Flight` is a fighter group: a count is for ship designs",
        "a count of 101: a Formation fields 1 to 100 Units\n",
        "battle.toml:7:51\n",
        "no ship named `MCS Sovereign Bearng`",
        "did you mean `MCS Sovereign Bearing`?",
        "unknown key `crew`",
    ] {
        assert!(err.contains(want), "{want:?} in\n{err}");
    }
    // One wrong member does not hide the Formation: no "unknown Formation".
    assert!(!err.contains("unknown Formation"), "{err}");
}
