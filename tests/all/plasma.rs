//! Plasma bolt launchers (issue 16): one d6 per class on the Unit the
//! bolt bursts on, each less one per screen level and less the Evasion
//! DRM, never below 0; normal damage (armour first); the launcher recharges
//! through the Volley after it fires; 36 MU reach; the
//! `plasma_bolt_formation` switch spreads the burst over every ship of the
//! target Formation; the records and imports that carry it.
//!
//! Every expected value is worked out here from the rules (ft-rules §4.6
//! and `docs/readings.md` W35-W37), never copied from a run. The
//! statistical check uses fixed seeds and a bound of five standard errors
//! taken from the exact variance, so it cannot flake.

use crate::support::{checked, scripted};
use approx::abs_diff_eq;

use fam::engine::dice::Dice;
use fam::engine::event::{PlasmaBoltAttack, Recorder, WeaponIdle};
use fam::engine::plot::{ExchangePlot, FireOrder, FormationPlot, SystemId, VolleyPlot};
use fam::engine::rules::Rules;
use fam::engine::state::{Battle, Formation, RangeTable, Side, Unit};
use fam::engine::volley::{Scratch, run_exchange, run_volley};
use fam::ftjava::{self, Options};
use fam::gzf::{self, ParseOptions, SystemKind};

use super::support::{fam, fixtures, repo, text};

// ---- the ships ------------------------------------------------------------------

/// A Phalon-style ship with one Fire Control (#1) and a plasma bolt
/// launcher of every class (#2-#7), forward arc only (no Evasion ignored);
/// two targets with 2 armour, `screens` screen generators and four rows of
/// 40 hull boxes (no Volley here completes a row: no threshold dice).
fn records(screens: usize) -> gzf::GzfFile {
    shrouded_records(screens, "", "")
}

/// As [`records`], with `bolter` and `targets` (a `Vapour Shroud` block, or
/// nothing) after the bolter's launchers and each target's screens.
fn shrouded_records(screens: usize, bolter: &str, targets: &str) -> gzf::GzfFile {
    let mut text = String::from(
        "Profile: FB1\n\nShip: Bolter\nMass: 100\nThrust-Rating: 4\n\
         Damage-Track: OOOOOOOOOO OOOOOOOOOO OOOOOOOOOO OOOOOOOOOO\n\nSystem: FCS\n\n",
    );
    for class in 1..=6 {
        text.push_str(&format!(
            "System: Class {class} Plasma Bolt Launcher\nFiring-Arc: F\n\n"
        ));
    }
    text.push_str(bolter);
    let row = "O".repeat(40);
    for name in ["Near", "Far"] {
        text.push_str(&format!(
            "Ship: {name}\nMass: 100\nThrust-Rating: 4\nArmour: O O\n\
             Damage-Track: {row} {row} {row} {row}\n\n"
        ));
        for _ in 0..screens {
            text.push_str("System: Screen Generator\n\n");
        }
        text.push_str(targets);
    }
    let parsed = gzf::parse(&text, &ParseOptions::default());
    assert!(!parsed.has_errors(), "the test records read");
    parsed.file
}

const FCS: SystemId = 0;

/// The system index of the launcher of `class`.
fn pbl(class: u8) -> SystemId {
    usize::from(class)
}

/// The bolter against a Formation of the two targets, `range` MU apart.
fn battle(range: u32, screens: usize, rules: Rules) -> Battle {
    battle_of(records(screens), range, screens, rules)
}

fn battle_of(file: gzf::GzfFile, range: u32, screens: usize, rules: Rules) -> Battle {
    let bolter = Unit::from_ship(file.ship("Bolter").unwrap(), file.profile, 0, 0);
    for class in 1..=6 {
        assert_eq!(bolter.systems[pbl(class)].kind, SystemKind::PlasmaBolt { class });
    }
    let near = Unit::from_ship(file.ship("Near").unwrap(), file.profile, 1, 1);
    let far = Unit::from_ship(file.ship("Far").unwrap(), file.profile, 1, 1);
    assert!(usize::from(near.screen_level()) >= screens.min(2));
    Battle {
        sides: vec![Side { name: "A".into() }, Side { name: "B".into() }],
        formations: vec![
            Formation {
                name: "F0".into(),
                side: 0,
                units: vec![0],
                reserve: Default::default(),
            },
            Formation {
                name: "F1".into(),
                side: 1,
                units: vec![1, 2],
                reserve: Default::default(),
            },
        ],
        units: vec![bolter, near, far],
        ranges: RangeTable::new(2, range),
        rules,
    }
}

/// The bolter fires `weapons` in every Volley; the targets roll `evasion`
/// Evasion dice.
fn plot(weapons: &[SystemId], evasion: u32) -> ExchangePlot {
    let fire = VolleyPlot {
        fire: vec![FireOrder {
            unit: 0,
            fire_control: FCS,
            target: Some(1),
            weapons: weapons.to_vec(),
            needles: Vec::new(),
            group: None,
        }],
        ..VolleyPlot::default()
    };
    let evade = VolleyPlot {
        evasion,
        ..VolleyPlot::default()
    };
    ExchangePlot {
        formations: vec![
            Some(FormationPlot {
                volleys: [fire.clone(), fire.clone(), fire],
            }),
            Some(FormationPlot {
                volleys: [evade.clone(), evade.clone(), evade],
            }),
        ],
    }
}

/// The d100 that acquires the first target (mass-weighted: two equal
/// ships, 1-50 the first).
const NEAR: u8 = 1;

/// (target, faces, damage) of every plasma bolt event.
fn bolts(rec: &Recorder) -> Vec<(usize, Vec<u8>, u32)> {
    rec.events_of::<PlasmaBoltAttack>()
        .map(
            |PlasmaBoltAttack {
                 target, faces, damage, ..
             }| (*target, faces.clone(), *damage),
        )
        .collect()
}

// ---- the rules, restated -----------------------------------------------------------

/// Points of one bolt die: the face less one per screen level and less the
/// Evasion Points, never below 0.
fn die_points(face: u32, screen: u32, evasion: u32) -> u32 {
    face.saturating_sub(screen + evasion)
}

/// Normal damage on `armour` boxes: armour first, the rest to the hull.
fn normal(armour: u32, damage: u32) -> (u32, u32) {
    let a = damage.min(armour);
    (a, damage - a)
}

// ---- 1. every face, scripted ------------------------------------------------------

/// Every class against every screen level, every face: the points are the
/// face less the screen level, summed over the class's dice, armour first.
#[test]
fn a_bolt_rolls_a_die_per_class_less_the_screen_level() {
    for screens in 0..=2u32 {
        for class in 1..=6u8 {
            for face in 1..=6u8 {
                let mut b = battle(12, screens as usize, Rules::default());
                let mut faces = vec![NEAR];
                faces.extend(std::iter::repeat_n(face, usize::from(class)));
                let rec = scripted(&mut b, &plot(&[pbl(class)], 0), &faces);
                let points = u32::from(class) * die_points(u32::from(face), screens, 0);
                let (armour, hull) = normal(2, points);
                assert_eq!(
                    bolts(&rec),
                    [(1, vec![face; usize::from(class)], points)],
                    "class {class}, face {face}, {screens} screens"
                );
                assert_eq!(
                    (b.units[1].armour_lost, b.units[1].hull_lost, b.units[2].hull_lost),
                    (armour, hull, 0)
                );
            }
        }
    }
}

/// Evasion takes its points off every die, as the screen does: one
/// Evasion die showing 6 (two points) behind a level-1 screen leaves a
/// class-3 bolt rolling 6, 3, 4 with 3, 0 and 1 points.
#[test]
fn evasion_takes_its_points_off_every_die() {
    let mut b = battle(12, 1, Rules::default());
    let rec = scripted(&mut b, &plot(&[pbl(3)], 1), &[6, NEAR, 6, 3, 4]);
    let expected: u32 = [6, 3, 4].iter().map(|&f| die_points(f, 1, 2)).sum();
    assert_eq!(expected, 4);
    assert_eq!(bolts(&rec), [(1, vec![6, 3, 4], expected)]);
    assert_eq!((b.units[1].armour_lost, b.units[1].hull_lost), normal(2, expected));
}

/// A bolt reaches 36 MU (the 30 MU marker and its 6 MU burst) and not 37;
/// out of reach it rolls nothing but the targeting die.
#[test]
fn a_bolt_reaches_thirty_six_mu() {
    let mut b = battle(36, 0, Rules::default());
    let rec = scripted(&mut b, &plot(&[pbl(1)], 0), &[NEAR, 5]);
    assert_eq!(bolts(&rec), [(1, vec![5], 5)]);
    let mut b = battle(37, 0, Rules::default());
    let rec = scripted(&mut b, &plot(&[pbl(1)], 0), &[NEAR]);
    assert!(bolts(&rec).is_empty());
}

/// Plotted in all three Volleys, a launcher fires in the first, recharges
/// through the second (no die) and fires again in the third.
#[test]
fn a_launcher_recharges_through_the_volley_after_it_fires() {
    let mut b = battle(12, 0, Rules::default());
    let mut rec = Recorder::default();
    // Volley 1: targeting, the bolt; Volley 2: targeting only; Volley 3:
    // targeting, the bolt. Faces of 1 score 1 point each.
    let faces = [NEAR, 1, NEAR, NEAR, 1];
    let mut dice = Dice::from_faces(&faces);
    let p = checked(&b, &plot(&[pbl(1)], 0));
    run_exchange(&mut b, &p, &mut dice, &mut rec, &mut Scratch::default());
    assert_eq!(dice.count_draws(), faces.len() as u64);
    assert_eq!(bolts(&rec).len(), 2);
    let stopped = rec
        .events_of::<WeaponIdle>()
        .filter(|e| matches!(e, WeaponIdle { reason, .. } if reason.starts_with("recharging")))
        .count();
    assert_eq!(stopped, 1);
}

/// With `plasma_bolt_formation` the burst touches every ship of the target
/// Formation, each rolling its own dice; by default only the acquired one.
#[test]
fn the_formation_switch_spreads_the_burst_over_every_ship() {
    let rules = Rules {
        plasma_bolt_formation: true,
        ..Rules::default()
    };
    let mut b = battle(12, 1, rules);
    let rec = scripted(&mut b, &plot(&[pbl(2)], 0), &[NEAR, 6, 2, 4, 5]);
    assert_eq!(bolts(&rec), [(1, vec![6, 2], 6), (2, vec![4, 5], 7)]);
    assert_eq!((b.units[1].armour_lost, b.units[1].hull_lost), normal(2, 6));
    assert_eq!((b.units[2].armour_lost, b.units[2].hull_lost), normal(2, 7));
}

// ---- 2. the vapour shroud ---------------------------------------------------------

const SHROUD: &str = "System: Vapour Shroud\n\n";
const SHROUD_OFF: &str = "System: Vapour Shroud\nStatus: Inactive\n\n";

/// A working vapour shroud is a level-2 screen (readings W38): a class-2
/// bolt rolling 6 and 3 on an unscreened but shrouded ship scores 4 + 1;
/// switched off (`Status: Inactive`) it screens nothing: 6 + 3.
#[test]
fn a_vapour_shroud_screens_its_ship_at_level_two() {
    let mut b = battle_of(shrouded_records(0, "", SHROUD), 12, 0, Rules::default());
    assert_eq!(b.units[1].screen_level(), 2);
    let rec = scripted(&mut b, &plot(&[pbl(2)], 0), &[NEAR, 6, 3]);
    assert_eq!(
        bolts(&rec),
        [(1, vec![6, 3], die_points(6, 2, 0) + die_points(3, 2, 0))]
    );
    let mut b = battle_of(shrouded_records(0, "", SHROUD_OFF), 12, 0, Rules::default());
    let rec = scripted(&mut b, &plot(&[pbl(2)], 0), &[NEAR, 6, 3]);
    assert_eq!(bolts(&rec), [(1, vec![6, 3], 9)]);
}

/// The shroud screens its own ship's fire too (default
/// `vapour_shroud_own_fire = true`): the shrouded bolter's 6 and 3 on an
/// open target score 4 + 1; with the switch off, 6 + 3. A screened target
/// is not screened twice: level 2 stays level 2.
#[test]
fn a_vapour_shroud_screens_its_own_fire_unless_switched_off() {
    let mut b = battle_of(shrouded_records(0, SHROUD, ""), 12, 0, Rules::default());
    let rec = scripted(&mut b, &plot(&[pbl(2)], 0), &[NEAR, 6, 3]);
    assert_eq!(bolts(&rec), [(1, vec![6, 3], 5)]);
    let free = Rules {
        vapour_shroud_own_fire: false,
        ..Rules::default()
    };
    let mut b = battle_of(shrouded_records(0, SHROUD, ""), 12, 0, free);
    let rec = scripted(&mut b, &plot(&[pbl(2)], 0), &[NEAR, 6, 3]);
    assert_eq!(bolts(&rec), [(1, vec![6, 3], 9)]);
    let mut b = battle_of(shrouded_records(2, SHROUD, ""), 12, 2, Rules::default());
    let rec = scripted(&mut b, &plot(&[pbl(2)], 0), &[NEAR, 6, 3]);
    assert_eq!(bolts(&rec), [(1, vec![6, 3], 5)]);
}

// ---- 3. samples against the exact distribution ------------------------------------

/// A class-4 bolt behind a level-2 screen with one Evasion die: the mean
/// and variance of its points, enumerated over every Evasion face and every
/// bolt face, against 20 000 seeded Volleys.
#[test]
fn bolt_damage_samples_match_the_exact_distribution() {
    // Evasion points of one die: 1-3 none, 4-5 one, 6 two.
    let evasion = |f: u32| match f {
        1..=3 => 0,
        4 | 5 => 1,
        _ => 2,
    };
    let (mut mean, mut square) = (0.0, 0.0);
    for e in 1..=6u32 {
        // One die's mean and second moment at these Evasion points.
        let m1: f64 = (1..=6).map(|f| f64::from(die_points(f, 2, evasion(e)))).sum::<f64>() / 6.0;
        let m2: f64 = (1..=6)
            .map(|f| f64::from(die_points(f, 2, evasion(e))).powi(2))
            .sum::<f64>()
            / 6.0;
        // Four independent dice given the Evasion face.
        let var = 4.0 * (m2 - m1 * m1);
        mean += 4.0 * m1 / 6.0;
        square += (var + (4.0 * m1).powi(2)) / 6.0;
    }
    let sd = (square - mean * mean).sqrt();
    let runs = 20_000u64;
    let mut total = 0.0;
    let p = checked(&battle(12, 2, Rules::default()), &plot(&[pbl(4)], 1));
    for seed in 0..runs {
        let mut b = battle(12, 2, Rules::default());
        let mut dice = Dice::new(seed);
        run_volley(&mut b, &p, 0, &mut dice, &mut (), &mut Scratch::default());
        total +=
            f64::from(b.units[1].armour_lost + b.units[1].hull_lost + b.units[2].armour_lost + b.units[2].hull_lost);
    }
    let sample = total / runs as f64;
    let bound = 5.0 * sd / (runs as f64).sqrt();
    assert!(
        abs_diff_eq!(sample, mean, epsilon = bound),
        "sample {sample:.4}, exact {mean:.4}, bound {bound:.4}"
    );
}

// ---- 4. records and imports ------------------------------------------------------

/// `Class N Plasma Bolt Launcher` (and `Class N PBL`) read for N 1-6 in
/// both profiles and write back canonically; class 0 and 7 are errors.
#[test]
fn plasma_bolt_names_read_and_write_canonically() {
    for profile in ["FB1", "FT2"] {
        let text = format!(
            "Profile: {profile}\n\nShip: S\nMass: 50\nThrust-Rating: 4\nDamage-Track: OOOO OOOO OOOO\n\n\
             System: Class 3 PBL\nFiring-Arc: F\n\nSystem: class 6 plasma bolt launcher\nFiring-Arc: F\n"
        );
        let parsed = gzf::parse(&text, &ParseOptions::default());
        assert!(!parsed.has_errors(), "{profile}");
        let kinds: Vec<_> = parsed
            .file
            .ships()
            .next()
            .unwrap()
            .systems
            .iter()
            .map(|s| s.kind.clone())
            .collect();
        assert_eq!(
            kinds,
            [SystemKind::PlasmaBolt { class: 3 }, SystemKind::PlasmaBolt { class: 6 }]
        );
        let written = gzf::write(&parsed.file);
        assert!(written.contains("Class 3 Plasma Bolt Launcher"), "{written}");
        assert!(written.contains("Class 6 Plasma Bolt Launcher"), "{written}");
    }
    for bad in ["Class 0 Plasma Bolt Launcher", "Class 7 PBL"] {
        let text = format!("Profile: FB1\n\nShip: S\nMass: 50\nThrust-Rating: 4\n\nSystem: {bad}\n");
        assert!(gzf::parse(&text, &ParseOptions::default()).has_errors(), "{bad}");
    }
}

/// FTJava's `PlasmaBoltLauncher rating="N"` imports as a class-N launcher,
/// on three forward arcs when the element gives none; it exports back to
/// the same element; a rating outside 1-6 is refused.
#[test]
fn ftjava_plasma_bolts_import_and_round_trip() {
    let path = fixtures("ftjava").join("phalon-ember.xml");
    let xml = std::fs::read_to_string(&path).unwrap();
    let imported = ftjava::import(&fam::diag::SourceFile::new("ember.xml", &xml), &Options::default());
    assert!(
        !imported.diagnostics.iter().any(|d| d.is_error()),
        "{:?}",
        imported.diagnostics
    );
    let ship = imported.gzf.ships().next().unwrap();
    let bolts: Vec<_> = ship
        .systems
        .iter()
        .filter(|s| matches!(s.kind, SystemKind::PlasmaBolt { .. }))
        .collect();
    assert_eq!(bolts.len(), 2);
    assert_eq!(bolts[0].kind, SystemKind::PlasmaBolt { class: 3 });
    assert_eq!(bolts[1].kind, SystemKind::PlasmaBolt { class: 1 });
    use fam::gzf::Arc;
    assert_eq!(bolts[0].arcs, [Arc::Fp, Arc::F, Arc::Fs]);
    assert_eq!(bolts[1].arcs, [Arc::A]);
    assert_eq!(
        ship.systems
            .iter()
            .filter(|s| s.kind == SystemKind::VapourShroud)
            .count(),
        1
    );
    let written = gzf::write(&imported.gzf);
    let parsed = gzf::parse(&written, &ParseOptions::default());
    assert!(!parsed.has_errors(), "{written}");
    let request = ftjava::export::Request {
        text: &written,
        file: &parsed.file,
        spans: &parsed.spans,
        ship: None,
        title: "ember",
        skip_unmapped: false,
    };
    let exported = ftjava::export::export(&request);
    assert!(exported.xml.contains("<PlasmaBoltLauncher id=") && exported.xml.contains("rating=\"3\""));
    assert!(exported.xml.contains("<VapourShroud id="), "{}", exported.xml);
    let again = ftjava::import(
        &fam::diag::SourceFile::new("again.xml", &exported.xml),
        &Options::default(),
    );
    assert_eq!(again.gzf.ships().next().unwrap().systems, ship.systems);
    for bad in ["0", "7"] {
        let xml = xml.replace("rating=\"3\"", &format!("rating=\"{bad}\""));
        let i = ftjava::import(&fam::diag::SourceFile::new("bad.xml", &xml), &Options::default());
        assert!(i.diagnostics.iter().any(|d| d.is_error()), "rating {bad}");
    }
}

// ---- 5. they fight ---------------------------------------------------------------

/// An imported plasma-bolt ship fights a shipped record in a batch under
/// the default doctrine: its launchers fire in most runs and score.
#[test]
fn an_imported_plasma_bolt_ship_fights_in_a_batch() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("gzf");
    let xml = fixtures("ftjava").join("phalon-ember.xml");
    let o = fam(&[
        "import",
        "ftjava",
        "--out",
        out.to_str().unwrap(),
        xml.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let record = out.join("phalon-ember.gzf");
    let check = fam(&["check", record.to_str().unwrap()]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stderr));
    let scenario = dir.path().join("ember.toml");
    let meridian = repo().join("ssd/meridian-compact.gzf");
    std::fs::write(
        &scenario,
        format!(
            "title = \"Ember\"\ngzf = [{:?}, {:?}]\nseed = 5\n\n[sides]\nA = [\"Ember\"]\nB = [\"Heading\"]\n\n\
             [formations]\nEmber = [\"Phalon Ember\"]\nHeading = [\"MCS Clear Heading\"]\n\n\
             [[range]]\nbetween = [\"Ember\", \"Heading\"]\nmu = 36\n\n[victory]\nmax_exchanges = 8\n",
            record.to_str().unwrap(),
            meridian.to_str().unwrap()
        ),
    )
    .unwrap();
    let o = fam(&["batch", scenario.to_str().unwrap(), "--runs", "100", "--format", "json"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let a = v["sides"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "A")
        .unwrap();
    assert!(a["damage_by_kind"]["plasma_bolt"].as_f64().unwrap() > 1.0, "{a}");
    let launchers: Vec<f64> = v["weapons"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["kind"].as_str().unwrap().ends_with("Plasma Bolt Launcher"))
        .map(|w| w["fired_share"].as_f64().unwrap())
        .collect();
    assert_eq!(launchers.len(), 2);
    assert!(launchers[0] > 0.5, "{launchers:?}");
}

/// The shipped Phalon-against-Fleet-Book-3 scenario, played by the default
/// doctrine: the Coil scores with its plasma bolts and its Pulsers (beam
/// dice), the Accord with its grasers (beam dice) and torpedoes, and every
/// weapon that can fire at ships fires in some run (only PDS, with no
/// missile or craft to shoot at, stay idle).
#[test]
fn the_coil_and_accord_scenario_is_fought_with_its_weapons() {
    let o = fam(&[
        "batch",
        "scenarios/coil-and-accord.toml",
        "--runs",
        "200",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let side = |name: &str| {
        v["sides"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap()
            .clone()
    };
    let (coil, accord) = (side("Ssarith"), side("Halcyon"));
    assert!(coil["damage_by_kind"]["plasma_bolt"].as_f64().unwrap() > 5.0, "{coil}");
    assert!(coil["damage_by_kind"]["beam"].as_f64().unwrap() > 5.0, "{coil}");
    assert!(accord["damage_by_kind"]["beam"].as_f64().unwrap() > 5.0, "{accord}");
    assert!(accord["damage_by_kind"]["torpedo"].as_f64().unwrap() > 1.0, "{accord}");
    for s in [&coil, &accord] {
        for w in s["idle_weapons"].as_array().unwrap() {
            assert_eq!(w["kind"], "PDS", "only point defence idles: {w}");
        }
    }
    // Neither side wins nine battles in ten.
    for s in [&coil, &accord] {
        let rate = s["win_rate"].as_f64().unwrap();
        assert!((0.1..0.9).contains(&rate), "{rate}");
    }
}

/// The reports say what the odds hinge on: the resolve report and the
/// batch table list the disputed readings the Phalon systems bring in, and
/// a `[rules]` switch set away from its default by name with its default.
#[test]
fn reports_name_the_readings_and_switches_in_play() {
    let dir = tempfile::tempdir().unwrap();
    let text_of = std::fs::read_to_string(repo().join("scenarios/coil-and-accord.toml")).unwrap();
    let ssd = repo().join("ssd");
    let scenario = dir.path().join("switched.toml");
    std::fs::write(
        &scenario,
        text_of
            .replace("../ssd/", &format!("{}/", ssd.display()))
            .replace("[victory]", "[rules]\nplasma_bolt_formation = true\n\n[victory]"),
    )
    .unwrap();
    let o = fam(&["resolve", scenario.to_str().unwrap(), "--exchanges", "1"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let report = text(&o.stdout);
    assert!(
        report.contains("Rules switched: plasma_bolt_formation = true (default false)."),
        "{report}"
    );
    for reading in [
        "readings W38",
        "readings W37",
        "readings W33",
        "readings W20",
        "readings W26",
    ] {
        assert!(report.contains(reading), "{reading}: {report}");
    }
    assert!(
        report.contains("bursts on every ship of the target Formation"),
        "{report}"
    );
    // Each bolt's line names the Unit it bursts on.
    let o = fam(&[
        "resolve",
        "scenarios/coil-and-accord.toml",
        "--seed",
        "1",
        "--exchanges",
        "4",
        "--detail",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let detail = text(&o.stdout);
    let bursts: Vec<&str> = detail.lines().filter(|l| l.contains("MU bursts on")).collect();
    assert!(!bursts.is_empty(), "{detail}");
    for l in bursts {
        assert!(
            ["HAS Bright Meridian", "HAS Long Vigil", "HAS Quiet Oath"]
                .iter()
                .any(|u| l.contains(&format!("bursts on {u}:"))),
            "{l}"
        );
    }
    let o = fam(&["batch", "scenarios/coil-and-accord.toml", "--runs", "20"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let table = text(&o.stdout);
    assert!(
        table.contains("The odds may hinge on these readings and switches"),
        "{table}"
    );
    assert!(table.contains("bursts on the acquired Unit only"), "{table}");
    // A battle of FB1 beams and missiles brings in none of them.
    let o = fam(&["batch", "scenarios/duel.toml", "--runs", "20"]);
    assert!(!text(&o.stdout).contains("may hinge"), "{}", text(&o.stdout));
}
