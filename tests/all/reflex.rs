//! Reflex fields (ft-rules §4.5, FTC §7.25; readings W60-W62, O41): a
//! raised field rolls one d6 against each energy-weapon shot that scores,
//! 1 full damage, 2 half (rounded up), 3-4 none, 5 none and half reflected,
//! 6 none and all reflected to the firer; a ship behind its field may not
//! fire, and the orders say so at the order's place.
//!
//! Every expected value is worked out here from the reading, never copied
//! from a run.

use crate::support::scripted;
use approx::assert_abs_diff_eq;

use fam::engine::event::{FireControlIdle, Recorder, Reflex, ReflexRaised};
use fam::engine::plot::{ExchangePlot, FireOrder, FormationPlot, SystemId, VolleyPlot};
use fam::engine::rules::Rules;
use fam::engine::state::{Battle, Formation, RangeTable, Side, Unit};
use fam::gzf::{self, ParseOptions, SystemKind};

use super::support::{fam, text};

const FCS: SystemId = 0;
const BEAM4: SystemId = 1;
const GUNNER_BEAM: SystemId = 2;
const FIELD: SystemId = 3;
const HEAVY_GRASER: SystemId = 2;
const GRASER: SystemId = 3;

/// A gunner with a class-4 beam, and a mirror ship with a Fire Control, a
/// class-2 beam and a reflex field; no armour, rows of 20 hull boxes (no
/// Volley here completes a row, so no threshold die is rolled).
const SHIPS: &str = "Profile: FB1\n\n\
    Ship: Gunner\nMass: 100\nThrust-Rating: 4\n\
    Damage-Track: OOOOOOOOOOOOOOOOOOOO OOOOOOOOOOOOOOOOOOOO OOOOOOOOOOOOOOOOOOOO OOOOOOOOOOOOOOOOOOOO\n\n\
    System: FCS\n\n\
    System: Class 4 Battery\nFiring-Arc: F\n\n\
    System: Class 2 Heavy Graser\nFiring-Arc: F\n\n\
    System: Class 2 Graser\nFiring-Arc: F\n\n\
    Ship: Mirror\nMass: 100\nThrust-Rating: 4\n\
    Damage-Track: OOOOOOOOOOOOOOOOOOOO OOOOOOOOOOOOOOOOOOOO OOOOOOOOOOOOOOOOOOOO OOOOOOOOOOOOOOOOOOOO\n\n\
    System: FCS\n\n\
    System: Class 2 Battery\nFiring-Arc: F\n\n\
    System: Class 2 Battery\nFiring-Arc: F\n\n\
    System: Reflex Field\n";

fn battle() -> Battle {
    let parsed = gzf::parse(SHIPS, &ParseOptions::default());
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    let file = parsed.file;
    let gunner = Unit::from_ship(file.ship("Gunner").unwrap(), file.profile, 0, 0);
    let mirror = Unit::from_ship(file.ship("Mirror").unwrap(), file.profile, 1, 1);
    assert_eq!(gunner.systems[BEAM4].kind, SystemKind::Beam { class: 4 });
    assert_eq!(mirror.systems[FIELD].kind, SystemKind::ReflexField);
    Battle {
        sides: vec![Side { name: "A".into() }, Side { name: "B".into() }],
        formations: vec![
            Formation {
                name: "G".into(),
                side: 0,
                units: vec![0],
                reserve: Default::default(),
            },
            Formation {
                name: "M".into(),
                side: 1,
                units: vec![1],
                reserve: Default::default(),
            },
        ],
        units: vec![gunner, mirror],
        ranges: RangeTable::new(2, 6),
        rules: Rules::default(),
    }
}

/// The gunner fires its class-4 beam at the mirror; the mirror raises its
/// field when `raised` and is plotted to fire its own beam back.
fn plot(raised: bool) -> ExchangePlot {
    plot_with(&[BEAM4], raised)
}

/// As [`plot`], the gunner firing `weapons`.
fn plot_with(weapons: &[SystemId], raised: bool) -> ExchangePlot {
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
    let mirror = VolleyPlot {
        fire: vec![FireOrder {
            unit: 1,
            fire_control: FCS,
            target: Some(0),
            weapons: vec![GUNNER_BEAM],
            needles: Vec::new(),
            group: None,
        }],
        reflex: if raised { vec![1] } else { Vec::new() },
        ..VolleyPlot::default()
    };
    ExchangePlot {
        formations: vec![
            Some(FormationPlot {
                volleys: [fire.clone(), fire.clone(), fire],
            }),
            Some(FormationPlot {
                volleys: [mirror.clone(), mirror.clone(), mirror],
            }),
        ],
    }
}

/// The reading's table, written out here: (through, reflected) of a hit of
/// `points` on a reflex die of `face`.
fn by_hand(face: u8, points: u32) -> (u32, u32) {
    let half = points / 2 + points % 2;
    match face {
        1 => (points, 0),
        2 => (half, 0),
        3 | 4 => (0, 0),
        5 => (0, half),
        _ => (0, points),
    }
}

/// Beam faces for a class-4 shot of `points` points unscreened (5 scores
/// one, 1 none; no 6, so no reroll).
fn beam_faces(points: u32) -> Vec<u8> {
    (0..4).map(|i| if i < points { 5 } else { 1 }).collect()
}

/// Hull boxes (gunner, mirror) lost after the first Volley of a class-4
/// shot of `points` points with the reflex die `face`.
fn one_hit(points: u32, face: u8) -> ((u32, u32), Recorder) {
    let mut b = battle();
    // Targeting die 50 (the mirror is the only Unit), the four beam dice,
    // then the reflex die. The mirror's own fire order is idle: no dice.
    let mut faces = vec![50];
    faces.extend(beam_faces(points));
    faces.push(face);
    let rec = scripted(&mut b, &plot(true), &faces);
    ((b.units[0].hull_lost, b.units[1].hull_lost), rec)
}

/// A raised field against one 3-point beam hit: every face of the reflex
/// die does what the table says, on the mirror and back on the gunner.
#[test]
fn each_reflex_face_lets_through_or_reflects_what_the_table_says() {
    for face in 1..=6u8 {
        let ((gunner, mirror), rec) = one_hit(3, face);
        let (through, reflected) = by_hand(face, 3);
        assert_eq!(mirror, through, "face {face}");
        assert_eq!(gunner, reflected, "face {face}");
        let event = rec.events_of::<Reflex>().next().map(
            |Reflex {
                 unit,
                 firer,
                 face,
                 points,
                 through,
                 reflected,
                 ..
             }| (*unit, *firer, *face, *points, *through, *reflected),
        );
        assert_eq!(event, Some((1, 0, face, 3, through, reflected)), "face {face}");
        assert!(
            rec.events_of::<ReflexRaised>()
                .any(|e| matches!(e, ReflexRaised { unit: 1 }))
        );
    }
    // Spelled out for the 3-point hit: 3, 2, 0, 0, 0 (2 back), 0 (3 back).
    assert_eq!(one_hit(3, 2).0, (0, 2));
    assert_eq!(one_hit(3, 5).0, (2, 0));
    assert_eq!(one_hit(3, 6).0, (3, 0));
}

/// The expected damage through a raised field from a hit of N points,
/// enumerated over the reflex die in the engine, matches (N + ⌈N/2⌉)/6,
/// and the expected reflected damage (⌈N/2⌉ + N)/6: the field stops
/// 1 − (1 + 1/2)/6 = 3/4 of an even hit.
#[test]
fn expected_damage_through_the_field_matches_the_enumeration() {
    for points in 1..=4u32 {
        let (mut through, mut reflected) = (0.0, 0.0);
        for face in 1..=6u8 {
            let ((gunner, mirror), _) = one_hit(points, face);
            through += f64::from(mirror) / 6.0;
            reflected += f64::from(gunner) / 6.0;
        }
        let half = f64::from(points.div_ceil(2));
        let n = f64::from(points);
        assert_abs_diff_eq!(through, (n + half) / 6.0, epsilon = 1e-12);
        assert_abs_diff_eq!(reflected, (half + n) / 6.0, epsilon = 1e-12);
        if points % 2 == 0 {
            assert_abs_diff_eq!(1.0 - through / n, 0.75, epsilon = 1e-12);
        }
    }
}

/// A ship with its field down takes the hit in full and rolls no reflex
/// die; with it raised, it does not fire its own beam.
#[test]
fn a_lowered_field_rolls_nothing_and_a_raised_one_keeps_the_ship_from_firing() {
    let mut b = battle();
    // Field down: targeting, 4 beam dice (3 points); the mirror fires back:
    // targeting, 2 beam dice 1, 1 (nothing).
    let mut faces = vec![50];
    faces.extend(beam_faces(3));
    faces.extend([50, 1, 1]);
    let rec = scripted(&mut b, &plot(false), &faces);
    assert_eq!(b.units[1].hull_lost, 3);
    assert!(!rec.events_of::<Reflex>().any(|e| matches!(e, Reflex { .. })));
    let (_, rec) = one_hit(3, 3);
    assert!(rec.events_of::<FireControlIdle>().any(|e| matches!(
        e,
        FireControlIdle {
            unit: 1,
            reason: "its reflex field is raised",
            ..
        }
    )));
}

/// Grasers go through the field shot by shot: a heavy graser's 10 points
/// (two beam dice 6 and 4: three hits of 1d6, 3 + 5 + 2) and a light
/// graser's 5 SAP points (dice 4 and 5: two hits of 1d3, read off d6
/// faces 4 and 6 as 2 + 3) are cut
/// or reflected as the table says for each face.
#[test]
fn graser_shots_meet_the_field_as_one_hit_each() {
    for face in 1..=6u8 {
        let mut b = battle();
        let faces = [50, 6, 4, 3, 5, 2, face];
        scripted(&mut b, &plot_with(&[HEAVY_GRASER], true), &faces);
        let (through, reflected) = by_hand(face, 10);
        assert_eq!(
            (b.units[0].hull_lost, b.units[1].hull_lost),
            (reflected, through),
            "heavy, face {face}"
        );

        let mut b = battle();
        let faces = [50, 4, 5, 4, 6, face];
        scripted(&mut b, &plot_with(&[GRASER], true), &faces);
        let (through, reflected) = by_hand(face, 5);
        assert_eq!(
            (b.units[0].hull_lost, b.units[1].hull_lost),
            (reflected, through),
            "light, face {face}"
        );
    }
}

// ---- orders ----------------------------------------------------------------------

fn scenario(dir: &std::path::Path, extra: &str) -> std::path::PathBuf {
    std::fs::write(dir.join("ships.gzf"), SHIPS).unwrap();
    let path = dir.join("s.toml");
    std::fs::write(
        &path,
        format!(
            "title = \"Reflex\"\ngzf = [\"ships.gzf\"]\nseed = 5\n\n[sides]\nA = [\"G\"]\nB = [\"M\"]\n\n\
             [formations]\nG = [\"Gunner\"]\nM = [\"Mirror\"]\n\n\
             [[range]]\nbetween = [\"G\", \"M\"]\nmu = 20\n\n[victory]\nmax_exchanges = 4\n{extra}"
        ),
    )
    .unwrap();
    path
}

/// `reflex = ["Mirror"]` is taken alone; with a fire order or a `pd` entry
/// for the Mirror in the same Volley, each is refused at its line and
/// column; a ship with no field cannot raise one.
#[test]
fn orders_refuse_fire_from_a_ship_behind_its_raised_field() {
    let dir = tempfile::tempdir().unwrap();
    let head = "\n[[plot.M.volley]]\nspeed = 4\nevasion = 0\nprimary = { close = \"G\" }\n";
    let ok = scenario(dir.path(), &format!("{head}reflex = [\"Mirror\"]\n"));
    let out = fam(&["check", ok.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    // Where a line of the scenario starts with `what`: its 1-based number.
    let line_of = |path: &std::path::Path, what: &str| {
        let text = std::fs::read_to_string(path).unwrap();
        1 + text.lines().position(|l| l.starts_with(what)).unwrap()
    };
    let fire =
        format!("{head}fire = [{{ unit = \"Mirror\", target = \"G\", weapons = [1] }}]\nreflex = [\"Mirror\"]\n");
    let bad = scenario(dir.path(), &fire);
    let (at, raised) = (line_of(&bad, "fire = "), line_of(&bad, "reflex = "));
    let out = fam(&["check", bad.to_str().unwrap()]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    // `"Mirror"` after `fire = [{ unit = ` (17 characters): column 18.
    assert!(
        err.contains(&format!("s.toml:{at}:18"))
            && err.contains(&format!(
                "`Mirror` raises its reflex field in this Volley (line {raised})"
            )),
        "{err}"
    );

    let pd = format!("{head}pd = [{{ unit = \"Mirror\", weapons = [1] }}]\nreflex = [\"Mirror\"]\n");
    let bad = scenario(dir.path(), &pd);
    let at = line_of(&bad, "pd = ");
    let out = fam(&["check", bad.to_str().unwrap()]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    // `"Mirror"` after `pd = [{ unit = ` (15 characters): column 16.
    assert!(
        err.contains(&format!("s.toml:{at}:16")) && err.contains("may not fire, point defence included"),
        "{err}"
    );

    let gunner = "\n[[plot.G.volley]]\nspeed = 4\nevasion = 0\nprimary = { close = \"M\" }\nreflex = [\"Gunner\"]\n";
    let bad = scenario(dir.path(), gunner);
    let at = line_of(&bad, "reflex = ");
    let out = fam(&["check", bad.to_str().unwrap()]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    // `"Gunner"` after `reflex = [` (10 characters): column 11.
    assert!(
        err.contains(&format!("s.toml:{at}:11")) && err.contains("`Gunner` carries no reflex field"),
        "{err}"
    );
}

/// The default commander raises the Mirror's field while its beams cannot
/// reach (the gunner's class-4 beam outranges its class-2s at 40 MU), and
/// the report names the field and each reflex roll. Two Exchanges: the
/// default doctrine plays from the first (no plot in the scenario).
#[test]
fn the_default_commander_raises_the_field_out_of_reach_and_the_report_names_the_rolls() {
    let dir = tempfile::tempdir().unwrap();
    let path = scenario(dir.path(), "");
    let text_of = std::fs::read_to_string(&path).unwrap().replace("mu = 20", "mu = 40");
    std::fs::write(&path, text_of).unwrap();
    let out = fam(&["resolve", path.to_str().unwrap(), "--exchanges", "2", "--detail"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    assert!(
        report.contains("Mirror raises its reflex field (it does not fire)"),
        "{report}"
    );
    assert!(
        report.contains("Mirror's reflex field against Gunner's Class 4 Battery #2"),
        "{report}"
    );
    assert!(report.contains("readings W60-W61"), "{report}");
    // The doctrine line says so too.
    assert!(
        report.contains("reflex fields raised where nothing would fire, in"),
        "{report}"
    );
    // The orders template the next turn gets raises it too, and passes the checks.
    let out_dir = dir.path().join("out");
    let out = fam(&["resolve", path.to_str().unwrap(), "--out", out_dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let orders = out_dir.join("orders-B.toml");
    assert!(
        std::fs::read_to_string(&orders)
            .unwrap()
            .contains("reflex = [\"Mirror\"]")
    );
    let scenario = out_dir.join("scenario.toml");
    let out = fam(&["check", scenario.to_str().unwrap(), orders.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}
