//! EMP projectors (FTC §5.4, ft-rules §4.5, issue 16): beam dice by class
//! and range, no damage, standard screens and armour ignored; every hit a
//! threshold test on a system of the target (6, 5+ or 4+ by the shot's
//! hits, +1 per hull row lost this Volley), in the documented priority;
//! repairs; EMP-1s in point-defence mode; records, FTJava, orders, the
//! default commander and the report.
//!
//! Every expected value is worked out here from the rules and
//! `docs/readings.md` W43-W47, never copied from a run. The statistical
//! check uses fixed seeds and a bound of five standard errors of the exact
//! probability, so it cannot flake.

use crate::support::{checked, scripted};
use approx::{abs_diff_eq, assert_abs_diff_eq};

use fam::diag::SourceFile;
use fam::engine::dice::Dice;
use fam::engine::event::{EmpAttack, EmpTest, PdRoll, Recorder, Repair};
use fam::engine::plot::{ExchangePlot, FireOrder, FormationPlot, PdOrder, SystemId, VolleyPlot};
use fam::engine::rules::Rules;
use fam::engine::state::{Battle, Formation, RangeTable, Side, SysState, Unit};
use fam::engine::volley::{Scratch, run_volley};
use fam::ftjava::{self, Options};
use fam::gzf::{self, ParseOptions, SystemKind};

use super::support::{fam, text};

// ---- the ships ------------------------------------------------------------------

/// The zapper's systems.
const FCS: SystemId = 0;
/// Forward arc only.
const EMP2: SystemId = 1;
/// All six arcs.
const EMP1: SystemId = 2;
/// A class-1 battery, all arcs.
const BEAM1: SystemId = 3;

/// The victim's systems, in record order.
const V_FCS: SystemId = 0;
const V_SCREEN: SystemId = 1;
const V_BEAM1: SystemId = 2;
const V_BEAM3: SystemId = 3;
const V_REFLEX: SystemId = 4;
const V_ECM: SystemId = 5;
const V_FTL: SystemId = 6;

/// The launcher's salvo launcher.
const SML: SystemId = 1;

const RECORDS: &str = "Profile: FB1\n\n\
    Ship: Zapper\nMass: 100\nThrust-Rating: 6\n\
    Damage-Track: OOOOOOOOOO OOOOOOOOOO OOOOOOOOOO OOOOOOOOOO\n\n\
    System: FCS\n\n\
    System: Class 2 EMP Projector\nFiring-Arc: F\n\n\
    System: Class 1 EMP Projector\nFiring-Arc: FP F FS AP A AS\n\n\
    System: Class 1 Battery\nFiring-Arc: FP F FS AP A AS\n\n\
    Ship: Victim\nMass: 100\nThrust-Rating: 4\nArmour: O O O O\n\
    Damage-Track: OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO\n\n\
    System: FCS\n\nSystem: Screen Generator\n\n\
    System: Class 1 Battery\nFiring-Arc: FP F FS AP A AS\n\n\
    System: Class 3 Battery\nFiring-Arc: F\n\n\
    System: Reflex Field\n\nSystem: Area ECM\n\nSystem: FTL\n\n\
    Ship: Shielded\nMass: 100\nThrust-Rating: 0\n\
    Damage-Track: OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO\n\n\
    System: FCS\n\nSystem: Advanced Screen Generator\n\n\
    Ship: Fragile\nMass: 20\nThrust-Rating: 0\nDamage-Track: O O O O\n\n\
    System: FCS\n\n\
    Ship: Crewed\nMass: 20\nThrust-Rating: 0\nDamage-Track: OOOOO OOOOO OOOOO OOOO*\n\n\
    System: FCS\n\n\
    Ship: Launcher\nMass: 100\nThrust-Rating: 4\n\
    Damage-Track: OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO\n\n\
    System: FCS\n\nSystem: SML\nFiring-Arc: F\nMagazine: M1\n\n\
    System: SMM\nMagazine: M1\nRounds: O\n";

fn records() -> gzf::GzfFile {
    let parsed = gzf::parse(RECORDS, &ParseOptions::default());
    assert!(!parsed.has_errors(), "the test records read: {:?}", parsed.diagnostics);
    parsed.file
}

/// The zapper (Unit 0) against `other` (Unit 1) at `range`.
fn battle(range: u32, other: &str) -> Battle {
    let file = records();
    let zapper = Unit::from_ship(file.ship("Zapper").unwrap(), file.profile, 0, 0);
    let target = Unit::from_ship(file.ship(other).unwrap(), file.profile, 1, 1);
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
        units: vec![zapper, target],
        ranges: RangeTable::new(2, range),
        rules: Rules::default(),
    }
}

/// Unit `from` fires `weapons` at the other Formation in every Volley;
/// nobody evades or moves; Unit 0 lists `pd` in point-defence mode.
fn plot(from: usize, weapons: &[SystemId], pd: &[SystemId]) -> ExchangePlot {
    let fire = VolleyPlot {
        fire: vec![FireOrder {
            unit: from,
            fire_control: FCS,
            target: Some(1 - from),
            weapons: weapons.to_vec(),
            needles: Vec::new(),
            group: None,
        }],
        ..VolleyPlot::default()
    };
    let defend = VolleyPlot {
        point_defence: pd
            .iter()
            .map(|&weapon| PdOrder {
                unit: 0,
                weapon,
                defend: None,
            })
            .collect(),
        ..VolleyPlot::default()
    };
    let (p0, p1) = if from == 0 { (fire, defend) } else { (defend, fire) };
    ExchangePlot {
        formations: vec![
            Some(FormationPlot {
                volleys: [p0.clone(), p0.clone(), p0],
            }),
            Some(FormationPlot {
                volleys: [p1.clone(), p1.clone(), p1],
            }),
        ],
    }
}

/// The EMP tests of a Volley: (system, face, modifier, needed, lost).
fn tests(rec: &Recorder) -> Vec<(Option<SystemId>, u8, i32, u8, bool)> {
    rec.events_of::<EmpTest>()
        .map(|t| (t.system, t.face, t.modifier, t.needed, t.lost))
        .collect()
}

fn emp_hits(rec: &Recorder) -> Vec<u32> {
    rec.events_of::<EmpAttack>().map(|a| a.hits).collect()
}

// ---- the rules, restated -----------------------------------------------------------

/// The beam table (ft-rules §1.2): 4 one point (none behind a screen), 5
/// one, 6 two (one behind a level-2 screen).
fn beam_points(face: u8, screen: u8) -> u32 {
    match (face, screen) {
        (6, 2) => 1,
        (6, _) => 2,
        (5, _) => 1,
        (4, 0) => 1,
        _ => 0,
    }
}

/// The number an EMP test needs for a shot of `hits` hits (ft-rules §4.5).
fn needed(hits: u32) -> u8 {
    match hits {
        1 => 6,
        2 => 5,
        _ => 4,
    }
}

/// The victim's systems in the order EMP tests take them (W44, O35): Fire
/// Control, screen, the class-3 then the class-1 battery, the drive, the
/// reflex field, the ECM, the FTL.
const PRIORITY: [Option<SystemId>; 8] = [
    Some(V_FCS),
    Some(V_SCREEN),
    Some(V_BEAM3),
    Some(V_BEAM1),
    None,
    Some(V_REFLEX),
    Some(V_ECM),
    Some(V_FTL),
];

// ---- 1. hits and tests, scripted ---------------------------------------------------

/// One EMP-1 die at 10 MU against the victim (a screen and four armour
/// boxes), every face: the points of the unscreened beam table are hits
/// (a 6 rerolls; the reroll here a 1), the shot's tests fall on the first
/// systems of the priority, each lost on a 6; no damage is done.
#[test]
fn each_emp_hit_is_a_test_on_the_next_system_and_no_damage() {
    for face in 1..=6u8 {
        let hits = beam_points(face, 0);
        let mut faces = vec![50, face];
        if face == 6 {
            faces.push(1);
        }
        // Every test shows a 6: lost whatever the shot's number.
        faces.extend(std::iter::repeat_n(6, hits as usize));
        let mut b = battle(10, "Victim");
        let rec = scripted(&mut b, &plot(0, &[EMP1], &[]), &faces);
        assert_eq!(emp_hits(&rec), [hits], "face {face}");
        let want: Vec<_> = PRIORITY[..hits as usize]
            .iter()
            .map(|&s| (s, 6, 0, needed(hits), true))
            .collect();
        assert_eq!(tests(&rec), want, "face {face}");
        for (s, sys) in b.units[1].systems.iter().enumerate() {
            let hit = PRIORITY[..hits as usize].contains(&Some(s));
            let state = if hit { SysState::Damaged } else { SysState::Operational };
            assert_eq!(sys.state, state, "face {face}, system {s}");
        }
        assert_eq!((b.units[1].armour_lost, b.units[1].hull_lost), (0, 0), "face {face}");
    }
}

/// An EMP-2 at 10 MU rolling 6 and 4, the 6's reroll a 6 and its reroll a
/// 5: 2 + 1 + 2 + 1 = 6 hits, six tests on 4+ down the priority; the
/// drive's failure halves its thrust; the rest of the systems are not
/// tested.
#[test]
fn a_shot_of_three_hits_or_more_tests_on_four_and_reaches_the_drive() {
    let mut b = battle(10, "Victim");
    let faces = [50, 6, 4, 6, 5, 4, 3, 6, 1, 5, 2];
    let rec = scripted(&mut b, &plot(0, &[EMP2], &[]), &faces);
    assert_eq!(emp_hits(&rec), [6]);
    let lost = [true, false, true, false, true, false];
    let want: Vec<_> = PRIORITY[..6]
        .iter()
        .zip(&faces[5..])
        .zip(lost)
        .map(|((&s, &f), l)| (s, f, 0, 4, l))
        .collect();
    assert_eq!(tests(&rec), want);
    let v = &b.units[1];
    assert_eq!(v.systems[V_FCS].state, SysState::Damaged);
    assert_eq!(v.systems[V_SCREEN].state, SysState::Operational);
    assert_eq!(v.systems[V_BEAM3].state, SysState::Damaged);
    assert_eq!(v.systems[V_BEAM1].state, SysState::Operational);
    assert_eq!((v.drive_hits, v.thrust), (1, 2));
    assert_eq!(v.systems[V_REFLEX].state, SysState::Operational);
    assert_eq!(v.systems[V_FTL].state, SysState::Operational);
}

/// Two hits test on 5+: an EMP-2 rolling 5 and 4 tests the Fire Control
/// and the screen, lost on a 5 and kept on a 4.
#[test]
fn a_shot_of_two_hits_tests_on_five() {
    let mut b = battle(10, "Victim");
    let rec = scripted(&mut b, &plot(0, &[EMP2], &[]), &[50, 5, 4, 5, 4]);
    assert_eq!(
        tests(&rec),
        [(Some(V_FCS), 5, 0, 5, true), (Some(V_SCREEN), 4, 0, 5, false)]
    );
}

/// Advanced screens stop EMP dice as beam screens (W43): a 4 scores
/// nothing behind one; with `emp_advanced_screens = false` it scores, and
/// the test takes the screen before the Fire Control of a ship without
/// weapons.
#[test]
fn advanced_screens_stop_emp_dice_unless_the_switch_is_off() {
    let mut b = battle(10, "Shielded");
    let rec = scripted(&mut b, &plot(0, &[EMP1], &[]), &[50, 4]);
    assert_eq!(emp_hits(&rec), [0]);
    let mut b = battle(10, "Shielded");
    b.rules.emp_advanced_screens = false;
    let rec = scripted(&mut b, &plot(0, &[EMP1], &[]), &[50, 4, 6]);
    assert_eq!(emp_hits(&rec), [1]);
    // The shielded ship carries no weapon: its screen comes before its
    // Fire Control (O34).
    assert_eq!(tests(&rec), [(Some(1), 6, 0, 6, true)]);
}

/// A hull row lost this Volley adds 1 to the test (W46): the class-1
/// battery's point completes the fragile ship's first row (its threshold
/// check keeps the Fire Control on a 1), and the EMP test's 5 becomes a 6.
/// Without the battery the same 5 keeps it.
#[test]
fn a_hull_row_lost_this_volley_adds_one_to_the_test() {
    let mut b = battle(10, "Fragile");
    let rec = scripted(&mut b, &plot(0, &[EMP1, BEAM1], &[]), &[50, 5, 5, 1, 5]);
    assert_eq!(b.units[1].hull_lost, 1);
    assert_eq!(tests(&rec), [(Some(V_FCS), 5, 1, 6, true)]);
    let mut b = battle(10, "Fragile");
    let rec = scripted(&mut b, &plot(0, &[EMP1], &[]), &[50, 5, 5]);
    assert_eq!(tests(&rec), [(Some(V_FCS), 5, 0, 6, false)]);
    assert_eq!(b.units[1].systems[V_FCS].state, SysState::Operational);
}

/// A system EMP knocks out is damaged, and damage control repairs it (the
/// crewed ship's one party needs a 1).
#[test]
fn damage_control_repairs_what_emp_knocked_out() {
    let mut b = battle(10, "Crewed");
    let rec = scripted(&mut b, &plot(0, &[EMP1], &[]), &[50, 5, 6, 1]);
    assert_eq!(tests(&rec), [(Some(V_FCS), 6, 0, 6, true)]);
    assert!(rec.events_of::<Repair>().any(|e| matches!(
        e,
        Repair {
            unit: 1,
            system: Some(V_FCS),
            repaired: true,
            ..
        }
    )));
    assert_eq!(b.units[1].systems[V_FCS].state, SysState::Operational);
}

// ---- 2. the chance to knock a system out, exact ---------------------------------------

/// Distribution of the hits of `n` penetrating beam dice read unscreened
/// with no DRM, capped at 3 (every shot of 3 or more tests on 4+): by
/// enumerating every die and every reroll; a branch stops once it holds 3
/// hits, which every chain of two 6s does, so the enumeration is finite
/// and exact.
fn hits_capped(n: u32, hits: u32) -> [f64; 4] {
    let mut out = [0.0; 4];
    if hits >= 3 || n == 0 {
        out[hits.min(3) as usize] = 1.0;
        return out;
    }
    for face in 1..=6u8 {
        let more = u32::from(face == 6);
        let sub = hits_capped(n - 1 + more, hits + beam_points(face, 0));
        for (o, s) in out.iter_mut().zip(sub) {
            *o += s / 6.0;
        }
    }
    out
}

/// Chance one EMP-2 shot at `range` knocks out the victim's Fire Control:
/// with k ≥ 1 hits it takes the first test, lost on the faces of a d6 at
/// or above the number for k hits.
fn knock_out_exact(range: u32) -> f64 {
    let dice = if range <= 12 { 2 } else { 1 };
    let dist = hits_capped(dice, 0);
    (1..=3u32)
        .map(|k| {
            let faces = (1..=6u8).filter(|&f| f >= needed(k)).count();
            dist[k as usize] * faces as f64 / 6.0
        })
        .sum()
}

/// The enumeration agrees with a hand count: one die scores 0 on 1-3 (1/2),
/// 1 on 4-5 (1/3), 2 on a 6 with a reroll of 1-3 (1/12), 3 with a reroll
/// of 4-5 (1/18) and 4 or more with a reroll of 6 (1/36): P = 1/3·1/6 +
/// 1/12·2/6 + (1/18 + 1/36)·3/6 = 1/8 at 20 MU.
#[test]
fn the_enumeration_counts_one_die_as_by_hand() {
    assert_abs_diff_eq!(knock_out_exact(20), 1.0 / 8.0, epsilon = 1e-15);
}

/// 20 000 Volleys of one EMP-2 shot at 10 MU (two dice) and at 20 MU (one
/// die): the share in which the victim's Fire Control is knocked out
/// matches the exact chance within five standard errors.
#[test]
fn one_emp2_shot_knocks_out_the_fire_control_at_the_exact_rate() {
    const N: u64 = 20_000;
    for (range, seed) in [(10, 41), (20, 42)] {
        let exact = knock_out_exact(range);
        let start = battle(range, "Victim");
        let p = checked(&start, &plot(0, &[EMP2], &[]));
        let mut dice = Dice::new(seed);
        let mut scratch = Scratch::default();
        let mut b = start.clone();
        let mut out = 0u64;
        for _ in 0..N {
            b.reset_to(&start);
            run_volley(&mut b, &p, 0, &mut dice, &mut (), &mut scratch);
            out += u64::from(b.units[1].systems[V_FCS].state == SysState::Damaged);
        }
        let sample = out as f64 / N as f64;
        let bound = 5.0 * (exact * (1.0 - exact) / N as f64).sqrt();
        assert!(
            abs_diff_eq!(sample, exact, epsilon = bound),
            "{range} MU: sample {sample:.5}, exact {exact:.5}, bound {bound:.5}"
        );
    }
}

// ---- 3. point-defence mode ------------------------------------------------------------

/// An EMP-1 in PD mode rolls one die on the class-1 beam table at −1 and
/// never rerolls (ft-rules §5.1, W47): only a natural 6 kills a salvo
/// missile, and no extra die follows it.
#[test]
fn an_emp1_defends_as_a_class1_beam_at_minus_one_without_reroll() {
    for face in 1..=6u8 {
        let kills = u32::from(face == 6);
        // The launcher's d100; 5 missiles on target; the PD die; a damage
        // face of 1 per missile through.
        let mut faces = vec![50, 5, face];
        faces.extend(std::iter::repeat_n(1, 5 - kills as usize));
        let mut b = battle(10, "Launcher");
        let rec = scripted(&mut b, &plot(1, &[SML], &[EMP1]), &faces);
        assert!(
            rec.events_of::<PdRoll>()
                .any(|e| matches!(e, PdRoll { unit: 0, weapon: EMP1, kills: k, .. } if *k == kills)),
            "face {face}"
        );
        assert_eq!(b.units[0].hull_lost, 5 - kills, "face {face}");
    }
}

// ---- 4. records and FTJava -------------------------------------------------------------

/// `Class N EMP Projector` reads in both profiles whatever the case, writes
/// canonically and round-trips; a class beyond 6 is refused at its line;
/// one without arcs is warned about.
#[test]
fn emp_projector_records_read_write_and_check() {
    for profile in ["FB1", "FT2"] {
        let text = format!(
            "Profile: {profile}\n\nShip: S\nThrust-Rating: 4\nDamage-Track: OOO OOO OO OO\n\n\
             System: class 3 emp projector\nFiring-Arc: F\n\nSystem: Class 1 EMP PROJECTOR\nFiring-Arc: F\n"
        );
        let parsed = gzf::parse(&text, &ParseOptions::default());
        assert!(!parsed.has_errors(), "{profile}: {:?}", parsed.diagnostics);
        let kinds: Vec<SystemKind> = parsed
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
            [
                SystemKind::EmpProjector { class: 3 },
                SystemKind::EmpProjector { class: 1 }
            ]
        );
        let written = gzf::write(&parsed.file);
        assert!(written.contains("System:           Class 3 EMP Projector"), "{written}");
        let again = gzf::parse(&written, &ParseOptions::default());
        assert_eq!(again.file, parsed.file, "{profile}: round trip");
        assert_eq!(gzf::write(&again.file), written, "{profile}: idempotent");
    }
    let head = "Profile: FB1\n\nShip: S\nThrust-Rating: 4\nDamage-Track: OOO OOO OO OO\n\n";
    let bad = format!("{head}System: Class 7 EMP Projector\n");
    let parsed = gzf::parse(&bad, &ParseOptions::default());
    let rendered = SourceFile::new("s.gzf", bad.as_str()).render(&parsed.diagnostics, 20);
    assert!(
        parsed.has_errors() && rendered.contains("s.gzf:7:") && rendered.contains("unknown system"),
        "{rendered}"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.gzf");
    std::fs::write(&path, format!("{head}System: Class 2 EMP Projector\n")).unwrap();
    let out = fam(&["check", path.to_str().unwrap()]);
    assert!(
        text(&out.stderr).contains("weapon `Class 2 EMP Projector` has no Firing-Arc"),
        "{}",
        text(&out.stderr)
    );
}

/// FTJava's `EMPProjector` imports as an EMP projector of its rating (all
/// arcs without `arcs`), exports under its own name and imports again
/// unchanged; a rating fam cannot place is refused.
#[test]
fn ftjava_emp_projectors_import_and_round_trip() {
    let xml = "<Ship><Name>Zap</Name><Mass>60</Mass><MainDrive initialThrust=\"4\"/>\
        <Hull totalHullBoxes=\"20\" type=\"Custom\" value=\"20\"/><Weapons>\
        <EMPProjector rating=\"2\" arcs=\"(F)\"/><EMPProjector rating=\"1\"/></Weapons></Ship>";
    let source = SourceFile::new("zap.xml", xml);
    let imported = ftjava::import(&source, &Options::default());
    let errors: Vec<_> = imported.diagnostics.iter().filter(|d| d.is_error()).cloned().collect();
    assert!(errors.is_empty(), "{}", source.render(&errors, 20));
    assert_eq!(imported.inert, 0);
    let kinds: Vec<(SystemKind, usize)> = imported
        .gzf
        .ship("Zap")
        .unwrap()
        .systems
        .iter()
        .filter(|s| s.kind.is_weapon())
        .map(|s| (s.kind.clone(), s.arcs.len()))
        .collect();
    assert_eq!(
        kinds,
        [
            (SystemKind::EmpProjector { class: 2 }, 1),
            (SystemKind::EmpProjector { class: 1 }, 6)
        ]
    );
    let written = gzf::write(&imported.gzf);
    let parsed = gzf::parse(&written, &ParseOptions::default());
    let request = ftjava::export::Request {
        text: &written,
        file: &parsed.file,
        spans: &parsed.spans,
        ship: None,
        title: "emp",
        skip_unmapped: false,
    };
    let exported = ftjava::export::export(&request);
    assert!(
        !exported.diagnostics.iter().any(|d| d.is_error()),
        "{:?}",
        exported.diagnostics
    );
    assert!(
        exported.xml.contains("<EMPProjector id=\"2\" rating=\"2\""),
        "{}",
        exported.xml
    );
    let back = ftjava::import(&SourceFile::new("back.xml", exported.xml.as_str()), &Options::default());
    assert_eq!(back.gzf, imported.gzf, "FTJava → GZF → FTJava → GZF");
    let bad = xml.replace("rating=\"2\"", "rating=\"9\"");
    let imported = ftjava::import(&SourceFile::new("bad.xml", bad.as_str()), &Options::default());
    assert!(
        imported
            .diagnostics
            .iter()
            .any(|d| d.is_error() && d.message.contains("rating 9")),
        "{:?}",
        imported.diagnostics
    );
}

// ---- 5. orders, the default commander, the report ---------------------------------------------

fn scenario(dir: &std::path::Path, extra: &str) -> std::path::PathBuf {
    let gzf = dir.join("ships.gzf");
    std::fs::write(&gzf, RECORDS).unwrap();
    let path = dir.join("s.toml");
    std::fs::write(
        &path,
        format!(
            "title = \"EMP\"\ngzf = [\"ships.gzf\"]\nseed = 5\n\n[sides]\nA = [\"Z\"]\nB = [\"V\"]\n\n\
             [formations]\nZ = [\"Zapper\"]\nV = [\"Victim\", \"Launcher\"]\n\n\
             [[range]]\nbetween = [\"Z\", \"V\"]\nmu = 20\n\n[victory]\nmax_exchanges = 4\n{extra}"
        ),
    )
    .unwrap();
    path
}

/// The orders take an EMP-1 under `pd` and refuse an EMP-2 there, and an
/// EMP-1 defending another Unit, each at its place.
#[test]
fn orders_take_an_emp1_in_point_defence_and_refuse_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let plot = |fire: u32, pd: u32| {
        format!(
            "\n[[plot.Z.volley]]\nspeed = 6\nevasion = 0\nprimary = {{ close = \"V\" }}\n\
             fire = [{{ target = \"V\", weapons = [{fire}] }}]\npd = [{{ weapons = [{pd}] }}]\n"
        )
    };
    let ok = scenario(dir.path(), &plot(2, 3));
    let out = fam(&["check", ok.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let bad = scenario(dir.path(), &plot(3, 2));
    let out = fam(&["check", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("Class 2 EMP Projector")
            && err.contains("cannot fire in point-defence mode")
            && err.contains("s.toml:"),
        "{err}"
    );
}

/// The default commander fires both EMP projectors (each fires in some
/// run), and a resolved battle's report names the EMP dice and every test,
/// and the reading of the reflex field it meets.
#[test]
fn the_default_commander_fires_emp_projectors_and_the_report_names_the_tests() {
    let dir = tempfile::tempdir().unwrap();
    let path = scenario(dir.path(), "");
    let out = fam(&["batch", path.to_str().unwrap(), "--runs", "50", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    let weapons = v["weapons"].as_array().unwrap();
    for system in [2u64, 3] {
        let w = weapons
            .iter()
            .find(|w| w["unit"] == "Zapper" && w["system"] == system)
            .unwrap_or_else(|| panic!("system {system} followed"));
        assert!(w["fired_runs"].as_u64().unwrap() > 0, "system {system}: {w}");
    }
    let out = fam(&["resolve", path.to_str().unwrap(), "--exchanges", "3", "--detail"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    assert!(report.contains("EMP Projector #2 at"), "{report}");
    assert!(report.contains("EMP test from Zapper's Class"), "{report}");
    assert!(report.contains("readings W43-W46"), "{report}");
    // The victim's reflex field is played: the report names its reading.
    assert!(report.contains("a raised reflex field rolls one d6"), "{report}");
}

/// An EMP-1 defends only its own Unit, as a class-1 beam: `defend` naming
/// another Unit of its Formation is refused at its place.
#[test]
fn an_emp1_may_not_defend_another_unit() {
    let dir = tempfile::tempdir().unwrap();
    let records = RECORDS.replace(
        "Ship: Launcher",
        "Ship: Wingman\nMass: 20\nThrust-Rating: 6\nDamage-Track: O O O O\n\nShip: Launcher",
    );
    std::fs::write(dir.path().join("ships.gzf"), records).unwrap();
    let path = dir.path().join("s.toml");
    std::fs::write(
        &path,
        "title = \"EMP\"\ngzf = [\"ships.gzf\"]\n\n[sides]\nA = [\"Z\"]\nB = [\"V\"]\n\n\
         [formations]\nZ = [\"Zapper\", \"Wingman\"]\nV = [\"Victim\"]\n\n\
         [[range]]\nbetween = [\"Z\", \"V\"]\nmu = 20\n\n\
         [[plot.Z.volley]]\nspeed = 6\nevasion = 0\nprimary = { close = \"V\" }\n\
         fire = [{ unit = \"Zapper\", target = \"V\", weapons = [2] }]\n\
         pd = [{ unit = \"Zapper\", weapons = [3], defend = \"Wingman\" }]\n",
    )
    .unwrap();
    let out = fam(&["check", path.to_str().unwrap()]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("cannot defend `Wingman`")
            && err.contains("EMP-1s in point-defence mode defend only their own Unit")
            && err.contains("s.toml:"),
        "{err}"
    );
}

/// `emp_advanced_screens` is read from `[rules]` (default on), and `fam
/// resolve --out` writes it into the next Exchange's scenario only when it
/// is off.
#[test]
fn the_emp_switch_is_read_and_written_back_when_off() {
    let dir = tempfile::tempdir().unwrap();
    for (rules, on) in [("", true), ("\n[rules]\nemp_advanced_screens = false\n", false)] {
        let path = scenario(dir.path(), rules);
        let loaded = fam::orders::load_scenario(&path, &[], &ParseOptions::default())
            .unwrap_or_else(|_| panic!("{rules}: loads"));
        assert_eq!(loaded.battle.rules.emp_advanced_screens, on, "{rules}");
        let next = dir.path().join(format!("next-{on}"));
        let run = fam(&["resolve", path.to_str().unwrap(), "--out", next.to_str().unwrap()]);
        assert!(run.status.success(), "{}", text(&run.stderr));
        let written = std::fs::read_to_string(next.join("scenario.toml")).unwrap();
        assert_eq!(written.contains("emp_advanced_screens = false"), !on, "{written}");
        let again = fam::orders::load_scenario(&next.join("scenario.toml"), &[], &ParseOptions::default())
            .unwrap_or_else(|_| panic!("{rules}: the written scenario loads"));
        assert_eq!(again.battle.rules.emp_advanced_screens, on, "{rules}");
    }
}
