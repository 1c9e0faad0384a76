//! `fam resolve`: the report, the log and the written-back records.

use crate::support::{fam, fixtures, golden, repo, text};

/// The duel's report at seed 1, checked by hand against the rules: bands,
/// beam dice by range band, screen-1 readings, rerolls, armour then hull,
/// crew factor in box 6 of 18, row-1 threshold at 6+ (core −1), drive halved
/// then repaired by both parties on a d6 of 1.
#[test]
fn the_duel_report_at_seed_1_is_the_one_checked_by_hand() {
    let out = fam(&["resolve", "scenarios/duel.toml", "--seed", "1"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let path = fixtures("reports").join("duel-seed1.txt");
    if let Some(diff) = golden(&path, &text(&out.stdout)) {
        panic!("{diff}");
    }
}

/// The squadron action's report at seed 3, checked by hand line by line
/// against the rules and the scenario's plots. Checked: every Speed and
/// Evasion pool (4-5 one point, 6 two) and its split against the plot, the
/// single plot entry of Anvil and Homestead standing for all three Volleys;
/// Formation Thrust as the slowest Unit (Homestead 2); all 30 pair ranges
/// through close → withdraw → maintain, with primary, secondary (−1 SP) and
/// unplotted (secondary Maintain) targets, Maintain stopping at the Volley's
/// start (Lancers/Furrow 30 → 27 → 30); percentile bands by mass, largest
/// first, with the plotted +10 shifts (Lancers 01-65/66-100, Homestead
/// 01-61/62-100) and every d100 → Unit; default weapon lists (PDS and PDAF
/// left out); out of range by closed 12 MU bands; the six beam attacks at
/// 30 MU (one die each), DRM from the target Formation's Evasion less the
/// arcs ignored (FB1 three-arc battery ignores one, FT2 one-arc battery
/// none), screen level of the Unit hit (Long Furrow and Clear Heading 1,
/// Thorn Hedge and Small Hours 0), a 4 scoring nothing against a screen;
/// Steadfast Reckoning's damaged battery knocked out in Volley 1, repaired
/// by its 3 crew-factor parties on a d6 of 3, then firing (out of range);
/// the end ranges and the status table (damage carried in from the records:
/// "damaged", not crippled). No hit lands, so damage, thresholds and core
/// rolls are not exercised here.
#[test]
fn the_squadron_report_at_seed_3_is_the_one_checked_by_hand() {
    let out = fam(&["resolve", "scenarios/squadron-action.toml", "--seed", "3"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let path = fixtures("reports").join("squadron-seed3.txt");
    if let Some(diff) = golden(&path, &text(&out.stdout)) {
        panic!("{diff}");
    }
}

/// The fleet action's report at seed 5, checked by hand line by line against
/// the rules and the scenario's plots. Checked: every Speed and Evasion pool
/// and its split (Convoy's empty Evasion pool, Gale's 6 6 6 = 6 points);
/// Formation Thrust as the slowest Unit (Thunder 4 under High Fell Thunder's
/// 5); all 108 pair ranges through close → withdraw → maintain, with
/// primary, secondary (−1 SP, floor 0) and unplotted targets, Maintain
/// stopping at the Volley's start (Screen/Convoy 60 → 66 → 60,
/// Cruisers/Gale 42 → 39 → 42) and ranges above 60 (Battle Line/Convoy 63);
/// percentile bands by mass with rounding of the cumulative share (Thunder
/// 01-56, Carrier Group 01-64, Pickets' frigate 01-67 first though listed
/// second) and Screen's +10 shift (01-57/58-100); every d100 → Unit; the inactive
/// Fire Control left out; default weapon lists; class-4 batteries at 42 MU
/// rolling one die, DRM −1 for a three-arc and −2 for a one-arc battery
/// against Thunder's 2 Evasion Points, unscreened targets; Steadfast
/// Reckoning's three failed repairs (d6 5, 5, 6 against 3 parties); the end
/// ranges and the status table, Sharp Descent crippled from the start (its
/// only weapons are a one-shot rack and a PDS, E15). No hit lands, so damage,
/// thresholds and core rolls are not exercised here.
#[test]
fn the_fleet_report_at_seed_5_is_the_one_checked_by_hand() {
    let out = fam(&["resolve", "scenarios/fleet-action.toml", "--seed", "5"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let path = fixtures("reports").join("fleet-seed5.txt");
    if let Some(diff) = golden(&path, &text(&out.stdout)) {
        panic!("{diff}");
    }
}

#[test]
fn every_shipped_scenario_resolves_the_same_way_twice() {
    for s in ["duel", "squadron-action", "fleet-action"] {
        let p = format!("scenarios/{s}.toml");
        let a = fam(&["resolve", &p, "--seed", "99", "--format", "markdown"]);
        assert!(a.status.success(), "{s}: {}", text(&a.stderr));
        let b = fam(&["resolve", &p, "--seed", "99", "--format", "markdown"]);
        assert_eq!(a.stdout, b.stdout, "{s}: same seed, different report");
        assert!(text(&a.stdout).contains("Seed 99"));
        let c = fam(&["resolve", &p, "--seed", "100"]);
        assert_ne!(a.stdout, c.stdout, "{s}: the seed is not used");
    }
}

#[test]
fn log_and_records_are_written_atomically_and_inputs_stay_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("duel.jsonl");
    let out = dir.path().join("next");
    let before = std::fs::read(repo().join("ssd/kestrel-reach.gzf")).unwrap();
    let run = fam(&[
        "resolve",
        "scenarios/duel.toml",
        "--seed",
        "1",
        "--log",
        log.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert_eq!(std::fs::read(repo().join("ssd/kestrel-reach.gzf")).unwrap(), before);

    // The log: a header, then one JSON object per die and event.
    let log_text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<serde_json::Value> = log_text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines[0]["schema"], "fam-events");
    assert_eq!(lines[0]["version"], 1);
    assert_eq!(lines[0]["seed"], 1);
    let rolls = lines.iter().filter(|l| l["type"] == "roll").count();
    assert!(rolls > 20);
    for (i, l) in lines.iter().enumerate().skip(1) {
        assert_eq!(l["seq"], i as u64);
    }

    // The records: Long Watch comes back with 6 hull boxes crossed, 3 armour
    // gone, its FCS damaged (as in the hand-checked report), and loads again.
    let written = std::fs::read_to_string(out.join("kestrel-reach.gzf")).unwrap();
    let parsed = fam::gzf::parse(&written, &fam::gzf::ParseOptions::default());
    assert!(!parsed.has_errors());
    let watch = parsed.file.ship("KRD Long Watch").unwrap();
    assert_eq!(watch.hull_boxes() - watch.hull_remaining(), 6);
    assert_eq!(watch.armour_remaining(), 0);
    assert_eq!(watch.crew_factors(), 2);
    let fcs = &watch.systems[5];
    assert_eq!(fcs.status.damage, Some(fam::gzf::DamageState::Damaged));
    assert!(out.join("meridian-compact.gzf").exists());
    let state = std::fs::read_to_string(out.join("state.toml")).unwrap();
    let state: toml::Table = state.parse().unwrap();
    assert_eq!(state["range"][0]["mu"].as_integer(), Some(21));
    // Nothing else (no temporaries) in the output directory.
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 3);
}

#[test]
fn a_bad_scenario_writes_nothing_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("bad.toml");
    let ssd = repo().join("ssd/meridian-compact.gzf");
    std::fs::write(
        &scenario,
        format!(
            "gzf = [{:?}]\nseed = 1\n[sides]\nA = [\"F\"]\n[formations]\nF = [\"MCS Nowhere\"]\n",
            ssd.display().to_string()
        ),
    )
    .unwrap();
    let log = dir.path().join("log.jsonl");
    let run = fam(&["resolve", scenario.to_str().unwrap(), "--log", log.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(2));
    assert!(text(&run.stderr).contains("MCS Nowhere"), "{}", text(&run.stderr));
    assert!(!log.exists());
    assert!(run.stdout.is_empty());
}

#[test]
fn a_scenario_without_a_seed_needs_one_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let text_in = std::fs::read_to_string(repo().join("scenarios/duel.toml")).unwrap();
    let unseeded: String = text_in
        .lines()
        .filter(|l| !l.starts_with("seed"))
        .map(|l| l.replace("../ssd/", &format!("{}/ssd/", repo().display())) + "\n")
        .collect();
    let path = dir.path().join("duel.toml");
    std::fs::write(&path, unseeded).unwrap();
    let run = fam(&["resolve", path.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(2));
    assert!(text(&run.stderr).contains("--seed"));
    let seeded = fam(&["resolve", path.to_str().unwrap(), "--seed", "1"]);
    assert!(seeded.status.success(), "{}", text(&seeded.stderr));
}
