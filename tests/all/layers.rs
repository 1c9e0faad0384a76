//! Layered ("shell") armour (issue 16): GZF `Armour: O O / O O O O`
//! (outermost layer first), FTJava `totalArmor="8,4"` (innermost first),
//! and the engine's damage into layers: normal damage outermost inward,
//! beam rerolls one layer deeper per generation (A34, switch
//! `reroll_depth`), armour-piercing one point per layer, semi-armour-
//! piercing half to the outermost layer with boxes and the rest inward.
//!
//! Every expected number is worked out by hand in the comments from
//! ft-rules §1.4 and `docs/readings.md` W30-W34, never copied from a run.

use fam::diag::SourceFile;
use fam::engine::dice::Dice;
use fam::engine::event::{ArmourLayers, Damage, Recorder};
use fam::engine::plot::{ExchangePlot, FireOrder, FormationPlot, SystemId, VolleyPlot};
use fam::engine::rules::{RerollDepth, Rules};
use fam::engine::state::{ArmourLayer, Battle, Formation, RangeTable, Side, Unit};
use fam::engine::volley::{Scratch, ap_damage, run_volley, sap_damage};
use fam::ftjava::{self, Options};
use fam::gzf::{self, Armour, CheckBox, ParseOptions};

use super::support::{checked, fam, fixtures, text};

// ---- the ships ------------------------------------------------------------------

const FCS: SystemId = 0;
const BEAM: SystemId = 1;
const TORPEDO: SystemId = 2;
const K_GUN: SystemId = 3;
const PLASMA_CANNON: SystemId = 4;

/// A raider (Fire Control #0, a class-3 beam #1, a pulse torpedo #2, a
/// class-3 K-gun #3, a class-2 plasma cannon #4, all forward) and a target with `armour` and four rows
/// of 15 hull boxes, so no Volley here completes a row (no threshold dice).
fn records(armour: &str) -> gzf::GzfFile {
    let text = format!(
        "Profile: FB1\n\nShip: Raider\nMass: 100\nThrust-Rating: 6\n\
         Damage-Track: OOOOOOOOOO OOOOOOOOOO OOOOOOOOOO OOOOOOOOOO\n\n\
         System: FCS\n\nSystem: Class 3 Battery\nFiring-Arc: F\n\n\
         System: Pulse Torpedo\nFiring-Arc: F\n\nSystem: Class 3 K-Gun\nFiring-Arc: F\n\n\
         System: Class 2 Plasma Cannon\nFiring-Arc: F\n\n\
         Ship: Target\nMass: 100\nThrust-Rating: 4\nArmour: {armour}\n\
         Damage-Track: OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO\n"
    );
    let parsed = gzf::parse(&text, &ParseOptions::default());
    assert!(!parsed.has_errors(), "the test records read");
    parsed.file
}

fn target(armour: &str) -> Unit {
    let file = records(armour);
    Unit::from_ship(file.ship("Target").unwrap(), file.profile, 1, 1)
}

fn battle(armour: &str, range: u32) -> Battle {
    let file = records(armour);
    let raider = Unit::from_ship(file.ship("Raider").unwrap(), file.profile, 0, 0);
    let target = Unit::from_ship(file.ship("Target").unwrap(), file.profile, 1, 1);
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
                units: vec![1],
                reserve: Default::default(),
            },
        ],
        units: vec![raider, target],
        ranges: RangeTable::new(2, range),
        rules: Rules::default(),
    }
}

/// The raider fires `weapons` at the target; no Evasion.
fn plot(weapons: &[SystemId]) -> ExchangePlot {
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
    ExchangePlot {
        formations: vec![
            Some(FormationPlot {
                volleys: [fire.clone(), fire.clone(), fire],
            }),
            Some(FormationPlot::default()),
        ],
    }
}

/// Plays the first Volley on exactly `faces` (checked), recorded.
fn scripted(b: &mut Battle, weapons: &[SystemId], faces: &[u8]) -> Recorder {
    let mut rec = Recorder::default();
    let mut dice = Dice::from_faces(faces);
    let p = checked(b, &plot(weapons));
    run_volley(b, &p, 0, &mut dice, &mut rec, &mut Scratch::default());
    assert_eq!(dice.count_draws(), faces.len() as u64, "dice used: {faces:?}");
    rec
}

/// Boxes lost in each layer, outermost first.
fn lost(u: &Unit) -> Vec<u32> {
    u.armour_layers.iter().map(|l| l.lost).collect()
}

fn layers_event(rec: &Recorder) -> Option<Vec<u32>> {
    rec.events_of::<ArmourLayers>().find_map(|e| match e {
        ArmourLayers { unit: 1, taken } => Some(taken.clone()),
        _ => None,
    })
}

/// Keraph-like: a shell of 4 boxes over an inner layer of 8.
const SHELL_4_8: &str = "O O O O / O O O O O O O O";

/// A class-3 beam at 10 MU rolls 3 dice (first 12 MU band). Targeting roll
/// 50, then initial 6, 6, 5 (2 + 2 + 1 = 5 normal); the two 6s reroll 6
/// and 4 (generation 1: 2 + 1 = 3); that 6 rerolls a 6 (generation 2: 2),
/// which rerolls a 3 (generation 3: 0).
const BEAM_FACES: [u8; 8] = [50, 6, 6, 5, 6, 4, 6, 3];

// ---- 1. beam rerolls, one layer deeper per generation ------------------------------

/// FTC §4.9 as ft-rules §1.4 / A34 read it: 5 normal → shell 4, inner 1;
/// generation 1 (3) skips the shell into the inner layer (3); generation
/// 2 (2) lands past the inner layer, in the hull. Shell 4, inner 4, hull 2.
#[test]
fn beam_rerolls_land_one_layer_deeper_per_generation() {
    let mut b = battle(SHELL_4_8, 10);
    let rec = scripted(&mut b, &[BEAM], &BEAM_FACES);
    let t = &b.units[1];
    assert_eq!(lost(t), [4, 4]);
    assert_eq!((t.armour_lost, t.hull_lost), (8, 2));
    assert_eq!(layers_event(&rec), Some(vec![4, 4]));
    assert!(rec.events_of::<Damage>().any(|e| matches!(
        e,
        Damage {
            unit: 1,
            normal: 5,
            penetrating: 5,
            armour: 8,
            hull: 2,
            ..
        }
    )));
}

/// Switch `reroll_depth = "next_layer"` (O30): every reroll goes to the
/// next layer in: inner takes 1 + 3 + 2 = 6, the hull nothing.
#[test]
fn with_next_layer_every_reroll_stops_in_the_next_layer() {
    let mut b = battle(SHELL_4_8, 10);
    b.rules.reroll_depth = RerollDepth::NextLayer;
    scripted(&mut b, &[BEAM], &BEAM_FACES);
    let t = &b.units[1];
    assert_eq!(lost(t), [4, 6]);
    assert_eq!((t.armour_lost, t.hull_lost), (10, 0));
}

/// A shell already gone: the initial dice hit the inner layer (5 of its
/// 8), so the rerolls (3 + 2) land past it, in the hull (reading W33).
#[test]
fn with_the_shell_gone_the_rerolls_skip_the_inner_layer() {
    let mut b = battle("- - - - / O O O O O O O O", 10);
    scripted(&mut b, &[BEAM], &BEAM_FACES);
    let t = &b.units[1];
    assert_eq!(lost(t), [4, 5]);
    assert_eq!((t.armour_lost, t.hull_lost), (9, 5));
}

/// One layer: as before layered armour existed, 5 normal → 4 armour and
/// 1 hull, all 5 reroll points to the hull (6 hull); no layer event.
#[test]
fn single_layer_armour_is_unchanged() {
    let mut b = battle("O O O O", 10);
    let rec = scripted(&mut b, &[BEAM], &BEAM_FACES);
    let t = &b.units[1];
    assert!(t.armour_layers.is_empty());
    assert_eq!((t.armour_lost, t.hull_lost), (4, 6));
    assert_eq!(layers_event(&rec), None);
}

// ---- 2. armour-piercing: one point to each layer ----------------------------------

/// K-3 at 6 MU needs 2+: face 2 hits, doubling die 3 ≤ 3 doubles it to
/// 6 AP. Two layers: 1 + 1 armour, 4 hull.
#[test]
fn an_armour_piercing_hit_takes_one_box_from_each_layer() {
    let mut b = battle(SHELL_4_8, 6);
    let rec = scripted(&mut b, &[K_GUN], &[50, 2, 3]);
    let t = &b.units[1];
    assert_eq!(lost(t), [1, 1]);
    assert_eq!((t.armour_lost, t.hull_lost), (2, 4));
    assert_eq!(layers_event(&rec), Some(vec![1, 1]));
}

/// Three layers (2, 1, 3 boxes): 6 AP → 1, 1, 1 and 3 hull; again, the
/// middle layer now empty → 1, 0, 1 and 4 hull; a 1-point hit then goes
/// to the outermost layer with a box left (the inner one's last); then 2
/// points all to the hull.
#[test]
fn armour_piercing_into_three_layers_skips_an_empty_one() {
    let mut t = target("O O / O / O O O");
    assert_eq!(ap_damage(&mut t, 6), (3, 3, 0, 0));
    assert_eq!(lost(&t), [1, 1, 1]);
    assert_eq!(ap_damage(&mut t, 6), (2, 4, 0, 0));
    assert_eq!(lost(&t), [2, 1, 2]);
    assert_eq!(ap_damage(&mut t, 1), (1, 0, 0, 0));
    assert_eq!(lost(&t), [2, 1, 3]);
    assert_eq!(ap_damage(&mut t, 2), (0, 2, 0, 0));
    assert_eq!((t.armour_lost, t.hull_lost), (6, 9));
}

// ---- 3. semi-armour-piercing: half to the outermost, the rest inward ---------------

/// Pulse torpedo at 6 MU needs 2+: face 2 hits, damage die 6. Shell of 2
/// over 8: half (3) to the shell, which takes 2; the excess 1 and the
/// other 3 flow to the inner layer (4). Hull untouched.
#[test]
fn a_torpedo_hit_splits_between_the_shell_and_the_layer_inside() {
    let mut b = battle("O O / O O O O O O O O", 6);
    let rec = scripted(&mut b, &[TORPEDO], &[50, 2, 6]);
    let t = &b.units[1];
    assert_eq!(lost(t), [2, 4]);
    assert_eq!((t.armour_lost, t.hull_lost), (6, 0));
    assert_eq!(layers_event(&rec), Some(vec![2, 4]));
}

/// The FTC §6.5 salvo (hits 3, 1, 3, 6) on a shell of 2 over 6, hit by hit:
/// 3 → shell 2 (half), inner 1; 1 → shell gone, so the inner layer is
/// outermost: half 1 to it; 3 → inner 2, hull 1; 6 → half 3 but the inner
/// layer has 2 left: inner 2, hull 4. In all shell 2, inner 6, hull 5
/// (13 points).
#[test]
fn salvo_hits_each_split_on_the_outermost_layer_left() {
    let mut t = target("O O / O O O O O O");
    assert_eq!(sap_damage(&mut t, 3), (3, 0, 0, 0));
    assert_eq!(lost(&t), [2, 1]);
    assert_eq!(sap_damage(&mut t, 1), (1, 0, 0, 0));
    assert_eq!(sap_damage(&mut t, 3), (2, 1, 0, 0));
    assert_eq!(sap_damage(&mut t, 6), (2, 4, 0, 0));
    assert_eq!(lost(&t), [2, 6]);
    assert_eq!((t.armour_lost, t.hull_lost), (8, 5));
    // One layer of 4 (the FTC example itself): 4 armour, 9 hull.
    let mut one = target("O O O O");
    let sums = [3, 1, 3, 6].map(|d| sap_damage(&mut one, d));
    assert_eq!((one.armour_lost, one.hull_lost), (4, 9), "{sums:?}");
}

/// Three layers (1, 1, 4): 7 SAP → half 4 to the shell (takes 1), the
/// other 6 inward: middle 1, inner 4, hull 1.
#[test]
fn semi_armour_piercing_flows_through_every_layer() {
    let mut t = target("O / O / O O O O");
    assert_eq!(sap_damage(&mut t, 7), (6, 1, 0, 0));
    assert_eq!(lost(&t), [1, 1, 4]);
}

// ---- 4. a worked example: everything at once -------------------------------------

/// Beam, torpedo and K-gun in one Volley on the shell of 4 over 8, dice in
/// firing order: targeting 50; the beam's BEAM_FACES; torpedo 2 (hit),
/// 6; K-gun 2 (hit), 3 (doubled: 6 AP). Damage step, by hand:
/// normal 5 → shell 4, inner 1 (7 left); SAP 6 → shell gone, inner half
/// 3 (4 left), hull 3; AP 6 → inner 1 (3 left), hull 5; rerolls (the
/// shell was the layer hit): generation 1 (3) → inner 3 (0 left),
/// generation 2 (2) → hull. Shell 4, inner 8, hull 3 + 5 + 2 = 10.
#[test]
fn worked_example_beam_torpedo_and_k_gun_on_a_shelled_ship() {
    let mut b = battle(SHELL_4_8, 6);
    let before = b.clone();
    let mut faces = BEAM_FACES.to_vec();
    faces.extend([2, 6, 2, 3]);
    let rec = scripted(&mut b, &[BEAM, TORPEDO, K_GUN], &faces);
    let t = &b.units[1];
    assert_eq!(
        t.armour_layers,
        [ArmourLayer { total: 4, lost: 4 }, ArmourLayer { total: 8, lost: 8 }]
    );
    assert_eq!((t.armour_lost, t.hull_lost), (12, 10));
    let header = fam::report::Header {
        title: "Layers".into(),
        seed: 0,
        exchange: 1,
    };
    let report = fam::report::render(&header, &before, &b, &rec, fam::report::Style::Text);
    assert!(
        report.contains(
            "Target: 5 normal + semi-armour-piercing hits 6 + armour-piercing hits 6 + 5 penetrating → 12 armour, 10 hull"
        ),
        "{report}"
    );
    assert!(
        report.contains("Target: armour by layer, outermost first: 4 / 8"),
        "{report}"
    );
    assert!(
        report.contains("0/12: 0/4 0/8"),
        "the Unit table shows each layer: {report}"
    );
}

// ---- 5. GZF: read, refused, written, round trip ---------------------------------

fn boxes(s: &str) -> Vec<CheckBox> {
    s.chars()
        .map(|c| if c == '-' { CheckBox::CROSSED } else { CheckBox::OPEN })
        .collect()
}

#[test]
fn gzf_reads_and_writes_layers_outermost_first() {
    for written in ["O O / - O O O", "OO/-OOO", "O O /- O O O"] {
        let file = records(written);
        let ship = file.ship("Target").unwrap();
        assert_eq!(
            ship.armour,
            Some(Armour::Layers(vec![boxes("OO"), boxes("-OOO")])),
            "{written}"
        );
        assert_eq!((ship.armour_boxes(), ship.armour_remaining()), (6, 5));
        let text = gzf::write(&file);
        assert!(text.contains("O O / - O O O\n"), "{text}");
        let again = gzf::parse(&text, &ParseOptions::default());
        assert!(!again.has_errors());
        assert_eq!(again.file, file, "round trip");
    }
    // One layer stays the plain box list.
    let file = records("O O O");
    assert_eq!(file.ship("Target").unwrap().armour, Some(Armour::Boxes(boxes("OOO"))));
}

#[test]
fn an_empty_armour_layer_is_refused_at_its_slash() {
    let dir = tempfile::tempdir().unwrap();
    for (armour, col, layer) in [("O O /", 23, 2), ("/ O O", 19, 1), ("O // O", 22, 2)] {
        let path = dir.path().join("shell.gzf");
        let body =
            format!("Profile: FB1\n\nShip: Shell\nThrust-Rating: 4\nArmour:           {armour}\nDamage-Track: OOOO\n");
        std::fs::write(&path, body).unwrap();
        let out = fam(&["check", path.to_str().unwrap()]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(&format!("shell.gzf:5:{col}")), "{armour}: {err}");
        assert!(err.contains(&format!("armour layer {layer} has no boxes")), "{err}");
    }
}

// ---- 6. FTJava: innermost first ----------------------------------------------------

fn import(name: &str) -> ftjava::Import {
    let path = fixtures("ftjava").join(name);
    let bytes = std::fs::read(&path).unwrap();
    let source = SourceFile::from_bytes(path.display().to_string(), &bytes);
    ftjava::import(&source, &Options::default())
}

/// `totalArmor="6,3" remainingArmor="7"`: the inner layer 6, the shell 3
/// (I30); 2 boxes lost, from the shell (I31). Exported back the same way,
/// and the export imports to the same record.
#[test]
fn ftjava_layers_import_innermost_first_and_export_back() {
    let imported = import("shell-frigate.xml");
    assert!(!imported.has_errors());
    let ship = imported.gzf.ship("Cinder Shell").unwrap();
    assert_eq!(ship.armour, Some(Armour::Layers(vec![boxes("--O"), boxes("OOOOOO")])));
    let written = gzf::write(&imported.gzf);
    assert!(written.contains("- - O / O O O O O O\n"), "{written}");
    let parsed = gzf::parse(&written, &ParseOptions::default());
    assert!(!parsed.has_errors());
    let request = ftjava::export::Request {
        text: &written,
        file: &parsed.file,
        spans: &parsed.spans,
        ship: None,
        title: "shell",
        skip_unmapped: false,
    };
    let exported = ftjava::export::export(&request);
    assert!(exported.diagnostics.iter().all(|d| !d.is_error()));
    assert!(
        exported
            .xml
            .contains("<Armor totalArmor=\"6,3\" remainingArmor=\"7\"/>"),
        "{}",
        exported.xml
    );
    let again = ftjava::import(&SourceFile::new("again", exported.xml.as_str()), &Options::default());
    assert_eq!(again.gzf, imported.gzf);
}

/// The FB2 Phalon Keraph (`8,4`) from the shared samples, when they are
/// there: its armour imports as a shell of 4 over 8 (other systems left
/// out with --skip-unmapped are another issue's).
#[test]
fn the_keraph_sample_imports_a_shell_of_4_over_8() {
    let path = super::support::repo().join("../shared/data/ftjava/fleetbook2-3-samples/Phalon_BC_Keraph.xml");
    let Ok(bytes) = std::fs::read(&path) else {
        eprintln!("note: {} is not there: this test checks nothing", path.display());
        return;
    };
    let source = SourceFile::from_bytes(path.display().to_string(), &bytes);
    let imported = ftjava::import(&source, &Options { skip_unmapped: true });
    let ship = imported.gzf.ships().next().expect("one ship");
    let sizes: Vec<usize> = ship.armour.as_ref().unwrap().layers().iter().map(|l| l.len()).collect();
    assert_eq!(sizes, [4, 8]);
}

// ---- 7. end to end: switch, log, next Exchange's records -------------------------

/// The duel (scenarios/duel.toml) in `dir`, its Kestrel ship's 3 armour
/// boxes a shell of 1 over 2, with `rule` in a `[rules]` table on line 9.
fn shelled_duel(dir: &std::path::Path, rule: &str) -> std::path::PathBuf {
    let repo = super::support::repo();
    let ssd = std::fs::read_to_string(repo.join("ssd/kestrel-reach.gzf")).unwrap();
    let shelled = ssd.replacen(
        "Thrust-Rating:    6\nArmour:           O O O\nDamage-Track:     OOOOO *OOOO O*OO OOO*",
        "Thrust-Rating:    6\nArmour:           O / O O\nDamage-Track:     OOOOO *OOOO O*OO OOO*",
        1,
    );
    assert_ne!(
        shelled, ssd,
        "the Long Watch's armour line is where the test expects it"
    );
    std::fs::write(dir.join("kestrel-reach.gzf"), shelled).unwrap();
    std::fs::copy(repo.join("ssd/meridian-compact.gzf"), dir.join("meridian-compact.gzf")).unwrap();
    let duel = std::fs::read_to_string(repo.join("scenarios/duel.toml")).unwrap();
    let duel = duel
        .replace("../ssd/", "")
        .replacen("[sides]", &format!("[rules]\n{rule}\n\n[sides]"), 1);
    assert_eq!(duel.lines().position(|l| l == rule), Some(8), "line 9");
    let scenario = dir.join("duel.toml");
    std::fs::write(&scenario, duel).unwrap();
    scenario
}

/// `reroll_depth` takes only its two values: another is refused at its
/// place (exit 2), naming them.
#[test]
fn a_wrong_reroll_depth_is_refused_at_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = shelled_duel(dir.path(), "reroll_depth = \"deeper\"");
    let out = fam(&["check", scenario.to_str().unwrap()]);
    let err = text(&out.stderr) + &text(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("duel.toml:9:16"), "{err}");
    assert!(err.contains("per_generation") && err.contains("next_layer"), "{err}");
    let fine = shelled_duel(dir.path(), "reroll_depth = \"per_generation\"");
    let out = fam(&["check", fine.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

/// The duel with the Kestrel ship's 3 armour boxes as a shell of 1 over 2
/// and `reroll_depth = "next_layer"`: the switch is read and written into
/// the next Exchange; each `armour_layers` event's boxes add up to its
/// `damage` event's armour; and the next records cross, layer by layer,
/// what the events say each layer took.
#[test]
fn resolve_writes_the_layers_back_and_logs_each_layers_share() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = shelled_duel(dir.path(), "reroll_depth = \"next_layer\"");
    let next = dir.path().join("next");
    let log = dir.path().join("log.jsonl");
    let run = fam(&[
        "resolve",
        scenario.to_str().unwrap(),
        "--seed",
        "2",
        "--log",
        log.to_str().unwrap(),
        "--out",
        next.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let toml = std::fs::read_to_string(next.join("scenario.toml")).unwrap();
    assert!(toml.contains("\nreroll_depth = \"next_layer\"\n"), "{toml}");

    // The Long Watch is unit 1 (scenario order).
    let mut taken = [0u64; 2];
    let mut armour = 0u64;
    let events: Vec<serde_json::Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for (i, e) in events.iter().enumerate() {
        if e["type"] == "armour_layers" && e["unit"] == 1 {
            let t: Vec<u64> = e["taken"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap())
                .collect();
            assert_eq!(t.len(), 2);
            taken[0] += t[0];
            taken[1] += t[1];
            assert_eq!(events[i - 1]["type"], "damage", "it follows its damage event");
            assert_eq!(events[i - 1]["armour"].as_u64().unwrap(), t[0] + t[1]);
        }
        if e["type"] == "damage" && e["unit"] == 1 {
            armour += e["armour"].as_u64().unwrap();
        }
    }
    assert!(armour > 0, "seed 2 puts damage on the shelled ship's armour");
    assert_eq!(taken[0] + taken[1], armour);
    let records = std::fs::read_to_string(next.join("kestrel-reach.gzf")).unwrap();
    let parsed = gzf::parse(&records, &ParseOptions::default());
    let ship = parsed.file.ship("KRD Long Watch").unwrap();
    let Some(Armour::Layers(rows)) = &ship.armour else {
        panic!("still layered: {:?}", ship.armour)
    };
    let crossed: Vec<u64> = rows
        .iter()
        .map(|r| r.iter().filter(|b| b.crossed).count() as u64)
        .collect();
    assert_eq!(crossed, taken);
}

/// The ship sheet shows every layer, outermost first, and the boxes left
/// of all (here 5 of 6 in 2 layers).
#[test]
fn the_ship_sheet_shows_the_layers() {
    let file = records("O O / - O O O");
    let sheet = fam::sheet::ship_sheet(file.ship("Target").unwrap(), file.profile);
    assert!(
        sheet.contains("Armour      O O / - O O O   (5 of 6 left in 2 layers, outermost first)"),
        "{sheet}"
    );
}

/// A plasma cannon's reroll hits go one layer deeper per generation too
/// (readings W25, W33). At 10 MU two dice: 6 and 3 score 4 + 1 = 5 normal
/// (shell 4, inner 1); the 6 rerolls a 6 (generation 1: 4 hits, into the
/// inner layer), which rerolls a 5 (generation 2: 3 hits, past the inner
/// layer into the hull). Shell 4, inner 5, hull 3.
#[test]
fn plasma_cannon_rerolls_land_one_layer_deeper_per_generation() {
    let mut b = battle(SHELL_4_8, 10);
    scripted(&mut b, &[PLASMA_CANNON], &[50, 6, 3, 6, 5]);
    let t = &b.units[1];
    assert_eq!(lost(t), [4, 5]);
    assert_eq!(t.hull_lost, 3);
}
