//! High-intensity grasers (ft-rules §4.6 "HiG rerolls"; readings W58): a
//! heavy graser whose natural 6s reroll. Dice by 18 MU band, the reroll
//! chain and its penetrating hits of 1d6 face by face, the exact damage
//! distribution, the records and FTJava elements that carry them.
//!
//! Every expected value is worked out here from the reading, never copied
//! from a run; statistical checks use fixed seeds and a bound of five
//! standard errors from the exact variance.

use crate::support::{checked, scripted};
use std::collections::BTreeMap;

use approx::{abs_diff_eq, assert_abs_diff_eq};

use fam::diag::SourceFile;
use fam::engine::dice::Dice;
use fam::engine::doctrine::assess::{Arsenal, DieTables, sustained};
use fam::engine::event::{GraserAttack, Recorder};
use fam::engine::plot::{ExchangePlot, FireOrder, FormationPlot, SystemId, VolleyPlot};
use fam::engine::rules::Rules;
use fam::engine::state::{Battle, Formation, RangeTable, Side, Unit};
use fam::engine::volley::{Scratch, run_volley};
use fam::ftjava::{self, Options};
use fam::gzf::{self, ParseOptions, SystemKind};

const FCS: SystemId = 0;
const HIG2: SystemId = 1;
const HEAVY2: SystemId = 2;
const HIG3: SystemId = 3;

/// The gunner, and targets with 4 armour boxes and four rows of 15 hull
/// boxes (no Volley here completes a row): unscreened and level 2.
const SHIPS: &str = "Profile: FB1\n\n\
    Ship: Gunner\nMass: 60\nThrust-Rating: 4\n\
    Damage-Track: OOOOOOOOOO OOOOOOOOOO OOOOOOOOOO\n\n\
    System: FCS\n\n\
    System: Class 2 High Intensity Graser\nFiring-Arc: F\n\n\
    System: Class 2 Heavy Graser\nFiring-Arc: F\n\n\
    System: class 3 high  intensity GRASER\nFiring-Arc: F\n\n\
    Ship: Plain\nMass: 100\nThrust-Rating: 4\nArmour: O O O O\n\
    Damage-Track: OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO\n\n\
    Ship: Screened\nMass: 100\nThrust-Rating: 4\nArmour: O O O O\n\
    Damage-Track: OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO OOOOOOOOOOOOOOO\n\n\
    System: Screen Generator\n\nSystem: Screen Generator\n";

fn battle(range: u32, other: &str) -> Battle {
    let parsed = gzf::parse(SHIPS, &ParseOptions::default());
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    let file = parsed.file;
    let gunner = Unit::from_ship(file.ship("Gunner").unwrap(), file.profile, 0, 0);
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
        units: vec![gunner, target],
        ranges: RangeTable::new(2, range),
        rules: Rules::default(),
    }
}

/// The gunner fires `weapons` at the target in every Volley; the target rolls
/// `evasion` Evasion dice.
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

fn lost(b: &Battle) -> (u32, u32) {
    (b.units[1].armour_lost, b.units[1].hull_lost)
}

/// (dice, initial hits, reroll hits) of the recorded graser attack.
fn graser(rec: &Recorder) -> Option<(u32, Vec<u32>, Vec<u32>)> {
    rec.events_of::<GraserAttack>().next().map(
        |GraserAttack {
             dice,
             hits,
             reroll_hits,
             ..
         }| (*dice, hits.clone(), reroll_hits.clone()),
    )
}

/// The beam table (ft-rules §1.2) behind a screen of `level`.
fn beam_points(face: u8, level: u8) -> u32 {
    match (face, level) {
        (6, 2) => 1,
        (6, _) => 2,
        (5, _) => 1,
        (4, 0) => 1,
        _ => 0,
    }
}

type Dist = BTreeMap<u32, f64>;

fn convolve(a: &Dist, b: &Dist) -> Dist {
    let mut out = Dist::new();
    for (x, p) in a {
        for (y, q) in b {
            *out.entry(x + y).or_default() += p * q;
        }
    }
    out
}

fn point(x: u32) -> Dist {
    Dist::from([(x, 1.0)])
}

/// Damage of `hits` hits of 1d6 each.
fn d6_hits(hits: u32) -> Dist {
    let one: Dist = (1..=6).map(|d| (d, 1.0 / 6.0)).collect();
    (0..hits).fold(point(0), |acc, _| convolve(&acc, &one))
}

/// Damage of a reroll chain (unscreened, a 6 rolling again), to `depth`.
fn chain(depth: u32) -> Dist {
    let mut out = Dist::new();
    for face in 1..=6u8 {
        let mut d = d6_hits(beam_points(face, 0));
        if face == 6 && depth > 0 {
            d = convolve(&d, &chain(depth - 1));
        }
        for (x, p) in d {
            *out.entry(x).or_default() += p / 6.0;
        }
    }
    out
}

/// Damage of `n` high-intensity graser dice behind `level` (no DRM).
fn hig(n: u32, level: u8) -> Dist {
    let rerolls = chain(8);
    let mut one = Dist::new();
    for face in 1..=6u8 {
        let mut d = d6_hits(beam_points(face, level));
        if face == 6 {
            d = convolve(&d, &rerolls);
        }
        for (x, p) in d {
            *one.entry(x).or_default() += p / 6.0;
        }
    }
    (0..n).fold(point(0), |acc, _| convolve(&acc, &one))
}

fn mean_var(d: &Dist) -> (f64, f64) {
    let mean: f64 = d.iter().map(|(x, p)| f64::from(*x) * p).sum();
    let var = d.iter().map(|(x, p)| (f64::from(*x) - mean).powi(2) * p).sum();
    (mean, var)
}

/// A class-2 high-intensity graser at 12 MU rolls 6 and 4: three hits of
/// 1d6 normal damage; the 6 rerolls (6: two penetrating hits, and its own
/// reroll 2: none). The damage dice come after all beam dice, the initial
/// hits' first. A heavy graser on the same 6 and 4 draws no reroll.
#[test]
fn a_high_intensity_graser_rerolls_its_sixes_into_penetrating_d6_hits() {
    let mut b = battle(12, "Plain");
    let rec = scripted(&mut b, &plot(&[HIG2], 0), &[50, 6, 4, 6, 2, 3, 5, 2, 6, 1]);
    assert_eq!(graser(&rec), Some((2, vec![3, 5, 2], vec![6, 1])));
    // 10 normal: 4 to the armour, 6 to the hull; 7 penetrating to the hull.
    assert_eq!(lost(&b), (4, 13));
    let mut b = battle(12, "Plain");
    let rec = scripted(&mut b, &plot(&[HEAVY2], 0), &[50, 6, 4, 3, 5, 2]);
    assert_eq!(graser(&rec), Some((2, vec![3, 5, 2], vec![])));
    assert_eq!(lost(&b), (4, 6));
}

/// Dice by 18 MU band as a heavy graser's: class 2 rolls 2 to 18 MU, 1 to
/// 36, none beyond (nothing rolled but the target die).
#[test]
fn high_intensity_graser_dice_fall_off_by_eighteen_mu_band() {
    for (range, dice) in [(0u32, 2u32), (18, 2), (19, 1), (36, 1), (37, 0)] {
        let mut b = battle(range, "Plain");
        let mut faces = vec![50];
        faces.extend(std::iter::repeat_n(1, dice as usize));
        let rec = scripted(&mut b, &plot(&[HIG2], 0), &faces);
        assert_eq!(graser(&rec).map_or(0, |g| g.0), dice, "{range} MU");
    }
}

/// Sampled damage of a class-3 high-intensity graser at 18 MU behind a
/// level-2 screen matches the exact distribution (screened initial dice,
/// unscreened reroll chains, 1d6 a point), and so does the default
/// commander's estimate; unscreened a die is worth 0.8 · 3.5 = 2.8
/// against a heavy graser's 2/3 · 3.5.
#[test]
fn high_intensity_graser_damage_matches_the_exact_distribution() {
    const N: u64 = 20_000;
    let exact = hig(3, 2);
    let (mean, var) = mean_var(&exact);
    let start = battle(18, "Screened");
    let p = checked(&start, &plot(&[HIG3], 0));
    let mut dice = Dice::new(0x4849);
    let mut scratch = Scratch::default();
    let mut b = start.clone();
    let mut sum = 0u64;
    for _ in 0..N {
        b.reset_to(&start);
        run_volley(&mut b, &p, 0, &mut dice, &mut (), &mut scratch);
        sum += u64::from(b.units[1].armour_lost + b.units[1].hull_lost);
    }
    let sample = sum as f64 / N as f64;
    let bound = 5.0 * var.sqrt() / (N as f64).sqrt();
    assert!(
        abs_diff_eq!(sample, mean, epsilon = bound),
        "sample {sample:.4}, exact {mean:.4}, bound {bound:.4}"
    );
    // The commander's estimate for the one weapon: a gunner carrying only
    // the class-3 array.
    let mut only = start.clone();
    only.units[0].systems.truncate(1);
    only.units[0].systems.push(start.units[0].systems[HIG3].clone());
    let tables = DieTables::new();
    let (a, t) = (Arsenal::of(&only, 0), Arsenal::of(&only, 1));
    assert_abs_diff_eq!(sustained(&tables, &a, &t, 18, 0), mean, epsilon = 1e-6);
    assert_abs_diff_eq!(mean_var(&hig(1, 0)).0, 2.8, epsilon = 1e-6);
}

/// The record name reads in any case and writes back canonically;
/// FTJava's `HighIntensityGraser` imports as one
/// (no longer inert) and exports back under its name with its rating.
#[test]
fn high_intensity_graser_records_and_ftjava_elements_round_trip() {
    let parsed = gzf::parse(SHIPS, &ParseOptions::default());
    let gunner = parsed.file.ship("Gunner").unwrap();
    assert_eq!(gunner.systems[HIG3].kind, SystemKind::HighIntensityGraser { class: 3 });
    let written = gzf::write(&parsed.file);
    assert!(
        written.contains("System:           Class 3 High Intensity Graser\n"),
        "{written}"
    );
    assert_eq!(gzf::parse(&written, &ParseOptions::default()).file, parsed.file);
    let xml = "<Ship><Name>Hot</Name><Mass>40</Mass><MainDrive initialThrust=\"4\"/>\
        <Hull totalHullBoxes=\"12\" type=\"Custom\" value=\"12\"/><Weapons>\
        <HighIntensityGraser rating=\"2\" arcs=\"(F)\"/></Weapons></Ship>";
    let source = SourceFile::new("hot.xml", xml);
    let imported = ftjava::import(&source, &Options::default());
    assert!(
        !imported.diagnostics.iter().any(|d| d.is_error()),
        "{:?}",
        imported.diagnostics
    );
    assert_eq!(imported.inert, 0);
    let ship = imported.gzf.ship("Hot").unwrap();
    let weapon = ship.systems.iter().find(|s| s.kind.is_weapon()).unwrap();
    assert_eq!(weapon.kind, SystemKind::HighIntensityGraser { class: 2 });
    let text = gzf::write(&imported.gzf);
    let parsed = gzf::parse(&text, &ParseOptions::default());
    let request = ftjava::export::Request {
        text: &text,
        file: &parsed.file,
        spans: &parsed.spans,
        ship: None,
        title: "hot",
        skip_unmapped: false,
    };
    let exported = ftjava::export::export(&request);
    assert!(
        !exported.diagnostics.iter().any(|d| d.is_error()),
        "{:?}",
        exported.diagnostics
    );
    assert!(
        exported.xml.contains("<HighIntensityGraser id=\"2\" rating=\"2\""),
        "{}",
        exported.xml
    );
    let back = ftjava::import(&SourceFile::new("back.xml", exported.xml.as_str()), &Options::default());
    assert_eq!(back.gzf, imported.gzf);
}
