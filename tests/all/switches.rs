//! The `[rules]` switches for disputed readings (issue 16): Evasion rerolls
//! of point-defence dice (`pd_evasion_reroll`, readings W8) and a needle
//! beam's natural 6 (`needle_six_scores`, W11). Read, refused when wrong
//! with a place and a near name, played, and kept by `fam resolve --out`.
//! The exact probabilities are tested with the dice (`crates/fam-engine/src/engine/dice.rs`).

use std::path::{Path, PathBuf};

use fam::engine::rules::PdEvasionReroll;

use crate::support::{fam, repo, text};

/// `scenarios/NAME.toml` written into `dir` with the record paths made
/// absolute and `rules` (the lines of a `[rules]` table, or nothing) put
/// before its `[sides]`.
fn scenario(dir: &Path, name: &str, rules: &str) -> PathBuf {
    let original = std::fs::read_to_string(repo().join("scenarios").join(format!("{name}.toml"))).unwrap();
    let ssd = format!("{}/", repo().join("ssd").display());
    let table = if rules.is_empty() {
        String::new()
    } else {
        format!("[rules]\n{rules}\n\n")
    };
    let body = original
        .replace("../ssd/", &ssd)
        .replacen("[sides]", &format!("{table}[sides]"), 1);
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, body).unwrap();
    path
}

fn load(path: &Path) -> fam::orders::Loaded {
    fam::orders::load_scenario(path, &[], &fam::gzf::ParseOptions::default())
        .unwrap_or_else(|_| panic!("{} loads", path.display()))
}

#[test]
fn the_switches_are_read_and_default_to_todays_readings() {
    let dir = tempfile::tempdir().unwrap();
    let plain = load(&scenario(dir.path(), "duel", ""));
    assert_eq!(plain.battle.rules.pd_evasion_reroll, PdEvasionReroll::AnyMiss);
    assert!(!plain.battle.rules.needle_six_scores);
    let set = load(&scenario(
        dir.path(),
        "duel",
        "pd_evasion_reroll = \"once_per_die\"\nneedle_six_scores = true",
    ));
    assert_eq!(set.battle.rules.pd_evasion_reroll, PdEvasionReroll::OncePerDie);
    assert!(set.battle.rules.needle_six_scores);
    let back = load(&scenario(dir.path(), "duel", "pd_evasion_reroll = \"any_miss\""));
    assert_eq!(back.battle.rules.pd_evasion_reroll, PdEvasionReroll::AnyMiss);
}

/// `fam check` on a scenario whose `[rules]` holds `line`: exit code and
/// standard error.
fn check_rules(dir: &Path, line: &str) -> (Option<i32>, String) {
    let path = scenario(dir, "duel", line);
    let out = fam(&["check", path.to_str().unwrap()]);
    (out.status.code(), text(&out.stderr) + &text(&out.stdout))
}

#[test]
fn a_wrong_value_or_key_is_refused_at_its_place_with_a_near_name() {
    let dir = tempfile::tempdir().unwrap();
    // The `[rules]` table goes on line 8 (before `[sides]`): its first key
    // is line 9.
    let (code, err) = check_rules(dir.path(), "pd_evasion_reroll = \"once_per_dice\"");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("duel.toml:9:21"), "{err}");
    assert!(err.contains("did you mean `once_per_die`?"), "{err}");

    let (code, err) = check_rules(dir.path(), "pd_evasion_reroll = \"every miss\"");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("duel.toml:9:21"), "{err}");
    assert!(
        err.contains("any_miss") && err.contains("once_per_die"),
        "the values are listed: {err}"
    );

    let (code, err) = check_rules(dir.path(), "needle_six_score = true");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("duel.toml:9:1"), "{err}");
    assert!(err.contains("did you mean `needle_six_scores`?"), "{err}");

    let (code, err) = check_rules(dir.path(), "needle_six_scores = \"yes\"");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("duel.toml:9:21"), "{err}");

    let (code, err) = check_rules(
        dir.path(),
        "pd_evasion_reroll = \"once_per_die\"\nneedle_six_scores = true",
    );
    assert_eq!(code, Some(0), "{err}");
}

/// `fam resolve --out` of `rules` at `seed`: the next Exchange's
/// scenario text and the event log.
fn resolve(dir: &Path, name: &str, rules: &str, seed: &str) -> (String, String) {
    let path = scenario(dir, name, rules);
    let out = dir.join(format!("next-{seed}"));
    let log = dir.join(format!("log-{seed}.jsonl"));
    let run = fam(&[
        "resolve",
        path.to_str().unwrap(),
        "--seed",
        seed,
        "--log",
        log.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    (
        std::fs::read_to_string(out.join("scenario.toml")).unwrap(),
        std::fs::read_to_string(log).unwrap(),
    )
}

#[test]
fn the_next_exchange_keeps_the_switches() {
    let dir = tempfile::tempdir().unwrap();
    let rules = "pd_evasion_reroll = \"once_per_die\"\nneedle_six_scores = true";
    let (next, _) = resolve(dir.path(), "duel", rules, "3");
    assert!(next.contains("\npd_evasion_reroll = \"once_per_die\"\n"), "{next}");
    assert!(next.contains("\nneedle_six_scores = true\n"), "{next}");
    // Read back, the next Exchange plays under them.
    let written = dir.path().join("next-3").join("scenario.toml");
    let rules = load(&written).battle.rules;
    assert_eq!(rules.pd_evasion_reroll, PdEvasionReroll::OncePerDie);
    assert!(rules.needle_six_scores);
    // Defaults are written out too, so the next file says what it plays.
    let (next, _) = resolve(dir.path(), "duel", "", "4");
    assert!(next.contains("\npd_evasion_reroll = \"any_miss\"\n"), "{next}");
    assert!(next.contains("\nneedle_six_scores = false\n"), "{next}");
}

/// Every `pd_roll` of a log: (initial dice, Evasion rerolls).
fn pd_rolls(log: &str) -> Vec<(usize, usize)> {
    log.lines()
        .skip(1)
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["type"] == "pd_roll")
        .map(|v| {
            let n = |k: &str| v[k].as_array().map_or(0, Vec::len);
            (n("faces"), n("evasion_faces"))
        })
        .collect()
}

/// The missile strike under both readings, over a few seeds: once per die,
/// no PD weapon rerolls more than its one initial die; any miss, some
/// weapon's die takes a second point when its reroll misses again.
#[test]
fn once_per_die_never_rerolls_a_pd_die_twice_in_a_battle() {
    let dir = tempfile::tempdir().unwrap();
    let mut twice = 0;
    let mut rerolled = 0;
    for seed in ["1", "2", "3", "5", "8"] {
        let (_, log) = resolve(
            dir.path(),
            "missile-strike",
            "pd_evasion_reroll = \"once_per_die\"",
            seed,
        );
        for (initial, evasion) in pd_rolls(&log) {
            assert!(evasion <= initial, "seed {seed}: {evasion} rerolls of {initial} dice");
            rerolled += evasion;
        }
        let (_, log) = resolve(dir.path(), "missile-strike", "", seed);
        twice += pd_rolls(&log).iter().filter(|(i, e)| e > i).count();
    }
    assert!(rerolled > 0, "Evasion rerolls happened once per die");
    assert!(twice > 0, "under any miss a die was rerolled twice");
}
