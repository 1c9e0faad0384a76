//! The orders layer: scenario and orders files → Battle and ExchangePlot.
//! Every validation rule has a test asserting the message and its exact
//! position; the shipped scenarios must load; split plots equal one file.

use crate::support::diagnostic_lines as lines;
use fam::diag::SourceFile;
use fam::engine::plot::{FireOrder, Maneuver, ManeuverOrder, NeedleOrder, PdOrder, VolleyPlot};
use fam::gzf::ParseOptions;
use fam::orders::{self, Loaded, Report};

use crate::support::{fam, files_with, fixtures, repo, text};

/// Two ships for tests of damaged and missing systems: a cutter with two
/// Fire Controls (the second damaged, the third switched off) and a
/// destroyed hulk.
const CUSTOM_GZF: &str = "Profile: FB1

Ship: Test Cutter
Mass: 20
Thrust-Rating: 6
Damage-Track: OO OO O *

System: FCS

System: FCS
Status: Damaged

System: FCS
Status: Inactive

System: Class 2 Battery
Firing-Arc: FP F FS

System: Class 1 Battery
Firing-Arc: FP F FS AP A AS

Ship: Test Hulk
Mass: 20
Status: Destroyed
Thrust-Rating: 6
Damage-Track: -- -- - -

System: FCS

System: Class 1 Battery
Firing-Arc: FP F FS AP A AS
";

/// Reads `ssd/NAME` for the library's files, `CUSTOM_GZF` for `custom.gzf`,
/// and a broken record for `broken.gzf`; `dup.gzf` is a copy of the Meridian
/// file; `ordnance.gzf` and `ft2.gzf` are in tests/fixtures/orders.
fn read_gzf(p: &str) -> Result<SourceFile, String> {
    match p {
        "custom.gzf" => Ok(SourceFile::new(p, CUSTOM_GZF)),
        "broken.gzf" => Ok(SourceFile::new(p, "Ship: Broken\nThrust-Rating: fast\n")),
        "dup.gzf" => read_gzf("meridian-compact.gzf").map(|s| SourceFile::new(p, s.text)),
        "ordnance.gzf" | "ft2.gzf" => std::fs::read_to_string(fixtures("orders").join(p))
            .map(|t| SourceFile::new(p, t))
            .map_err(|e| e.to_string()),
        _ => std::fs::read_to_string(repo().join("ssd").join(p))
            .map(|t| SourceFile::new(p, t))
            .map_err(|e| e.to_string()),
    }
}

fn build(scenario: &str, orders: &[&str]) -> Result<Loaded, Vec<Report>> {
    let orders = orders
        .iter()
        .enumerate()
        .map(|(i, t)| SourceFile::new(format!("orders{}.toml", i + 1), *t))
        .collect();
    orders::build(
        SourceFile::new("scenario.toml", scenario),
        orders,
        &mut read_gzf,
        &ParseOptions::default(),
    )
}

fn problems(scenario: &str, orders: &[&str]) -> Vec<String> {
    match build(scenario, orders) {
        Ok(l) => panic!("expected errors, got none; warnings: {:?}", lines(&l.warnings)),
        Err(r) => lines(&r),
    }
}

/// Line and column (1-based) where `needle` starts in `text`; it must occur
/// once. A `|` in the needle marks the position after some context.
fn pos(text: &str, needle: &str) -> (usize, usize) {
    let (context, rest) = needle.split_once('|').unwrap_or(("", needle));
    let whole = format!("{context}{rest}");
    assert_eq!(
        text.matches(&whole).count(),
        1,
        "needle {whole:?} not unique in\n{text}"
    );
    SourceFile::new("x", text).line_col(text.find(&whole).unwrap() + context.len())
}

/// Asserts an error in `file` starting exactly where `needle` starts whose
/// message contains `fragment`.
fn expect(found: &[String], file: &str, text: &str, needle: &str, fragment: &str) {
    let (line, col) = pos(text, needle);
    let head = format!("{file}:{line}:{col}: error: ");
    assert!(
        found.iter().any(|l| l.starts_with(&head) && l.contains(fragment)),
        "no error at {file}:{line}:{col} ({needle:?}) saying {fragment:?}; found:\n{}",
        found.join("\n")
    );
}

const BASE: &str = r#"gzf = ["meridian-compact.gzf", "kestrel-reach.gzf"]

[sides]
Ilse = ["Lancers", "Needle"]
Marek = ["Wardens"]

[formations]
Lancers = ["MCS Clear Heading", "MCS Small Hours"]
Needle = ["MCS Patient Ember"]
Wardens = ["KRD Ridge Warden", "KRD Long Watch"]
"#;

/// BASE with a plot for Lancers.
fn lancers(volley: &str) -> String {
    format!("{BASE}\n[[plot.Lancers.volley]]\n{volley}")
}

// ---------------------------------------------------------------- success

#[test]
fn a_valid_scenario_builds_the_battle_and_the_plot() {
    let text = format!(
        "start_range = 50\nseed = 42\nexchange = 3\n{BASE}[rules]\nreactor_blast = false\n\n[[range]]\nbetween = [\"Needle\", \"Wardens\"]\nmu = 24\n\n\
         [[plot.Lancers.volley]]\nspeed = 4\nevasion = 2\nprimary = {{ close = \"Wardens\" }}\nsecondary = {{ maintain = \"Needle\" }}\n\
         shift = {{ \"MCS Small Hours\" = 10 }}\n\
         fire = [\n  {{ unit = \"MCS Clear Heading\", fc = 6, target = \"Wardens\", weapons = [8, 9] }},\n  \
         {{ unit = \"MCS Clear Heading\", fc = 7, target = \"Wardens\" }},\n  {{ unit = \"MCS Small Hours\", target = \"Wardens\" }},\n]\n\
         damage_control = {{ \"MCS Clear Heading\" = [6, 2] }}\n"
    );
    let l = build(&text, &[]).unwrap_or_else(|r| panic!("{:?}", lines(&r)));
    let b = &l.battle;
    assert_eq!((l.seed, l.exchange), (Some(42), 3));
    assert!(!b.rules.reactor_blast && b.rules.repair_permanent_bridge && !b.rules.double_drive_check);
    assert_eq!(
        b.sides.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        ["Ilse", "Marek"]
    );
    let names: Vec<_> = b
        .formations
        .iter()
        .map(|f| (f.name.as_str(), f.side, f.units.clone()))
        .collect();
    assert_eq!(
        names,
        [
            ("Lancers", 0, vec![0, 1]),
            ("Needle", 0, vec![2]),
            ("Wardens", 1, vec![3, 4])
        ]
    );
    assert_eq!(b.units[4].name, "KRD Long Watch");
    assert_eq!(b.units[4].formation, 2);
    assert_eq!(b.ranges.get(0, 2), 50);
    assert_eq!(b.ranges.get(1, 2), 24);
    assert_eq!(l.origins[4].record, 1);
    assert_eq!(l.ship(4).name, "KRD Long Watch");

    let p = l.plot.formations[0].as_ref().expect("Lancers plotted");
    assert!(l.plot.formations[1].is_none() && l.plot.formations[2].is_none());
    assert_eq!(l.unplotted(), [1, 2]);
    // One entry stands for all three Volleys.
    assert_eq!(p.volleys[0], p.volleys[1]);
    assert_eq!(p.volleys[1], p.volleys[2]);
    let v = &p.volleys[0];
    assert_eq!((v.speed, v.evasion), (4, 2));
    assert_eq!(
        v.primary,
        Some(ManeuverOrder {
            target: 2,
            maneuver: Maneuver::Close
        })
    );
    assert_eq!(
        v.secondary,
        [ManeuverOrder {
            target: 1,
            maneuver: Maneuver::Maintain
        }]
    );
    assert_eq!(v.shifts, [(1, 10)]);
    // System numbers are 1-based in the file, 0-based in the plot; the
    // default takes every weapon not assigned elsewhere, PDS excepted.
    assert_eq!(
        v.fire,
        [
            FireOrder {
                unit: 0,
                fire_control: 5,
                target: Some(2),
                weapons: vec![7, 8],
                needles: Vec::new(),
                group: None,
            },
            FireOrder {
                unit: 0,
                fire_control: 6,
                target: Some(2),
                weapons: vec![9, 10, 11],
                needles: Vec::new(),
                group: None,
            },
            FireOrder {
                unit: 1,
                fire_control: 4,
                target: Some(2),
                weapons: vec![5],
                needles: Vec::new(),
                group: None,
            },
        ]
    );
    assert_eq!(v.damage_control, [(0, vec![5, 1])]);
    assert!(v.point_defence.is_empty());
}

#[test]
fn speed_or_evasion_may_be_left_out_and_is_then_the_rest_of_the_thrust() {
    let l = build(&lancers("speed = 5\n"), &[]).unwrap_or_else(|r| panic!("{:?}", lines(&r)));
    let v = &l.plot.formations[0].as_ref().unwrap().volleys[0];
    assert_eq!((v.speed, v.evasion), (5, 1));
    let l = build(&lancers("evasion = 3\n"), &[]).unwrap_or_else(|r| panic!("{:?}", lines(&r)));
    let v = &l.plot.formations[0].as_ref().unwrap().volleys[2];
    assert_eq!((v.speed, v.evasion), (3, 3));
}

#[test]
fn every_range_starts_at_60_mu_unless_the_scenario_says_otherwise() {
    let l = build(BASE, &[]).unwrap();
    for a in 0..3 {
        for b in 0..3 {
            if a != b {
                assert_eq!(l.battle.ranges.get(a, b), 60);
            }
        }
    }
}

#[test]
fn the_shipped_scenarios_load_without_errors_or_warnings() {
    let paths = files_with(&repo().join("scenarios"), "toml");
    assert!(paths.len() >= 3, "{paths:?}");
    let mut most = 0;
    for p in &paths {
        let l = orders::load_scenario(p, &[], &ParseOptions::default()).unwrap_or_else(|r| {
            panic!(
                "{}:\n{}",
                p.display(),
                r.iter().map(|(s, d)| s.render(d, 50)).collect::<String>()
            )
        });
        assert!(l.warnings.is_empty(), "{}: {:?}", p.display(), lines(&l.warnings));
        // A scenario plots every Formation, or none (then it is played by
        // the default doctrine with --exchanges, and says so).
        let unplotted = l.unplotted().len();
        assert!(
            unplotted == 0 || unplotted == l.battle.formations.len(),
            "{}: {unplotted} unplotted Formations",
            p.display()
        );
        assert!(l.seed.is_some(), "{}: no seed", p.display());
        for side in 0..l.battle.sides.len() {
            let n = l.battle.formations.iter().filter(|f| f.side == side).count();
            most = most.max(n.min(5));
        }
    }
    assert!(most >= 4, "no scenario with four Formations a side");
    let duel = orders::load_scenario(&repo().join("scenarios/duel.toml"), &[], &ParseOptions::default()).unwrap();
    assert_eq!(duel.battle.formations.len(), 2);
    let fleet = orders::load_scenario(
        &repo().join("scenarios/fleet-action.toml"),
        &[],
        &ParseOptions::default(),
    )
    .unwrap();
    for side in 0..2 {
        assert!(fleet.battle.formations.iter().filter(|f| f.side == side).count() >= 4);
    }
}

#[test]
fn plots_split_over_two_orders_files_equal_the_same_plots_in_one_file() {
    let dir = fixtures("orders");
    let opts = ParseOptions::default();
    let whole =
        orders::load_scenario(&dir.join("split-whole.toml"), &[], &opts).unwrap_or_else(|r| panic!("{:?}", lines(&r)));
    let split = orders::load_scenario(
        &dir.join("split.toml"),
        &[dir.join("split-ilse.toml"), dir.join("split-marek.toml")],
        &opts,
    )
    .unwrap_or_else(|r| panic!("{:?}", lines(&r)));
    assert_eq!(split.plot, whole.plot);
    assert_eq!(split.battle, whole.battle);
    assert!(split.plot.formations.iter().all(Option::is_some));
    // The order of the orders files does not matter either.
    let swapped = orders::load_scenario(
        &dir.join("split.toml"),
        &[dir.join("split-marek.toml"), dir.join("split-ilse.toml")],
        &opts,
    )
    .unwrap();
    assert_eq!(swapped.plot, whole.plot);
    assert_eq!(
        split.plot_sources[2].as_deref(),
        Some(dir.join("split-marek.toml").display().to_string().as_str())
    );
}

#[test]
fn write_back_puts_unit_state_into_the_loaded_records() {
    let mut l = build(BASE, &[]).unwrap();
    let mut battle = l.battle.clone();
    battle.units[3].hull_lost = 2;
    battle.units[3].thrust = 3;
    l.write_back(&battle);
    let ship = l.ship(3);
    assert_eq!(ship.thrust, 3);
    assert_eq!(ship.hull_remaining(), ship.hull_boxes() - 2);
}

// ------------------------------------------------------------ TOML errors

#[test]
fn toml_syntax_errors_are_positioned_one_per_line() {
    let text = "gzf = [\"meridian-compact.gzf\"]\ntitle = Duel\nseed = 3 4\n";
    let found = problems(text, &[]);
    expect(
        &found,
        "scenario.toml",
        text,
        "Duel",
        "TOML syntax error: string values must be quoted",
    );
    expect(&found, "scenario.toml", text, "3 4", "TOML syntax error");
    assert_eq!(found.len(), 2, "{found:#?}");
}

#[test]
fn syntax_errors_in_an_orders_file_are_positioned_too() {
    let o = "[[plot.Lancers.volley]]\nspeed = = 3\n";
    let found = problems(BASE, &[o]);
    assert!(
        found
            .iter()
            .any(|l| l.starts_with("orders1.toml:2:") && l.contains("TOML syntax error")),
        "{found:#?}"
    );
}

#[test]
fn unknown_keys_and_wrong_types_are_errors_everywhere_in_the_file() {
    let text = format!(
        "colour = \"red\"\n{BASE}seed = 3\n[rules]\nreactor_blast = true\nlaser_sharks = true\n\
         [[plot.Lancers.volley]]\nspeed = 4\nevasion = \"two\"\n\
         [[plot.Needle.volley]]\nspeed = 4\nevade = 2\n"
    );
    let found = problems(&text, &[]);
    expect(&found, "scenario.toml", &text, "colour", "unknown key `colour`");
    // A top-level key after [formations] belongs to it: the help says so.
    expect(
        &found,
        "scenario.toml",
        &text,
        "3\n[rules]",
        "invalid type: integer `3`",
    );
    let r = build(&text, &[]).unwrap_err();
    let rendered: String = r.iter().map(|(s, d)| s.render(d, 50)).collect();
    assert!(
        rendered.contains("top-level keys go before the first [table]"),
        "{rendered}"
    );
    expect(
        &found,
        "scenario.toml",
        &text,
        "laser_sharks",
        "unknown key `laser_sharks`",
    );
    expect(
        &found,
        "scenario.toml",
        &text,
        "\"two\"",
        "invalid type: string \"two\"",
    );
    expect(&found, "scenario.toml", &text, "evade", "unknown key `evade`");
}

#[test]
fn an_orders_file_holds_only_plots() {
    let o = "commander = \"Ilse\"\nseed = 4\n";
    let found = problems(BASE, &[o]);
    expect(
        &found,
        "orders1.toml",
        o,
        "seed",
        "unknown key `seed` in an orders file",
    );
}

// ------------------------------------------------- scenario: ships, sides

#[test]
fn an_unknown_ship_is_refused_and_a_base_joins() {
    let text = BASE.replace("\"MCS Patient Ember\"", "\"MCS Patient Amber\", \"Waypoint Halcyon\"");
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "\"MCS Patient Amber\"",
        "no ship named `MCS Patient Amber`",
    );
    // A base is a Unit now (readings O40): only the unknown ship is wrong.
    assert!(!found.iter().any(|l| l.contains("Waypoint Halcyon")), "{found:#?}");
}

#[test]
fn ship_names_ignore_case_and_blank_runs_like_the_gzf_reader() {
    let text = BASE.replace("\"MCS Patient Ember\"", "\"mcs  patient ember\"");
    let l = build(&text, &[]).unwrap();
    assert_eq!(l.battle.units[2].name, "MCS Patient Ember");
}

#[test]
fn a_unit_in_two_formations() {
    let text = BASE.replace(
        "Needle = [\"MCS Patient Ember\"]",
        "Needle = [\"MCS Patient Ember\", \"mcs small hours\"]",
    );
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "\"mcs small hours\"",
        "`MCS Small Hours` is already in Formation `Lancers` (line 8)",
    );
}

#[test]
fn a_formation_in_no_side_in_two_sides_or_unknown() {
    let text = BASE
        .replace(
            "Ilse = [\"Lancers\", \"Needle\"]",
            "Ilse = [\"Lancers\", \"Wardens\", \"Lancer\"]",
        )
        .replace("Marek = [\"Wardens\"]", "Marek = [\"Wardens \", \"Wardens\"]");
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "Needle = ",
        "Formation `Needle` is in no side",
    );
    expect(
        &found,
        "scenario.toml",
        &text,
        "\"Lancer\"",
        "unknown Formation `Lancer`",
    );
    expect(
        &found,
        "scenario.toml",
        &text,
        "\"Wardens \"",
        "unknown Formation `Wardens `",
    );
    let (line, col) = pos(&text, "\"Wardens\"]\n");
    assert!(
        found.contains(&format!(
            "scenario.toml:{line}:{col}: error: Formation `Wardens` is already on side `Ilse` (line 4)"
        )),
        "{found:#?}"
    );
}

#[test]
fn ship_names_must_be_unique_across_the_records() {
    let text = BASE.replace(
        "gzf = [\"meridian-compact.gzf\",",
        "gzf = [\"meridian-compact.gzf\", \"dup.gzf\",",
    );
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "\"dup.gzf\"",
        "ship `MCS Small Hours` is in both `meridian-compact.gzf` and `dup.gzf`",
    );
}

#[test]
fn gzf_problems_and_unreadable_records_are_reported() {
    let text = BASE.replace(
        "gzf = [\"meridian-compact.gzf\",",
        "gzf = [\"meridian-compact.gzf\", \"broken.gzf\", \"missing.gzf\",",
    );
    let r = build(&text, &[]).unwrap_err();
    let found = lines(&r);
    expect(
        &found,
        "scenario.toml",
        &text,
        "\"missing.gzf\"",
        "cannot read `missing.gzf`",
    );
    assert!(found.iter().any(|l| l.starts_with("broken.gzf:2:")), "{found:#?}");
    // With records missing, ship names are not checked (nothing but noise).
    assert!(!found.iter().any(|l| l.contains("no ship named")), "{found:#?}");
}

#[test]
fn rule_switches_map_to_rules_and_unknown_ones_are_errors() {
    let text = format!("{BASE}[rules]\ndouble_drive_check = true\nrepair_permanent_bridge = false\n");
    let l = build(&text, &[]).unwrap();
    assert!(l.battle.rules.double_drive_check && !l.battle.rules.repair_permanent_bridge);
    assert!(l.battle.rules.reactor_blast && !l.battle.rules.needle_fb1);
    let text = format!("{BASE}[rules]\nneedle_fb1 = true\n");
    assert!(build(&text, &[]).unwrap().battle.rules.needle_fb1);
    let text = format!("{BASE}[rules]\nreactor_blasts = true\n");
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "reactor_blasts",
        "unknown key `reactor_blasts`",
    );
}

#[test]
fn range_overrides_name_two_known_formations_once() {
    let text = format!(
        "{BASE}[[range]]\nbetween = [\"Lancers\", \"Needle\"]\nmu = 12\n\
         [[range]]\nbetween = [\"Needle\", \"Lancers\"]\nmu = 18\n\
         [[range]]\nbetween = [\"Wardens\", \"Nowhere\"]\nmu = -4\n"
    );
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "[\"Needle\", \"Lancers\"]",
        "the range between `Needle` and `Lancers` is already given",
    );
    expect(
        &found,
        "scenario.toml",
        &text,
        "\"Nowhere\"",
        "unknown Formation `Nowhere`",
    );
    expect(&found, "scenario.toml", &text, "-4", "a range cannot be negative");
}

// --------------------------------------------------------- plots: maneuver

#[test]
fn speed_plus_evasion_must_equal_formation_thrust() {
    // Lancers: thrust 6 (Clear Heading) and 8 (Small Hours) → 6.
    let text = lancers("speed = 4\nevasion = 3\n");
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "4\nevasion",
        "Speed 4 + Evasion 3 = 7, but the Formation Thrust of `Lancers` is 6",
    );
    let text = lancers("speed = 7\n");
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "7\n",
        "Speed 7 is more than the Formation Thrust",
    );
}

#[test]
fn evasion_may_not_exceed_half_the_formation_thrust() {
    let text = lancers("speed = 2\nevasion = 4\n");
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "4\n",
        "Evasion 4 is more than half the Formation Thrust of `Lancers` (6, so at most 3)",
    );
    // Rounded down: thrust 5 allows 2.
    let text = BASE.replace(
        "Needle = [\"MCS Patient Ember\"]",
        "Needle = [\"KRD High Fell Thunder\"]",
    ) + "\n[[plot.Needle.volley]]\nspeed = 2\nevasion = 3\n";
    let found = problems(&text, &[]);
    expect(&found, "scenario.toml", &text, "3\n", "at most 2");
}

#[test]
fn a_volley_needs_speed_or_evasion() {
    let text = lancers("primary = { close = \"Wardens\" }\n");
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "[[plot",
        "gives neither `speed` nor `evasion`",
    );
}

#[test]
fn close_and_withdraw_in_one_volley() {
    let text =
        lancers("speed = 4\nevasion = 2\nprimary = { close = \"Wardens\" }\nsecondary = { withdraw = \"Needle\" }\n");
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "withdraw =",
        "Withdraw from `Needle` and Close on `Wardens` (line 15) in one Volley",
    );
}

#[test]
fn a_formation_cannot_maneuver_against_itself_or_the_unknown() {
    let text = lancers(
        "speed = 4\nevasion = 2\nprimary = { close = \"Lancers\" }\nsecondary = { maintain = [\"Needle\", \"Sardines\", \"Needle\"] }\n",
    );
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "\"Lancers\" }",
        "Formation `Lancers` cannot maneuver against itself",
    );
    expect(
        &found,
        "scenario.toml",
        &text,
        "\"Sardines\"",
        "unknown Formation `Sardines`",
    );
    expect(
        &found,
        "scenario.toml",
        &text,
        "\"Needle\"] }",
        "`Needle` already has a maneuver in this Volley",
    );
}

#[test]
fn maneuver_words_and_a_single_primary() {
    let text = lancers("speed = 4\nevasion = 2\nprimary = { close = \"Wardens\", maintain = \"Needle\" }\n");
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "maintain",
        "a Volley has one primary maneuver",
    );
    let text = lancers("speed = 4\nevasion = 2\nprimary = { charge = \"Wardens\" }\n");
    let found = problems(&text, &[]);
    expect(&found, "scenario.toml", &text, "charge", "unknown variant `charge`");
    let text = lancers("speed = 4\nevasion = 2\nsecondary = { close = \"Wardens\" }\n");
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "{ close",
        "secondary maneuvers without a primary one",
    );
}

#[test]
fn one_or_three_volleys() {
    let text = format!("{}\n[[plot.Lancers.volley]]\nspeed = 6\n", lancers("speed = 6\n"));
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "]\n\n|[[plot",
        "the plot of `Lancers` has 2 Volleys",
    );
}

// ----------------------------------------------------------- plots: shifts

#[test]
fn shifts_are_limited_to_5_points_per_surplus_thrust() {
    // Small Hours: thrust 8 in a thrust-6 Formation → ±10.
    let ok = build(&lancers("speed = 6\nshift = { \"MCS Small Hours\" = -10 }\n"), &[]).unwrap();
    assert_eq!(ok.plot.formations[0].as_ref().unwrap().volleys[0].shifts, [(1, -10)]);
    let text = lancers("speed = 6\nshift = { \"MCS Small Hours\" = 11, \"MCS Clear Heading\" = 1 }\n");
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "11",
        "a shift of 11 points is more than `MCS Small Hours` may make: 5 points per surplus Thrust point, 2 × 5 = 10",
    );
    expect(
        &found,
        "scenario.toml",
        &text,
        "1 }",
        "`MCS Clear Heading` cannot shift its share: its thrust 6 is no more than the Formation Thrust 6",
    );
}

#[test]
fn orders_name_units_of_their_own_formation() {
    let text =
        lancers("speed = 6\nshift = { \"KRD Ridge Warden\" = 5, \"MCS Harrow of Stars\" = 5, \"Nobody\" = 5 }\n");
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "\"KRD Ridge Warden\" =",
        "`KRD Ridge Warden` is in Formation `Wardens`, not in `Lancers`",
    );
    expect(
        &found,
        "scenario.toml",
        &text,
        "\"MCS Harrow of Stars\"",
        "`MCS Harrow of Stars` is not in any Formation of this scenario",
    );
    expect(&found, "scenario.toml", &text, "\"Nobody\"", "no ship named `Nobody`");
}

// ------------------------------------------------------------- plots: fire

#[test]
fn more_fire_targets_than_working_fire_controls() {
    let text = lancers(
        "speed = 6\nfire = [\n  { unit = \"MCS Small Hours\", target = \"Wardens\" },\n  { unit = \"MCS Small Hours\", target = \"Needle\" },\n]\n",
    );
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "\"Needle\" }",
        "more fire targets than working Fire Controls: `MCS Small Hours` has 1 and this is target 2",
    );
}

#[test]
fn a_fire_control_number_must_be_an_operational_fire_control() {
    let text = r#"gzf = ["custom.gzf", "kestrel-reach.gzf"]
[sides]
A = ["Cutters"]
B = ["Wardens"]
[formations]
Cutters = ["Test Cutter"]
Wardens = ["KRD Ridge Warden"]

[[plot.Cutters.volley]]
speed = 3
evasion = 3
fire = [
  { fc = 2, target = "Wardens", weapons = [4] },
  { fc = 3, target = "Wardens", weapons = [5] },
  { fc = 4, target = "Wardens" },
]

[[plot.Cutters.volley]]
speed = 3
fire = [{ fc = 9, target = "Wardens" }]

[[plot.Cutters.volley]]
speed = 3
fire = [{ target = "Wardens" }]
"#;
    let found = problems(text, &[]);
    expect(
        &found,
        "scenario.toml",
        text,
        "2, target",
        "Fire Control 2 of `Test Cutter` is damaged",
    );
    expect(
        &found,
        "scenario.toml",
        text,
        "3, target",
        "Fire Control 3 of `Test Cutter` is switched off",
    );
    expect(
        &found,
        "scenario.toml",
        text,
        "4, target = \"Wardens\" }",
        "system 4 of `Test Cutter` (Class 2 Battery) is not a Fire Control",
    );
    expect(
        &found,
        "scenario.toml",
        text,
        "9",
        "`Test Cutter` has no system 9 (it has 5)",
    );
    expect(
        &found,
        "scenario.toml",
        text,
        "{ target = \"Wardens\" }",
        "`Test Cutter` has 3 Fire Controls (systems 1, 2, 3): say which one with fc = N",
    );
}

#[test]
fn a_fire_control_may_be_left_out_when_the_unit_has_exactly_one() {
    let text =
        format!("{BASE}\n[[plot.Needle.volley]]\nspeed = 4\nfire = [{{ target = \"Wardens\", weapons = [8] }}]\n");
    let l = build(&text, &[]).unwrap();
    let v = &l.plot.formations[1].as_ref().unwrap().volleys[0];
    assert_eq!(v.fire[0].fire_control, 5);
    assert_eq!(v.fire[0].unit, 2);
    // With two Units the Unit must be named.
    let text = lancers("speed = 6\nfire = [{ fc = 5, target = \"Wardens\" }]\n");
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "{ fc = 5",
        "Formation `Lancers` has 2 Units: say which one",
    );
}

#[test]
fn a_weapon_assigned_twice_to_two_fire_controls_or_to_fire_and_pd() {
    let text = lancers(
        "speed = 6\nfire = [\n  { unit = \"MCS Clear Heading\", fc = 6, target = \"Wardens\", weapons = [8, 9] },\n  \
         { unit = \"MCS Clear Heading\", fc = 7, target = \"Wardens\", weapons = [10, 9] },\n]\n\
         pd = [{ unit = \"MCS Clear Heading\", weapons = [10] }]\n",
    );
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "9] },\n]",
        "system 9 of `MCS Clear Heading` (Class 2 Battery) is already assigned in this Volley (line 15)",
    );
    expect(
        &found,
        "scenario.toml",
        &text,
        "10] }]",
        "system 10 of `MCS Clear Heading` (Class 2 Battery) is already assigned in this Volley (line 16)",
    );
}

#[test]
fn a_fire_control_given_two_orders() {
    let text = lancers(
        "speed = 6\nfire = [\n  { unit = \"MCS Clear Heading\", fc = 6, target = \"Wardens\", weapons = [8] },\n  \
         { unit = \"MCS Clear Heading\", fc = 6, target = \"Needle\", weapons = [9] },\n]\n",
    );
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "6, target = \"Needle\"",
        "Fire Control 6 of `MCS Clear Heading` already has orders in this Volley (line 15)",
    );
}

#[test]
fn a_weapon_number_must_name_a_weapon() {
    let text = lancers(
        "speed = 6\nfire = [{ unit = \"MCS Clear Heading\", fc = 6, target = \"Wardens\", weapons = [8, 4, 14] }]\n",
    );
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "4, 14",
        "system 4 of `MCS Clear Heading` (FTL) is not a weapon",
    );
    expect(
        &found,
        "scenario.toml",
        &text,
        "14]",
        "`MCS Clear Heading` has no system 14 (it has 13)",
    );
}

#[test]
fn pds_and_torpedoes_may_fire_at_ships_and_the_default_takes_the_torpedo() {
    // Patient Ember: 7 Pulse Torpedo, 8-10 beams, 11 PDS.
    let text = format!(
        "{BASE}\n[[plot.Needle.volley]]\nspeed = 4\nfire = [{{ target = \"Wardens\", weapons = [7, 11, 8] }}]\n\n\
         [[plot.Needle.volley]]\nspeed = 4\nfire = [{{ target = \"Wardens\" }}]\n\n\
         [[plot.Needle.volley]]\nspeed = 4\nfire = [{{ target = \"Wardens\", weapons = [8, 9, 10] }}]\n"
    );
    let l = build(&text, &[]).unwrap_or_else(|r| panic!("{:?}", lines(&r)));
    assert!(l.warnings.is_empty(), "{:?}", lines(&l.warnings));
    let p = l.plot.formations[1].as_ref().unwrap();
    assert_eq!(p.volleys[0].fire[0].weapons, [6, 10, 7]);
    // The default: every weapon but the PDS, which stays on point defence.
    assert_eq!(p.volleys[1].fire[0].weapons, [6, 7, 8, 9]);
    assert_eq!(p.volleys[2].fire[0].weapons, [7, 8, 9]);
}

// ------------------------------------------------- weapons and ordnance

/// Ships with every kind of weapon, in records of both profiles
/// (tests/fixtures/orders/ordnance.gzf and ft2.gzf):
///
/// - Test Striker: 1-2 FCS, 3 SMR, 4 SMR spent (`Rounds: -`), 5 SMR
///   destroyed, 6 Missile, 7 Submunition Pack, 8-9 SML on magazine A
///   (10: 2 of 3 loads left), 11 SML on magazine B (12: `Capacity: 2`, no
///   `Rounds:`), 13 Needle Beam, 14 Class 1 Battery, 15-16 PDS, 17 Needle Beam,
///   18 SML on magazine C (19: destroyed).
/// - Test Oddities: 1 FCS, 2 Minelayer, 3 Minesweeper, 4 Wave Gun, 5 Nova
///   Cannon, 6 Ortillery, 7 EMP Missile, 8 Needle Missile, 9 Class 2 Battery.
/// - Test Homestead (FT2): 1 FireCon, 2 1 Railgun, 3 Energy Pulse, 4
///   Scattergun, 5 ADAF, 6 C Battery, 7 AA MegaBattery, 8 PDAF, 9 B Battery,
///   10 Scattergun spent. Test Kraal (FT2): 1 FireCon, 2 PDAF, 3 B Battery.
/// - MCS Harrow of Stars: 6-7 FCS, 8 ADFC, 10-12 Class 2, 13-15 Class 1,
///   16-21 PDS. MCS Unhurried Tide: 5 FCS, 7 Needle Beam, 8-10 beams, 11 PDS.
/// - KRD Long Watch: 1-3 core, 6 FCS, 7 ADFC, 8-10 beams, 11-14 PDS.
///
/// Units: 0-1 Lancers, 2 Striker, 3 Oddities, 4 Homestead, 5 Kraal, 6
/// Harrow, 7 Tide, 8 Ember, 9 Ridge Warden, 10 Long Watch, 11 Sharp Descent,
/// 12 Test Hulk (destroyed).
const ARMS: &str = r#"gzf = ["meridian-compact.gzf", "kestrel-reach.gzf", "ordnance.gzf", "ft2.gzf", "custom.gzf"]

[sides]
Ilse = ["Lancers", "Strike", "Odd", "Homestead", "Carrier"]
Marek = ["Wardens", "Pickets", "Hulks"]

[formations]
Lancers = ["MCS Clear Heading", "MCS Small Hours"]
Strike = ["Test Striker"]
Odd = ["Test Oddities"]
Homestead = ["Test Homestead", "Test Kraal"]
Carrier = ["MCS Harrow of Stars", "MCS Unhurried Tide", "MCS Patient Ember"]
Wardens = ["KRD Ridge Warden", "KRD Long Watch"]
Pickets = ["KRD Sharp Descent"]
Hulks = ["Test Hulk"]
"#;

fn arms(plots: &str) -> String {
    format!("{ARMS}\n{plots}")
}

fn volleys(l: &Loaded, formation: usize) -> &[VolleyPlot; 3] {
    &l.plot.formations[formation].as_ref().expect("plotted").volleys
}

fn fire(unit: usize, fire_control: usize, target: usize, weapons: &[usize], needles: &[NeedleOrder]) -> FireOrder {
    FireOrder {
        unit,
        fire_control,
        target: Some(target),
        weapons: weapons.to_vec(),
        needles: needles.to_vec(),
        group: None,
    }
}

fn needle(weapon: usize, unit: usize, system: usize) -> NeedleOrder {
    NeedleOrder { weapon, unit, system }
}

fn pd(unit: usize, weapon: usize, defend: Option<usize>) -> PdOrder {
    PdOrder { unit, weapon, defend }
}

#[test]
fn every_weapon_with_a_reading_may_fire_and_pd_orders_fill_the_plot() {
    let text = arms(
        r#"[[plot.Carrier.volley]]
speed = 2
fire = [
  { unit = "MCS Harrow of Stars", fc = 6, target = "Wardens" },
  { unit = "MCS Harrow of Stars", fc = 7, target = "Pickets", weapons = [16] },
  { unit = "MCS Unhurried Tide", target = "Wardens", needle = { weapon = 7, unit = "KRD Long Watch", system = 6 } },
  { unit = "MCS Patient Ember", target = "Pickets" },
]
pd = [
  { unit = "MCS Harrow of Stars", weapons = [17, 18], defend = "MCS Unhurried Tide" },
  { unit = "MCS Harrow of Stars", weapons = [13, 14] },
  { unit = "MCS Harrow of Stars", weapons = [19], defend = "MCS Harrow of Stars" },
  { unit = "MCS Harrow of Stars", weapons = [20], defend = "mcs unhurried  tide" },
]

[[plot.Homestead.volley]]
speed = 3
fire = [
  { unit = "Test Homestead", target = "Wardens", weapons = [7, 8, 9] },
  { unit = "Test Kraal", target = "Wardens" },
]
pd = [
  { unit = "Test Homestead", weapons = [4, 6] },
  { unit = "Test Homestead", weapons = [5], defend = "Test Kraal" },
]

[[plot.Strike.volley]]
speed = 3
fire = [
  { fc = 1, target = "Wardens", needle = { weapon = 13, unit = "KRD Long Watch", system = 8 } },
  { fc = 2, target = "Pickets", weapons = [17], needle = [{ weapon = 17, system = 5 }] },
]
"#,
    );
    let l = build(&text, &[]).unwrap_or_else(|r| panic!("{:?}", lines(&r)));
    assert!(l.warnings.is_empty(), "{:?}", lines(&l.warnings));
    let v = &volleys(&l, 4)[0];
    assert_eq!(
        v.fire,
        [
            // The default leaves out the class-1 beams in PD mode (13, 14)
            // and the PDS.
            fire(6, 5, 5, &[9, 10, 11, 14], &[]),
            // A PDS may fire at ships; the engine applies its limits.
            fire(6, 6, 6, &[15], &[]),
            fire(7, 4, 5, &[6, 7, 8, 9], &[needle(6, 10, 5)]),
            // The torpedo fires by default.
            fire(8, 5, 6, &[6, 7, 8, 9], &[]),
        ]
    );
    assert_eq!(
        v.point_defence,
        [
            pd(6, 16, Some(7)),
            pd(6, 17, Some(7)),
            pd(6, 12, None),
            pd(6, 13, None),
            pd(6, 18, Some(6)),
            pd(6, 19, Some(7)),
        ]
    );
    // FT2: AA MegaBattery and PDAF at ships, the B Battery; the ADAF
    // defends another Unit without an ADFC; Scattergun and C Battery in PD.
    let v = &volleys(&l, 3)[2];
    assert_eq!(v.fire, [fire(4, 0, 5, &[6, 7, 8], &[]), fire(5, 0, 5, &[2], &[])]);
    assert_eq!(v.point_defence, [pd(4, 3, None), pd(4, 5, None), pd(4, 4, Some(5))]);
    // A needle at the only Unit of a Formation may leave out `unit`.
    let v = &volleys(&l, 1)[1];
    assert_eq!(v.fire[1], fire(2, 1, 6, &[16], &[needle(16, 11, 4)]));
}

#[test]
fn the_default_fires_a_one_shot_once_and_a_launcher_while_loads_last() {
    // One table for all three Volleys: the rack, missile and submunition
    // pack fire in Volley 1; magazine A (2 loads, two launchers) is empty
    // after it, magazine B (Capacity 2, one launcher) after Volley 2.
    let text = arms(
        r#"[[plot.Strike.volley]]
speed = 3
fire = [{ fc = 1, target = "Wardens", needle = [
  { weapon = 13, unit = "KRD Long Watch", system = 8 },
  { weapon = 17, unit = "KRD Long Watch", system = 8 },
] }]
"#,
    );
    let l = build(&text, &[]).unwrap_or_else(|r| panic!("{:?}", lines(&r)));
    assert!(l.warnings.is_empty(), "{:?}", lines(&l.warnings));
    let v = volleys(&l, 1);
    let needles = [needle(12, 10, 7), needle(16, 10, 7)];
    // Never the spent rack (4), the destroyed one (5) or the PDS.
    assert_eq!(v[0].fire, [fire(2, 0, 5, &[2, 5, 6, 7, 8, 10, 12, 13, 16], &needles)]);
    assert_eq!(v[1].fire, [fire(2, 0, 5, &[10, 12, 13, 16], &needles)]);
    assert_eq!(v[2].fire, [fire(2, 0, 5, &[12, 13, 16], &needles)]);

    // Explicit orders come first: the rack and the pack fire in Volley 3,
    // magazine B keeps a load for Volley 2.
    let text = arms(
        r#"[[plot.Strike.volley]]
speed = 3
fire = [{ fc = 1, target = "Wardens", needle = [
  { weapon = 13, unit = "KRD Long Watch", system = 8 },
  { weapon = 17, unit = "KRD Long Watch", system = 8 },
] }]

[[plot.Strike.volley]]
speed = 3
fire = [{ fc = 1, target = "Wardens", weapons = [11] }]

[[plot.Strike.volley]]
speed = 3
fire = [{ fc = 1, target = "Wardens", weapons = [3, 7] }]
"#,
    );
    let l = build(&text, &[]).unwrap_or_else(|r| panic!("{:?}", lines(&r)));
    let v = volleys(&l, 1);
    assert_eq!(v[0].fire, [fire(2, 0, 5, &[5, 7, 8, 10, 12, 13, 16], &needles)]);
    assert_eq!(v[1].fire, [fire(2, 0, 5, &[10], &[])]);
    assert_eq!(v[2].fire, [fire(2, 0, 5, &[2, 6], &[])]);
}

#[test]
fn weapons_without_a_reading_are_refused_by_name_and_reason() {
    let text = arms(
        r#"[[plot.Odd.volley]]
speed = 3
fire = [{ target = "Wardens", weapons = [2, 3, 4, 6, 7, 8, 9] }]

[[plot.Odd.volley]]
speed = 3
fire = [{ target = "Wardens" }]

[[plot.Odd.volley]]
speed = 3
fire = [{ target = "Wardens", weapons = [9] }]

[[plot.Homestead.volley]]
speed = 3
fire = [{ unit = "Test Homestead", target = "Wardens", weapons = [2, 3, 4] }]
"#,
    );
    let found = problems(&text, &[]);
    let at = |needle: &str, fragment: &str| expect(&found, "scenario.toml", &text, needle, fragment);
    at(
        "2, 3, 4, 6",
        "system 2 of `Test Oddities` (Minelayer) cannot fire on a Formation: mines need positions on a map, and F&M keeps none",
    );
    at(
        "3, 4, 6",
        "system 3 of `Test Oddities` (Minesweeper) cannot fire on a Formation: mines need positions",
    );
    at(
        "6, 7, 8",
        "system 6 of `Test Oddities` (Ortillery) cannot fire on a Formation: orbital artillery has no use in space combat",
    );
    at(
        "7, 8, 9",
        "system 7 of `Test Oddities` (EMP Missile) cannot fire on a Formation: the More Thrust EMP and needle missile \
         warheads have no Continuum reading",
    );
    at(
        "8, 9]",
        "system 8 of `Test Oddities` (Needle Missile) cannot fire on a Formation",
    );
    at(
        "[|2, 3, 4] }",
        "system 2 of `Test Homestead` (1 Railgun) cannot fire on a Formation: no rules text for it is available (ft-rules §14.1",
    );
    at(
        "3, 4] }",
        "system 3 of `Test Homestead` (Energy Pulse) cannot fire on a Formation: no rules text",
    );
    at(
        "4] }",
        "system 4 of `Test Homestead` (Scattergun) cannot fire on a Formation: it is a one-shot point-defence weapon: \
         list it under `pd`",
    );
    // The default sweeps them in: one error each, at the entry.
    let entry = "{ target = \"Wardens\" }";
    at(
        entry,
        "system 2 of `Test Oddities` (Minelayer) would fire with this Fire Control (weapons default to all), but it \
         cannot fire on a Formation: mines need positions",
    );
    at(
        entry,
        "system 8 of `Test Oddities` (Needle Missile) would fire with this Fire Control",
    );
    // The nova cannon (5) fights since readings W63, and the default "all"
    // never sweeps it in: neither list nor default names it.
    assert!(
        !found.iter().any(|d| format!("{d:?}").contains("Nova Cannon")),
        "{found:#?}"
    );
    assert_eq!(found.len(), 13, "{found:#?}");
    let r = build(&text, &[]).unwrap_err();
    let rendered: String = r.iter().map(|(s, d)| s.render(d, 50)).collect();
    assert!(
        // The wave gun (4) fights since readings W59.
        rendered.contains("List the weapons explicitly to leave it out, e.g. weapons = [4, 9]"),
        "{rendered}"
    );
}

#[test]
fn a_spent_or_destroyed_one_shot_cannot_fire() {
    let text = arms(
        "[[plot.Strike.volley]]\nspeed = 3\nfire = [{ fc = 1, target = \"Wardens\", weapons = [4, 5] }]\n\n\
         [[plot.Homestead.volley]]\nspeed = 3\npd = [{ unit = \"Test Homestead\", weapons = [10] }]\n",
    );
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "4, 5]",
        "system 4 of `Test Striker` (SMR) is a one-shot weapon and cannot fire again: it has been fired (its `Rounds:` box is crossed off)",
    );
    expect(
        &found,
        "scenario.toml",
        &text,
        "5] }",
        "system 5 of `Test Striker` (SMR) is a one-shot weapon and cannot fire again: it is spent or destroyed (`Status: Destroyed`)",
    );
    expect(
        &found,
        "scenario.toml",
        &text,
        "10] }",
        "system 10 of `Test Homestead` (Scattergun) is a one-shot weapon and cannot fire again",
    );
    assert_eq!(found.len(), 3, "{found:#?}");
}

#[test]
fn a_one_shot_fires_at_most_once_per_exchange() {
    // One table stands for all three Volleys.
    let text =
        arms("[[plot.Strike.volley]]\nspeed = 3\nfire = [{ fc = 1, target = \"Wardens\", weapons = [3, 14] }]\n");
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "3, 14",
        "system 3 of `Test Striker` (SMR) is a one-shot weapon, plotted to fire in Volleys 1, 2 and 3: it fires once",
    );
    assert_eq!(found.len(), 1, "{found:#?}");
    let text = arms(
        "[[plot.Strike.volley]]\nspeed = 3\nfire = [{ fc = 1, target = \"Wardens\", weapons = [6] }]\n\n\
         [[plot.Strike.volley]]\nspeed = 3\nfire = [{ fc = 1, target = \"Wardens\", weapons = [7, 14] }]\n\n\
         [[plot.Strike.volley]]\nspeed = 3\nfire = [{ fc = 1, target = \"Pickets\", weapons = [6, 7] }]\n",
    );
    let found = problems(&text, &[]);
    let heavy = "system 6 of `Test Striker` (Missile) is a one-shot weapon, plotted to fire in Volleys 1 and 3";
    let pack = "system 7 of `Test Striker` (Submunition Pack) is a one-shot weapon, plotted to fire in Volleys 2 and 3";
    expect(&found, "scenario.toml", &text, "6] }", heavy);
    expect(&found, "scenario.toml", &text, "6, 7]", heavy);
    expect(&found, "scenario.toml", &text, "7, 14]", pack);
    expect(&found, "scenario.toml", &text, "Pickets\", weapons = [6, |7]", pack);
    assert_eq!(found.len(), 4, "{found:#?}");
}

#[test]
fn salvo_launchers_share_their_magazines_loads() {
    // Magazine A: 2 of 3 loads left, two launchers (8, 9).
    let text = arms(
        "[[plot.Strike.volley]]\nspeed = 3\nfire = [{ fc = 1, target = \"Wardens\", weapons = [8, 9] }]\n\n\
         [[plot.Strike.volley]]\nspeed = 3\nfire = [{ fc = 1, target = \"Wardens\", weapons = [8] }]\n\n\
         [[plot.Strike.volley]]\nspeed = 3\nfire = [{ fc = 1, target = \"Wardens\", weapons = [11] }]\n",
    );
    let found = problems(&text, &[]);
    let message = "magazine A has 2 loads left but its launchers are plotted to fire 3 times";
    expect(&found, "scenario.toml", &text, "8, 9]", message);
    expect(&found, "scenario.toml", &text, "9]", message);
    expect(&found, "scenario.toml", &text, "8] }", message);
    assert_eq!(found.len(), 3, "{found:#?}");
    // One table for three Volleys: one error per launcher, not per Volley.
    let text = arms("[[plot.Strike.volley]]\nspeed = 3\nfire = [{ fc = 1, target = \"Wardens\", weapons = [8, 9] }]\n");
    let found = problems(&text, &[]);
    let message = "magazine A has 2 loads left but its launchers are plotted to fire 6 times";
    expect(&found, "scenario.toml", &text, "8, 9]", message);
    expect(&found, "scenario.toml", &text, "9]", message);
    assert_eq!(found.len(), 2, "{found:#?}");
    // A destroyed magazine has no loads (the default leaves its launcher
    // out: see the_default_fires_a_one_shot_once_and_a_launcher_while_loads_last).
    let text = arms(
        "[[plot.Strike.volley]]\nspeed = 3\nfire = [{ fc = 1, target = \"Wardens\", weapons = [18] }]\n\n\
         [[plot.Strike.volley]]\nspeed = 3\n\n[[plot.Strike.volley]]\nspeed = 3\n",
    );
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "18]",
        "magazine C is destroyed but its launchers are plotted to fire once",
    );
    // Magazine B has no `Rounds:`: its Capacity (2) is its loads.
    let text = arms("[[plot.Strike.volley]]\nspeed = 3\nfire = [{ fc = 1, target = \"Wardens\", weapons = [11] }]\n");
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "11]",
        "magazine B has 2 loads left but its launchers are plotted to fire 3 times",
    );
    let r = build(&text, &[]).unwrap_err();
    let rendered: String = r.iter().map(|(s, d)| s.render(d, 50)).collect();
    assert!(
        rendered.contains("magazine B is system 12 of `Test Striker`"),
        "{rendered}"
    );
}

#[test]
fn a_needle_beam_aims_at_a_system_of_a_unit_in_the_target_formation() {
    let fc = "{ unit = \"MCS Unhurried Tide\", target = \"Wardens\"";
    let text = arms(&format!(
        r#"[[plot.Carrier.volley]]
speed = 2
fire = [{fc}, weapons = [7, 8] }}]

[[plot.Carrier.volley]]
speed = 2
fire = [
  {fc}, weapons = [8], needle = [
    {{ weapon = 8, unit = "KRD Long Watch", system = 6 }},
    {{ weapon = 7, unit = "KRD Long Watch", system = 9 }},
  ] }},
  {{ unit = "MCS Patient Ember", target = "inactive", needle = {{ weapon = 7, unit = "KRD Long Watch", system = 6 }} }},
]

[[plot.Carrier.volley]]
speed = 2
fire = [{fc} }}]

[[plot.Strike.volley]]
speed = 3
fire = [{{ fc = 1, target = "Wardens", weapons = [13, 17], needle = [
  {{ weapon = 13, unit = "KRD Sharp Descent", system = 5 }},
  {{ weapon = 13, unit = "KRD Long Watch", system = 9 }},
  {{ weapon = 17, unit = "KRD Long Watch", system = 40 }},
] }}]

[[plot.Strike.volley]]
speed = 3
fire = [{{ fc = 1, target = "Wardens", weapons = [13, 17], needle = [
  {{ weapon = 13, unit = "KRD Long Watch", system = 8 }},
  {{ weapon = 17, unit = "KRD Long Watch", system = 10 }},
] }}]

[[plot.Strike.volley]]
speed = 3
fire = [
  {{ fc = 1, target = "Pickets", weapons = [13], needle = {{ weapon = 13, system = 3 }} }},
  {{ fc = 2, target = "Hulks", weapons = [17], needle = {{ weapon = 17, unit = "Test Hulk", system = 4 }} }},
]

[[plot.Odd.volley]]
speed = 3
fire = [{{ target = "Wardens", weapons = [9], needle = {{ weapon = 9, system = 6, shots = 2 }} }}]
"#
    ));
    let found = problems(&text, &[]);
    let at = |needle: &str, fragment: &str| expect(&found, "scenario.toml", &text, needle, fragment);
    at(
        "7, 8] }]",
        "system 7 of `MCS Unhurried Tide` (Needle Beam) fires with this Fire Control but has no target: a needle beam \
         aims at one system of one Unit",
    );
    at(
        &format!("{fc} }}]"),
        "system 7 of `MCS Unhurried Tide` (Needle Beam) fires with this Fire Control (it fires because weapons \
         default to all) but has no target",
    );
    at(
        "8, unit = \"KRD Long Watch\", system = 6",
        "system 8 of `MCS Unhurried Tide` (Class 3 Battery) is not a needle beam",
    );
    at(
        "7, unit = \"KRD Long Watch\", system = 9",
        "system 7 of `MCS Unhurried Tide` (Needle Beam) is not among the weapons of this Fire Control",
    );
    at(
        "{ weapon = 7, unit = \"KRD Long Watch\", system = 6 } }",
        "an inactive Fire Control aims no needle beams",
    );
    at(
        "\"KRD Sharp Descent\", system = 5",
        "`KRD Sharp Descent` is in Formation `Pickets`, not in `Wardens`",
    );
    at(
        "13, unit = \"KRD Long Watch\", system = 9",
        "system 13 of `Test Striker` (Needle Beam) already has a target in this fire entry (line",
    );
    at("40", "`KRD Long Watch` has no system 40 (it has 14)");
    at(
        "{ weapon = 17, unit = \"KRD Long Watch\", system = 10 }",
        "the needle beams of one Fire Control aim at one system, and this Fire Control's already aim at system 8 of \
         `KRD Long Watch` (Class 2 Battery)",
    );
    at(
        "3 } }",
        "system 3 of `KRD Sharp Descent` (LSS) is a core system: core systems cannot be targeted by needle beams \
         (ft-rules §4.2)",
    );
    at(
        "\"Test Hulk\", system",
        "`Test Hulk` is out of the fight (destroyed or derelict): a needle beam cannot aim at it",
    );
    at("shots", "unknown key `shots`");
    assert_eq!(found.len(), 12, "{found:#?}");
    // The help says what to write.
    let r = build(&text, &[]).unwrap_err();
    let rendered: String = r.iter().map(|(s, d)| s.render(d, 50)).collect();
    assert!(
        rendered.contains("e.g. needle = { weapon = 7, unit = \"KRD Ridge Warden\", system = 4 }"),
        "{rendered}"
    );

    // A destroyed system, and `unit` left out with two Units to choose from.
    let text = arms(
        "[[plot.Lancers.volley]]\nspeed = 6\n\n\
         [[plot.Strike.volley]]\nspeed = 3\nfire = [\n  \
         { fc = 1, target = \"Lancers\", weapons = [13], needle = { weapon = 13, unit = \"Test Striker\", system = 5 } },\n]\n",
    );
    let text = text.replace("target = \"Lancers\"", "target = \"Homestead\"").replace(
        "unit = \"Test Striker\", system = 5",
        "unit = \"Test Kraal\", system = 4",
    );
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "4 }",
        "system 4 of `Test Kraal` (Screen Generator) is already destroyed",
    );
    let text = text.replace("unit = \"Test Kraal\", system = 4", "system = 2");
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "{ weapon = 13, system = 2 }",
        "Formation `Homestead` has 2 Units: say which one the needle beam aims at with unit = \"…\"",
    );
}

#[test]
fn point_defence_names_pd_weapons_and_whom_they_may_defend() {
    let text = arms(
        r#"[[plot.Carrier.volley]]
speed = 2
fire = [{ unit = "MCS Harrow of Stars", fc = 6, target = "Wardens", weapons = [13] }]
pd = [
  { unit = "MCS Harrow of Stars", weapons = [10, 13] },
  { unit = "MCS Harrow of Stars", weapons = [15], defend = "MCS Patient Ember" },
  { unit = "MCS Harrow of Stars", weapons = [16], defend = "MCS Unhurried Tide" },
  { unit = "MCS Harrow of Stars", weapons = [17], defend = "MCS Unhurried Tide" },
  { unit = "MCS Harrow of Stars", weapons = [18], defend = "MCS Patient Ember" },
  { unit = "MCS Harrow of Stars", weapons = [19], defend = "KRD Long Watch" },
  { unit = "MCS Unhurried Tide", weapons = [11], defend = "MCS Harrow of Stars" },
  { unit = "MCS Patient Ember", weapons = [] },
]

[[plot.Homestead.volley]]
speed = 3
pd = [
  { unit = "Test Homestead", weapons = [5, 4], defend = "Test Kraal" },
  { unit = "Test Homestead", weapons = [8], defend = "Test Kraal" },
  { unit = "Test Kraal", weapons = [3] },
]
"#,
    );
    let found = problems(&text, &[]);
    let at = |needle: &str, fragment: &str| expect(&found, "scenario.toml", &text, needle, fragment);
    at(
        "10, 13]",
        "system 10 of `MCS Harrow of Stars` (Class 2 Battery) cannot fire in point-defence mode",
    );
    at(
        "13] },",
        "system 13 of `MCS Harrow of Stars` (Class 1 Battery) is already assigned in this Volley (line",
    );
    at(
        "15]",
        "system 15 of `MCS Harrow of Stars` (Class 1 Battery) cannot defend `MCS Patient Ember`: class-1 beams defend \
         only their own Unit (ft-rules §2.3: never area defence)",
    );
    at(
        "[18], defend = |\"MCS Patient Ember\"",
        "`MCS Harrow of Stars` has 1 working ADFC, so its point defence covers at most 1 other Unit in a Volley, and it \
         already covers `MCS Unhurried Tide` (line",
    );
    at(
        "defend = |\"KRD Long Watch\"",
        "`KRD Long Watch` is in Formation `Wardens`, not in `Carrier`",
    );
    at(
        "[11], defend = |\"MCS Harrow of Stars\"",
        "`MCS Unhurried Tide` has no working ADFC, so its point defence can defend only itself, not `MCS Harrow of Stars`",
    );
    // FT2: an ADAF and a Scattergun cover another Unit by themselves
    // (readings O20), a PDAF needs an ADFC; a B Battery is no PD weapon.
    at(
        "[8], defend = |\"Test Kraal\"",
        "`Test Homestead` has no working ADFC, so its point defence can defend only itself, not `Test Kraal`",
    );
    let line = text.lines().position(|l| l.contains("weapons = [5, 4]")).unwrap() + 1;
    assert!(
        !found.iter().any(|f| f.starts_with(&format!("scenario.toml:{line}:"))),
        "the ADAF and the Scattergun may defend `Test Kraal`: {found:#?}"
    );
    at(
        "[|3] }",
        "system 3 of `Test Kraal` (B Battery) cannot fire in point-defence mode",
    );
    // Eight errors and one warning.
    assert_eq!(found.len(), 9, "{found:#?}");
    let warnings: Vec<&String> = found.iter().filter(|l| l.contains(": warning: ")).collect();
    assert_eq!(warnings.len(), 1, "{warnings:#?}");
    assert!(
        warnings[0].contains("this `pd` entry of `MCS Patient Ember` lists no weapons"),
        "{warnings:#?}"
    );
}

#[test]
fn a_destroyed_unit_cannot_defend_or_be_defended() {
    let text = r#"gzf = ["custom.gzf", "meridian-compact.gzf"]
[sides]
A = ["Cutters"]
B = ["Lancers"]
[formations]
Cutters = ["Test Cutter", "Test Hulk"]
Lancers = ["MCS Small Hours"]

[[plot.Cutters.volley]]
speed = 3
pd = [
  { unit = "Test Hulk", weapons = [2] },
  { unit = "Test Cutter", weapons = [5], defend = "Test Hulk" },
]
"#;
    let found = problems(text, &[]);
    expect(
        &found,
        "scenario.toml",
        text,
        "\"Test Hulk\", weapons",
        "`Test Hulk` is out of the fight (destroyed or derelict) and cannot defend",
    );
    expect(
        &found,
        "scenario.toml",
        text,
        "defend = |\"Test Hulk\"",
        "`Test Hulk` is out of the fight (destroyed or derelict): there is nothing to defend",
    );
}

#[test]
fn fire_targets_are_other_formations_or_inactive() {
    let text = lancers(
        "speed = 6\nfire = [\n  { unit = \"MCS Clear Heading\", fc = 6, target = \"Lancers\" },\n  \
         { unit = \"MCS Clear Heading\", fc = 7, target = \"wardens\" },\n  \
         { unit = \"MCS Small Hours\", target = \"inactive\", weapons = [6] },\n]\n",
    );
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "\"Lancers\" }",
        "Formation `Lancers` cannot fire on itself",
    );
    expect(
        &found,
        "scenario.toml",
        &text,
        "\"wardens\"",
        "unknown Formation `wardens`",
    );
    expect(
        &found,
        "scenario.toml",
        &text,
        "[6]",
        "an inactive Fire Control directs no weapons",
    );
    let l = build(
        &lancers("speed = 6\nfire = [{ unit = \"MCS Small Hours\", target = \"Inactive\" }]\n"),
        &[],
    )
    .unwrap();
    let v = &l.plot.formations[0].as_ref().unwrap().volleys[0];
    assert_eq!(v.fire[0].target, None);
    assert!(v.fire[0].weapons.is_empty());
}

#[test]
fn firing_on_a_friendly_formation_is_a_warning() {
    let l = build(
        &lancers("speed = 6\nfire = [{ unit = \"MCS Small Hours\", target = \"Needle\" }]\n"),
        &[],
    )
    .unwrap();
    let w = lines(&l.warnings);
    assert!(
        w.iter()
            .any(|l| l.contains("warning: `Needle` is a Formation of the same side")),
        "{w:#?}"
    );
}

#[test]
fn a_destroyed_unit_cannot_fire_or_shift() {
    let text = r#"gzf = ["custom.gzf", "kestrel-reach.gzf"]
[sides]
A = ["Cutters"]
B = ["Wardens"]
[formations]
Cutters = ["Test Cutter", "Test Hulk"]
Wardens = ["KRD Ridge Warden"]

[[plot.Cutters.volley]]
speed = 3
evasion = 3
fire = [{ unit = "Test Hulk", target = "Wardens" }]
"#;
    let found = problems(text, &[]);
    expect(
        &found,
        "scenario.toml",
        text,
        "\"Test Hulk\", target",
        "`Test Hulk` is out of the fight",
    );
}

#[test]
fn two_default_weapon_lists_on_one_unit() {
    let text = lancers(
        "speed = 6\nfire = [\n  { unit = \"MCS Clear Heading\", fc = 6, target = \"Wardens\" },\n  \
         { unit = \"MCS Clear Heading\", fc = 7, target = \"Needle\" },\n]\n",
    );
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "{ unit = \"MCS Clear Heading\", fc = 7",
        "two Fire Controls of `MCS Clear Heading` take the default weapons",
    );
}

#[test]
fn damage_control_lists_name_systems_of_the_unit_once() {
    let text = lancers("speed = 6\ndamage_control = { \"MCS Small Hours\" = [2, 2, 8] }\n");
    let found = problems(&text, &[]);
    expect(
        &found,
        "scenario.toml",
        &text,
        "2, 8",
        "system 2 is already in this damage-control list",
    );
    expect(
        &found,
        "scenario.toml",
        &text,
        "8]",
        "`MCS Small Hours` has no system 8 (it has 7)",
    );
}

// ------------------------------------------------------ plots: orders files

#[test]
fn an_orders_file_plots_only_its_commanders_formations() {
    let o1 = "commander = \"Ilse\"\n[[plot.Wardens.volley]]\nspeed = 6\n";
    let o2 = "[[plot.Lancers.volley]]\nspeed = 6\n[[plot.Wardens.volley]]\nspeed = 6\n";
    let o3 = "commander = \"Ilze\"\n";
    let found = problems(BASE, &[o1, o2, o3]);
    expect(
        &found,
        "orders1.toml",
        o1,
        "Wardens.volley",
        "Formation `Wardens` belongs to `Marek`, and this orders file is `Ilse`'s",
    );
    expect(
        &found,
        "orders2.toml",
        o2,
        "Wardens.volley",
        "Formation `Wardens` belongs to `Marek`, but this file also plots `Lancers` of `Ilse` (line 1)",
    );
    expect(&found, "orders3.toml", o3, "\"Ilze\"", "no commander named `Ilze`");
}

#[test]
fn a_formation_is_plotted_once() {
    let text = lancers("speed = 6\n");
    let o = "[[plot.Lancers.volley]]\nspeed = 6\n[[plot.Lancer.volley]]\nspeed = 6\n";
    let found = problems(&text, &[o]);
    expect(
        &found,
        "orders1.toml",
        o,
        "Lancers",
        "Formation `Lancers` is already plotted (scenario.toml line 12)",
    );
    expect(&found, "orders1.toml", o, "Lancer.", "unknown Formation `Lancer`");
}

#[test]
fn every_problem_is_reported_not_just_the_first() {
    let text = format!(
        "{}\n[[plot.Needle.volley]]\nspeed = 1\nevasion = 1\nprimary = {{ close = \"Needle\" }}\n",
        lancers("speed = 1\nevasion = 9\n")
    );
    let found = problems(&text, &[]);
    assert_eq!(found.len(), 4, "{found:#?}");
}

// ------------------------------------------------------------------- CLI

#[test]
fn fam_check_validates_scenarios_and_orders_files() {
    let mut args = vec!["check".to_string()];
    for p in files_with(&repo().join("scenarios"), "toml") {
        args.push(p.display().to_string());
    }
    for p in ["split.toml", "split-ilse.toml", "split-marek.toml", "split-whole.toml"] {
        args.push(fixtures("orders").join(p).display().to_string());
    }
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = fam(&refs);
    assert!(out.status.success(), "{}\n{}", text(&out.stdout), text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.lines().all(|l| l.contains(": ok (")), "{stdout}");
    assert!(
        stdout.contains("split-ilse.toml: ok (orders, 2 Formations plotted, checked against"),
        "{stdout}"
    );
    assert!(text(&out.stderr).is_empty(), "{}", text(&out.stderr));
}

#[test]
fn fam_check_positions_problems_in_a_scenario_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.toml");
    let ssd = repo().join("ssd").join("meridian-compact.gzf");
    std::fs::write(
        &path,
        format!(
            "gzf = [{:?}]\n[sides]\nA = [\"X\"]\nB = [\"Y\"]\n[formations]\nX = [\"MCS Small Hours\"]\nY = [\"MCS Clear Heading\"]\n\
             [[plot.X.volley]]\nspeed = 5\nevasion = 5\n",
            ssd.display().to_string()
        ),
    )
    .unwrap();
    let out = fam(&["check", &path.display().to_string()]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("bad.toml:9:9"), "{stderr}");
    assert!(
        stderr.contains("Speed 5 + Evasion 5 = 10, but the Formation Thrust of `X` is 8"),
        "{stderr}"
    );
    assert!(stderr.contains("bad.toml:10:11"), "{stderr}");
    assert!(
        stderr.contains("Evasion 5 is more than half the Formation Thrust of `X` (8, so at most 4)"),
        "{stderr}"
    );
    assert!(stderr.contains('^'), "{stderr}");
    assert!(text(&out.stdout).contains("bad.toml: 2 errors, 0 warnings"));
}

#[test]
fn an_orders_file_for_another_scenario_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let orders_path = dir.path().join("o.toml");
    std::fs::write(&orders_path, "scenario = \"elsewhere.toml\"\n").unwrap();
    let r = orders::load_scenario(
        &fixtures("orders").join("split.toml"),
        &[orders_path],
        &ParseOptions::default(),
    )
    .unwrap_err();
    let found = lines(&r);
    assert!(
        found
            .iter()
            .any(|l| l.contains("o.toml:1:12: error: this orders file is for scenario `elsewhere.toml`")),
        "{found:#?}"
    );
}

// ------------------------------------------------------------------- docs

/// The fenced blocks of `docs/orders.md` with the given language.
fn doc_blocks(lang: &str) -> Vec<String> {
    let doc = std::fs::read_to_string(repo().join("docs/orders.md")).unwrap();
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    for line in doc.lines() {
        match &mut current {
            None if line == format!("```{lang}") => current = Some(String::new()),
            Some(block) if line == "```" => {
                out.push(std::mem::take(block));
                current = None;
            }
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
            None => {}
        }
    }
    out
}

fn build_doc_example(scenario: &str) -> Result<Loaded, Vec<Report>> {
    let orders = doc_blocks("toml")
        .into_iter()
        .find(|b| b.starts_with("# marek.toml"))
        .unwrap();
    orders::build(
        SourceFile::new("battle.toml", scenario),
        vec![SourceFile::new("marek.toml", orders)],
        &mut read_gzf,
        &ParseOptions::default(),
    )
}

#[test]
fn the_annotated_example_in_the_docs_is_valid() {
    let scenario = doc_blocks("toml")
        .into_iter()
        .find(|b| b.starts_with("# battle.toml"))
        .unwrap();
    let l = build_doc_example(&scenario).unwrap_or_else(|r| panic!("{:?}", lines(&r)));
    assert!(l.warnings.is_empty(), "{:?}", lines(&l.warnings));
    assert!(l.unplotted().is_empty());
    assert_eq!(
        (l.exchange, l.seed, l.title.as_deref()),
        (1, Some(2024), Some("Skirmish at the Narrows"))
    );
    assert_eq!(l.battle.ranges.get(0, 1), 54);
    assert_eq!(l.battle.ranges.get(0, 2), 36);
    // What the comments say about the default weapons.
    let lancers = l.plot.formations[0].as_ref().unwrap();
    assert_eq!(lancers.volleys[0].fire[1].weapons, [10, 11]);
    assert_eq!(lancers.volleys[0].fire[2].weapons, [5]);
    assert_eq!((lancers.volleys[2].speed, lancers.volleys[2].evasion), (4, 2));
    let wardens = l.plot.formations[2].as_ref().unwrap();
    assert_eq!(wardens.volleys[1].fire[0].weapons, [6, 7, 8]);
    assert_eq!(wardens.volleys[1].fire[0].fire_control, 4);
    assert_eq!(
        wardens.volleys[2].point_defence,
        [pd(3, 9, Some(4)), pd(3, 10, Some(4))]
    );
    let needle = l.plot.formations[1].as_ref().unwrap();
    assert_eq!(needle.volleys[0].fire[0].weapons, [6, 7, 8]);
    assert_eq!(needle.volleys[0].point_defence, [pd(2, 9, None)]);
    let pickets = l.plot.formations[3].as_ref().unwrap();
    assert_eq!(pickets.volleys[0].fire[0].weapons, [5]);
    assert!(pickets.volleys[1].fire[0].weapons.is_empty());
    assert!(pickets.volleys[2].fire[0].weapons.is_empty());
    assert_eq!(pickets.volleys[2].fire[1].weapons, [8]);

    // The error shown in the docs is the error fam gives.
    let wrong = scenario.replacen("evasion = 2 ", "evasion = 4 ", 1);
    let r = build_doc_example(&wrong).unwrap_err();
    let rendered: String = r.iter().map(|(s, d)| s.render(d, 50)).collect();
    let shown = doc_blocks("text").into_iter().next().unwrap();
    assert_eq!(
        rendered.trim_end(),
        shown.trim_end(),
        "docs show\n{shown}\nfam says\n{rendered}"
    );
}

/// A Formation of 101 Units cannot be given percentile targeting bands of
/// at least 1 % each (fm-readings 10-11): the scenario is refused at the
/// Formation's list, where the engine would otherwise have panicked.
#[test]
fn a_formation_of_more_than_100_units_is_refused_at_its_list() {
    let many: Vec<String> = (0..101).map(|i| format!("\"Hull {i}\"")).collect();
    let list = format!("[{}]", many.join(", "));
    let text = BASE.replace("[\"MCS Patient Ember\"]", &list);
    let found = problems(&text, &[]);
    expect(&found, "scenario.toml", &text, &list, "has 101 Units");
    expect(&found, "scenario.toml", &text, &list, "at most 100");
    // A hundred is still a Formation (its names are what is wrong here).
    let hundred = format!("[{}]", many[..100].join(", "));
    let text = BASE.replace("[\"MCS Patient Ember\"]", &hundred);
    assert!(!problems(&text, &[]).iter().any(|l| l.contains("at most 100")));
}
