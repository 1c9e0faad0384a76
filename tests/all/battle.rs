//! Whole battles through `fam resolve --exchanges K` and the `[victory]` table.

use crate::support::{fam, repo, text};

fn scenario_with(extra: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::read_to_string(repo().join("scenarios/duel.toml")).unwrap();
    let fixed = base.replace("../ssd/", &format!("{}/ssd/", repo().display()));
    // Top-level tables go before the first plot table.
    let at = fixed.find("[sides]").unwrap();
    let text = format!("{}{extra}\n{}", &fixed[..at], &fixed[at..]);
    let path = dir.path().join("battle.toml");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

#[test]
fn a_battle_runs_to_a_decision_the_same_way_every_time() {
    let a = fam(&["resolve", "scenarios/duel.toml", "--exchanges", "20", "--seed", "5"]);
    assert!(a.status.success(), "{}", text(&a.stderr));
    let b = fam(&["resolve", "scenarios/duel.toml", "--exchanges", "20", "--seed", "5"]);
    assert_eq!(a.stdout, b.stdout);
    let report = text(&a.stdout);
    assert!(report.contains("Battle seed 5"), "{report}");
    assert!(report.contains("\nResult\n"), "{report}");
    assert!(
        report.contains(" wins: ") || report.contains("A draw: "),
        "a duel of 20 Exchanges is decided:\n{report}"
    );
    // The first Exchange is the one a single resolve plays.
    let single = text(&fam(&["resolve", "scenarios/duel.toml", "--seed", "5"]).stdout);
    let end_line = single
        .lines()
        .find(|l| l.trim_start().starts_with("MCS Clear Heading  "))
        .unwrap();
    let _ = end_line;
    let detail = text(
        &fam(&[
            "resolve",
            "scenarios/duel.toml",
            "--exchanges",
            "20",
            "--seed",
            "5",
            "--detail",
        ])
        .stdout,
    );
    let first_volley = single.find("Volley 1").unwrap();
    let first_end = single.find("End of the Exchange").unwrap();
    assert!(
        detail.contains(&single[first_volley..first_end]),
        "Exchange 1 in full matches the single resolve"
    );
}

#[test]
fn the_exchange_limit_from_the_victory_table_ends_in_a_draw() {
    let (_dir, path) = scenario_with("[victory]\nmax_exchanges = 1\nmorale = false\n");
    let out = fam(&["resolve", path.to_str().unwrap(), "--exchanges", "5", "--seed", "1"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    assert!(report.contains("A draw: the Exchange limit was reached."), "{report}");
    assert!(!report.contains("Exchange 2 ("), "stopped after one Exchange");
}

#[test]
fn a_named_unit_trigger_needs_a_known_unit_and_side() {
    let (_dir, path) = scenario_with(
        "[victory]\nunit_destroyed = [{ unit = \"KRD Nobody\", winner = \"Ilse\" }, { unit = \"KRD Long Watch\", winner = \"Nobody\" }]\n",
    );
    let out = fam(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("no Unit named `KRD Nobody`"), "{err}");
    assert!(err.contains("unknown side `Nobody`"), "{err}");
}

#[test]
fn the_json_result_names_the_winner_and_every_units_fate() {
    let out = fam(&[
        "resolve",
        "scenarios/duel.toml",
        "--exchanges",
        "20",
        "--seed",
        "5",
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["schema"], "fam-result");
    assert_eq!(v["version"], 1);
    assert_eq!(v["battle_seed"], 5);
    let exchanges = v["exchanges"].as_array().unwrap();
    assert!(!exchanges.is_empty());
    assert_eq!(exchanges[0]["seed"], 5, "Exchange 1 plays the battle seed itself");
    let units = v["units"].as_array().unwrap();
    assert_eq!(units.len(), 2);
    // The report and the JSON agree on the decision.
    let report = text(&fam(&["resolve", "scenarios/duel.toml", "--exchanges", "20", "--seed", "5"]).stdout);
    match v["outcome"]["winner"].as_u64() {
        Some(side) => {
            let name = v["sides"][side as usize]["name"].as_str().unwrap();
            assert!(report.contains(&format!("{name} wins")), "{report}");
            let loser_lost = v["sides"][1 - side as usize]["mass_lost"].as_u64().unwrap();
            assert!(loser_lost > 0);
        }
        None => assert!(report.contains("A draw") || report.contains("No decision"), "{report}"),
    }
}

/// A Reserve round trip through the play-by-mail files: a Formation that
/// ends an Exchange 65 MU or more from every enemy withdraws to the Reserve
/// (fm-readings 22), the next scenario lists it there, and entering combat
/// brings it back at 60 MU from every enemy Formation.
#[test]
fn a_formation_withdraws_to_the_reserve_and_comes_back_at_60_mu() {
    let ssd = repo().join("ssd");
    let scenario = format!(
        r#"title = "Reserve trial"
gzf = ["{m}/meridian-compact.gzf", "{m}/kestrel-reach.gzf"]
start_range = 30

[reserves]
enabled = true

[victory]
max_exchanges = 10
morale = false

[sides]
Ilse = ["Heading", "Ember"]
Marek = ["Watch", "Gale"]

[formations]
Heading = ["MCS Clear Heading"]
Ember = ["MCS Patient Ember"]
Watch = ["KRD Long Watch"]
Gale = ["KRD Ninefold Gale"]

[[range]]
between = ["Watch", "Heading"]
mu = 62

[[range]]
between = ["Watch", "Ember"]
mu = 62

[[plot.Watch.volley]]
speed = 6
evasion = 0
primary = {{ withdraw = "Heading" }}
secondary = {{ withdraw = "Ember" }}
fire = [{{ target = "inactive" }}]
"#,
        m = ssd.display()
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("reserve.toml");
    std::fs::write(&path, scenario).unwrap();
    let mut found = None;
    for seed in 1..=40u64 {
        let out = dir.path().join(format!("next{seed}"));
        let run = fam(&[
            "resolve",
            path.to_str().unwrap(),
            "--seed",
            &seed.to_string(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(run.status.success(), "{}", text(&run.stderr));
        if text(&run.stdout).contains("Watch is 65 MU or more from every enemy Formation") {
            found = Some(out);
            break;
        }
    }
    let out = found.expect("in 40 seeds the withdrawing Formation reaches 65 MU at least once");
    let next = std::fs::read_to_string(out.join("scenario.toml")).unwrap();
    assert!(next.contains("in_reserve = [\"Watch\"]"), "{next}");
    // Plotting a Formation in the Reserve is refused.
    let marek = std::fs::read_to_string(out.join("orders-Marek.toml")).unwrap();
    assert!(
        !marek.contains("[[plot.Watch"),
        "no template for a Formation in the Reserve:\n{marek}"
    );
    // Bring it back.
    let back = next.replace(
        "in_reserve = [\"Watch\"]",
        "in_reserve = [\"Watch\"]\nenter = [\"Watch\"]",
    );
    let back_path = out.join("scenario.toml");
    std::fs::write(&back_path, back).unwrap();
    let run = fam(&["resolve", back_path.to_str().unwrap(), "--seed", "1"]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let report = text(&run.stdout);
    assert!(
        report.contains("Watch arrives from the Reserve, 60 MU from every enemy Formation"),
        "{report}"
    );
    let ranges = &report[report.rfind("Ranges (MU):").unwrap()..];
    let watch_row = ranges.lines().find(|l| l.trim_start().starts_with("Watch")).unwrap();
    let cells: Vec<&str> = watch_row.split_whitespace().collect();
    // Columns: Heading, Ember, Watch, Gale.
    assert_eq!(&cells[1..3], ["60", "60"], "{ranges}");
}
